#pragma once

// One event of each type with every field set, for the tests of the codec
// (tests/messages) and of what the store can hold (tests/store).

#include "messages/events.hpp"

#include <vector>

namespace det::test {

inline std::vector<domain_event> one_of_each() {
  experiment_submitted sub;
  sub.experiment_id = 3;
  sub.pool = "default";
  sub.owner = "determined";
  sub.config = {{"searcher", {{"name", "single"}}}, {"entrypoint", "x:Y"}};
  sub.priority = 10;
  sub.weight = 2.5;
  sub.project_id = 2;
  trial_placed placed;
  placed.trial_id = 9;
  placed.allocation_id = "9.1";
  placed.assignments = {{"a1", {0, 1}}, {"a2", {3}}};
  return {
      master_started{"c1", "host-a", 4242, "0.1.0", 1000},
      pool_configured{"default", "fair_share", "aws", 4, 0, 10, "g4dn.xlarge",
                      true, 600, 900, 30},
      agent_connected{"a1", "default", 8, "cuda", "i-0abc", 2000},
      agent_disconnected{"a1", "connection closed", 27000, 2000},
      agent_lost{"a1", "reconnect_timeout", 28000},
      agent_enabled{"a1"},
      agent_disabled{"a1", true},
      instance_launch_requested{"default", 1, "c1-default-1", 2, false, 500},
      instance_launch_failed{"default", 1, "quota_exceeded", "VcpuLimit", 600},
      instance_pending{"i-0abc", "default", 1, 700},
      instance_running{"i-0abc", 800},
      instance_terminate_requested{"i-0abc", "idle", 900},
      instance_terminated{"i-0abc", "idle", 950},
      spot_request_opened{"sir-1", "default", 2, 1000},
      spot_request_fulfilled{"sir-1", "i-0def", 1100},
      spot_request_cancelled{"sir-1", "price-too-low", 1200},
      sub,
      experiment_state_changed{3, "PAUSED", "user request", 1300},
      experiment_searcher_updated{3, {{"created", 1}}, 0.25},
      trial_created{9, 3, {{"lr", 0.1}}, "req-1", 1400},
      placed,
      trial_running{9, "9.1", 1500},
      trial_preemption_requested{9, "9.1", "experiment paused", 1600},
      trial_checkpointed{
          9, "c0ffee", 100, {{"framework", "none"}}, "9.1", 1700},
      trial_metrics_reported{
          9, "9.1", "validation", 100, {{"loss", 0.5}}, 1800},
      trial_exited{9, "9.1", 1, "failed", 1900},
      trial_restarted{9, 2000},
      trial_errored{9, "trial exceeded max restarts", 2100},
      trial_canceled{9, "experiment canceled", 2200},
      user_created{"alice", true, "pbkdf2-sha256$1000$00ff$abcd", 2300},
      user_password_changed{"alice", "", 2400},
      session_started{"alice", std::string(64, 'a'), 2500},
      session_ended{"alice", std::string(64, 'a'), 2600},
      experiment_model_stored{3, 2700},
      experiment_edited{3,
                        "renamed",
                        "a description\nof two lines",
                        "notes",
                        {"a", "b"},
                        "alice",
                        2800},
      experiment_archived{3, true, "alice", 2900},
      user_edited{"alice", "alice2", "Alice A.", false, true, 1000, 1001,
                  "alice", "ml", "admin", 3000},
      access_token_created{1, "alice2", std::string(64, 'b'), "ci", 4000000,
                           "admin", 3100},
      access_token_changed{1, "alice2", "nightly", true, "admin", 3200},
      cluster_message_set{"maintenance at 5pm", 3300, 7000, "admin", 3300},
      experiment_resources_changed{3, 10, 2.5, 4, "alice", 3400},
      slot_disabled{"a1", 1, true},
      slot_enabled{"a1", 1},
      agent_slots_changed{"a1", 6, 3050},
      checkpoints_deletion_requested{3, {"c0ffee"}, "gc", "", 3000},
      checkpoints_deleted{3, {"c0ffee"}, 3100},
      experiment_deleted{3, "alice", 3500},
      workspace_saved{2,
                      "research",
                      false,
                      {{"agentUid", 1000}, {"agentUser", "ml"}},
                      {{"type", "shared_fs"}, {"host_path", "/tmp"}},
                      "default",
                      "aux",
                      "alice",
                      3000},
      workspace_deleted{2, "alice", 3100},
      workspace_pinned{2, false, "alice", 3050},
      project_saved{2, 2, "vision", "a description", "VIS", true, "alice",
                    3200},
      project_deleted{2, "alice", 3300},
      experiment_moved{3, 2, "alice", 3400},
      template_saved{
          "gpu", 2, {{"resources", {{"slots_per_trial", 2}}}}, "alice", 3500},
      template_deleted{"gpu", "alice", 3600},
      pool_bindings_set{"default", {1, 2}, "admin", 3700},
      workspace_namespace_bound{1, "east", "team-a", "admin", 3750},
      config_policies_set{
          1,
          "EXPERIMENT",
          {{"records_per_epoch", 100}},
          {{"priority_limit", 10}, {"resources", {{"max_slots", 4}}}},
          "admin",
          3760},
      model_saved{4,
                  "resnet",
                  "a model",
                  2,
                  true,
                  {{"framework", "torch"}},
                  {"prod"},
                  "notes",
                  "alice",
                  3800},
      model_deleted{4, "alice", 3900},
      model_version_saved{4,
                          1,
                          "c0ffee",
                          "v1",
                          "first",
                          "notes",
                          {{"k", 1}},
                          {"x"},
                          "alice",
                          4000},
      model_version_deleted{4, 1, "alice", 4100},
      webhook_saved{1,
                    "hook",
                    "https://hooks.example/x",
                    "SLACK",
                    "SPECIFIC",
                    2,
                    {{{"id", 3},
                      {"trigger_type", "TASK_LOG"},
                      {"condition", {{"regex", "err"}}}}},
                    "alice",
                    4200},
      webhook_deleted{1, "alice", 4300},
      webhook_delivery_due{
          5, 1, 3, "TASK_LOG", 2, 7, {{"event_type", "TASK_LOG"}}, 4400},
      webhook_delivery_ended{5, 1, false, 5, 503, "answered 503", 4500},
      experiment_gc_policy_changed{3, 2, 1, 0, "alice", 4200},
      log_retention_set{3, {9}, 30, "alice", 4300},
      checkpoint_files_removal_requested{3, {"c1"}, {"state*"}, "alice", 4400},
      checkpoint_files_removed{3, "c1", {{"model/w.bin", 5}}, 4500},
      checkpoint_metadata_set{3, "c1", {{"k", "v"}}, "alice", 4550},
      experiment_continued{3,
                           {{"searcher", {{"name", "single"}}}},
                           {9},
                           {{"shut_down", false}},
                           0.0,
                           "alice",
                           4400,
                           {{"lr", 0.1}}},
      runs_archived{3, {9}, true, "alice", 4500},
      runs_deleted{3, {9}, "alice", 4600},
      trial_log_policy_matched{9, 3, "CUDA OOM", ".*CUDA out of memory.*",
                               "cancel_retries", "agent-1",
                               "RuntimeError: CUDA out of memory", 4700},
      unmanaged_trial_created{12, 4, "run-a", {{"lr", 0.1}}, "alice", 4800},
      unmanaged_trial_state_set{12, 4, "RUNNING", true, "started", "alice",
                                4900},
  };
}

} // namespace det::test
