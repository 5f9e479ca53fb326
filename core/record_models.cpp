// The model registry's deciders (`det model ...`, the SDK's
// register_version): models and their versions, decided on the state.

#include "core/record_models.hpp"

#include "core/record_args.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <algorithm>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;
using state::cluster_state;

model_saved to_event(const state::model_info& m) {
  return model_saved{m.id,       m.name,     m.description, m.workspace_id,
                     m.archived, m.metadata, m.labels,      m.notes,
                     {},         0};
}

model_version_saved to_event(int64_t model_id,
                             const state::model_version_info& v) {
  return model_version_saved{model_id,  v.version, v.checkpoint_uuid, v.name,
                             v.comment, v.notes,   v.metadata,        v.labels,
                             {},        0};
}

const state::model_info& model_or_refuse(const cluster_state& s,
                                         const std::string& name) {
  if (auto m = state::model_named(s, name))
    return *m;
  // The SDK names models by id as well ("model 3").
  if (!name.empty()
      && std::all_of(name.begin(), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; })
      && name.size() < 18) {
    auto i = s.models.find(std::stoll(name));
    if (i != s.models.end())
      return i->second;
  }
  refuse(errc::not_found, "model '" + name + "' not found");
}

int64_t model_workspace(const cluster_state& s, const model_fields& f,
                        int64_t fallback) {
  if (f.workspace_name) {
    auto w = state::workspace_named(s, *f.workspace_name);
    if (!w)
      refuse(errc::not_found,
             "workspace '" + *f.workspace_name + "' not found");
    return w->id;
  }
  auto id = f.workspace_id.value_or(fallback);
  if (!state::find_workspace(s, id))
    refuse(errc::not_found, "workspace " + std::to_string(id) + " not found");
  return id;
}

void apply_fields(const cluster_state& s, const model_fields& f,
                  state::model_info& m) {
  set_if(m.name, f.name);
  set_if(m.description, f.description);
  set_if(m.metadata, f.metadata);
  set_if(m.labels, f.labels);
  set_if(m.notes, f.notes);
  m.workspace_id = model_workspace(s, f, m.workspace_id);
}

void apply_fields(const version_fields& f, state::model_version_info& v) {
  set_if(v.name, f.name);
  set_if(v.comment, f.comment);
  set_if(v.notes, f.notes);
  set_if(v.metadata, f.metadata);
  set_if(v.labels, f.labels);
}

const state::model_version_info& version_or_refuse(const state::model_info& m,
                                                   int64_t n) {
  auto v = state::find_model_version(m, n);
  if (v == nullptr)
    refuse(errc::not_found, "version " + std::to_string(n) + " of model '"
                                + m.name + "' not found");
  return *v;
}

} // namespace

record_outcome decide_record(const cluster_state& s, const model_create& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    state::model_info m;
    apply_fields(s, c.fields, m);
    if (state::model_named(s, m.name) != nullptr)
      refuse(errc::conflict, "model '" + m.name + "' already exists");
    m.id = s.last_model_id + 1;
    o.events.push_back(stamped(to_event(m), c, now));
    o.reply = {{"id", m.id}};
  });
}

record_outcome decide_record(const cluster_state& s, const model_edit& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto m = model_or_refuse(s, c.model);
    auto before = m;
    apply_fields(s, c.fields, m);
    auto other = state::model_named(s, m.name);
    if (other != nullptr && other->id != m.id)
      refuse(errc::conflict, "model '" + m.name + "' already exists");
    o.reply = {{"id", m.id}};
    if (!(m == before))
      o.events.push_back(stamped(to_event(m), c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const model_archive& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto m = model_or_refuse(s, c.model);
    if (m.archived == c.archived)
      return;
    m.archived = c.archived;
    o.events.push_back(stamped(to_event(m), c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const model_delete& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    const auto& m = model_or_refuse(s, c.model);
    o.events.push_back(stamped(model_deleted{m.id, {}, 0}, c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const version_register& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    const auto& m = model_or_refuse(s, c.model);
    if (m.archived)
      refuse(errc::invalid_argument, "model '" + m.name + "' is archived");
    if (!state::checkpoint_exists(s, c.checkpoint_uuid))
      refuse(errc::not_found,
             "checkpoint '" + c.checkpoint_uuid + "' not found");
    state::model_version_info v;
    v.version = m.last_version + 1;
    v.checkpoint_uuid = c.checkpoint_uuid;
    apply_fields(c.fields, v);
    o.events.push_back(stamped(to_event(m.id, v), c, now));
    o.reply = {{"id", m.id}, {"version", v.version}};
  });
}

record_outcome decide_record(const cluster_state& s, const version_edit& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    const auto& m = model_or_refuse(s, c.model);
    auto v = version_or_refuse(m, c.version);
    auto before = v;
    apply_fields(c.fields, v);
    o.reply = {{"id", m.id}, {"version", v.version}};
    if (!(v == before))
      o.events.push_back(stamped(to_event(m.id, v), c, now));
  });
}

record_outcome decide_record(const cluster_state& s, const version_delete& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    const auto& m = model_or_refuse(s, c.model);
    const auto& v = version_or_refuse(m, c.version);
    o.events.push_back(
        stamped(model_version_deleted{m.id, v.version, {}, 0}, c, now));
  });
}

} // namespace det
