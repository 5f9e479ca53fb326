#include "conf/reader.hpp"
#include "conf/yaml_tree.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace det::conf;
using nlohmann::json;

namespace {

TEST(yaml_tree, scalars_are_typed_as_yaml_core_schema_and_quotes_keep_text) {
  auto t = parse_tree(R"(
i: 10
neg: -3
f: 1.5
e: 1e3
b: true
n: ~
empty:
s: ten
qi: "10"
qb: 'true'
dur: 5m
hex: 0x1F
ver: 1.2.3
)");
  ASSERT_TRUE(t) << det::render(t.error());
  const auto& j = *t;
  EXPECT_TRUE(j["i"].is_number_integer());
  EXPECT_EQ(j["i"], 10);
  EXPECT_EQ(j["neg"], -3);
  EXPECT_TRUE(j["f"].is_number_float());
  EXPECT_EQ(j["e"], 1000.0);
  EXPECT_EQ(j["b"], true);
  EXPECT_TRUE(j["n"].is_null());
  EXPECT_TRUE(j["empty"].is_null());
  EXPECT_EQ(j["s"], "ten");
  EXPECT_EQ(j["qi"], "10");
  EXPECT_EQ(j["qb"], "true");
  EXPECT_EQ(j["dur"], "5m");
  EXPECT_EQ(j["hex"], 31);
  EXPECT_EQ(j["ver"], "1.2.3");
}

TEST(yaml_tree, json_text_parses_to_the_same_tree) {
  auto y = parse_tree("a: [1, x, {b: null}]\n");
  auto j = parse_tree(R"({"a": [1, "x", {"b": null}]})");
  ASSERT_TRUE(y);
  ASSERT_TRUE(j);
  EXPECT_EQ(*y, *j);
}

TEST(yaml_tree, syntax_errors_say_where) {
  auto t = parse_tree("a: [1,\nb: 2\n");
  ASSERT_FALSE(t);
  EXPECT_NE(message_of(t.error()).find("line"), std::string::npos)
      << message_of(t.error());
}

// Found by fuzz_master_config: a master.yaml with a byte that is not UTF-8
// in a value parsed, and the first dump() of the effective config (GET
// /api/v1/master/config, the pool_configured event) threw.
TEST(yaml_tree, text_that_is_not_utf8_is_refused_with_its_position) {
  for (std::string bad :
       {std::string{"name: caf\xe9\n"}, std::string{"\"k\xff\": 1\n"},
        std::string{"list: [ok, \"\xed\xa0\x80\"]\n"}}) {
    auto t = parse_tree(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_NE(message_of(t.error()).find("not valid UTF-8"), std::string::npos)
        << message_of(t.error());
    EXPECT_NE(message_of(t.error()).find("line 1"), std::string::npos)
        << message_of(t.error());
  }
  auto ok = parse_tree("name: caf\xc3\xa9 \xf0\x9f\x9a\x80\n");
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)["name"], "caf\xc3\xa9 \xf0\x9f\x9a\x80");
}

TEST(yaml_tree, to_yaml_reads_back_to_the_same_tree) {
  auto tree = nlohmann::json::parse(R"({
    "port": 8080, "ratio": 0.5, "on": true, "none": null, "empty": "",
    "text": {"n": "10", "b": "true", "nul": "null", "f": "1.5", "sub": "${X}",
             "colon": "a: b", "hash": "#x", "dash": "- y", "space": " s ",
             "multi": "line1\nline2", "star": "*ref", "tilde": "~"},
    "list": [1, "2", {"a": []}, [], {}], "10": "key that looks like a number"
  })");
  auto text = to_yaml(tree);
  auto back = parse_tree(text);
  ASSERT_TRUE(back) << det::render(back.error()) << "\n" << text;
  EXPECT_EQ(*back, tree) << text;
  EXPECT_NE(text.find("port: 8080\n"), std::string::npos) << text;
}

TEST(reader, nearest_suggests_close_names_only) {
  std::set<std::string> known = {"hyperparameters", "searcher", "resources",
                                 "max_restarts"};
  EXPECT_EQ(nearest("hyperparamters", known), "hyperparameters");
  EXPECT_EQ(nearest("seracher", known), "searcher");
  EXPECT_EQ(nearest("max_restart", known), "max_restarts");
  EXPECT_EQ(nearest("zzz", known), "");
}

TEST(reader, whole_numbered_floats_count_as_integers_and_are_normalised) {
  json j = {{"n", 4.0}, {"x", 4.5}};
  diagnostics d;
  object_reader r{j, "top", d};
  EXPECT_EQ(r.integer("n", 0), 4);
  EXPECT_TRUE(j["n"].is_number_integer());
  EXPECT_EQ(r.integer("x", 0), 0);
  ASSERT_EQ(d.messages().size(), 1u);
  EXPECT_EQ(d.messages()[0], "top.x: expected an integer, got 4.5");
}

TEST(reader, aliases_move_to_the_canonical_name) {
  json j = {{"old", 1}};
  diagnostics d;
  object_reader r{j, "", d};
  r.alias("old", "new");
  EXPECT_EQ(r.integer("new", 0), 1);
  r.finish();
  EXPECT_TRUE(d.empty());
  EXPECT_FALSE(j.contains("old"));
}

TEST(reader, a_non_object_where_an_object_belongs_is_one_error) {
  json j = {{"db", "localhost"}};
  diagnostics d;
  object_reader r{j, "", d};
  auto db = r.child("db");
  db.str("host", "h");
  db.finish();
  ASSERT_EQ(d.messages().size(), 1u);
  EXPECT_EQ(d.messages()[0], "db: expected an object, got \"localhost\"");
}

TEST(reader, without_fill_defaults_the_tree_is_left_as_given) {
  json j = json::object();
  diagnostics d;
  object_reader r{j, "", d, false};
  EXPECT_EQ(r.integer("port", 8080), 8080);
  EXPECT_EQ(r.str("host", "h"), "h");
  EXPECT_TRUE(j.empty());
}

} // namespace
