#pragma once

// Drives a searcher the way an experiment would: every create becomes a
// trial, every train op is "run" at once by reporting a validation metric,
// in FIFO order. Records what happened, for assertions.

#include "messages/errc.hpp"
#include "policy/searcher.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>
#include <set>

namespace det::policy::test {

using metric_fn = std::function<double(const nlohmann::json&, uint64_t)>;
/// Return true to make the trial exit early instead of reporting.
using exit_fn = std::function<bool(request_id, uint64_t)>;

struct search_run {
  std::vector<std::string> ops;
  std::map<request_id, nlohmann::json> hparams;
  std::map<request_id, uint64_t> trained;
  std::set<request_id> closed;
  std::set<request_id> exited;
  int shutdowns = 0;
  bool failure = false;
};

inline search_run drive(searcher& s, const metric_fn& metric,
                        const exit_fn& exits = nullptr,
                        size_t max_steps = 100000) {
  search_run run;
  std::deque<searcher_op> work;
  auto push = [&](std::vector<searcher_op> ops) {
    for (auto& op : ops) {
      run.ops.push_back(to_string(op));
      work.push_back(std::move(op));
    }
  };
  push(s.start());
  for (size_t step = 0; !work.empty() && step < max_steps; ++step) {
    auto op = std::move(work.front());
    work.pop_front();
    if (auto* c = std::get_if<create_trial>(&op)) {
      run.hparams[c->id] = c->hparams;
      push(s.trial_created(c->id));
    } else if (auto* t = std::get_if<train_trial>(&op)) {
      EXPECT_GE(t->length, run.trained[t->id]) << "lengths only grow";
      run.trained[t->id] = t->length;
      if (exits && exits(t->id, t->length)) {
        run.exited.insert(t->id);
        push(s.trial_exited_early(t->id));
      } else {
        push(s.validation_reported(t->id, t->length,
                                   metric(run.hparams[t->id], t->length)));
      }
    } else if (auto* cl = std::get_if<close_trial>(&op)) {
      EXPECT_TRUE(run.closed.insert(cl->id).second) << "closed twice";
    } else if (auto* sd = std::get_if<shutdown_experiment>(&op)) {
      ++run.shutdowns;
      run.failure = sd->failure;
    }
  }
  return run;
}

inline searcher_config config_of(const char* yaml_like_json) {
  auto c = parse_searcher_config(nlohmann::json::parse(yaml_like_json));
  EXPECT_TRUE(c) << (c ? "" : det::render(c.error()));
  return c ? *c : searcher_config{};
}

inline std::unique_ptr<searcher> make(const searcher_config& c,
                                      const nlohmann::json& hp, uint64_t seed) {
  auto s = make_searcher(c, hp, seed);
  EXPECT_TRUE(s) << (s ? "" : det::render(s.error()));
  return s ? std::move(*s) : nullptr;
}

} // namespace det::policy::test
