#include "policy/searcher.hpp"

#include "messages/errc.hpp"
#include "policy/search_methods.hpp"

namespace det::policy {

using json = nlohmann::json;

namespace {

caf::error bad_searcher(const std::string& field, const std::string& what) {
  return make_error(errc::invalid_argument, "searcher." + field + ": " + what);
}

template <class T> caf::error read(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return caf::none;
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    return bad_searcher(key, "has the wrong type");
  }
  return caf::none;
}

} // namespace

bool operator==(const searcher_op& a, const searcher_op& b) {
  return to_string(a) == to_string(b);
}

std::string to_string(const searcher_op& op) {
  struct visitor {
    std::string operator()(const create_trial& x) const {
      return "create(" + std::to_string(x.id) + ", " + x.hparams.dump() + ", "
             + std::to_string(x.trial_seed) + ")";
    }
    std::string operator()(const train_trial& x) const {
      return "train(" + std::to_string(x.id) + ", " + std::to_string(x.length)
             + ")";
    }
    std::string operator()(const close_trial& x) const {
      return "close(" + std::to_string(x.id) + ")";
    }
    std::string operator()(const shutdown_experiment& x) const {
      return x.failure ? "shutdown(failure)" : "shutdown";
    }
  };
  return std::visit(visitor{}, op);
}

caf::expected<searcher_config> parse_searcher_config(const json& j) {
  searcher_config c;
  if (!j.is_object())
    return make_error(errc::invalid_argument, "searcher: must be a mapping");
  std::string name;
  if (auto err = read(j, "name", name))
    return err;
  if (name == "single")
    c.kind = searcher_kind::single;
  else if (name == "grid")
    c.kind = searcher_kind::grid;
  else if (name == "random")
    c.kind = searcher_kind::random;
  else if (name == "adaptive_asha")
    c.kind = searcher_kind::adaptive_asha;
  else
    return bad_searcher("name",
                        "unknown searcher '" + name
                            + "' (single, grid, random, adaptive_asha)");
  if (auto err = read(j, "metric", c.metric))
    return err;
  if (auto err = read(j, "smaller_is_better", c.smaller_is_better))
    return err;
  if (auto it = j.find("max_length"); it != j.end()) {
    const json& v = it->is_object() ? it->value("batches", json{}) : *it;
    if (!v.is_number_integer() || v.get<long long>() < 1)
      return bad_searcher("max_length", "must be a positive number of batches");
    c.max_length = v.get<uint64_t>();
  } else if (auto mt = j.find("max_time"); mt != j.end() && !mt->is_null()) {
    if (!mt->is_number_integer() || mt->get<long long>() < 1)
      return bad_searcher("max_time", "must be a positive integer");
    c.max_length = mt->get<uint64_t>();
  } else if (c.kind == searcher_kind::adaptive_asha) {
    return bad_searcher("max_time",
                        "adaptive_asha needs max_time and time_metric "
                        "(or the legacy max_length)");
  }
  if (auto tm = j.find("time_metric"); tm != j.end() && !tm->is_null()) {
    if (!tm->is_string() || tm->get<std::string>().empty())
      return bad_searcher("time_metric", "must be a metric name");
    c.time_metric = tm->get<std::string>();
  }
  for (auto [key, field] :
       {std::pair{"max_trials", &c.max_trials},
        std::pair{"max_concurrent_trials", &c.max_concurrent_trials},
        std::pair{"max_rungs", &c.max_rungs}})
    if (auto err = read(j, key, *field))
      return err;
  if (auto err = read(j, "divisor", c.divisor))
    return err;
  std::string mode = "standard";
  if (auto err = read(j, "mode", mode))
    return err;
  if (mode == "aggressive")
    c.mode = asha_mode::aggressive;
  else if (mode == "standard")
    c.mode = asha_mode::standard;
  else if (mode == "conservative")
    c.mode = asha_mode::conservative;
  else
    return bad_searcher("mode", "must be aggressive, standard or conservative");
  if (c.kind == searcher_kind::single)
    c.max_trials = 1;
  if (c.max_trials < 1)
    return bad_searcher("max_trials", "must be at least 1");
  if (c.max_concurrent_trials < 0)
    return bad_searcher("max_concurrent_trials", "must not be negative");
  if (c.kind == searcher_kind::adaptive_asha) {
    if (c.metric.empty())
      return bad_searcher("metric",
                          "adaptive_asha needs the metric it compares");
    if (c.divisor <= 1)
      return bad_searcher("divisor", "must be greater than 1");
    if (c.max_rungs < 1)
      return bad_searcher("max_rungs", "must be at least 1");
  }
  return c;
}

searcher::searcher(const hparam_space& space, uint64_t seed)
    : space_(space), rng_(seed) {}

searcher::~searcher() = default;

request_id searcher::create(std::vector<searcher_op>& ops, json hparams) {
  auto id = next_id_++;
  trials_[id] = trial_status::open;
  ops.push_back(create_trial{id, std::move(hparams),
                             static_cast<uint32_t>(rng_.next() >> 32)});
  return id;
}

void searcher::train(std::vector<searcher_op>& ops, request_id id,
                     uint64_t length) {
  if (is_open(id))
    ops.push_back(train_trial{id, length});
}

void searcher::close(std::vector<searcher_op>& ops, request_id id) {
  auto it = trials_.find(id);
  if (it == trials_.end() || it->second != trial_status::open)
    return;
  it->second = trial_status::closed;
  ops.push_back(close_trial{id});
}

bool searcher::is_open(request_id id) const {
  auto it = trials_.find(id);
  return it != trials_.end() && it->second == trial_status::open;
}

void searcher::maybe_shut_down(std::vector<searcher_op>& ops) {
  if (shutdown_sent_ || !created_all())
    return;
  bool any_closed = false;
  for (const auto& [id, st] : trials_) {
    if (st == trial_status::open)
      return;
    any_closed = any_closed || st == trial_status::closed;
  }
  shutdown_sent_ = true;
  ops.push_back(shutdown_experiment{!any_closed});
}

std::vector<searcher_op> searcher::start() {
  std::vector<searcher_op> ops;
  if (started_)
    return ops;
  started_ = true;
  on_start(ops);
  maybe_shut_down(ops);
  return ops;
}

std::vector<searcher_op> searcher::trial_created(request_id) {
  return {};
}

std::vector<searcher_op>
searcher::validation_reported(request_id id, uint64_t length, double value) {
  std::vector<searcher_op> ops;
  if (!is_open(id) || shutdown_sent_)
    return ops;
  on_validation(ops, id, length, value);
  maybe_shut_down(ops);
  return ops;
}

std::vector<searcher_op> searcher::trial_exited_early(request_id id) {
  std::vector<searcher_op> ops;
  if (!is_open(id) || shutdown_sent_)
    return ops;
  trials_[id] = trial_status::exited;
  on_exit(ops, id);
  maybe_shut_down(ops);
  return ops;
}

std::vector<searcher_op> searcher::reopen(const std::vector<request_id>& ids) {
  std::vector<searcher_op> ops;
  for (auto id : ids) {
    auto it = trials_.find(id);
    if (it == trials_.end() || it->second == trial_status::open)
      continue;
    it->second = trial_status::open;
    shutdown_sent_ = false;
    on_reopen(ops, id);
  }
  return ops;
}

void searcher::on_reopen(std::vector<searcher_op>&, request_id) {}

json searcher::save() const {
  json trials = json::array();
  for (const auto& [id, st] : trials_)
    trials.push_back({id, static_cast<int>(st)});
  json j{{"method", name()},           {"rng", rng_.state()},
         {"next_id", next_id_},        {"started", started_},
         {"shutdown", shutdown_sent_}, {"trials", trials}};
  json m = json::object();
  save_method(m);
  j["state"] = std::move(m);
  return j;
}

caf::error searcher::load(const json& j) {
  auto corrupt = [](const std::string& what) {
    return make_error(errc::corrupt_snapshot, "searcher state: " + what);
  };
  try {
    if (j.at("method").get<std::string>() != name())
      return corrupt("saved by a " + j.at("method").get<std::string>()
                     + " searcher, not " + name());
    std::map<request_id, trial_status> trials;
    for (const auto& t : j.at("trials")) {
      auto st = t.at(1).get<int>();
      if (st < 0 || st > 2)
        return corrupt("bad trial status");
      trials[t.at(0).get<request_id>()] = static_cast<trial_status>(st);
    }
    if (auto err = load_method(j.at("state")))
      return err;
    rng_.set_state(j.at("rng").get<uint64_t>());
    next_id_ = j.at("next_id").get<request_id>();
    started_ = j.at("started").get<bool>();
    shutdown_sent_ = j.at("shutdown").get<bool>();
    trials_ = std::move(trials);
  } catch (const json::exception& e) {
    return corrupt(e.what());
  }
  return caf::none;
}

caf::expected<std::unique_ptr<searcher>>
make_searcher(const searcher_config& config, const json& hyperparameters,
              uint64_t seed) {
  auto space = parse_hyperparameters(hyperparameters);
  if (!space)
    return space.error();
  if (config.max_length < 1 && config.kind == searcher_kind::adaptive_asha)
    return bad_searcher("max_length", "must be a positive number of batches");
  switch (config.kind) {
  case searcher_kind::grid: {
    auto points = grid_points(*space);
    if (!points)
      return points.error();
    return detail::make_fixed_search(config, *space, seed, std::move(*points));
  }
  case searcher_kind::single:
  case searcher_kind::random:
    if (config.max_trials < 1)
      return bad_searcher("max_trials", "must be at least 1");
    return detail::make_fixed_search(config, *space, seed, {});
  case searcher_kind::adaptive_asha:
    if (config.max_trials < 1 || config.divisor <= 1 || config.max_rungs < 1)
      return bad_searcher("adaptive_asha",
                          "needs max_trials >= 1, divisor > 1 and "
                          "max_rungs >= 1");
    return detail::make_asha_search(config, *space, seed);
  }
  return bad_searcher("name", "unknown searcher");
}

} // namespace det::policy
