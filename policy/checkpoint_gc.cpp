#include "policy/checkpoint_gc.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace det::policy {

namespace {

bool has_metric(const gc_checkpoint* c) {
  return c->metric && !std::isnan(*c->metric);
}

// Best first: by metric, then the later checkpoint.
void rank_best(std::vector<const gc_checkpoint*>& v, bool smaller) {
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](const gc_checkpoint* c) { return !has_metric(c); }),
          v.end());
  std::stable_sort(v.begin(), v.end(),
                   [&](const gc_checkpoint* a, const gc_checkpoint* b) {
                     double ma = *a->metric;
                     double mb = *b->metric;
                     if (ma != mb)
                       return smaller ? ma < mb : ma > mb;
                     if (a->steps_completed != b->steps_completed)
                       return a->steps_completed > b->steps_completed;
                     return a->at_us > b->at_us;
                   });
}

void keep_first(const std::vector<const gc_checkpoint*>& v, int64_t n,
                std::set<const gc_checkpoint*>& keep) {
  for (size_t i = 0; i < v.size() && static_cast<int64_t>(i) < n; ++i)
    keep.insert(v[i]);
}

} // namespace

std::vector<std::string>
checkpoints_to_delete(const std::vector<gc_trial>& trials,
                      const gc_policy& policy) {
  std::set<const gc_checkpoint*> keep;
  std::vector<const gc_checkpoint*> everything;
  for (const auto& t : trials) {
    std::vector<const gc_checkpoint*> mine;
    for (const auto& c : t.checkpoints)
      mine.push_back(&c);
    everything.insert(everything.end(), mine.begin(), mine.end());
    auto latest = mine;
    std::stable_sort(latest.begin(), latest.end(),
                     [](const gc_checkpoint* a, const gc_checkpoint* b) {
                       if (a->steps_completed != b->steps_completed)
                         return a->steps_completed > b->steps_completed;
                       return a->at_us > b->at_us;
                     });
    keep_first(latest, policy.save_trial_latest, keep);
    rank_best(mine, policy.smaller_is_better);
    keep_first(mine, policy.save_trial_best, keep);
  }
  rank_best(everything, policy.smaller_is_better);
  keep_first(everything, policy.save_experiment_best, keep);
  std::vector<std::string> out;
  for (const auto& t : trials) {
    if (!t.ended)
      continue;
    for (const auto& c : t.checkpoints)
      if (keep.count(&c) == 0)
        out.push_back(c.uuid);
  }
  return out;
}

} // namespace det::policy
