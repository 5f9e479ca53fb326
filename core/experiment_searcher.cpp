#include "core/experiment_searcher.hpp"

#include "messages/errc.hpp"

#include <algorithm>

namespace det {

namespace {

const nlohmann::json* rows_of(const nlohmann::json& saved) {
  if (!saved.is_object())
    return nullptr;
  auto i = saved.find("trials");
  return i == saved.end() || !i->is_array() ? nullptr : &*i;
}

} // namespace

std::optional<uint64_t> request_number(const std::string& text) {
  if (text.empty() || text.size() > 19
      || !std::all_of(text.begin(), text.end(),
                      [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoull(text);
}

std::optional<ledger_entry> ledger_line(const nlohmann::json& saved,
                                        const std::string& request_id) {
  auto rows = rows_of(saved);
  auto req = request_number(request_id);
  if (rows == nullptr || !req)
    return std::nullopt;
  for (const auto& row : *rows)
    if (row.value("request", uint64_t{0}) == *req)
      return ledger_entry{row.value("target", int64_t{0}),
                          row.value("closed", false)};
  return std::nullopt;
}

bool searcher_shut_down(const nlohmann::json& saved) {
  return saved.is_object() && saved.value("shut_down", false);
}

bool searcher_started(const nlohmann::json& saved) {
  if (!saved.is_object())
    return false;
  auto s = saved.find("searcher");
  return s != saved.end() && s->is_object() && s->value("started", false);
}

int64_t searcher_fed_through(const state::experiment_info& e) {
  return e.searcher_inbox.empty() ? e.searcher_inputs_queued
                                  : e.searcher_inbox.front().seq - 1;
}

caf::expected<experiment_searcher>
experiment_searcher::make(const nlohmann::json& config, uint64_t seed,
                          const nlohmann::json& saved, int64_t fed_through) {
  auto sc = policy::parse_searcher_config(
      config.value("searcher", nlohmann::json::object()));
  if (!sc)
    return std::move(sc.error());
  auto s = policy::make_searcher(
      *sc, config.value("hyperparameters", nlohmann::json::object()), seed);
  if (!s)
    return std::move(s.error());
  experiment_searcher out;
  out.searcher_ = std::move(*s);
  out.metric_ = sc->metric;
  out.time_metric_ = sc->time_metric;
  out.fed_through_ = fed_through;
  if (saved.is_object() && saved.contains("searcher")) {
    if (auto err = out.searcher_->load(saved["searcher"]))
      return err;
    out.started_ = searcher_started(saved);
    if (auto rows = rows_of(saved))
      for (const auto& row : *rows)
        out.ledger_[row.value("request", uint64_t{0})] = ledger_entry{
            row.value("target", int64_t{0}), row.value("closed", false)};
  }
  return out;
}

caf::expected<experiment_searcher>
experiment_searcher::of(const state::experiment_info& e, uint64_t base_seed) {
  return make(e.config, base_seed + static_cast<uint64_t>(e.id),
              e.searcher_state, searcher_fed_through(e));
}

searcher_step experiment_searcher::start(int64_t experiment_id) {
  searcher_step step;
  step.experiment_id = experiment_id;
  step.first = true;
  step.inputs_after = fed_through_;
  step.inputs_through = fed_through_;
  started_ = true;
  run(step, searcher_->start());
  finish(step);
  return step;
}

std::optional<searcher_step>
experiment_searcher::feed(int64_t experiment_id,
                          const std::vector<state::searcher_input>& inbox) {
  searcher_step step;
  step.experiment_id = experiment_id;
  step.inputs_after = fed_through_;
  bool any = false;
  for (const auto& in : inbox) {
    if (in.seq <= fed_through_)
      continue;
    any = true;
    take(step, in);
    fed_through_ = in.seq;
  }
  if (!any)
    return std::nullopt;
  step.inputs_through = fed_through_;
  finish(step);
  return step;
}

searcher_step
experiment_searcher::reopen(int64_t experiment_id,
                            const std::vector<uint64_t>& requests) {
  searcher_step step;
  step.experiment_id = experiment_id;
  step.inputs_after = fed_through_;
  step.inputs_through = fed_through_;
  for (auto req : requests)
    if (auto i = ledger_.find(req); i != ledger_.end())
      i->second.closed = false;
  run(step, searcher_->reopen(requests));
  finish(step);
  return step;
}

void experiment_searcher::take(searcher_step& step,
                               const state::searcher_input& in) {
  auto req = request_number(in.request_id);
  if (!req || ledger_.count(*req) == 0)
    return; // not a trial of this searcher
  auto& line = ledger_[*req];
  if (in.kind == "ended") {
    // A trial the searcher closed that then completed is what it asked for;
    // anything else ended it early.
    if (!(in.trial_status == "completed" && line.closed))
      run(step, searcher_->trial_exited_early(*req));
    return;
  }
  if (in.kind != "validation" || !in.metrics.is_object())
    return;
  auto m = in.metrics.find(metric_);
  if (m == in.metrics.end() || !m->is_number())
    return;
  auto length = in.steps;
  if (!time_metric_.empty()) {
    auto tm = in.metrics.find(time_metric_);
    if (tm == in.metrics.end() || !tm->is_number())
      return; // upstream ASHA ignores validations without the time metric
    length = static_cast<int64_t>(tm->get<double>());
  }
  run(step, searcher_->validation_reported(
                *req, static_cast<uint64_t>(std::max<int64_t>(length, 0)),
                m->get<double>()));
  // A 0.38 script trains on until told otherwise: a trial that reached its
  // rung without being promoted is asked to checkpoint and stop.
  const auto& now = ledger_[*req];
  if (!time_metric_.empty() && !now.closed && now.target > 0
      && length >= now.target
      && std::find(step.stop.begin(), step.stop.end(), *req) == step.stop.end())
    step.stop.push_back(*req);
}

void experiment_searcher::run(searcher_step& step,
                              std::vector<policy::searcher_op> ops) {
  for (size_t i = 0; i < ops.size(); ++i) {
    // Ops may create more ops (trial_created feeds the searcher back); the
    // trial exists once the master appends the step, and the searcher only
    // knows it by its request id.
    auto op = ops[i];
    if (auto c = std::get_if<policy::create_trial>(&op)) {
      ledger_[c->id];
      auto more = searcher_->trial_created(c->id);
      ops.insert(ops.end(), more.begin(), more.end());
    } else if (auto t = std::get_if<policy::train_trial>(&op)) {
      ledger_[t->id].target = static_cast<int64_t>(t->length);
    } else if (auto cl = std::get_if<policy::close_trial>(&op)) {
      ledger_[cl->id].closed = true;
    }
    step.ops.push_back(op);
  }
}

void experiment_searcher::finish(searcher_step& step) const {
  auto rows = nlohmann::json::array();
  for (const auto& [req, line] : ledger_)
    rows.push_back(
        {{"request", req}, {"target", line.target}, {"closed", line.closed}});
  step.saved = {{"searcher", searcher_->save()},
                {"trials", std::move(rows)},
                {"shut_down", searcher_->shut_down()}};
  step.progress = searcher_->progress();
}

} // namespace det
