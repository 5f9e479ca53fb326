#include "aws/retry.hpp"

#include "messages/errc.hpp"
#include "util/backoff.hpp"

#include <algorithm>
#include <mutex>
#include <random>
#include <thread>

namespace det::aws {

using namespace std::chrono;

retry_clock retry_clock::real() {
  struct rng_state {
    std::mutex mtx;
    std::mt19937_64 rng{std::random_device{}()};
  };
  auto state = std::make_shared<rng_state>();
  retry_clock c;
  c.now = [] { return steady_clock::now(); };
  c.sleep = [](milliseconds d) { std::this_thread::sleep_for(d); };
  c.uniform01 = [state] {
    std::lock_guard<std::mutex> guard{state->mtx};
    return std::uniform_real_distribution<double>(0.0, 1.0)(state->rng);
  };
  return c;
}

milliseconds backoff_delay(const retry_policy& policy, int retry, double u) {
  // Full jitter: the formula takes off jitter * its draw, so the share of
  // the cap that remains is u.
  double d =
      util::backoff_delay(static_cast<double>(policy.base_delay.count()), 2.0,
                          static_cast<double>(policy.max_delay.count()), retry,
                          1.0, 1.0 - std::clamp(u, 0.0, 1.0));
  return milliseconds{static_cast<int64_t>(d)};
}

caf::error annotate(const caf::error& err, const std::string& suffix) {
  if (code_of(err) == errc::none)
    return err;
  const auto& ctx = err.context();
  if (ctx.size() != 1 || !ctx.match_element<std::string>(0))
    return err;
  return make_error(code_of(err), ctx.get_as<std::string>(0) + suffix);
}

caf::error run_with_retries(const retry_policy& policy,
                            const retry_clock& clock,
                            const retry_predicate& should_retry,
                            const std::function<caf::error()>& attempt) {
  const auto start = clock.now();
  int attempts = 0;
  for (;;) {
    ++attempts;
    auto err = attempt();
    if (!err)
      return err;
    if (!should_retry(err))
      return attempts == 1
                 ? err
                 : annotate(err, " (gave up after " + std::to_string(attempts)
                                     + " attempts: not retryable)");
    auto elapsed = duration_cast<milliseconds>(clock.now() - start);
    auto delay = backoff_delay(policy, attempts, clock.uniform01());
    if (attempts >= policy.max_attempts || elapsed + delay > policy.max_total)
      return annotate(err, " (gave up after " + std::to_string(attempts)
                               + " attempts in "
                               + std::to_string(elapsed.count()) + " ms)");
    clock.sleep(delay);
  }
}

} // namespace det::aws
