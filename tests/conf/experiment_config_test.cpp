#include "conf/experiment_config.hpp"

#include "conf/master_config.hpp"
#include "conf/reader.hpp"
#include "conf/yaml_tree.hpp"

#include "tests/conf/config_errors.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

using namespace det::conf;

namespace {

std::string experiment_error_of(const std::string& yaml,
                                const experiment_defaults& d = {}) {
  return det::test::error_text(parse_experiment_config(yaml, d));
}

const char* minimal = "entrypoint: python3 train.py\n"
                      "searcher: {name: single, metric: loss}\n";

TEST(experiment_config, example_file_loads) {
  auto text = read_text_file(DET_CONF_DIR "/experiment.yaml");
  ASSERT_TRUE(text);
  auto cfg = parse_experiment_config(*text);
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->name, "core-api-example");
  EXPECT_EQ(cfg->entrypoint.type, entrypoint_config::kind::shell);
  EXPECT_EQ(cfg->searcher.name, "single");
  ASSERT_TRUE(cfg->searcher.max_length);
  EXPECT_EQ(cfg->searcher.max_length->kind, length::unit::batches);
  EXPECT_EQ(cfg->searcher.max_length->units, 1000);
  ASSERT_EQ(cfg->hyperparameters.size(), 2u);
}

TEST(experiment_config, the_legacy_resources_slots_is_taken_and_ignored) {
  // Upstream's template fixture holds `resources: {slots: 0, weight: 1}`.
  auto cfg = parse_experiment_config(std::string{minimal}
                                     + "resources: {slots: 0, weight: 1}\n");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->resources.slots_per_trial, 1);
}

TEST(experiment_config, asha_example_loads_against_the_aws_master) {
  auto master = load_master_config(DET_CONF_DIR "/master-aws.yaml");
  ASSERT_TRUE(master) << det::render(master.error());
  auto text = read_text_file(DET_CONF_DIR "/experiment-asha.yaml");
  ASSERT_TRUE(text);
  auto cfg = parse_experiment_config(*text, experiment_defaults_from(*master));
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->searcher.name, "adaptive_asha");
  EXPECT_EQ(cfg->searcher.max_time, 5000);
  EXPECT_EQ(cfg->resources.resource_pool, "gpu-pool");
  EXPECT_EQ(cfg->resources.priority, 30);
  EXPECT_EQ(cfg->checkpoint_storage.type, "s3");
  // Nested hyperparameters keep their structure.
  const named_hyperparameter* model = nullptr;
  for (const auto& h : cfg->hyperparameters)
    if (h.name == "model")
      model = &h;
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->hp.type, hyperparameter::kind::nested);
  EXPECT_EQ(model->hp.nested.size(), 2u);
}

TEST(experiment_config,
     upstream_style_config_with_passthrough_blocks_is_accepted) {
  auto text =
      read_text_file(DET_TEST_DATA_DIR "/conf/experiment-upstream-style.yaml");
  ASSERT_TRUE(text);
  auto cfg = parse_experiment_config(*text);
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->entrypoint.type, entrypoint_config::kind::trial_class);
  EXPECT_EQ(cfg->experiment_seed, 1234);
  ASSERT_EQ(cfg->bind_mounts.size(), 1u);
  EXPECT_TRUE(cfg->bind_mounts[0].read_only);
  EXPECT_EQ(cfg->min_checkpoint_period.kind, length::unit::epochs);
  EXPECT_EQ(cfg->filled["profiling"]["enabled"], true);
}

TEST(experiment_config, defaults_are_filled_into_the_stored_config) {
  experiment_defaults d;
  d.compute_pool = "gpu";
  d.aux_pool = "cpu";
  d.pool_priorities = {{"gpu", 40}, {"cpu", 50}};
  d.experiment_seed = 77;
  d.checkpoint_storage = {{"type", "shared_fs"}, {"host_path", "/mnt/ckpt"}};
  auto cfg = parse_experiment_config(minimal, d);
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->max_restarts, 5);
  EXPECT_EQ(cfg->resources.slots_per_trial, 1);
  EXPECT_EQ(cfg->resources.resource_pool, "gpu");
  EXPECT_EQ(cfg->resources.priority, 40);
  EXPECT_EQ(cfg->checkpoint_storage.host_path, "/mnt/ckpt");
  const auto& f = cfg->filled;
  EXPECT_EQ(f["max_restarts"], 5);
  EXPECT_EQ(f["name"], "Experiment");
  EXPECT_EQ(f["resources"]["resource_pool"], "gpu");
  EXPECT_EQ(f["resources"]["priority"], 40);
  EXPECT_EQ(f["resources"]["slots_per_trial"], 1);
  EXPECT_EQ(f["searcher"]["smaller_is_better"], true);
  EXPECT_EQ(f["checkpoint_storage"]["host_path"], "/mnt/ckpt");
  EXPECT_EQ(f["checkpoint_storage"]["storage_path"], "determined-checkpoint");
  EXPECT_EQ(f["checkpoint_storage"]["save_trial_best"], 1);
  EXPECT_EQ(f["min_validation_period"]["batches"], 0);
  EXPECT_EQ(f["reproducibility"]["experiment_seed"], 77);
  EXPECT_EQ(f["scheduling_unit"], 100);
  EXPECT_EQ(f["entrypoint"], "python3 train.py");
  EXPECT_TRUE(f["bind_mounts"].is_array());
  EXPECT_TRUE(f["labels"].is_array());
}

TEST(experiment_config, zero_slot_trials_go_to_the_aux_pool) {
  experiment_defaults d;
  d.compute_pool = "gpu";
  d.aux_pool = "cpu";
  auto cfg = parse_experiment_config(
      std::string{minimal} + "resources: {slots_per_trial: 0}\n", d);
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->resources.resource_pool, "cpu");
}

TEST(experiment_config,
     experiment_storage_of_another_type_replaces_the_masters) {
  experiment_defaults d; // master: shared_fs /tmp
  auto cfg = parse_experiment_config(
      std::string{minimal} + "checkpoint_storage: {type: s3, bucket: b}\n", d);
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->checkpoint_storage.type, "s3");
  EXPECT_FALSE(cfg->filled["checkpoint_storage"].contains("host_path"));
}

TEST(experiment_config, entrypoint_forms_are_told_apart) {
  const std::pair<const char*, entrypoint_config::kind> cases[] = {
      {"entrypoint: python3 train.py", entrypoint_config::kind::shell},
      {"entrypoint: model_def:MNistTrial",
       entrypoint_config::kind::trial_class},
      {"entrypoint: pkg.model_def:Trial", entrypoint_config::kind::trial_class},
      {"entrypoint: [python3, train.py]", entrypoint_config::kind::argv},
      {"entrypoint: 'echo a:b c'", entrypoint_config::kind::shell},
  };
  for (const auto& [line, kind] : cases) {
    auto cfg = parse_experiment_config(
        std::string{line} + "\nsearcher: {name: single, metric: m}\n");
    ASSERT_TRUE(cfg) << line << ": " << det::render(cfg.error());
    EXPECT_EQ(cfg->entrypoint.type, kind) << line;
  }
}

TEST(experiment_config, plain_hyperparameters_are_stored_as_const) {
  auto cfg = parse_experiment_config(
      std::string{minimal} + "hyperparameters: {lr: 0.1, opt: {name: adam}}\n");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->filled["hyperparameters"]["lr"]["type"], "const");
  EXPECT_EQ(cfg->filled["hyperparameters"]["lr"]["val"], 0.1);
  EXPECT_EQ(cfg->filled["hyperparameters"]["opt"]["name"]["val"], "adam");
}

// Found by fuzz_experiment_config: `name:` with no value was accepted and
// stored as {type: const, val: null}, which the same parser then refused
// ("val: required"), so a config the master showed could not be submitted
// again.
TEST(experiment_config, the_stored_config_parses_again_with_a_null_constant) {
  auto cfg = parse_experiment_config(std::string{minimal}
                                     + "hyperparameters:\n  every:\n");
  ASSERT_TRUE(cfg) << message_of(cfg.error());
  EXPECT_EQ(cfg->filled["hyperparameters"]["every"],
            (nlohmann::json{{"type", "const"}, {"val", nullptr}}));
  auto again = parse_experiment_config(cfg->filled.dump());
  ASSERT_TRUE(again) << message_of(again.error());
  EXPECT_EQ(again->filled, cfg->filled);
  EXPECT_NE(experiment_error_of(std::string{minimal}
                                + "hyperparameters: {c: {type: const}}\n")
                .find("val: required"),
            std::string::npos);
}

// Found by fuzz_experiment_config in make test: a hyperparameter named with
// 200 control characters (1 byte each in YAML, 6 as a JSON escape) was
// accepted, but the stored config, written as JSON, was one YAML refused
// (a key over 1,024 characters). A config's keys are names: one line of
// at most 255 bytes.
TEST(experiment_config,
     a_key_is_one_short_line_so_the_stored_config_parses_again) {
  auto e = experiment_error_of(std::string{minimal} + "hyperparameters:\n  \"x"
                               + "\\a" + "\": 1\n");
  EXPECT_NE(e.find("hyperparameters"), std::string::npos) << e;
  EXPECT_NE(e.find("control character"), std::string::npos) << e;
  e = experiment_error_of(std::string{minimal} + "data:\n  "
                          + std::string(256, 'k') + ": 1\n");
  EXPECT_NE(e.find("field 'data'"), std::string::npos) << e;
  EXPECT_NE(e.find("256 bytes"), std::string::npos) << e;
  // 255 bytes of quotes (each escaped in JSON) still reads back.
  auto cfg = parse_experiment_config(std::string{minimal} + "data:\n  '"
                                     + std::string(255, '"') + "': 1\n");
  ASSERT_TRUE(cfg) << message_of(cfg.error());
  auto again = parse_experiment_config(cfg->filled.dump());
  ASSERT_TRUE(again) << message_of(again.error());
  EXPECT_EQ(again->filled, cfg->filled);
}

TEST(experiment_config, max_length_accepts_units_or_a_plain_integer) {
  for (auto [text, unit, n] :
       {std::tuple{"max_length: 500", length::unit::unitless, 500},
        std::tuple{"max_length: {batches: 10}", length::unit::batches, 10},
        std::tuple{"max_length: {records: 640}", length::unit::records, 640},
        std::tuple{"max_length: {epochs: 2}", length::unit::epochs, 2}}) {
    auto cfg = parse_experiment_config(
        std::string{"entrypoint: x\nsearcher:\n  name: single\n  metric: m\n  "}
        + text + "\n");
    ASSERT_TRUE(cfg) << text << ": " << det::render(cfg.error());
    ASSERT_TRUE(cfg->searcher.max_length) << text;
    EXPECT_EQ(cfg->searcher.max_length->kind, unit) << text;
    EXPECT_EQ(cfg->searcher.max_length->units, n) << text;
  }
}

TEST(experiment_config, json_text_as_the_cli_may_send_is_accepted) {
  auto cfg = parse_experiment_config(
      R"({"entrypoint": "python3 train.py", "searcher": {"name": "random", )"
      R"("metric": "loss", "max_trials": 3}})");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->searcher.max_trials, 3);
  EXPECT_EQ(cfg->searcher.max_concurrent_trials, 16);
}

class experiment_errors : public testing::TestWithParam<det::test::error_case> {
};

TEST_P(experiment_errors, error_names_the_field_path) {
  const auto& c = GetParam();
  experiment_defaults d;
  d.pool_priorities = {{"default", 42}};
  auto err = experiment_error_of(c.yaml, d);
  EXPECT_NE(err.find(c.want), std::string::npos)
      << "want: " << c.want << "\ngot:  " << err;
}

std::string with(const char* extra) {
  return std::string{minimal} + extra;
}

const det::test::error_case experiment_error_cases[] = {
    {"missing_entrypoint", "searcher: {name: single, metric: m}\n",
     "entrypoint: required"},
    {"empty_entrypoint",
     "entrypoint: ''\nsearcher: {name: single, metric: m}\n",
     "entrypoint: must not be empty"},
    {"entrypoint_wrong_type",
     "entrypoint: 5\nsearcher: {name: single, metric: m}\n",
     "entrypoint: expected a string or a list of strings, got 5"},
    {"typo_at_top", with("hyperparamters: {}\n"),
     "unknown field 'hyperparamters' (did you mean 'hyperparameters'?)"},
    {"missing_searcher", "entrypoint: x\n", "searcher: required"},
    {"asha_without_metric",
     "entrypoint: x\nsearcher: {name: adaptive_asha, max_trials: 4, "
     "time_metric: b, max_time: 10}\n",
     "searcher.metric: required for adaptive_asha"},
    {"asha_without_max_time",
     "entrypoint: x\nsearcher: {name: adaptive_asha, metric: m, max_trials: "
     "4}\n",
     "searcher: the adaptive_asha searcher requires max_time and time_metric"},
    {"random_without_max_trials",
     "entrypoint: x\nsearcher: {name: random, metric: m}\n",
     "searcher.max_trials: required for random"},
    {"removed_searcher", "entrypoint: x\nsearcher: {name: custom, metric: m}\n",
     "searcher.name: the 'custom' searcher has been removed"},
    {"unknown_searcher", "entrypoint: x\nsearcher: {name: grdi, metric: m}\n",
     "searcher.name: expected one of 'single', 'random', 'grid', "
     "'adaptive_asha', "
     "'async_halving', got \"grdi\" (did you mean 'grid'?)"},
    {"searcher_field_typo",
     "entrypoint: x\nsearcher: {name: single, metric: m, smaler_is_better: "
     "true}\n",
     "searcher: unknown field 'smaler_is_better' (did you mean "
     "'smaller_is_better'?)"},
    {"asha_divisor",
     "entrypoint: x\nsearcher: {name: adaptive_asha, metric: m, max_trials: 2, "
     "time_metric: b, max_time: 5, divisor: 1}\n",
     "searcher.divisor: must be greater than 1"},
    {"grid_without_count",
     with("hyperparameters: {lr: {type: double, minval: 0.1, maxval: 1}}\n")
         .replace(std::string{minimal}.find("single"), 6, "grid"),
     "hyperparameters.lr: grid search is in use but count was not provided"},
    {"max_length_two_units",
     "entrypoint: x\nsearcher: {name: single, metric: m, max_length: {batches: "
     "1, epochs: 1}}\n",
     "searcher.max_length: expected an integer or an object with one of"},
    {"max_length_unknown_unit",
     "entrypoint: x\nsearcher: {name: single, metric: m, max_length: {steps: "
     "1}}\n",
     "searcher.max_length: unknown field 'steps'"},
    {"slots_wrong_type", with("resources: {slots_per_trial: two}\n"),
     "resources.slots_per_trial: expected an integer, got \"two\""},
    {"resources_slots_checked", with("resources: {slots: two}\n"),
     "resources.slots: expected an integer, got \"two\""},
    {"priority_range", with("resources: {priority: 0}\n"),
     "resources.priority: must be between 1 and 99, got 0"},
    {"unknown_pool", with("resources: {resource_pool: gpu}\n"),
     "resources.resource_pool: resource pool \"gpu\" does not exist"},
    {"max_slots_below_slots",
     with("resources: {slots_per_trial: 4, max_slots: 2}\n"),
     "resources.max_slots: must be at least slots_per_trial (4)"},
    {"hp_min_above_max",
     with("hyperparameters: {n: {type: int, minval: 5, maxval: 2}}\n"),
     "hyperparameters.n.maxval: must be greater than minval"},
    {"hp_int_not_integer",
     with("hyperparameters: {n: {type: int, minval: 0.5, maxval: 2}}\n"),
     "hyperparameters.n.minval: expected an integer, got 0.5"},
    {"hp_nested_typo",
     with(
         "hyperparameters: {opt: {lr: {type: double, minval: 0, maxvl: 1}}}\n"),
     "hyperparameters.opt.lr: unknown field 'maxvl' (did you mean 'maxval'?)"},
    {"hp_bad_type",
     with("hyperparameters: {n: {type: float, minval: 0, maxval: 1}}\n"),
     "hyperparameters.n.type: expected one of"},
    {"hp_categorical_empty",
     with("hyperparameters: {c: {type: categorical, vals: []}}\n"),
     "hyperparameters.c.vals: must not be empty"},
    {"hp_const_without_val", with("hyperparameters: {c: {type: const}}\n"),
     "hyperparameters.c.val: required for a const hyperparameter"},
    {"max_restarts_negative", with("max_restarts: -1\n"),
     "max_restarts: must be at least 0, got -1"},
    {"labels_not_strings", with("labels: [a, 3]\n"),
     "labels[1]: expected a string, got 3"},
    {"bind_mount_relative",
     with("bind_mounts: [{host_path: data, container_path: /d}]\n"),
     "bind_mounts[0].host_path: must be an absolute path"},
    {"bind_mount_missing", with("bind_mounts: [{host_path: /data}]\n"),
     "bind_mounts[0].container_path: required"},
    {"workspace_without_project", with("workspace: w\n"),
     "workspace and project must both be included"},
    {"min_validation_period_int", with("min_validation_period: 5\n"),
     "min_validation_period: expected an object with one of"},
    {"storage_typo",
     with("checkpoint_storage: {type: s3, bucket: b, secret_ky: x}\n"),
     "checkpoint_storage: unknown field 'secret_ky' (did you mean "
     "'secret_key'?)"},
    {"env_var_shape", with("environment: {environment_variables: [FOO]}\n"),
     "environment.environment_variables[0]: expected \"NAME=value\", got "
     "\"FOO\""},
    {"debug_not_bool", with("debug: yes please\n"),
     "debug: expected a boolean"},
    {"version_one", with("version: 1\n"), "version: invalid version: 1"},
    {"bad_yaml", "entrypoint: [x\n", "not valid yaml"},
};

INSTANTIATE_TEST_SUITE_P(table, experiment_errors,
                         testing::ValuesIn(experiment_error_cases),
                         [](const auto& p) {
                           return std::string{p.param.name};
                         });

} // namespace
