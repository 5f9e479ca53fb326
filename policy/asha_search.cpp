// adaptive_asha: a tournament of asynchronous successive-halving (ASHA)
// brackets. Bracket shapes follow upstream (facts, not code):
// - rungs R = min(max_rungs, floor(log_d(max_length)) + 1,
//   floor(log_d(max_trials)) + 1), d = divisor;
// - brackets by mode: aggressive {R}; standard {ceil-half of R .. R};
//   conservative {1 .. R}; most rungs (most early stopping) first;
// - trials per bracket proportional to d^(r-1)/r, at least 1 each, the
//   remainder to the first; concurrency split evenly (remainder to the
//   first brackets), or max(last bracket's trials, d) each when unlimited;
// - rung k of r trains to max(max_length / d^(r-k-1), 1) batches.
// A trial reaching a rung is promoted as soon as it ranks in the top 1/d of
// that rung so far; otherwise it waits, and a new trial starts in its place
// while the bracket has trials left to create. A trial that exits early
// counts as the worst result at its rung.

#include "messages/errc.hpp"
#include "policy/search_methods.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace det::policy::detail {

using json = nlohmann::json;

namespace {

constexpr double worst = std::numeric_limits<double>::max();

struct rung_entry {
  double metric; // smaller is better after the sign flip
  request_id id;
  bool promoted;
};

struct rung {
  uint64_t length = 0;
  int outstanding = 0;
  std::vector<rung_entry> entries; // ascending metric
};

struct trial_info {
  size_t rung = 0;
  bool training = true; // working toward its rung's length
};

struct bracket {
  int max_trials = 1;
  int max_concurrent = 1;
  int created = 0;
  int finished = 0;
  std::vector<rung> rungs;
  std::map<request_id, trial_info> trials;
};

/// Records a result at a rung and returns the trial to promote, if any: the
/// new one when it ranks within the top 1/d, otherwise the best trial not
/// yet promoted when the number of promotions owed grows by one.
std::optional<request_id> record(rung& r, request_id id, double metric,
                                 double divisor) {
  auto seen = static_cast<double>(r.entries.size());
  auto owed_before = static_cast<size_t>(seen / divisor);
  auto owed = static_cast<size_t>((seen + 1) / divisor);
  auto at = std::upper_bound(
      r.entries.begin(), r.entries.end(), metric,
      [](double m, const rung_entry& e) { return m < e.metric; });
  auto index = static_cast<size_t>(at - r.entries.begin());
  bool now = index < owed;
  r.entries.insert(at, rung_entry{metric, id, now});
  if (now)
    return id;
  if (owed != owed_before && !r.entries[owed_before].promoted) {
    r.entries[owed_before].promoted = true;
    return r.entries[owed_before].id;
  }
  return std::nullopt;
}

int floor_log(double x, double base) {
  return static_cast<int>(std::floor(std::log(x) / std::log(base) + 1e-9));
}

class asha_search : public searcher {
public:
  asha_search(const searcher_config& config, const hparam_space& space,
              uint64_t seed)
      : searcher(space, seed), divisor_(config.divisor),
        smaller_is_better_(config.smaller_is_better) {
    auto d = config.divisor;
    int r = std::min({config.max_rungs,
                      floor_log(static_cast<double>(config.max_length), d) + 1,
                      floor_log(config.max_trials, d) + 1});
    r = std::max(r, 1);
    std::vector<int> shapes;
    if (config.mode == asha_mode::aggressive)
      shapes = {r};
    else
      for (int i = config.mode == asha_mode::standard ? (r - 1) / 2 + 1 : 1;
           i <= r; ++i)
        shapes.push_back(i);
    std::sort(shapes.begin(), shapes.end(), std::greater<>{});

    std::vector<double> weight;
    double total = 0;
    for (int rungs : shapes) {
      weight.push_back(std::pow(d, rungs - 1) / rungs);
      total += weight.back();
    }
    int allocated = 0;
    brackets_.resize(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      brackets_[i].max_trials =
          std::max(static_cast<int>(weight[i] / total * config.max_trials), 1);
      allocated += brackets_[i].max_trials;
    }
    brackets_[0].max_trials += std::max(config.max_trials - allocated, 0);
    auto n = static_cast<int>(shapes.size());
    int mc = config.max_concurrent_trials;
    for (int i = 0; i < n; ++i) {
      auto& b = brackets_[static_cast<size_t>(i)];
      if (mc == 0)
        b.max_concurrent =
            std::max(brackets_.back().max_trials, static_cast<int>(d));
      else
        b.max_concurrent = std::max(mc, n) / n + (i < std::max(mc, n) % n);
      for (int k = 0; k < shapes[static_cast<size_t>(i)]; ++k) {
        double rate = std::pow(d, shapes[static_cast<size_t>(i)] - k - 1);
        rung rg;
        rg.length = std::max<uint64_t>(
            static_cast<uint64_t>(static_cast<double>(config.max_length)
                                  / rate),
            1);
        b.rungs.push_back(rg);
      }
    }
  }

  [[nodiscard]] double progress() const override {
    double done = 0, all = 0;
    for (const auto& b : brackets_) {
      done += b.finished;
      all += b.max_trials;
    }
    return all > 0 ? done / all : 1.0;
  }

protected:
  void on_start(std::vector<searcher_op>& ops) override {
    for (size_t i = 0; i < brackets_.size(); ++i) {
      auto& b = brackets_[i];
      int n = std::min(b.max_concurrent, b.max_trials);
      while (b.created < n)
        spawn(ops, i);
    }
  }

  void on_validation(std::vector<searcher_op>& ops, request_id id,
                     uint64_t length, double value) override {
    auto* where = find(id);
    if (where == nullptr)
      return;
    auto& [bi, info] = *where;
    auto& b = brackets_[bi];
    if (!info->training || length < b.rungs[info->rung].length)
      return; // not at its rung yet, or already counted there
    info->training = false;
    double m =
        std::isnan(value) ? worst : (smaller_is_better_ ? value : -value);
    promote(ops, bi, id, m);
  }

  void on_exit(std::vector<searcher_op>& ops, request_id id) override {
    auto* where = find(id);
    if (where == nullptr)
      return;
    auto& [bi, info] = *where;
    ++brackets_[bi].finished;
    if (info->training) {
      info->training = false;
      promote(ops, bi, id, worst);
    }
    // A trial waiting at a rung keeps its result; if it is promoted later
    // it is treated as exited then.
  }

  [[nodiscard]] bool created_all() const override {
    return std::all_of(
        brackets_.begin(), brackets_.end(),
        [](const bracket& b) { return b.created >= b.max_trials; });
  }

  void save_method(json& j) const override {
    json bs = json::array();
    for (const auto& b : brackets_) {
      json rungs = json::array();
      for (const auto& r : b.rungs) {
        json entries = json::array();
        for (const auto& e : r.entries)
          entries.push_back({e.metric, e.id, e.promoted});
        rungs.push_back({{"outstanding", r.outstanding}, {"entries", entries}});
      }
      json trials = json::array();
      for (const auto& [id, t] : b.trials)
        trials.push_back({id, t.rung, t.training});
      bs.push_back({{"created", b.created},
                    {"finished", b.finished},
                    {"rungs", rungs},
                    {"trials", trials}});
    }
    j["brackets"] = std::move(bs);
  }

  [[nodiscard]] caf::error load_method(const json& j) override {
    const auto& bs = j.at("brackets");
    if (bs.size() != brackets_.size())
      return make_error(errc::corrupt_snapshot,
                        "searcher state: " + std::to_string(bs.size())
                            + " brackets saved, the config makes "
                            + std::to_string(brackets_.size()));
    auto loaded = brackets_;
    for (size_t i = 0; i < loaded.size(); ++i) {
      auto& b = loaded[i];
      const auto& jb = bs[i];
      b.created = jb.at("created").get<int>();
      b.finished = jb.at("finished").get<int>();
      const auto& rungs = jb.at("rungs");
      if (rungs.size() != b.rungs.size())
        return make_error(errc::corrupt_snapshot,
                          "searcher state: rung count does not match");
      for (size_t k = 0; k < b.rungs.size(); ++k) {
        b.rungs[k].outstanding = rungs[k].at("outstanding").get<int>();
        b.rungs[k].entries.clear();
        for (const auto& e : rungs[k].at("entries"))
          b.rungs[k].entries.push_back(rung_entry{e.at(0).get<double>(),
                                                  e.at(1).get<request_id>(),
                                                  e.at(2).get<bool>()});
      }
      b.trials.clear();
      for (const auto& t : jb.at("trials")) {
        auto r = t.at(1).get<size_t>();
        if (r >= b.rungs.size())
          return make_error(
              errc::corrupt_snapshot,
              "searcher state: trial at a rung that does not exist");
        b.trials[t.at(0).get<request_id>()] =
            trial_info{r, t.at(2).get<bool>()};
      }
    }
    brackets_ = std::move(loaded);
    return caf::none;
  }

  [[nodiscard]] const char* name() const override { return "adaptive_asha"; }

private:
  using location = std::pair<size_t, trial_info*>;

  location* find(request_id id) {
    for (size_t i = 0; i < brackets_.size(); ++i) {
      auto it = brackets_[i].trials.find(id);
      if (it != brackets_[i].trials.end()) {
        found_ = {i, &it->second};
        return &found_;
      }
    }
    return nullptr;
  }

  void spawn(std::vector<searcher_op>& ops, size_t bi) {
    auto& b = brackets_[bi];
    auto id = create(ops, sample_hparams());
    b.trials[id] = trial_info{0, true};
    ++b.rungs[0].outstanding;
    ++b.created;
    train(ops, id, b.rungs[0].length);
  }

  void finish(std::vector<searcher_op>& ops, bracket& b, request_id id) {
    if (!is_open(id))
      return;
    close(ops, id);
    ++b.finished;
  }

  void promote(std::vector<searcher_op>& ops, size_t bi, request_id id,
               double metric) {
    auto& b = brackets_[bi];
    auto r = b.trials[id].rung;
    --b.rungs[r].outstanding;
    bool training_more = false;
    if (r + 1 == b.rungs.size()) {
      finish(ops, b, id);
    } else if (auto next = record(b.rungs[r], id, metric, divisor_)) {
      auto& t = b.trials[*next];
      t.rung = r + 1;
      ++b.rungs[r + 1].outstanding;
      if (!is_open(*next)) {
        // An exited trial goes up as if it had reported the worst result.
        promote(ops, bi, *next, worst);
        return;
      }
      t.training = true;
      train(ops, *next, b.rungs[r + 1].length);
      training_more = true;
    }
    if (!training_more && b.created < b.max_trials)
      spawn(ops, bi);
    if (static_cast<int>(b.rungs[0].entries.size()) >= b.max_trials)
      close_out(ops, b);
  }

  /// Closes the trials left behind in every rung that nothing can reach
  /// any more.
  void close_out(std::vector<searcher_op>& ops, bracket& b) {
    for (const auto& r : b.rungs) {
      if (r.outstanding > 0)
        break;
      for (const auto& e : r.entries)
        if (!e.promoted)
          finish(ops, b, e.id);
    }
  }

  double divisor_;
  bool smaller_is_better_;
  std::vector<bracket> brackets_;
  location found_;
};

} // namespace

std::unique_ptr<searcher> make_asha_search(const searcher_config& config,
                                           const hparam_space& space,
                                           uint64_t seed) {
  return std::make_unique<asha_search>(config, space, seed);
}

} // namespace det::policy::detail
