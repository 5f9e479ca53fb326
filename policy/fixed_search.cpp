// single, grid and random: a known number of trials, each trained to
// max_length and closed after its final validation; at most
// max_concurrent_trials open at once, the next created as one ends.

#include "messages/errc.hpp"
#include "policy/search_methods.hpp"

#include <algorithm>

namespace det::policy::detail {

using json = nlohmann::json;

namespace {

class fixed_search : public searcher {
public:
  fixed_search(const searcher_config& config, const hparam_space& space,
               uint64_t seed, std::vector<json> points)
      : searcher(space, seed), kind_(config.kind),
        max_length_(config.max_length), points_(std::move(points)) {
    total_ = kind_ == searcher_kind::grid ? std::max<size_t>(points_.size(), 1)
             : kind_ == searcher_kind::single
                 ? 1
                 : static_cast<size_t>(config.max_trials);
    concurrency_ = config.max_concurrent_trials > 0
                       ? static_cast<size_t>(config.max_concurrent_trials)
                       : total_;
    if (kind_ == searcher_kind::single)
      concurrency_ = 1;
  }

  [[nodiscard]] double progress() const override {
    return static_cast<double>(finished_) / static_cast<double>(total_);
  }

protected:
  void on_start(std::vector<searcher_op>& ops) override {
    while (created_ < total_ && created_ < concurrency_)
      spawn(ops);
  }

  void on_validation(std::vector<searcher_op>& ops, request_id id,
                     uint64_t length, double) override {
    if (max_length_ == 0 || length < max_length_)
      return; // intermediate, or the trial ends itself by exiting
    close(ops, id);
    finish_one(ops);
  }

  void on_exit(std::vector<searcher_op>& ops, request_id) override {
    finish_one(ops);
  }

  void on_reopen(std::vector<searcher_op>& ops, request_id id) override {
    if (finished_ > 0)
      --finished_;
    train(ops, id, max_length_);
  }

  [[nodiscard]] bool created_all() const override { return created_ == total_; }

  void save_method(json& j) const override {
    j["created"] = created_;
    j["finished"] = finished_;
  }

  [[nodiscard]] caf::error load_method(const json& j) override {
    auto created = j.at("created").get<size_t>();
    auto finished = j.at("finished").get<size_t>();
    if (created > total_ || finished > created)
      return make_error(errc::corrupt_snapshot,
                        "searcher state: " + std::to_string(created)
                            + " trials created of " + std::to_string(total_));
    created_ = created;
    finished_ = finished;
    return caf::none;
  }

  [[nodiscard]] const char* name() const override {
    switch (kind_) {
    case searcher_kind::grid:
      return "grid";
    case searcher_kind::random:
      return "random";
    default:
      return "single";
    }
  }

private:
  void spawn(std::vector<searcher_op>& ops) {
    json hp = kind_ == searcher_kind::grid && !points_.empty()
                  ? points_[created_]
                  : sample_hparams();
    auto id = create(ops, std::move(hp));
    train(ops, id, max_length_);
    ++created_;
  }

  void finish_one(std::vector<searcher_op>& ops) {
    ++finished_;
    if (created_ < total_)
      spawn(ops);
  }

  searcher_kind kind_;
  uint64_t max_length_;
  std::vector<json> points_;
  size_t total_ = 1;
  size_t concurrency_ = 1;
  size_t created_ = 0;
  size_t finished_ = 0;
};

} // namespace

std::unique_ptr<searcher> make_fixed_search(const searcher_config& config,
                                            const hparam_space& space,
                                            uint64_t seed,
                                            std::vector<json> points) {
  return std::make_unique<fixed_search>(config, space, seed, std::move(points));
}

} // namespace det::policy::detail
