#include "core/trials_parse.hpp"

#include "core/record_args.hpp"
#include "messages/metric_group.hpp"

namespace det {

namespace {

using namespace det::record_args;

/// {group, steps, metrics} of a metric report, as the events keep them.
void metric_fields(const json& a, std::string& group, int64_t& steps,
                   json& metrics) {
  group = text(a, "group", "", name_rules);
  if (auto why = metric_group_problem(group); !why.empty())
    refuse(errc::invalid_argument, "group " + why);
  auto s = a.find("steps");
  if (s != a.end() && !s->is_null() && !s->is_number_integer())
    refuse(errc::invalid_argument,
           "metrics.stepsCompleted: expected a whole number");
  steps = a.value("steps", int64_t{0});
  if (steps < 0)
    refuse(errc::invalid_argument,
           "metrics.stepsCompleted: expected 0 or more");
  metrics = object(a, "metrics", json::object());
}

/// An unmanaged trial's client-given state, as upstream spells it (with or
/// without "STATE_").
std::string trial_state_arg(const json& a) {
  auto v = text(a, "state", "", name_rules);
  if (v.rfind("STATE_", 0) == 0)
    v = v.substr(6);
  for (const char* ok : {"PAUSED", "RUNNING", "COMPLETED", "CANCELED", "ERROR"})
    if (v == ok)
      return v;
  refuse(errc::invalid_argument,
         "state: '" + v
             + "' is not a state an unmanaged trial can be set to (PAUSED, "
               "RUNNING, COMPLETED, CANCELED, ERROR)");
}

} // namespace

caf::expected<user_metrics_report> parse_user_metrics_report(const json& a) {
  return parsed<user_metrics_report>(a, [](const json& b) {
    user_metrics_report r;
    r.trial_id = id_arg(b, "trialId");
    metric_fields(b, r.group, r.steps, r.metrics);
    return r;
  });
}

caf::expected<unmanaged_experiment_open>
parse_unmanaged_experiment_open(const json& a) {
  return parsed<unmanaged_experiment_open>(a, [](const json& b) {
    unmanaged_experiment_open r;
    r.config = object(b, "config", json::object());
    r.external_id = text(b, "externalExperimentId", "", name_rules);
    r.project_id = has(b, "projectId") ? id_arg(b, "projectId") : 0;
    return r;
  });
}

caf::expected<unmanaged_trial_open> parse_unmanaged_trial_open(const json& a) {
  return parsed<unmanaged_trial_open>(a, [](const json& b) {
    unmanaged_trial_open r;
    r.experiment_id = id_arg(b, "experimentId");
    r.external_id = text(b, "externalTrialId", "", name_rules);
    r.hparams = object(b, "hparams", json::object());
    return r;
  });
}

caf::expected<unmanaged_trial_start>
parse_unmanaged_trial_start(const json& a) {
  return parsed<unmanaged_trial_start>(a, [](const json& b) {
    unmanaged_trial_start r;
    r.trial_id = id_arg(b, "trialId");
    if (has(b, "resume"))
      r.resume = flag(b, "resume");
    return r;
  });
}

caf::expected<unmanaged_trial_patch>
parse_unmanaged_trial_patch(const json& a) {
  return parsed<unmanaged_trial_patch>(a, [](const json& b) {
    unmanaged_trial_patch r;
    r.trial_id = id_arg(b, "trialId");
    if (has(b, "state"))
      r.state = trial_state_arg(b);
    return r;
  });
}

caf::expected<unmanaged_checkpoint> parse_unmanaged_checkpoint(const json& a) {
  return parsed<unmanaged_checkpoint>(a, [](const json& b) {
    unmanaged_checkpoint r;
    r.trial_id = id_arg(b, "trialId");
    r.uuid = text(b, "uuid", "", name_rules);
    auto s = b.find("steps");
    if (s != b.end() && !s->is_null() && !s->is_number_integer())
      refuse(errc::invalid_argument,
             "checkpoint.metadata.steps_completed: expected a whole number");
    r.steps = b.value("steps", int64_t{0});
    r.metadata = object(b, "metadata", json::object());
    return r;
  });
}

} // namespace det
