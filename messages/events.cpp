#include "messages/events.hpp"

#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "messages/payload_scan.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>
#include <unordered_map>

namespace det {

using nlohmann::json;

namespace {

// -- payload forms
// -------------------------------------------------------------
//
// Each event's fields() (messages/event_definition.hpp) drives writing
// (payload_writer), reading (payload_reader) and visiting (field_walker).

struct payload_writer {
  json& out;
  template <class T> void req(const char* key, const T& value) {
    out[key] = encode_value(value);
  }
  template <class T> void opt(const char* key, const T& value) {
    out[key] = encode_value(value);
  }
  template <class T> static json encode_value(const T& value) {
    return json(value);
  }
  static json encode_value(const std::vector<slot_assignment>& xs) {
    json out = json::array();
    for (const auto& a : xs)
      out.push_back({{"agent_id", a.agent_id}, {"slots", a.slots}});
    return out;
  }
};

struct payload_reader {
  const json& in;
  template <class T> void req(const char* key, T& value) {
    value = get_field<T>(in, key);
  }
  template <class T> void opt(const char* key, T& value) {
    value = get_field_or<T>(in, key, value);
  }
  void req(const char* key, std::vector<slot_assignment>& xs) {
    auto list = get_field<json>(in, key);
    if (!list.is_array())
      throw field_error(std::string{"field '"} + key + "': expected a list");
    for (const auto& a : list) {
      require_object(a, "field 'assignments[]'");
      xs.push_back({get_field<std::string>(a, "agent_id"),
                    get_field<std::vector<int64_t>>(a, "slots")});
    }
  }
};

struct field_walker {
  const event_field_visitor& v;
  template <class T> void req(const char* key, T& value) { walk(key, value); }
  template <class T> void opt(const char* key, T& value) { walk(key, value); }
  void walk(const char* key, std::string& value) {
    if (v.text)
      v.text(key, value);
  }
  void walk(const char* key, json& value) {
    if (v.document)
      v.document(key, value);
  }
  void walk(const char* key, double& value) {
    if (v.number)
      v.number(key, value);
  }
  void walk(const char* key, std::vector<std::string>& xs) {
    for (auto& x : xs)
      walk(key, x);
  }
  void walk(const char*, std::vector<slot_assignment>& xs) {
    for (auto& a : xs)
      walk("assignments[].agent_id", a.agent_id);
  }
  template <class T> void walk(const char*, T&) {}
};

// Reads the fields from a payload's members as raw text
// (messages/payload_scan.hpp); `ok` turns false at the first field it
// does not take, and the tree decoder then decodes the payload instead.
struct scan_reader {
  payload_scan::members& in;
  bool ok = true;
  template <class T> void req(const char* key, T& value) {
    if (!ok)
      return;
    auto* m = in.take(key);
    ok = m != nullptr && payload_scan::read(m->value, value);
  }
  template <class T> void opt(const char* key, T& value) {
    if (!ok)
      return;
    auto* m = in.take(key);
    if (m != nullptr && !payload_scan::is_null(m->value))
      ok = payload_scan::read(m->value, value);
  }
  void req(const char* key, std::vector<slot_assignment>& xs) {
    auto* m = ok ? in.take(key) : nullptr;
    std::vector<std::string_view> items;
    if (m == nullptr || !payload_scan::split_array(m->value, items)) {
      ok = false;
      return;
    }
    for (auto item : items) {
      payload_scan::members a;
      slot_assignment x;
      auto* id =
          payload_scan::split_object(item, a) ? a.take("agent_id") : nullptr;
      auto* slots = id != nullptr ? a.take("slots") : nullptr;
      if (slots == nullptr || !a.all_used()
          || !payload_scan::read(id->value, x.agent_id)
          || !payload_scan::read(slots->value, x.slots)) {
        ok = false;
        return;
      }
      xs.push_back(std::move(x));
    }
  }
};

template <class T> json write_payload(const T& x) {
  json out = json::object();
  payload_writer w{out};
  // The writer only reads the fields; fields() takes them mutable so one
  // list serves every direction.
  const_cast<T&>(x).fields(w);
  return out;
}

/// validate() is optional: most payloads need no more than their field types.
template <class T, class = void> struct has_validate : std::false_type {};
template <class T>
struct has_validate<T,
                    std::void_t<decltype(std::declval<const T&>().validate())>>
    : std::true_type {};

template <class T> void check_payload(const T& x) {
  if constexpr (has_validate<T>::value)
    x.validate();
}

// -- upcasters: upcasters[type][i] lifts version i+1 to i+2 -----------------

using upcaster = std::function<json(json)>;

const std::unordered_map<std::string, std::vector<upcaster>>& upcasters() {
  static const std::unordered_map<std::string, std::vector<upcaster>> table{
      {"agent_connected",
       {// v1 -> v2: "resource_pool" became "pool"; slot_type added (v1
        // agents only ever reported CPU slots).
        [](json j) {
          if (j.contains("resource_pool")) {
            j["pool"] = j["resource_pool"];
            j.erase("resource_pool");
          }
          if (!j.contains("slot_type"))
            j["slot_type"] = "cpu";
          return j;
        }}},
  };
  return table;
}

// -- the decoder table, built from domain_event's alternatives --------------

struct type_entry {
  int32_t version;
  domain_event (*decode)(const json&);
  /// Without the tree; false when it does not take the payload.
  bool (*scan)(std::string_view, domain_event&);
};

template <class T> domain_event decode_as(const json& j) {
  T x;
  payload_reader r{j};
  x.fields(r);
  check_payload(x);
  return x;
}

template <class T> bool scan_as(std::string_view text, domain_event& out) {
  payload_scan::members m;
  if (!payload_scan::split_object(text, m))
    return false;
  T x;
  scan_reader r{m};
  x.fields(r);
  if (!r.ok || !m.all_used())
    return false;
  try {
    check_payload(x);
  } catch (const field_error&) {
    return false; // the tree decoder says why
  } catch (const json::exception&) {
    return false;
  }
  out = std::move(x);
  return true;
}

template <size_t... Is>
std::unordered_map<std::string, type_entry>
make_table(std::index_sequence<Is...>) {
  std::unordered_map<std::string, type_entry> out;
  (out.emplace(
       std::variant_alternative_t<Is, domain_event>::type_name,
       type_entry{std::variant_alternative_t<Is, domain_event>::version,
                  &decode_as<std::variant_alternative_t<Is, domain_event>>,
                  &scan_as<std::variant_alternative_t<Is, domain_event>>}),
   ...);
  return out;
}

const std::unordered_map<std::string, type_entry>& table() {
  static const auto t =
      make_table(std::make_index_sequence<std::variant_size_v<domain_event>>{});
  return t;
}

// `where` names the event in errors; built only when one occurs. `parsed`,
// when not null, is the payload already parsed. A payload at the current
// version is first read without a tree (`scan`), when it can be.
template <class Where>
caf::expected<domain_event>
decode_impl(const event_envelope& env, const Where& where,
            const json* parsed = nullptr, bool scan = true) {
  auto i = table().find(env.type);
  if (i == table().end())
    return make_error(errc::unknown_event_type,
                      where() + ": unknown event type '" + env.type + "'");
  auto fail = [&](const std::string& why) {
    return make_error(errc::invalid_event,
                      where() + ": " + env.type + " v"
                          + std::to_string(env.schema_version) + ": " + why);
  };
  if (env.schema_version < 1 || env.schema_version > i->second.version)
    return fail("schema version not supported (this binary knows 1.."
                + std::to_string(i->second.version) + ")");
  bool unparsed = parsed == nullptr || parsed->is_null();
  if (scan && unparsed && env.schema_version == i->second.version) {
    domain_event out;
    if (i->second.scan(env.payload, out))
      return out;
  }
  json local;
  if (unparsed) {
    try {
      local = json::parse(env.payload);
    } catch (const json::exception& e) {
      return fail(std::string{"payload is not valid JSON: "} + e.what());
    }
    parsed = &local;
  }
  if (!parsed->is_object())
    return fail(std::string{"payload must be an object, got "}
                + parsed->type_name());
  try {
    if (env.schema_version < i->second.version) {
      auto up = upcast(env.type, env.schema_version, *parsed);
      if (!up)
        return fail(render(up.error()));
      return i->second.decode(*up);
    }
    return i->second.decode(*parsed);
  } catch (const field_error& e) {
    return fail(e.what());
  } catch (const json::exception& e) {
    return fail(e.what());
  }
}

} // namespace

const char* type_name_of(const domain_event& ev) {
  return std::visit([](const auto& x) { return x.type_name; }, ev);
}

std::string stream_of(const domain_event& ev) {
  return std::visit([](const auto& x) { return x.stream(); }, ev);
}

event_envelope to_envelope(const domain_event& ev) {
  return std::visit(
      [](const auto& x) {
        return event_envelope{x.type_name, x.version, write_payload(x).dump()};
      },
      ev);
}

new_event to_new_event(const domain_event& ev) {
  return new_event{stream_of(ev), to_envelope(ev)};
}

caf::expected<domain_event> decode(const recorded_event& rec) {
  auto where = [&rec] {
    return "event at position " + std::to_string(rec.position) + " (stream "
           + rec.stream + ")";
  };
  return decode_impl(rec.body, where, &rec.parsed);
}

caf::expected<domain_event> decode(const event_envelope& env,
                                   const std::string& where) {
  return decode_impl(env, [&where] { return where; });
}

caf::expected<domain_event> decode_with_tree(const recorded_event& rec) {
  auto where = [&rec] {
    return "event at position " + std::to_string(rec.position) + " (stream "
           + rec.stream + ")";
  };
  return decode_impl(rec.body, where, &rec.parsed, false);
}

std::optional<domain_event> decode_without_tree(const event_envelope& env) {
  auto i = table().find(env.type);
  domain_event out;
  if (i == table().end() || env.schema_version != i->second.version
      || !i->second.scan(env.payload, out))
    return std::nullopt;
  return out;
}

caf::error validate(const domain_event& ev) {
  try {
    std::visit([](const auto& x) { check_payload(x); }, ev);
  } catch (const field_error& e) {
    return make_error(errc::invalid_event,
                      std::string{type_name_of(ev)} + ": " + e.what());
  }
  return {};
}

void visit_fields(domain_event& ev, const event_field_visitor& v) {
  std::visit(
      [&](auto& x) {
        field_walker w{v};
        x.fields(w);
      },
      ev);
}

namespace {

/// Free text (reasons, messages, a user's description and notes) may span
/// lines and be longer; every other text field is a name or an id, and
/// some are part of a stream's name.
util::text_rules storable_rules(std::string_view key) {
  if (key == "reason" || key == "message" || key == "line" || key == "pattern")
    return {4096, true, true};
  if (key == "description" || key == "comment")
    return {16 * 1024, true, true};
  if (key == "notes")
    return {64 * 1024, true, true};
  if (key == "url")
    return {2048, false, true};
  return {255, false, true};
}

} // namespace

void fit_prose(domain_event& ev) {
  event_field_visitor v;
  v.text = [](const char* key, std::string& value) {
    auto rules = storable_rules(key);
    if (rules.multiline && !util::text_problem(value, rules).empty())
      value = util::fit_text(value, rules);
  };
  visit_fields(ev, v);
}

caf::error storable(const domain_event& ev) {
  std::string why;
  event_field_visitor v;
  v.text = [&](const char* key, std::string& value) {
    if (why.empty())
      if (auto p = util::text_problem(value, storable_rules(key)); !p.empty())
        why = std::string{"field '"} + key + "' " + p;
  };
  v.document = [&](const char* key, json& value) {
    if (why.empty())
      why = json_problem(value, key);
  };
  v.number = [&](const char* key, double& value) {
    if (why.empty() && !std::isfinite(value))
      why = std::string{"field '"} + key + "' is not a finite number";
  };
  // The visitor only reads here.
  visit_fields(const_cast<domain_event&>(ev), v);
  if (!why.empty())
    return make_error(errc::invalid_argument,
                      std::string{type_name_of(ev)} + " " + why);
  return {};
}

caf::expected<json> upcast(const std::string& type, int32_t from_version,
                           json payload) {
  auto i = table().find(type);
  if (i == table().end())
    return make_error(errc::unknown_event_type,
                      "unknown event type '" + type + "'");
  const auto& ups = upcasters();
  auto u = ups.find(type);
  for (auto v = from_version; v < i->second.version; ++v) {
    if (u == ups.end() || static_cast<size_t>(v - 1) >= u->second.size())
      return make_error(errc::invalid_event, "no upcaster for " + type
                                                 + " from version "
                                                 + std::to_string(v));
    payload = u->second[static_cast<size_t>(v - 1)](std::move(payload));
  }
  return payload;
}

std::vector<std::pair<std::string, int32_t>> known_event_types() {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const auto& [name, entry] : table())
    out.emplace_back(name, entry.version);
  std::sort(out.begin(), out.end());
  return out;
}

bool operator==(const pool_configured& a, const pool_configured& b) {
  return write_payload(a) == write_payload(b);
}

} // namespace det
