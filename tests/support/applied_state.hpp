#pragma once

// A cluster state built by applying events one at a time, as replay does:
// the tests of plain code over the state (core/provisioning, ...). A
// refused event fails the test where it is applied.

#include "messages/errc.hpp"
#include "state/cluster_state.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace det::test {

struct applied_state {
  state::cluster_state s;
  int64_t pos = 0;

  void apply(const domain_event& ev) {
    recorded_event meta;
    meta.position = ++pos;
    auto err = state::apply(s, meta, ev);
    ASSERT_FALSE(err) << render(err);
  }
};

} // namespace det::test
