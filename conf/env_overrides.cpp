#include "conf/env_overrides.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>

namespace det::conf {

namespace {

std::string env_text(const env_lookup& env, const char* name) {
  const char* v = env(name);
  return v == nullptr ? std::string{} : std::string{v};
}

/// A whole decimal integer (an optional sign, then digits only); an error
/// naming the variable otherwise.
caf::expected<std::optional<int64_t>> env_int(const env_lookup& env,
                                              const char* name) {
  auto text = env_text(env, name);
  if (text.empty())
    return std::optional<int64_t>{};
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0')
    return make_error(errc::invalid_argument,
                      std::string{name} + ": '" + text + "' is not an integer");
  return std::optional<int64_t>{static_cast<int64_t>(v)};
}

int clamp_int(int64_t v, int64_t lo) {
  return static_cast<int>(
      std::clamp<int64_t>(v, lo, std::numeric_limits<int>::max()));
}

} // namespace

env_lookup process_env() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

caf::expected<master_env> read_master_env(const env_lookup& env) {
  master_env out;
  out.session_secret = env_text(env, "DET_SESSION_SECRET");
  out.k8s_sa_dir = env_text(env, "DET_K8S_SA_DIR");
  auto replicas = env_int(env, "DET_READ_REPLICAS");
  if (!replicas)
    return std::move(replicas.error());
  if (*replicas)
    out.read_replicas = static_cast<size_t>(clamp_int(**replicas, 1));
  auto every = env_int(env, "DET_SNAPSHOT_EVERY");
  if (!every)
    return std::move(every.error());
  if (*every)
    out.snapshot_every = std::max<int64_t>(**every, 0);
  auto gc = env_int(env, "DET_CHECKPOINT_GC_INTERVAL_MS");
  if (!gc)
    return std::move(gc.error());
  if (*gc)
    out.checkpoint_gc_interval = std::chrono::milliseconds{clamp_int(**gc, 50)};
  auto& p = out.provisioner;
  struct ms_field {
    const char* name;
    std::optional<std::chrono::milliseconds>* field;
  };
  for (auto [name, field] :
       {ms_field{"DET_PROVISIONER_TICK_MS", &p.tick},
        ms_field{"DET_PROVISIONER_MIN_GAP_MS", &p.min_gap},
        ms_field{"DET_PROVISIONER_LIST_INTERVAL_MS", &p.list_interval},
        ms_field{"DET_PROVISIONER_ORPHAN_GRACE_MS", &p.orphan_grace}}) {
    auto v = env_int(env, name);
    if (!v)
      return std::move(v.error());
    if (*v)
      *field = std::chrono::milliseconds{**v};
  }
  if (auto w = env_text(env, "DET_PROVISIONER_WAKE"); !w.empty())
    p.wake = w != "0";
  auto page = env_int(env, "DET_PROVISIONER_PAGE_SIZE");
  if (!page)
    return std::move(page.error());
  if (*page)
    p.page_size = clamp_int(**page, std::numeric_limits<int>::min());
  auto per_launch = env_int(env, "DET_PROVISIONER_MAX_PER_LAUNCH");
  if (!per_launch)
    return std::move(per_launch.error());
  if (*per_launch)
    p.max_per_launch = clamp_int(**per_launch, 1);
  p.test_crash_after = env_text(env, "DET_TEST_CRASH_AFTER");
  return out;
}

caf::expected<agent_env> read_agent_env(const env_lookup& env) {
  agent_env out;
  auto spot = env_int(env, "DET_SPOT_NOTICE_INTERVAL_MS");
  if (!spot)
    return std::move(spot.error());
  if (*spot)
    out.spot_notice_interval = std::chrono::milliseconds{**spot};
  out.pod_name = env_text(env, "DET_POD_NAME");
  out.pod_rank = env_text(env, "DET_POD_RANK");
  out.num_pods = env_text(env, "DET_NUM_PODS");
  return out;
}

inspect_env read_inspect_env(const env_lookup& env) {
  return {env_text(env, "DET_MASTER"), env_text(env, "DET_DB_URL")};
}

} // namespace det::conf
