// api-bench-seed: writes the cluster bench/api/run.py measures straight
// into an empty event log, before the master starts (much faster than
// driving it through the API): bench/support's history with T running
// trials (one slot each, on 4-slot agents) of experiment 1, idle agents up
// to A in all, paused experiments up to E in all, and C training reports of
// trial 1 (a learning curve; steps 1..C, after the rest), or of each of
// trials 1..K with --curve-trials K (the WebUI's compare view). Prints one JSON
// object: {"events": N, "allocations": [[trial_id, allocation_id, token]]},
// the tokens being the session tokens a master started with
// DET_SESSION_SECRET=SECRET accepts.
//
//   api-bench-seed --db URL --secret SECRET [--agents A] [--experiments E]
//                  [--trials T] [--curve C] [--curve-trials K]

#include "api/codec.hpp"
#include "bench/support/history.hpp"
#include "messages/errc.hpp"
#include "store/pg_event_store.hpp"

#include <iostream>

using namespace det;

namespace {

[[noreturn]] void die(const std::string& why) {
  std::cerr << "api-bench-seed: " << why << "\n";
  std::exit(1);
}

class batcher {
public:
  explicit batcher(event_store& log) : log_(log) {}
  void put(const domain_event& ev) {
    append_request r;
    r.events.push_back(to_new_event(ev));
    reqs_.push_back(std::move(r));
    if (reqs_.size() >= 2000)
      flush();
  }
  void flush() {
    if (reqs_.empty())
      return;
    for (auto& res : log_.append_many(reqs_))
      if (!res)
        die(render(res.error()));
    count_ += static_cast<int64_t>(reqs_.size());
    reqs_.clear();
  }
  int64_t count() const { return count_; }

private:
  event_store& log_;
  std::vector<append_request> reqs_;
  int64_t count_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  std::string url, secret;
  int64_t agents = 1000, experiments = 10000, trials = 500, curve = 0,
          curve_trials = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--db")
      url = v;
    else if (a == "--secret")
      secret = v;
    else if (a == "--agents")
      agents = std::stoll(v);
    else if (a == "--experiments")
      experiments = std::stoll(v);
    else if (a == "--trials")
      trials = std::stoll(v);
    else if (a == "--curve")
      curve = std::stoll(v);
    else if (a == "--curve-trials")
      curve_trials = std::stoll(v);
    else
      die("unknown argument '" + a + "'");
  }
  if (url.empty() || secret.empty())
    die("--db URL and --secret SECRET are required");
  auto log = pg_event_store::open({url, lock_policy::fail_fast, true, nullptr});
  if (!log)
    die(render(log.error()));
  batcher b{**log};
  // Agents "agent-0".. hold the trials; history emits only those.
  int64_t history_events = 1 + (trials + 3) / 4 + 1 + 3 * trials;
  bench::make_history(history_events, trials,
                      [&](const domain_event& ev) { b.put(ev); });
  int64_t t0 = 1800000000000000;
  for (int64_t a = (trials + 3) / 4; a < agents; ++a) {
    agent_connected ac;
    ac.agent_id = "agent-" + std::to_string(a);
    ac.pool = "default";
    ac.slots = 4;
    ac.at_us = t0;
    b.put(ac);
  }
  for (int64_t e = 2; e <= experiments; ++e) {
    experiment_submitted sub;
    sub.experiment_id = e;
    sub.pool = "default";
    sub.owner = "determined";
    sub.config = {{"name", "bench-" + std::to_string(e)},
                  {"description", "seeded by api-bench-seed"},
                  {"entrypoint", "python3 train.py"},
                  {"hyperparameters", {{"learning_rate", 0.01}}},
                  {"resources", {{"slots_per_trial", 1}}},
                  {"searcher",
                   {{"name", "single"},
                    {"metric", "validation_loss"},
                    {"max_length", {{"batches", 100}}}}}};
    sub.at_us = t0 + e;
    b.put(sub);
    experiment_state_changed paused;
    paused.experiment_id = e;
    paused.state = "PAUSED";
    paused.at_us = t0 + e;
    b.put(paused);
  }
  if (curve > 0 && trials < curve_trials)
    die("--curve needs as many running trials as --curve-trials");
  for (int64_t t = 1; t <= curve_trials && curve > 0; ++t)
    for (int64_t step = 1; step <= curve; ++step) {
      trial_metrics_reported m;
      m.trial_id = t;
      m.allocation_id = std::to_string(t) + ".1";
      m.kind = "training";
      m.steps_completed = step;
      double scale = 1.0 + 0.1 * static_cast<double>(t - 1);
      m.metrics = {{"loss", scale / static_cast<double>(step)},
                   {"accuracy", 1.0 - 1.0 / static_cast<double>(step + 1)}};
      m.at_us = t0 + step;
      b.put(m);
    }
  b.flush();
  api::session_tokens tokens{secret};
  nlohmann::json allocs = nlohmann::json::array();
  for (int64_t t = 1; t <= trials; ++t) {
    auto alloc = std::to_string(t) + ".1";
    allocs.push_back({t, alloc, tokens.token_for(alloc)});
  }
  std::cout
      << nlohmann::json{{"events", b.count()}, {"allocations", allocs}}.dump()
      << "\n";
  return 0;
}
