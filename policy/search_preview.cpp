#include "policy/search_preview.hpp"

#include "messages/errc.hpp"
#include "policy/rng.hpp"
#include "policy/searcher.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

namespace det::policy {

using json = nlohmann::json;

namespace {

// More operations than any search the master would run to preview.
constexpr size_t max_steps = 200'000;

} // namespace

caf::expected<json> preview_search(const json& config, uint64_t seed) {
  if (!config.is_object())
    return make_error(errc::invalid_argument, "config: expected an object");
  auto block = config.find("searcher");
  if (block == config.end() || !block->is_object())
    return make_error(errc::invalid_argument,
                      "searcher: the config has no searcher section");
  auto sc = parse_searcher_config(*block);
  if (!sc)
    return sc.error();
  auto hps = config.value("hyperparameters", json::object());
  auto s = make_searcher(*sc, hps, seed);
  if (!s)
    return s.error();
  auto& searcher = **s;
  rng values{seed ^ 0x5eedULL};
  std::map<request_id, uint64_t> trained;
  std::set<request_id> closed;
  std::deque<searcher_op> todo;
  auto queue = [&todo](std::vector<searcher_op> ops) {
    for (auto& op : ops)
      todo.push_back(std::move(op));
  };
  queue(searcher.start());
  size_t steps = 0;
  while (!todo.empty() && !searcher.shut_down()) {
    if (++steps > max_steps)
      return make_error(errc::invalid_argument,
                        "searcher: too large a search to preview (more than "
                            + std::to_string(max_steps) + " steps)");
    auto op = std::move(todo.front());
    todo.pop_front();
    if (auto* c = std::get_if<create_trial>(&op)) {
      trained.emplace(c->id, 0);
      queue(searcher.trial_created(c->id));
      // A trial that decides its own length trains until it exits.
      if (sc->max_length == 0 && sc->time_metric.empty()
          && sc->kind != searcher_kind::adaptive_asha)
        queue(searcher.trial_exited_early(c->id));
    } else if (auto* t = std::get_if<train_trial>(&op)) {
      if (closed.count(t->id) != 0)
        continue;
      auto& len = trained[t->id];
      len = std::max(len, t->length);
      queue(searcher.validation_reported(t->id, t->length, values.uniform()));
    } else if (auto* done = std::get_if<close_trial>(&op)) {
      closed.insert(done->id);
    }
  }
  std::map<uint64_t, int64_t> by_length;
  for (const auto& [id, len] : trained)
    ++by_length[len];
  json trials = json::array();
  for (const auto& [len, count] : by_length) {
    json unit =
        len == 0
            ? json{{"maxLength", true}}
            : json{{"name", sc->time_metric.empty() ? std::string{"batches"}
                                                    : sc->time_metric},
                   {"value", len},
                   {"maxLength", false}};
    trials.push_back({{"count", count}, {"unit", std::move(unit)}});
  }
  return json{{"config", *block}, {"trials", std::move(trials)}};
}

} // namespace det::policy
