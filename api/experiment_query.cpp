#include "api/experiment_query.hpp"

#include "api/route_util.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"
#include "state/queries.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace det::api {

namespace {

using sort_key = experiment_query::sort_key;

const std::pair<const char*, sort_key> sort_names[] = {
    {"SORT_BY_UNSPECIFIED", sort_key::id},
    {"SORT_BY_ID", sort_key::id},
    {"SORT_BY_NAME", sort_key::name},
    {"SORT_BY_STATE", sort_key::state},
    {"SORT_BY_START_TIME", sort_key::start_time},
    {"SORT_BY_END_TIME", sort_key::end_time},
    {"SORT_BY_PROGRESS", sort_key::progress},
    {"SORT_BY_USER", sort_key::user},
    {"SORT_BY_NUM_TRIALS", sort_key::num_trials},
};

std::string name_of(const state::experiment_info& e) {
  auto n = e.config.find("name");
  return n != e.config.end() && n->is_string() ? n->get<std::string>()
                                               : std::string{"Experiment"};
}

bool has_labels(const state::experiment_info& e,
                const std::vector<std::string>& wanted) {
  if (wanted.empty())
    return true;
  auto l = e.config.find("labels");
  if (l == e.config.end() || !l->is_array())
    return false;
  for (const auto& w : wanted)
    if (std::find(l->begin(), l->end(), nlohmann::json(w)) == l->end())
      return false;
  return true;
}

int64_t end_time_of(const state::experiment_info& e) {
  return state::is_terminal(e.status) ? e.state_changed_at_us : 0;
}

} // namespace

std::optional<experiment_query>
experiment_query_of(const http::http_request& req, const http::responder& res) {
  experiment_query q;
  q.users = req.query.get_all("users");
  if (auto a = req.query.get("archived")) {
    if (*a != "true" && *a != "false") {
      res.send_error(http::grpc_code::invalid_argument,
                     "archived: expected true or false");
      return std::nullopt;
    }
    q.archived = *a == "true";
  }
  for (const auto& s : req.query.get_all("states")) {
    state::experiment_status st{};
    if (s.rfind("STATE_", 0) != 0 || !state::from_string(s.substr(6), st)) {
      res.send_error(http::grpc_code::invalid_argument,
                     "states: '" + s.substr(0, 40)
                         + "' is not an experiment state (STATE_ACTIVE, "
                           "STATE_PAUSED, STATE_COMPLETED, STATE_CANCELED, "
                           "STATE_ERROR, STATE_STOPPING_*)");
      return std::nullopt;
    }
    q.states.push_back(st);
  }
  q.name = util::to_lower(req.query.get("name").value_or(""));
  if (q.name.size() > 255) {
    res.send_error(http::grpc_code::invalid_argument,
                   "name: longer than 255 bytes");
    return std::nullopt;
  }
  q.labels = req.query.get_all("labels");
  if (auto p = req.query.get("projectId"); p && *p != "0") {
    auto id = positive_id(*p);
    if (!id) {
      res.send_error(http::grpc_code::invalid_argument,
                     "projectId: expected a positive integer");
      return std::nullopt;
    }
    q.project_id = *id;
  }
  if (auto s = req.query.get("sortBy")) {
    auto it = std::find_if(std::begin(sort_names), std::end(sort_names),
                           [&](const auto& p) { return *s == p.first; });
    if (it == std::end(sort_names)) {
      res.send_error(http::grpc_code::invalid_argument,
                     "sortBy: '" + s->substr(0, 40)
                         + "' is not supported (SORT_BY_ID, SORT_BY_NAME, "
                           "SORT_BY_STATE, SORT_BY_START_TIME, "
                           "SORT_BY_END_TIME, SORT_BY_PROGRESS, SORT_BY_USER, "
                           "SORT_BY_NUM_TRIALS)");
      return std::nullopt;
    }
    q.sort = it->second;
  }
  if (auto o = req.query.get("orderBy")) {
    if (*o == "ORDER_BY_DESC")
      q.descending = true;
    else if (*o != "ORDER_BY_ASC" && *o != "ORDER_BY_UNSPECIFIED") {
      res.send_error(http::grpc_code::invalid_argument,
                     "orderBy: '" + o->substr(0, 40)
                         + "' is not ORDER_BY_ASC or ORDER_BY_DESC");
      return std::nullopt;
    }
  }
  return q;
}

std::vector<const state::experiment_info*>
select_experiments(const state::cluster_state& s, const experiment_query& q) {
  std::vector<const state::experiment_info*> out;
  out.reserve(s.experiments.size());
  for (const auto& [id, e] : s.experiments) {
    if (!q.users.empty()
        && std::find(q.users.begin(), q.users.end(), e.owner) == q.users.end())
      continue;
    if (!q.states.empty()
        && std::find(q.states.begin(), q.states.end(), e.status)
               == q.states.end())
      continue;
    if (!q.name.empty()
        && util::to_lower(name_of(e)).find(q.name) == std::string::npos)
      continue;
    if (!has_labels(e, q.labels))
      continue;
    if (q.archived
        && *q.archived
               != (*q.archived ? e.archived
                               : listed_as_archived(s, e, q.project_id != 0)))
      continue;
    if (q.project_id != 0 && q.project_id != e.project_id)
      continue;
    out.push_back(&e);
  }
  // s.experiments is ordered by id: the order by id is the order found.
  if (q.sort != sort_key::id) {
    // Keys computed once; a stable sort keeps ties in id order.
    std::vector<std::pair<std::string, const state::experiment_info*>> text;
    std::vector<std::pair<double, const state::experiment_info*>> num;
    bool textual = q.sort == sort_key::name || q.sort == sort_key::state
                   || q.sort == sort_key::user;
    for (auto e : out) {
      switch (q.sort) {
      case sort_key::name:
        text.emplace_back(util::to_lower(name_of(*e)), e);
        break;
      case sort_key::state:
        text.emplace_back(state::to_string(e->status), e);
        break;
      case sort_key::user:
        text.emplace_back(e->owner, e);
        break;
      case sort_key::start_time:
        num.emplace_back(static_cast<double>(e->submitted_at_us), e);
        break;
      case sort_key::end_time:
        num.emplace_back(static_cast<double>(end_time_of(*e)), e);
        break;
      case sort_key::progress:
        num.emplace_back(e->progress, e);
        break;
      case sort_key::num_trials:
        num.emplace_back(
            static_cast<double>(state::listed_trial_ids(s, *e).size()), e);
        break;
      case sort_key::id:
        break;
      }
    }
    auto by_key = [](const auto& a, const auto& b) {
      return a.first < b.first;
    };
    out.clear();
    if (textual) {
      std::stable_sort(text.begin(), text.end(), by_key);
      for (auto& t : text)
        out.push_back(t.second);
    } else {
      std::stable_sort(num.begin(), num.end(), by_key);
      for (auto& n : num)
        out.push_back(n.second);
    }
  }
  if (q.descending)
    std::reverse(out.begin(), out.end());
  return out;
}

std::string experiments_query_text(const read::read_view& v,
                                   const experiment_query& q, page p) {
  // Only the page's rows, from the replica's fragments (50 of 10,000 for
  // the WebUI's list).
  return experiment_rows_text(v, select_experiments(v.state, q), p);
}

nlohmann::json experiments_query_page(const state::cluster_state& s,
                                      const experiment_query& q, page p) {
  auto items = select_experiments(s, q);
  auto [start, end] = page_bounds(static_cast<int64_t>(items.size()), p);
  auto rows = nlohmann::json::array();
  for (auto i = start; i < end; ++i)
    rows.push_back(experiment_json(s, *items[static_cast<size_t>(i)],
                                   experiment_detail::row));
  return {{"experiments", std::move(rows)},
          {"pagination", pagination_of(p, static_cast<int64_t>(items.size()))}};
}

void answer_experiments_query(const std::shared_ptr<const api_context>& ctx,
                              const http::http_request& req,
                              http::responder res, experiment_query q, page p) {
  if (ctx->reads)
    return answer_read(
        ctx, req, std::move(res),
        [q, p](const read::read_view& v) {
          return experiments_query_text(v, q, p);
        },
        "");
  answer_view(
      ctx, req, std::move(res),
      [q = std::move(q), p](const state::cluster_state& s, int64_t) {
        return experiments_query_page(s, q, p);
      },
      "");
}

} // namespace det::api
