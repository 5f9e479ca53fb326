// Resource accounting's views (api/allocation_views.hpp): the query checks
// of the raw and aggregated routes, the JSON and CSV shapes `det resources`
// reads, and the legacy GET /tasks map. Pure: a state built by hand.

#include "api/allocation_views.hpp"
#include "util/time_text.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace det::api {
namespace {

using nlohmann::json;

int64_t at(const std::string& text) {
  return *util::parse_rfc3339(text);
}

http::query_params
query(std::vector<std::pair<std::string, std::string>> entries) {
  http::query_params q;
  for (auto& [k, v] : entries)
    q.add(k, v);
  return q;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{text};
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

/// Two allocations of alice's experiment 3 (labels a and "b,c", 2 slots):
/// one from 2024-05-01 23:00 to 2024-05-02 01:00, one from 2024-05-03
/// 12:00 still running; bob's 1-slot allocation in June.
state::cluster_state accounting_state() {
  state::cluster_state s;
  s.users["alice"].id = 2;
  auto add = [&s](std::string id, int64_t exp, std::string owner, int64_t slots,
                  int64_t start, int64_t end) {
    state::allocation_record r;
    r.id = id;
    r.trial_id = 1;
    r.experiment_id = exp;
    r.owner = std::move(owner);
    r.workspace_name = "ws, one";
    r.pool = "default";
    r.labels = exp == 3 ? std::vector<std::string>{"a", "b,c"}
                        : std::vector<std::string>{};
    r.slots = slots;
    r.started_at_us = start;
    r.ended_at_us = end;
    s.allocation_history[id] = r;
  };
  add("1.1", 3, "alice", 2, at("2024-05-01T23:00:00Z"),
      at("2024-05-02T01:00:00Z"));
  add("1.2", 3, "alice", 2, at("2024-05-03T12:00:00Z"), 0);
  add("9.1", 4, "bob", 1, at("2024-06-10T00:00:00Z"),
      at("2024-06-10T06:00:00Z"));
  return s;
}

const int64_t now = at("2024-05-03T13:00:00Z");

TEST(allocation_views, a_window_needs_both_timestamps_in_order_naming_them) {
  std::string why;
  EXPECT_FALSE(
      window_of(query({{"timestamp_after", "2024-05-01T00:00:00Z"}}), why));
  EXPECT_NE(why.find("timestamp_before"), std::string::npos) << why;
  EXPECT_FALSE(window_of(query({{"timestamp_after", "yesterday"},
                                {"timestamp_before", "2024-05-01T00:00:00Z"}}),
                         why));
  EXPECT_NE(why.find("timestamp_after"), std::string::npos) << why;
  EXPECT_FALSE(window_of(query({{"timestamp_after", "2024-05-02T00:00:00Z"},
                                {"timestamp_before", "2024-05-01T00:00:00Z"}}),
                         why));
  EXPECT_NE(why.find("timestamp_after"), std::string::npos) << why;
  auto w = window_of(query({{"timestampAfter", "2024-05-01T00:00:00Z"},
                            {"timestamp_before", "2024-05-02T00:00:00Z"}}),
                     why);
  ASSERT_TRUE(w) << why;
  EXPECT_EQ(w->before_us - w->after_us, int64_t{86400} * 1000000);
}

TEST(allocation_views, an_aggregation_needs_a_known_period_and_its_dates) {
  std::string why;
  EXPECT_FALSE(aggregation_of(
      query({{"start_date", "2024-05-01"}, {"end_date", "2024-05-02"}}), why));
  EXPECT_NE(why.find("period"), std::string::npos) << why;
  EXPECT_FALSE(aggregation_of(query({{"start_date", "2024-05-01"},
                                     {"end_date", "2024-05-02"},
                                     {"period", "DAY"}}),
                              why));
  EXPECT_NE(why.find("period"), std::string::npos) << why;
  EXPECT_FALSE(aggregation_of(
      query({{"start_date", "2024-02-30"},
             {"end_date", "2024-05-02"},
             {"period", "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY"}}),
      why));
  EXPECT_NE(why.find("start_date"), std::string::npos) << why;
  EXPECT_FALSE(aggregation_of(
      query({{"start_date", "2024-05"},
             {"end_date", "2024-04"},
             {"period", "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY"}}),
      why));
  EXPECT_NE(why.find("start_date"), std::string::npos) << why;
  auto a = aggregation_of(
      query({{"start_date", "2024-02"},
             {"end_date", "2024-02"},
             {"period", "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY"}}),
      why);
  ASSERT_TRUE(a) << why;
  EXPECT_TRUE(a->monthly);
  EXPECT_EQ(a->last_day - a->first_day, 28); // 2024 is a leap year
}

TEST(allocation_views, raw_entries_are_the_allocations_overlapping_the_window) {
  auto s = accounting_state();
  time_window w{at("2024-05-02T00:00:00Z"), at("2024-05-04T00:00:00Z")};
  auto j = raw_allocation_response(s, w, now);
  ASSERT_EQ(j["resourceEntries"].size(), 2u) << j.dump();
  auto first = j["resourceEntries"][0];
  EXPECT_EQ(first["experimentId"], 3);
  EXPECT_EQ(first["username"], "alice");
  EXPECT_EQ(first["userId"], 2);
  EXPECT_EQ(first["slots"], 2);
  EXPECT_EQ(first["seconds"], 3600.0); // the hour inside the window
  EXPECT_EQ(first["labels"], json({"a", "b,c"}));
  EXPECT_TRUE(first.contains("endTime"));
  EXPECT_FALSE(j["resourceEntries"][1].contains("endTime")); // still running
  EXPECT_EQ(j["resourceEntries"][1]["seconds"], 3600.0);     // until now

  auto csv = lines(raw_allocation_csv(s, w, now));
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_EQ(csv[0],
            "experiment_id,kind,username,labels,slots,start_time,end_time,"
            "seconds");
  EXPECT_EQ(csv[1], "3,allocation,alice,\"a,b\\,c\",2,"
                    "2024-05-01T23:00:00.000000Z,2024-05-02T01:00:00.000000Z,"
                    "3600.000000");
}

TEST(allocation_views, the_allocations_csv_has_a_row_per_allocation_in_range) {
  auto s = accounting_state();
  time_window w{at("2024-05-01T00:00:00Z"), at("2024-07-01T00:00:00Z")};
  auto csv = lines(allocations_csv(s, w, now));
  ASSERT_EQ(csv.size(), 4u);
  EXPECT_EQ(csv[0], "allocation_id,task_type,username,workspace_name,"
                    "experiment_id,slots,start_time,end_time,"
                    "imagepulling_time,slot_hours,resource_pool");
  EXPECT_EQ(csv[1], "1.1,TRIAL,alice,\"ws, one\",3,2,"
                    "2024-05-01T23:00:00.000000Z,2024-05-02T01:00:00.000000Z,"
                    "0.0,4.000000,default");
  EXPECT_EQ(csv[3].substr(0, 18), "9.1,TRIAL,bob,\"ws,");
  time_window none{at("2024-08-01T00:00:00Z"), at("2024-08-02T00:00:00Z")};
  EXPECT_EQ(lines(allocations_csv(s, none, now)).size(), 1u);
}

TEST(allocation_views, a_tasks_allocation_is_a_row_of_its_type) {
  auto s = accounting_state();
  state::task_info t;
  t.id = "0123abcd-0000-4000-8000-000000000000";
  t.task_type = "NOTEBOOK";
  t.owner = "carol";
  t.slots = 1;
  t.pool = "default";
  t.allocation_id = t.id + ".1";
  t.state = state::task_state::running;
  t.placed_at_us = at("2024-05-02T00:00:00Z");
  s.tasks[t.id] = t;
  state::task_info queued = t; // never placed: no row
  queued.id = "0123abcd-0000-4000-8000-000000000001";
  queued.placed_at_us = 0;
  queued.state = state::task_state::queued;
  s.tasks[queued.id] = queued;
  time_window w{at("2024-05-01T00:00:00Z"), at("2024-07-01T00:00:00Z")};
  auto csv = lines(allocations_csv(s, w, now));
  ASSERT_EQ(csv.size(), 5u);
  // Running since the 2nd, until now (the 3rd, 13:00): 37 slot-hours.
  EXPECT_EQ(csv[4], t.id
                        + ".1,NOTEBOOK,carol,Uncategorized,,1,"
                          "2024-05-02T00:00:00.000000Z,,0.0,37.000000,default");
  time_window before{at("2024-04-01T00:00:00Z"), at("2024-04-02T00:00:00Z")};
  EXPECT_EQ(lines(allocations_csv(s, before, now)).size(), 1u);
}

TEST(allocation_views, aggregates_are_slot_seconds_per_day_by_user_label_pool) {
  auto s = accounting_state();
  aggregation daily{false, 0, 100000};
  auto j = aggregated_allocation_response(s, daily, now);
  auto entries = j["resourceEntries"];
  // 2024-05-01 through today (2024-05-03): bob's June is in the future.
  ASSERT_EQ(entries.size(), 3u) << j.dump();
  EXPECT_EQ(entries[0]["periodStart"], "2024-05-01");
  EXPECT_EQ(entries[0]["period"],
            "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY");
  EXPECT_EQ(entries[0]["seconds"], 7200.0); // 1 h x 2 slots
  EXPECT_EQ(entries[1]["byUsername"]["alice"], 7200.0);
  EXPECT_EQ(entries[1]["byExperimentLabel"]["b,c"], 7200.0);
  EXPECT_EQ(entries[1]["byResourcePool"]["default"], 7200.0);
  EXPECT_EQ(entries[2]["seconds"], 7200.0); // running 1 h until now

  auto csv = lines(aggregated_allocation_csv(s, daily, now));
  EXPECT_EQ(csv[0], "aggregation_type,aggregation_key,date,seconds");
  EXPECT_EQ(csv[1], "experiment_label,a,2024-05-01,7200.000000");
  EXPECT_EQ(csv[2], "experiment_label,\"b,c\",2024-05-01,7200.000000");
  EXPECT_EQ(csv[5], "total,total,2024-05-01,7200.000000");

  aggregation monthly{true, 0, 100000};
  auto later = at("2024-07-01T00:00:00Z");
  auto m = aggregated_allocation_response(s, monthly, later)["resourceEntries"];
  ASSERT_EQ(m.size(), 3u) << m.dump();
  EXPECT_EQ(m[0]["periodStart"], "2024-05");
  EXPECT_EQ(m[1]["periodStart"], "2024-06");
  EXPECT_EQ(m[1]["byUsername"]["bob"], 6.0 * 3600);
  EXPECT_EQ(m[1]["byUsername"]["alice"], 30.0 * 86400 * 2); // all June
  EXPECT_EQ(m[2]["periodStart"], "2024-07");
}

TEST(allocation_views, legacy_tasks_are_the_live_allocations_in_go_names) {
  state::cluster_state s;
  EXPECT_EQ(legacy_tasks_response(s), json::object());
  state::experiment_info e;
  e.id = 3;
  e.pool = "default";
  s.experiments[3] = e;
  state::trial_info t;
  t.id = 5;
  t.experiment_id = 3;
  t.status = state::trial_status::running;
  t.allocation = state::allocation_info{};
  t.allocation->id = "5.1";
  t.allocation->assignments = {{"ag-1", {0, 1}}};
  t.allocation->placed_at_us = at("2024-05-01T00:00:00Z");
  s.trials[5] = t;
  s.allocations["5.1"] = 5;
  auto j = legacy_tasks_response(s);
  ASSERT_EQ(j.size(), 1u) << j.dump();
  auto task = j["5.1"];
  EXPECT_EQ(task["allocation_id"], "5.1");
  EXPECT_EQ(task["name"], "Trial 5 (Experiment 3)");
  EXPECT_EQ(task["resource_pool"], "default");
  EXPECT_EQ(task["slots_needed"], 2);
  ASSERT_EQ(task["resources"].size(), 1u);
  auto devices = task["resources"][0]["agent_devices"]["ag-1"];
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1]["id"], 1);
  EXPECT_FALSE(task.contains("allocationId"));
}

TEST(allocation_views, a_checkpoint_collection_is_a_task_while_it_runs) {
  state::cluster_state s;
  state::experiment_info e;
  e.id = 4;
  e.pool = "default";
  s.experiments[4] = e;
  state::trial_info t;
  t.id = 6;
  t.experiment_id = 4;
  t.status = state::trial_status::completed;
  state::checkpoint_info c;
  c.uuid = "ck";
  t.checkpoints.push_back(c);
  s.trials[6] = t;
  EXPECT_EQ(legacy_tasks_response(s), json::object());
  // Being deleted: upstream's GC task, by its name.
  s.trials[6].checkpoints[0].state = "deleting";
  auto j = legacy_tasks_response(s);
  ASSERT_EQ(j.size(), 1u) << j.dump();
  EXPECT_EQ(j.begin().value()["name"], "Checkpoint GC (Experiment 4)");
  EXPECT_EQ(j.begin().value()["slots_needed"], 0);
  // Deleted: gone from the tasks. A deleted experiment's orphans: listed.
  s.trials[6].checkpoints[0].state = "deleted";
  EXPECT_EQ(legacy_tasks_response(s), json::object());
  s.orphan_checkpoints[9] = {9, {"x"}, json::object()};
  j = legacy_tasks_response(s);
  ASSERT_EQ(j.size(), 1u) << j.dump();
  EXPECT_EQ(j.begin().value()["name"], "Checkpoint GC (Experiment 9)");
}

} // namespace
} // namespace det::api
