#pragma once

// Failed logins by user name and by client address, and how long the next
// attempt from them must wait. A user name may fail `free_failures` times,
// an address `free_failures_per_address` times (more: many users may share
// one address behind a proxy); each further failure doubles its wait, from
// `first_wait_us` up to `max_wait_us`, so guessing slows to one try a
// minute while a real user who mistyped waits seconds at most. The wait is
// never longer than max_wait_us, so nobody can lock a user out for good. A
// key forgets its failures `forget_after_us` after its last one. A success
// clears the user name's failures, not the address's (a guesser with an
// account of its own cannot reset its address by logging in).
//
// Pure: time comes in as an argument. Not thread-safe (the API holds it
// under a mutex).

#include <cstdint>
#include <string>
#include <unordered_map>

namespace det::policy {

struct login_throttle_config {
  int free_failures = 5;
  int free_failures_per_address = 20;
  int64_t first_wait_us = 1000000;
  int64_t max_wait_us = 60 * 1000000LL;
  int64_t forget_after_us = 15 * 60 * 1000000LL;
  /// Keys kept per kind; past it, forgotten keys are dropped first, then
  /// the quietest half.
  size_t max_keys = 100000;
};

class login_throttle {
public:
  explicit login_throttle(login_throttle_config cfg = {}) : cfg_(cfg) {}

  /// 0 when a login for `user` from `address` may be tried now, else how
  /// many microseconds to wait.
  [[nodiscard]] int64_t wait_us(const std::string& user,
                                const std::string& address,
                                int64_t now_us) const;
  void failed(const std::string& user, const std::string& address,
              int64_t now_us);
  void succeeded(const std::string& user);

private:
  struct entry {
    int failures = 0;
    int64_t last_us = 0;
  };
  using table = std::unordered_map<std::string, entry>;

  int64_t wait_of(const table& t, const std::string& key, int free,
                  int64_t now) const;
  void count(table& t, const std::string& key, int64_t now);

  login_throttle_config cfg_;
  table users_;
  table addresses_;
};

} // namespace det::policy
