#include "k8s/watch.hpp"

#include "scripted_client.hpp"

#include <gtest/gtest.h>

using namespace det::k8s;
using det::k8s::testing::scripted_answer;
using det::k8s::testing::scripted_client;
using nlohmann::json;

TEST(line_splitter, joins_lines_across_chunks_and_trims_cr) {
  line_splitter s;
  std::vector<std::string> lines;
  auto f = [&](std::string_view l) { lines.emplace_back(l); };
  s.feed("{\"a\":", f);
  s.feed("1}\r\n{\"b\"", f);
  s.feed(":2}\n", f);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
}

TEST(line_splitter, drops_an_oversized_line_whole_and_goes_on) {
  line_splitter s{8};
  std::vector<std::string> lines;
  auto f = [&](std::string_view l) { lines.emplace_back(l); };
  s.feed("0123456789", f);
  s.feed("abc\nok\n", f);
  EXPECT_EQ(lines, (std::vector<std::string>{"ok"}));
  EXPECT_EQ(s.dropped(), 1u);
}

TEST(parse_watch_line, refuses_lines_that_are_not_events) {
  EXPECT_FALSE(parse_watch_line("not json"));
  EXPECT_FALSE(parse_watch_line("{\"type\":1,\"object\":{}}"));
  EXPECT_FALSE(parse_watch_line("{\"type\":\"ADDED\",\"object\":[]}"));
  auto ev = parse_watch_line(
      R"({"type":"ADDED","object":{"metadata":{"name":"p"}}})");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->type, "ADDED");
}

TEST(watch_cursor, bookmarks_move_the_cursor_without_delivering) {
  watch_cursor c;
  c.listed("10");
  auto bm = parse_watch_line(
      R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"15"}}})");
  EXPECT_EQ(c.on_event(*bm), watch_cursor::next::skip);
  EXPECT_EQ(c.resource_version(), "15");
  auto mod = parse_watch_line(
      R"({"type":"MODIFIED","object":{"metadata":{"resourceVersion":"17"}}})");
  EXPECT_EQ(c.on_event(*mod), watch_cursor::next::deliver);
  EXPECT_EQ(c.resource_version(), "17");
}

TEST(watch_cursor, an_expired_error_asks_for_a_relist) {
  watch_cursor c;
  c.listed("10");
  auto err = parse_watch_line(
      R"j({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 10 (20)"}})j");
  EXPECT_EQ(c.on_event(*err), watch_cursor::next::relist);
}

TEST(watch_path, asks_for_bookmarks_a_timeout_and_the_cursor) {
  auto p = watch_path(pods_kind(), "ns1", "a=b,c", "42", 60);
  EXPECT_EQ(p, "/api/v1/namespaces/ns1/pods?watch=1&allowWatchBookmarks=true"
               "&timeoutSeconds=60&resourceVersion=42&labelSelector=a%3Db%2Cc");
}

TEST(watch_loop, relists_after_a_410_error_event_and_resumes_from_bookmarks) {
  auto client = std::make_shared<scripted_client>();
  auto list = [](const char* rv, json items) {
    return scripted_answer{
        200,
        {{"metadata", {{"resourceVersion", rv}}}, {"items", items}},
        false,
        {}};
  };
  client->answers.push_back(
      list("5", json::array({{{"metadata", {{"name", "a"}}}}})));
  scripted_answer w1;
  w1.chunks = {
      R"({"type":"ADDED","object":{"metadata":{"name":"b","resourceVersion":"6"}}})"
      "\n{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":"
      "\"9\"}}}\n"};
  client->answers.push_back(w1); // stream ends: resume from 9
  scripted_answer w2;
  w2.chunks = {R"({"type":"ERROR","object":{"code":410,"reason":"Expired"}})"
               "\n"
               R"({"type":"ADDED","object":{"metadata":{"name":"lost"}}})"
               "\n"};
  client->answers.push_back(w2);
  client->answers.push_back(list("30", json::array()));
  // After the second list, max_lists ends the loop at the next relist.
  scripted_answer w3;
  w3.status = 410;
  client->answers.push_back(w3);

  resources res{client,
                {1, std::chrono::milliseconds(1), std::chrono::milliseconds(1),
                 [](std::chrono::milliseconds) {}, [] { return 0.0; }}};
  std::vector<size_t> syncs;
  std::vector<std::string> events;
  std::atomic<bool> stop{false};
  watch_options opts;
  opts.max_lists = 2;
  watch_loop(
      res, pods_kind(), "ns", opts,
      {[&](const std::vector<json>& items) { syncs.push_back(items.size()); },
       [&](const watch_event& ev) {
         events.push_back(ev.type + " "
                          + ev.object["metadata"]["name"].get<std::string>());
       },
       {}},
      stop);
  EXPECT_EQ(syncs, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(events, (std::vector<std::string>{"ADDED b"}));
  ASSERT_EQ(client->calls.size(), 5u);
  EXPECT_NE(client->calls[2].find("resourceVersion=9"), std::string::npos)
      << client->calls[2];
  EXPECT_NE(client->calls[4].find("resourceVersion=30"), std::string::npos)
      << client->calls[4];
}
