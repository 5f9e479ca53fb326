// The one field list per state record (state/model_fields.hpp) is the
// contract operator== and the snapshot codec share. These tests hold it to
// the records themselves, without naming a member: every member of every
// record must be in fields() (counted as the members an aggregate
// initializer takes), and each listed member, changed
// alone to a value other than its default, must make the record unequal
// and survive a snapshot round trip under its own key.

#include "state/model_fields.hpp"
#include "state/snapshot_codec.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace det::state::test {

/// Converts to any member type, so that T{any_member{}, ...} compiles with as
/// many initializers as T (an aggregate) has members, and no more. Only
/// named in unevaluated operands, so its conversion is never defined; outside
/// the anonymous namespace that is no warning.
struct any_member {
  template <class U> operator U() const;
};

namespace {

using nlohmann::json;

// -- members ------------------------------------------------------------------

template <class T, class Seq, class = void>
struct brace_initializable : std::false_type {};
template <class T, size_t... I>
struct brace_initializable<
    T, std::index_sequence<I...>,
    std::void_t<decltype(T{(static_cast<void>(I), any_member{})...})>>
    : std::true_type {};

/// How many members the aggregate T has.
template <class T, size_t N = 0> constexpr size_t member_count() {
  if constexpr (!brace_initializable<T, std::make_index_sequence<N + 1>>::value)
    return N;
  else
    return member_count<T, N + 1>();
}

// -- values other than the default --------------------------------------------

/// The value a record starts from: its default, made valid where the codec
/// insists (a pool's configuration must name the pool).
template <class T> T base() {
  return T{};
}
template <> pool_info base<pool_info>() {
  pool_info p;
  p.config.pool = "p";
  return p;
}

/// Sets every member it visits to a value other than the one it has.
struct changer {
  template <class V> void req(const char*, V& x) { change(x); }
  template <class V> void opt(const char*, V& x) { change(x); }
  template <class M> void pairs(const char*, M& x, const char*, const char*) {
    x.emplace("k" + std::to_string(x.size()), "v");
  }
  template <class V> void derived(V& x) { change(x); }

  static void change(std::string& x) { x += "-changed"; }
  static void change(bool& x) { x = !x; }
  static void change(json& x) { x = {{"changed", x}}; }
  static void change(pool_configured& x) {
    x.pool += "-changed";
    x.scheduler = x.scheduler == "priority" ? "fair_share" : "priority";
    x.provider = x.provider == "aws" ? "local" : "aws";
    x.slots_per_instance += 1;
    x.min_instances += 1;
    x.max_instances += 2;
    x.instance_type += "-changed";
    x.spot = !x.spot;
    x.max_idle_agent_period_s += 1;
    x.max_agent_starting_period_s += 1;
    x.agent_reconnect_wait_s += 1;
  }
  template <class V> static void change(std::optional<V>& x) {
    if (x) {
      x.reset();
      return;
    }
    V v = base<V>();
    change(v);
    x = std::move(v);
  }
  template <class V> static void change(std::vector<V>& xs) {
    V v = base<V>();
    change(v);
    xs.push_back(std::move(v));
  }
  template <class K, class V> static void change(std::map<K, V>& xs) {
    if constexpr (std::is_arithmetic_v<V>) {
      xs["k" + std::to_string(xs.size())] = 3;
    } else {
      V v = base<V>();
      change(v);
      auto k = key_of(v);
      xs.emplace(k, std::move(v));
    }
  }
  template <class V> static void change(V& x) {
    if constexpr (std::is_enum_v<V>) {
      x = static_cast<V>(static_cast<int>(x) == 0 ? 1 : 0);
    } else if constexpr (std::is_arithmetic_v<V>) {
      x = x + 3;
    } else {
      changer c;
      fields(c, x);
    }
  }
};

/// Changes only the `which`-th member fields() lists; says its key and
/// whether it is stored.
struct one_changer {
  explicit one_changer(size_t i) : which(i) {}
  size_t which;
  size_t n = 0;
  std::string key;
  bool stored = true;

  template <class V> void req(const char* k, V& x) { maybe(k, x, true); }
  template <class V> void opt(const char* k, V& x) { maybe(k, x, true); }
  template <class M>
  void pairs(const char* k, M& x, const char* a, const char* b) {
    if (n++ == which) {
      key = k;
      changer{}.pairs(k, x, a, b);
    }
  }
  template <class V> void derived(V& x) { maybe("(derived)", x, false); }

  template <class V> void maybe(const char* k, V& x, bool is_stored) {
    if (n++ != which)
      return;
    key = k;
    stored = is_stored;
    changer::change(x);
  }
};

template <class T> size_t count_fields() {
  one_changer c{static_cast<size_t>(-1)};
  T x{};
  fields(c, x);
  return c.n;
}

/// Rebuilds what a state derives (the allocation index), as a read does.
template <class T> void derive(T& x) {
  if constexpr (std::is_same_v<T, cluster_state>) {
    x.allocations.clear();
    for (const auto& [id, t] : x.trials)
      if (t.allocation)
        x.allocations[t.allocation->id] = id;
  }
}

template <class T> T round_trip(const T& x) {
  T back{};
  codec::read(codec::write(x), back);
  return back;
}

template <class T> class record_fields : public ::testing::Test {};

using records = ::testing::Types<
    launch_info, pool_info, agent_info, instance_info, spot_request_info,
    searcher_input, experiment_info, allocation_info, checkpoint_info,
    metrics_summary, trial_info, user_info, workspace_info, project_info,
    template_info, pool_binding_info, model_version_info, config_policy_info,
    model_info, webhook_info, webhook_delivery_info, orphan_checkpoints_info,
    allocation_record, task_info, cluster_state>;
TYPED_TEST_SUITE(record_fields, records, );

TYPED_TEST(record_fields, every_member_of_the_record_is_in_its_field_list) {
  static_assert(std::is_aggregate_v<TypeParam>);
  EXPECT_EQ(count_fields<TypeParam>(), member_count<TypeParam>());
}

TYPED_TEST(record_fields, each_member_changed_alone_is_seen_and_stored) {
  const auto original = base<TypeParam>();
  ASSERT_TRUE(round_trip(original) == original);
  auto count = count_fields<TypeParam>();
  ASSERT_GT(count, 0u);
  for (size_t i = 0; i < count; ++i) {
    auto x = original;
    one_changer c{i};
    fields(c, x);
    SCOPED_TRACE("member " + std::to_string(i) + " '" + c.key + "'");
    EXPECT_FALSE(x == original) << "operator== does not see it";
    if (!c.stored)
      continue;
    derive(x);
    auto j = codec::write(x);
    EXPECT_TRUE(j.contains(c.key)) << j.dump();
    EXPECT_NE(j, codec::write(original)) << "the snapshot does not store it";
    EXPECT_TRUE(round_trip(x) == x) << "a round trip loses it: " << j.dump();
  }
}

TYPED_TEST(record_fields, a_record_with_every_member_changed_survives) {
  auto x = base<TypeParam>();
  changer::change(x);
  EXPECT_FALSE(x == base<TypeParam>());
  derive(x);
  EXPECT_TRUE(round_trip(x) == x) << codec::write(x).dump();
}

TEST(record_fields_codec, a_missing_required_member_is_named_with_its_path) {
  auto t = base<trial_info>();
  changer::change(t);
  auto j = codec::write(t);
  j["allocation"].erase("placed_at_us");
  trial_info back;
  try {
    codec::read(j, back);
    FAIL() << "read a trial without allocation.placed_at_us";
  } catch (const field_error& e) {
    EXPECT_STREQ(e.what(), "allocation: field 'placed_at_us' is missing");
  }
}

TEST(record_fields_codec, older_records_read_with_their_optional_defaults) {
  auto t = base<trial_info>();
  changer::change(t);
  auto j = codec::write(t);
  j.erase("checkpoints");
  j["allocation"].erase("preemption_requested_at_us");
  trial_info back;
  codec::read(j, back);
  ASSERT_EQ(back.checkpoints.size(), 1u);
  EXPECT_TRUE(back.checkpoints[0] == *t.latest_checkpoint);
  EXPECT_EQ(back.allocation->preemption_requested_at_us, 0);

  auto e = base<experiment_info>();
  changer::change(e);
  auto je = codec::write(e);
  je.erase("searcher_inbox");
  je.erase("searcher_inputs_queued");
  je.erase("model_definition_pending");
  experiment_info back_e;
  codec::read(je, back_e);
  EXPECT_TRUE(back_e.searcher_inbox.empty());
  EXPECT_EQ(back_e.searcher_inputs_queued, 0);
  EXPECT_FALSE(back_e.model_definition_pending);
}

} // namespace

} // namespace det::state::test
