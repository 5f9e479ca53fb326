#pragma once

// A small deterministic random number generator whose whole state is one
// integer, so that a searcher's state (which owns one) serializes exactly
// and replays to the same draws on every platform. std::mt19937 would do
// the first, but std:: distributions differ between standard libraries.
// SplitMix64 (Steele, Lea, Flood 2014); not for cryptography.

#include <cstdint>

namespace det::policy {

class rng {
public:
  explicit rng(uint64_t seed = 0) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  /// Uniform integer in [lo, hi] (requires lo <= hi).
  int64_t between(int64_t lo, int64_t hi) {
    auto span = static_cast<uint64_t>(hi - lo) + 1;
    if (span == 0) // the full 64-bit range
      return static_cast<int64_t>(next());
    // Rejection sampling keeps it unbiased.
    uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    uint64_t x;
    do {
      x = next();
    } while (x >= limit);
    return lo + static_cast<int64_t>(x % span);
  }

  [[nodiscard]] uint64_t state() const { return state_; }
  void set_state(uint64_t s) { state_ = s; }

private:
  uint64_t state_;
};

} // namespace det::policy
