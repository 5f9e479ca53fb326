#include "policy/login_throttle.hpp"

#include <algorithm>
#include <vector>

namespace det::policy {

int64_t login_throttle::wait_of(const table& t, const std::string& key,
                                int free, int64_t now) const {
  auto i = t.find(key);
  if (i == t.end())
    return 0;
  const auto& e = i->second;
  if (now - e.last_us >= cfg_.forget_after_us)
    return 0;
  int over = e.failures - free;
  if (over < 0)
    return 0;
  int64_t wait = cfg_.first_wait_us;
  for (int k = 0; k < over && wait < cfg_.max_wait_us; ++k)
    wait *= 2;
  wait = std::min(wait, cfg_.max_wait_us);
  return std::max<int64_t>(0, e.last_us + wait - now);
}

int64_t login_throttle::wait_us(const std::string& user,
                                const std::string& address,
                                int64_t now_us) const {
  return std::max(
      wait_of(users_, user, cfg_.free_failures, now_us),
      wait_of(addresses_, address, cfg_.free_failures_per_address, now_us));
}

void login_throttle::count(table& t, const std::string& key, int64_t now) {
  if (t.size() >= cfg_.max_keys && t.count(key) == 0) {
    for (auto i = t.begin(); i != t.end();)
      i = now - i->second.last_us >= cfg_.forget_after_us ? t.erase(i)
                                                          : std::next(i);
    if (t.size() >= cfg_.max_keys) {
      // Still full: keep the half with the most failures.
      std::vector<int> counts;
      counts.reserve(t.size());
      for (const auto& kv : t)
        counts.push_back(kv.second.failures);
      auto mid = counts.begin() + static_cast<long>(counts.size() / 2);
      std::nth_element(counts.begin(), mid, counts.end());
      for (auto i = t.begin(); i != t.end();)
        i = i->second.failures <= *mid ? t.erase(i) : std::next(i);
    }
  }
  auto& e = t[key];
  if (now - e.last_us >= cfg_.forget_after_us)
    e.failures = 0;
  ++e.failures;
  e.last_us = now;
}

void login_throttle::failed(const std::string& user, const std::string& address,
                            int64_t now_us) {
  count(users_, user, now_us);
  count(addresses_, address, now_us);
}

void login_throttle::succeeded(const std::string& user) {
  users_.erase(user);
}

} // namespace det::policy
