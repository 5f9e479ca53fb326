// The Runs API's requests (api/run_requests.hpp): runIds, filter and
// project read from a body, and the candidate runs the state gives them.

#include "api/run_requests.hpp"

#include "api/run_rows.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"
#include "state/queries.hpp"

#include <set>
#include <string>
#include <utility>
#include <variant>

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::responder;

/// The most runs one action may name.
constexpr size_t max_run_ids = 1000;

} // namespace

bool refuse(const responder& res, const std::string& field,
            const std::string& why) {
  res.send_error(grpc_code::invalid_argument, field + ": " + why);
  return false;
}

bool id_field(const json& body, const char* key, bool required,
              const responder& res, int64_t& out) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) {
    out = 0;
    return !required || refuse(res, key, "required");
  }
  if (!it->is_number_integer() || it->get<int64_t>() < 1)
    return refuse(res, key, "expected a positive id");
  out = it->get<int64_t>();
  return true;
}

bool parse_filter(const json& body, const responder& res, run_request& r) {
  auto it = body.find("filter");
  if (it == body.end() || it->is_null())
    return true;
  if (!it->is_string())
    return refuse(res, "filter", "expected a JSON text");
  auto f = json::parse(it->get<std::string>(), nullptr, false);
  if (!f.is_object())
    return refuse(res, "filter", "not a JSON object");
  if (auto g = f.find("filterGroup"); g != f.end() && !g->is_null()) {
    auto parsed = read::run_filter::parse(*g);
    if (auto* bad = std::get_if<read::filter_error>(&parsed))
      return refuse(res, bad->field, bad->message);
    r.conditions = std::make_shared<const read::run_filter>(
        std::move(std::get<read::run_filter>(parsed)));
  }
  if (auto a = f.find("showArchived"); a != f.end() && !a->is_null()) {
    if (!a->is_boolean())
      return refuse(res, "filter.showArchived", "expected true or false");
    r.show_archived = a->get<bool>();
  }
  r.filtered = true;
  return true;
}

namespace {

/// The body's runIds, when given: at most max_run_ids positive ids, kept
/// once each in their order; false once a refusal is sent.
bool read_run_ids(const json& body, const responder& res, run_request& r) {
  auto ids = body.find("runIds");
  if (ids == body.end() || ids->is_null())
    return true;
  if (!ids->is_array())
    return refuse(res, "runIds", "expected a list of run ids");
  if (ids->size() > max_run_ids)
    return refuse(res, "runIds",
                  "at most " + std::to_string(max_run_ids) + " runs");
  std::set<int64_t> seen;
  for (size_t i = 0; i < ids->size(); ++i) {
    const auto& v = (*ids)[i];
    if (!v.is_number_integer() || v.get<int64_t>() < 1)
      return refuse(res, "runIds[" + std::to_string(i) + "]",
                    "expected a positive run id");
    if (seen.insert(v.get<int64_t>()).second)
      r.ids.push_back(v.get<int64_t>());
  }
  return true;
}

} // namespace

std::optional<run_request> parse_action(const std::optional<json>& body,
                                        const responder& res,
                                        const char* project_key) {
  if (!body)
    return std::nullopt;
  run_request r;
  if (!id_field(*body, project_key, false, res, r.project_id)
      || !parse_filter(*body, res, r) || !read_run_ids(*body, res, r))
    return std::nullopt;
  if (!r.ids.empty() && r.filtered) {
    refuse(res, "filter", "give either runIds or a filter, not both");
    return std::nullopt;
  }
  if (r.ids.empty() && !r.filtered) {
    refuse(res, "runIds", "required (or a filter)");
    return std::nullopt;
  }
  return r;
}

std::vector<int64_t> filtered_run_ids(const state::cluster_state& s,
                                      const run_request& r, int64_t now_us) {
  std::vector<int64_t> out;
  for (const auto& [id, t] : s.trials) {
    auto e = state::find_experiment(s, t.experiment_id);
    if (e != nullptr && !t.deleted
        && (r.project_id == 0 || e->project_id == r.project_id)
        && (r.show_archived || !(e->archived || t.archived))
        && (!r.conditions || r.conditions->matches(flat_run(s, t, *e, now_us))))
      out.push_back(id);
  }
  return out;
}

} // namespace det::api
