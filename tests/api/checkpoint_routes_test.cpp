// A checkpoint's metadata as the SDK edits it (add_metadata and
// remove_metadata send the whole of it): replaced, its files kept apart,
// refused naming the field when the request makes no sense, and never by
// a trial's token.

#include "api/checkpoint_routes.hpp"
#include "api/views_cluster.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

struct checkpoint_routes : master_api_test {
  /// Runs trial 1 of an experiment of `config` and has it report
  /// checkpoint "ck-1" with two files.
  void checkpoint_of_trial_1(const std::string& config = good_config) {
    run_trial_1(config);
    auto r = write(
        "POST", "/api/v1/checkpoints",
        json{{"uuid", "ck-1"},
             {"allocationId", "1.1"},
             {"resources", {{"model.pt", 100}, {"opt.pt", 20}}},
             {"metadata", {{"steps_completed", 5}, {"framework", "torch"}}}}
            .dump(),
        ctx->tokens->token_for("1.1"));
    ASSERT_EQ(r.status, 200) << r.body;
  }

  json checkpoint() {
    auto r = call("GET", "/api/v1/checkpoints/ck-1");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["checkpoint"];
  }
};

TEST_F(checkpoint_routes, metadata_is_replaced_and_the_files_stay_apart) {
  checkpoint_of_trial_1();
  auto before = checkpoint();
  EXPECT_EQ(before["metadata"],
            (json{{"steps_completed", 5}, {"framework", "torch"}}))
      << before.dump();
  EXPECT_EQ(before["resources"]["model.pt"], "100");

  // add_metadata: the old keys and the new one.
  json added{{"steps_completed", 5}, {"framework", "torch"}, {"k", "v"}};
  auto r = write(
      "POST", "/api/v1/checkpoints/ck-1/metadata",
      json{{"checkpoint", {{"uuid", "ck-1"}, {"metadata", added}}}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(checkpoint()["metadata"], added);
  // remove_metadata: "k" gone. A "resources" key sent is not the
  // checkpoint's files: those stay as the storage listed them.
  r = write("POST", "/api/v1/checkpoints/ck-1/metadata",
            json{{"checkpoint",
                  {{"metadata",
                    {{"steps_completed", 5}, {"resources", {{"x", 1}}}}}}}}
                .dump());
  ASSERT_EQ(r.status, 200) << r.body;
  auto after = checkpoint();
  EXPECT_EQ(after["metadata"], (json{{"steps_completed", 5}})) << after.dump();
  EXPECT_EQ(after["resources"], (json{{"model.pt", "100"}, {"opt.pt", "20"}}));
}

TEST_F(checkpoint_routes, bad_metadata_requests_are_refused_naming_the_field) {
  checkpoint_of_trial_1();
  auto post = [&](const std::string& uuid, const json& body,
                  std::optional<std::string> token = std::nullopt) {
    return call("POST", "/api/v1/checkpoints/" + uuid + "/metadata",
                body.dump(), std::move(token));
  };
  json ok{{"checkpoint", {{"metadata", {{"a", 1}}}}}};
  auto missing = post("ck-404", ok);
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_NE(missing.body.find("ck-404"), std::string::npos);
  struct refusal {
    std::string uuid;
    json body;
    const char* field;
  };
  std::string big(70 * 1024, 'x');
  for (const auto& [uuid, body, field] : {
           refusal{"ck-1", json{{"checkpoint", {{"metadata", "text"}}}},
                   "checkpoint.metadata"},
           refusal{"ck-1", json{{"checkpoint", {{"uuid", "ck-2"}}}},
                   "checkpoint.uuid"},
           refusal{"ck-1", json::object(), "checkpoint"},
           refusal{"ck-1", json{{"checkpoint", {{"uuid", "ck-1"}}}},
                   "checkpoint.metadata"},
           refusal{"ck-1", json{{"checkpoint", {{"metadata", {{"big", big}}}}}},
                   "checkpoint.metadata"},
           refusal{"ck%201", ok, "checkpointUuids"},
       }) {
    auto r = post(uuid, body);
    EXPECT_EQ(r.status, 400) << body.dump().substr(0, 200) << " " << r.body;
    EXPECT_NE(r.body.find(std::string{field} + ":"), std::string::npos)
        << field << " " << r.body;
  }
  // A trial's token edits no checkpoint, not even its own.
  EXPECT_EQ(post("ck-1", ok, ctx->tokens->token_for("1.1")).status, 403);
  EXPECT_EQ(checkpoint()["metadata"],
            (json{{"steps_completed", 5}, {"framework", "torch"}}));
}

TEST_F(checkpoint_routes, lists_are_ordered_and_filtered_as_asked) {
  checkpoint_of_trial_1();
  auto r = write("POST", "/api/v1/checkpoints",
                 json{{"uuid", "ck-0"},
                      {"allocationId", "1.1"},
                      {"resources", {{"m.pt", 1}}},
                      {"metadata", {{"steps_completed", 9}}}}
                     .dump(),
                 ctx->tokens->token_for("1.1"));
  ASSERT_EQ(r.status, 200) << r.body;
  auto uuids = [&](const std::string& query) {
    std::vector<std::string> out;
    auto got = call("GET", "/api/v1/trials/1/checkpoints" + query);
    EXPECT_EQ(got.status, 200) << got.body;
    auto listed = json::parse(got.body);
    for (const auto& c : listed["checkpoints"])
      out.push_back(c["uuid"].get<std::string>());
    return out;
  };
  using list = std::vector<std::string>;
  EXPECT_EQ(uuids(""), (list{"ck-0", "ck-1"})); // newest first
  EXPECT_EQ(uuids("?sortByAttr=SORT_BY_BATCH_NUMBER&orderBy=ORDER_BY_ASC"),
            (list{"ck-1", "ck-0"}));
  EXPECT_EQ(uuids("?sortByAttr=SORT_BY_UUID&orderBy=ORDER_BY_DESC"),
            (list{"ck-1", "ck-0"}));
  EXPECT_EQ(uuids("?states=STATE_DELETED"), list{});
  EXPECT_EQ(uuids("?states=STATE_COMPLETED&sortByAttr=SORT_BY_UUID"),
            (list{"ck-0", "ck-1"}));
  for (const auto& [query, field] :
       std::vector<std::pair<std::string, std::string>>{
           {"?sortByAttr=SORT_BY_COLOR", "sortByAttr"},
           {"?orderBy=SIDEWAYS", "orderBy"},
           {"?states=STATE_GONE", "states"}}) {
    auto bad = call("GET", "/api/v1/trials/1/checkpoints" + query);
    EXPECT_EQ(bad.status, 400) << query;
    EXPECT_NE(bad.body.find(field + ":"), std::string::npos) << bad.body;
  }
}

TEST_F(checkpoint_routes,
       each_checkpoint_shows_its_steps_validation_and_sizes_count_text) {
  run_trial_1();
  auto token = ctx->tokens->token_for("1.1");
  auto validate = [&](int steps, double x) {
    auto r = write("POST", "/api/v1/trials/1/metrics",
                   json{{"group", "validation"},
                        {"metrics",
                         {{"trialId", 1},
                          {"stepsCompleted", steps},
                          {"metrics", {{"avgMetrics", {{"x", x}}}}}}}}
                       .dump(),
                   token);
    ASSERT_EQ(r.status, 200) << r.body;
  };
  auto save = [&](const std::string& uuid, int steps, const json& files) {
    auto r = write("POST", "/api/v1/checkpoints",
                   json{{"uuid", uuid},
                        {"allocationId", "1.1"},
                        {"resources", files},
                        {"metadata", {{"steps_completed", steps}}}}
                       .dump(),
                   token);
    ASSERT_EQ(r.status, 200) << r.body;
  };
  // The validation before the checkpoint at step 5, after it at step 10;
  // sizes as the harness writes them (text) and as numbers.
  validate(5, 0.5);
  save("ck-a", 5, {{"state", "30"}, {"m.pt", 12}});
  save("ck-b", 10, {{"s", "7"}});
  validate(10, 0.25);
  auto avg = [&](const std::string& uuid) {
    auto c = json::parse(call("GET", "/api/v1/checkpoints/" + uuid).body);
    return c["checkpoint"]["training"]["validationMetrics"]["avgMetrics"];
  };
  EXPECT_EQ(avg("ck-a"), (json{{"x", 0.5}}));
  EXPECT_EQ(avg("ck-b"), (json{{"x", 0.25}}));
  auto sorted =
      json::parse(call("GET", "/api/v1/trials/1/checkpoints?sortByMetric=x"
                              "&orderBy=ORDER_BY_ASC")
                      .body)["checkpoints"];
  ASSERT_EQ(sorted.size(), 2u) << sorted.dump();
  EXPECT_EQ(sorted[0]["uuid"], "ck-b");
  EXPECT_EQ(sorted[1]["uuid"], "ck-a");
  // One size rule for the experiment, the trial and the run: 30 + 12 + 7.
  auto e = json::parse(call("GET", "/api/v1/experiments/1").body);
  EXPECT_EQ(e["experiment"]["checkpointSize"], "49") << e.dump();
  EXPECT_EQ(e["experiment"]["checkpointCount"], 2);
  auto t = json::parse(call("GET", "/api/v1/trials/1").body)["trial"];
  EXPECT_EQ(t["totalCheckpointSize"], "49") << t.dump();
}

TEST(checkpoint_states, are_named_as_upstream_wherever_a_checkpoint_shows) {
  // The trial's workloads and the checkpoint lists share the names.
  state::checkpoint_info c;
  EXPECT_STREQ(api::checkpoint_state_name(c), "STATE_COMPLETED");
  c.state = "deleting";
  EXPECT_STREQ(api::checkpoint_state_name(c), "STATE_COMPLETED");
  c.state = "deleted";
  EXPECT_STREQ(api::checkpoint_state_name(c), "STATE_DELETED");
  c.state = "partially_deleted";
  EXPECT_STREQ(api::checkpoint_state_name(c), "STATE_PARTIALLY_DELETED");
}

TEST_F(checkpoint_routes, a_checkpoint_downloads_through_the_master) {
  checkpoint_of_trial_1();
  std::vector<std::string> asked;
  ctx->pack_checkpoint =
      [&asked](std::string uuid, json storage,
               std::function<void(caf::expected<std::string>)> done) {
        asked.push_back(uuid + " " + storage.value("type", ""));
        done(std::string{"\x1f\x8b-tgz"});
      };
  auto r = call("GET", "/checkpoints/ck-1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "\x1f\x8b-tgz");
  EXPECT_EQ(r.headers.get("Content-Type").value_or(""), "application/gzip");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].substr(0, 5), "ck-1 ");
  // Unknown, malformed, or asked with a trial's token: refused.
  EXPECT_EQ(call("GET", "/checkpoints/ck-404").status, 404);
  EXPECT_EQ(call("GET", "/checkpoints/..%2F..").status, 400);
  EXPECT_EQ(call("GET", "/checkpoints/ck-1", "", ctx->tokens->token_for("1.1"))
                .status,
            403);
  EXPECT_EQ(asked.size(), 1u);
}

// The experiment's storage keys are for its trials: a checkpoint, listed or
// fetched by anyone who may read it, shows the storage without them (the
// SDK then downloads with the reader's own credentials, or through the
// master), while the master's own download still gets the whole config.
TEST_F(checkpoint_routes,
       a_checkpoints_experiment_config_carries_no_storage_keys) {
  auto config = std::string{good_config}
                + "checkpoint_storage:\n  type: s3\n  bucket: ckpts\n"
                  "  access_key: AKIAEXAMPLEKEY\n"
                  "  secret_key: s3cr3t-do-not-show\n";
  checkpoint_of_trial_1(config);

  auto mallory = plain_user_token("mallory");
  for (auto path :
       {"/api/v1/checkpoints/ck-1", "/api/v1/experiments/1/checkpoints",
        "/api/v1/trials/1/checkpoints"})
    for (const auto& who :
         {std::optional<std::string>{}, std::optional{mallory}}) {
      auto got = call("GET", path, "", who);
      ASSERT_EQ(got.status, 200) << path << ": " << got.body;
      EXPECT_EQ(got.body.find("s3cr3t"), std::string::npos) << path;
      EXPECT_EQ(got.body.find("AKIAEXAMPLEKEY"), std::string::npos) << path;
    }
  auto storage =
      checkpoint()["training"]["experimentConfig"]["checkpoint_storage"];
  EXPECT_EQ(storage["type"], "s3");
  EXPECT_EQ(storage["bucket"], "ckpts");
  EXPECT_FALSE(storage.contains("secret_key")) << storage.dump();

  std::string secret_seen;
  ctx->pack_checkpoint =
      [&secret_seen](std::string, json given,
                     std::function<void(caf::expected<std::string>)> done) {
        secret_seen = given.value("secret_key", "");
        done(std::string{"\x1f\x8b-tgz"});
      };
  ASSERT_EQ(call("GET", "/checkpoints/ck-1").status, 200);
  EXPECT_EQ(secret_seen, "s3cr3t-do-not-show");
}

// The family's table (api/checkpoint_routes.cpp): no session is 401 on
// every row; an unknown checkpoint is 404 naming it; a trial reports its
// checkpoint only with its own allocation's token.
TEST_F(checkpoint_routes, every_row_refuses_no_session) {
  expect_401_without_a_session(api::checkpoint_routes());
  auto gone = call("GET", "/api/v1/checkpoints/nope");
  EXPECT_EQ(gone.status, 404) << gone.body;
  EXPECT_EQ(json::parse(gone.body)["error"]["error"],
            "checkpoint nope not found");
}

TEST_F(checkpoint_routes, a_report_needs_its_allocation_and_uuid) {
  run_trial_1();
  auto tok = ctx->tokens->token_for("1.1");
  auto bare =
      call("POST", "/api/v1/checkpoints", json{{"uuid", "ck-2"}}.dump(), tok);
  EXPECT_EQ(bare.status, 400) << bare.body;
  EXPECT_EQ(json::parse(bare.body)["error"]["error"],
            "checkpoint.allocationId and checkpoint.uuid: required");
  auto theirs =
      call("POST", "/api/v1/checkpoints",
           json{{"uuid", "ck-2"}, {"allocationId", "9.1"}}.dump(), tok);
  EXPECT_EQ(theirs.status, 403) << theirs.body;
  auto mine = write("POST", "/api/v1/checkpoints",
                    json{{"checkpoint",
                          {{"uuid", "ck-2"},
                           {"allocationId", "1.1"},
                           {"metadata", {{"steps_completed", 3}}}}}}
                        .dump(),
                    tok);
  ASSERT_EQ(mine.status, 200) << mine.body;
  EXPECT_EQ(get("/api/v1/checkpoints/ck-2")["checkpoint"]["uuid"], "ck-2");
}

} // namespace
