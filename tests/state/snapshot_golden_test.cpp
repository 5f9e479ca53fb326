// The snapshot's byte form is a contract with every snapshot already stored:
// the codec must write exactly what tests/data/state/*.json hold (written by
// the codec before its field lists were shared with operator==) and read
// them back into the state they came from. DET_UPDATE_GOLDEN=1 rewrites the
// files instead (only for a deliberate change of the form).

#include "state_fixture.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace det::state::test {

namespace {

std::string golden_path(const std::string& name) {
  return std::string{DET_TEST_DATA_DIR} + "/state/" + name;
}

/// Compares `text` with golden file `name`, or rewrites the file.
void expect_golden(const std::string& name, const std::string& text) {
  if (std::getenv("DET_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden_path(name)) << text;
    return;
  }
  std::ifstream in(golden_path(name));
  ASSERT_TRUE(in) << "no golden file " << golden_path(name);
  std::stringstream want;
  want << in.rdbuf();
  // Name the first line that differs rather than print both files.
  std::istringstream got_lines(text), want_lines(want.str());
  std::string got_line, want_line;
  for (int n = 1;; ++n) {
    bool more_got = static_cast<bool>(std::getline(got_lines, got_line));
    bool more_want = static_cast<bool>(std::getline(want_lines, want_line));
    if (!more_got && !more_want)
      return;
    ASSERT_TRUE(more_got && more_want && got_line == want_line)
        << "the snapshot form of " << name << " changed at line " << n
        << ": wrote '" << (more_got ? got_line : "(end)") << "', golden has '"
        << (more_want ? want_line : "(end)") << "'";
  }
}

/// Every record type, every field set to something other than its default
/// (including optional fields set). Not a state that holds together (no
/// invariants are checked by to_snapshot), only a witness of the form.
cluster_state every_field_set() {
  cluster_state s;
  s.position = 77;
  s.applied_by_type = {{"master_started", 2}, {"trial_created", 5}};
  s.cluster_id = "c-golden";
  s.masters_started = 2;

  pool_info p;
  p.config.pool = "gpu";
  p.config.scheduler = "fair_share";
  p.config.provider = "aws";
  p.config.slots_per_instance = 8;
  p.config.min_instances = 1;
  p.config.max_instances = 9;
  p.config.instance_type = "p3.8xlarge";
  p.config.spot = true;
  p.config.max_idle_agent_period_s = 301;
  p.config.max_agent_starting_period_s = 302;
  p.config.agent_reconnect_wait_s = 303;
  p.launches_requested = 4;
  p.consecutive_launch_failures = 2;
  p.last_launch_error_kind = "capacity";
  p.last_launch_error = "InsufficientInstanceCapacity";
  p.last_launch_error_at_us = 1001;
  p.launches[4] = launch_info{4, "tok-4", 3, true, 1, 1002};
  s.pools["gpu"] = p;

  agent_info a;
  a.id = "ag-1";
  a.pool = "gpu";
  a.slot_type = "cuda";
  a.instance_id = "i-9";
  a.status = agent_status::disconnected;
  a.enabled = false;
  a.draining = true;
  a.retiring = true;
  a.slots = {"", "7.1"};
  a.connected_at_us = 1003;
  a.idle_since_us = 1004;
  a.disconnected_at_us = 1005;
  a.reconnect_deadline_us = 1006;
  a.slot_limit = 1;
  s.agents[a.id] = a;

  instance_info i;
  i.id = "i-9";
  i.pool = "gpu";
  i.launch_seq = 4;
  i.spot_request_id = "sir-9";
  i.status = instance_status::terminating;
  i.agent_id = "ag-1";
  i.launched_at_us = 1007;
  i.running_at_us = 1008;
  i.agent_gone_since_us = 1009;
  i.terminate_reason = "idle";
  i.terminate_requested_at_us = 1010;
  s.instances[i.id] = i;

  s.spot_requests["sir-10"] = spot_request_info{"sir-10", "gpu", 5, 1011};

  experiment_info e;
  e.id = 3;
  e.pool = "gpu";
  e.owner = "alice";
  e.config = {{"searcher", {{"name", "single"}}}};
  e.priority = 7;
  e.weight = 2.5;
  e.max_restarts = 9;
  e.slots_per_trial = 2;
  e.status = experiment_status::stopping_canceled;
  e.status_reason = "user asked";
  e.searcher_state = {{"next", 8}};
  e.progress = 0.75;
  e.trial_ids = {7, 8};
  e.submitted_at_us = 1012;
  e.state_changed_at_us = 1013;
  e.searcher_inbox = {
      searcher_input{3, 7, "r7", "validation", 40, {{"loss", 0.5}}, "running"}};
  e.searcher_inputs_queued = 3;
  e.model_definition_pending = true;
  e.notes = "first run\nwith notes";
  e.archived = true;
  s.experiments[e.id] = e;

  trial_info t;
  t.id = 7;
  t.experiment_id = 3;
  t.request_id = "r7";
  t.hparams = {{"lr", 0.01}};
  t.status = trial_status::checkpointing;
  t.restarts = 1;
  t.runs = 2;
  t.allocation = allocation_info{"7.2", {{"ag-1", {1}}}, 1014, 1015,
                                 true,  "priority",      1016};
  t.last_exit_reason = "failed";
  t.last_exit_code = 3;
  t.end_reason = "none yet";
  t.checkpoints = {
      checkpoint_info{
          "ck-a", 10, {{"k", 1}}, 1017, "deleted", std::nullopt, false, {}, {}},
      checkpoint_info{"ck-b",
                      20,
                      {{"k", 2}},
                      1018,
                      "completed",
                      0.5,
                      true,
                      {"state*"},
                      {{"x", 0.5}}}};
  t.latest_checkpoint = t.checkpoints.back();
  t.metrics.steps_completed = 20;
  t.metrics.training_reports = 4;
  t.metrics.validation_reports = 2;
  t.metrics.latest_training = {{"loss", 0.9}};
  t.metrics.latest_validation = {{"loss", 0.5}};
  t.metrics.best_validation = 0.5;
  t.metrics.best_validation_steps = 20;
  t.metrics.summaries = {{"group_b",
                          {{"loss",
                            {{"type", "number"},
                             {"count", 2},
                             {"sum", 1.5},
                             {"min", 0.5},
                             {"max", 1.0},
                             {"mean", 0.75},
                             {"last", 1.0}}}}}};
  t.created_at_us = 1019;
  t.log_retention_days = 30;
  t.archived = true;
  t.deleted = true;
  t.log_policy_matched = "CUDA OOM";
  t.log_policies_fired = {"CUDA OOM", "ecc"};
  t.retries_canceled_by = "CUDA OOM";
  t.excluded_agents = {"ag-2"};
  t.external_id = "run-a";
  t.last_activity_us = 1024;
  s.trials[t.id] = t;
  s.allocations["7.2"] = 7;

  s.users["alice"] = user_info{1, "alice", true, false, "h$1", 1020, 1021};
  s.sessions["abc123"] = "alice";

  s.experiments[3].project_id = 2;
  s.experiments[3].unmanaged = true;
  s.experiments[3].external_id = "sweep-1";
  s.experiments[3].deleting = true;
  s.workspaces[2] = workspace_info{2,
                                   "lab",
                                   true,
                                   {{"agentUid", 7}},
                                   {{"type", "s3"}},
                                   "gpu",
                                   "aux",
                                   "alice",
                                   1022,
                                   {{"east", "team-a"}},
                                   {},
                                   {"alice"}};
  s.projects[2] =
      project_info{2, 2, "vision", "images", "VIS", true, "alice", 1023};
  s.last_workspace_id = 2;
  s.last_project_id = 2;
  s.templates["t"] = template_info{"t", 2, {{"max_restarts", 1}}};
  s.pool_bindings["gpu"] = pool_binding_info{"gpu", {1, 2}};
  s.workspaces[2].config_policies["EXPERIMENT"] = config_policy_info{
      "EXPERIMENT", {{"records_per_epoch", 100}}, nullptr, "alice", 1030};
  s.global_config_policies["NTSC"] = config_policy_info{
      "NTSC", nullptr, {{"priority_limit", 10}}, "admin", 1031};
  model_info m{3,       "resnet", "a model", 2,    true, {{"k", 1}}, {"l"},
               "notes", "alice",  1024,      1025, {},   2};
  m.versions.push_back(model_version_info{
      2, "ck-b", "v2", "comment", "n", {{"a", 1}}, {"x"}, "alice", 1026, 1027});
  s.models[3] = m;
  s.last_model_id = 3;
  s.webhooks[4] = webhook_info{4,
                               "hook",
                               "http://127.0.0.1:9/h",
                               "SLACK",
                               "SPECIFIC",
                               2,
                               {{{"id", 5},
                                 {"trigger_type", "TASK_LOG"},
                                 {"condition", {{"regex", "err"}}}}},
                               "alice",
                               1028,
                               {"5/7"}};
  s.webhook_deliveries[6] = webhook_delivery_info{
      6, 4, 5, "TASK_LOG", 3, 7, {{"blocks", nlohmann::json::array()}}, 1029};
  s.last_webhook_id = 4;
  s.last_webhook_trigger_id = 5;
  s.last_webhook_delivery_id = 6;
  s.orphan_checkpoints[4] = {
      4, {"c-old"}, {{"type", "shared_fs"}, {"host_path", "/mnt/ck"}}};
  s.allocation_history["7.1"] = allocation_record{
      "7.1", 7, 3, "alice", "ws-a", "gpu", {"x", "y"}, 2, 1040, 1041};
  task_info task;
  task.id = "0f1e2d3c-aaaa-bbbb-cccc-000000000001";
  task.task_type = "COMMAND";
  task.owner = "alice";
  task.description = "Command (able-ant)";
  task.config = {{"entrypoint", nlohmann::json::array({"echo hi"})}};
  task.pool = "gpu";
  task.slots = 1;
  task.priority = 7;
  task.weight = 2.5;
  task.workspace_id = 2;
  task.state = task_state::terminated;
  task.allocation_id = task.id + ".1";
  task.agent_id = "a1";
  task.ready = true;
  task.proxy_host = "127.0.0.1";
  task.proxy_port = 2901;
  task.kill_requested_by = "alice";
  task.kill_reason = "killed by user";
  task.launched_at_us = 1050;
  task.placed_at_us = 1051;
  task.running_at_us = 1052;
  task.ended_at_us = 1053;
  task.exit_reason = "killed";
  task.exit_code = 137;
  task.exit_message = "killed: by alice";
  task.allocations = 1;
  task.pausing = true;
  task.forked_from = "0f1e2d3c-aaaa-bbbb-cccc-000000000000";
  task.parent_id = "0f1e2d3c-aaaa-bbbb-cccc-000000000000";
  task.no_pause = true;
  task.pauses_with_parent = true;
  task.tensorboard = {{"storage", {{"type", "shared_fs"}}},
                      {"experiments", {1}},
                      {"trials", nlohmann::json::array()}};
  s.tasks[task.id] = task;
  return s;
}

class snapshot_golden : public state_fixture {};

TEST_F(snapshot_golden, a_state_with_every_field_set_is_written_as_before) {
  expect_golden("snapshot_every_field.json",
                to_snapshot(every_field_set()).dump(2) + "\n");
}

TEST_F(snapshot_golden, a_busy_cluster_is_written_and_read_as_before) {
  busy_cluster();
  ok(user_created{"admin", true, "", 600});
  ok(user_created{"bob", false, "h$2", 610});
  ok(user_password_changed{"bob", "h$3", 620});
  ok(session_started{"bob", std::string(64, 'f'), 630});
  ok(experiment_state_changed{2, "PAUSED", "by bob", 640});
  auto text = to_snapshot(s).dump(2) + "\n";
  expect_golden("snapshot_busy_cluster.json", text);
  std::ifstream in(golden_path("snapshot_busy_cluster.json"));
  ASSERT_TRUE(in);
  auto stored = nlohmann::json::parse(in);
  auto back = from_snapshot(stored);
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == s);
  // A snapshot written before agents had `retiring` reads as not retiring.
  for (auto& a : stored["agents"])
    ASSERT_EQ(a.erase("retiring"), 1u);
  auto older = from_snapshot(stored);
  ASSERT_TRUE(older) << render(older.error());
  EXPECT_TRUE(*older == s);
}

} // namespace

} // namespace det::state::test
