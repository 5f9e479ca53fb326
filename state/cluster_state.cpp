#include "state/cluster_state.hpp"

#include "messages/errc.hpp"
#include "state/apply_detail.hpp"

namespace det::state {

namespace detail {

std::string quote(const std::string& x) {
  return "'" + x + "'";
}

verdict apply_one(cluster_state& s, const master_started& ev) {
  if (ev.cluster_id.empty())
    return "cluster_id must not be empty";
  if (!s.cluster_id.empty() && s.cluster_id != ev.cluster_id)
    return "this log belongs to cluster " + quote(s.cluster_id) + ", not "
           + quote(ev.cluster_id);
  s.cluster_id = ev.cluster_id;
  ++s.masters_started;
  if (s.cluster_uuid.empty())
    s.cluster_uuid = ev.cluster_uuid;
  s.master_uuid = ev.master_uuid;
  return {};
}

verdict apply_one(cluster_state& s, const cluster_message_set& ev) {
  if (ev.message.empty()) {
    s.cluster_message = {};
    return {};
  }
  s.cluster_message = {ev.message, ev.start_us, ev.end_us, ev.username,
                       ev.at_us};
  return {};
}

} // namespace detail

std::string apply_account(cluster_state& s, const domain_event& ev) {
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::disjunction_v<std::is_same<T, user_created>,
                                         std::is_same<T, user_password_changed>,
                                         std::is_same<T, user_edited>,
                                         std::is_same<T, session_started>,
                                         std::is_same<T, session_ended>,
                                         std::is_same<T, access_token_created>,
                                         std::is_same<T, access_token_changed>>)
          return detail::apply_one(s, x);
        else
          return {};
      },
      ev);
}

namespace {

// Event is const domain_event& or domain_event&&: an event apply may take
// its documents from (detail::apply_one's overloads for rvalues).
template <class Event>
caf::error apply_event(cluster_state& s, const recorded_event& meta,
                       Event&& ev) {
  auto where = [&] {
    return "event at position " + std::to_string(meta.position) + " ("
           + type_name_of(ev) + ")";
  };
  if (meta.position != s.position + 1)
    return make_error(errc::invalid_event, where()
                                               + " does not follow position "
                                               + std::to_string(s.position));
  if (!meta.stream.empty() && meta.stream != stream_of(ev))
    return make_error(errc::invalid_event,
                      where() + " is in stream " + meta.stream
                          + ", but belongs to " + stream_of(ev));
  if (auto err = validate(ev))
    return make_error(errc::invalid_event, where() + ": " + render(err));
  detail::verdict why;
  try {
    why = std::visit(
        [&](auto&& x) {
          return detail::apply_one(s, std::forward<decltype(x)>(x));
        },
        std::forward<Event>(ev));
  } catch (const std::exception& e) {
    // Only a state that breaks its invariants gets here (apply_one checks
    // before it looks up); refuse rather than crash.
    why = std::string{"state is inconsistent: "} + e.what();
  }
  if (!why.empty())
    return make_error(errc::invalid_event, where() + ": " + why);
  s.position = meta.position;
  // The key's text is kept between events: most type names are longer
  // than a string holds without allocating.
  thread_local std::string type_key;
  type_key.assign(type_name_of(ev));
  ++s.applied_by_type[type_key];
  return {};
}

} // namespace

caf::error apply(cluster_state& s, const recorded_event& meta,
                 const domain_event& ev) {
  return apply_event(s, meta, ev);
}

caf::error apply(cluster_state& s, const recorded_event& meta,
                 domain_event&& ev) {
  return apply_event(s, meta, std::move(ev));
}

caf::error apply(cluster_state& s, const recorded_event& rec) {
  auto ev = decode(rec);
  if (!ev)
    return std::move(ev.error());
  return apply(s, rec, std::move(*ev));
}

} // namespace det::state
