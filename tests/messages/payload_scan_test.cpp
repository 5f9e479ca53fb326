// decode() reads payloads without a JSON tree when it can
// (messages/payload_scan.hpp) and falls back to the tree decoder. These
// tests hold the two to the same answers: on the payload of every event
// type, on random and hostile variants of each (bytes changed, fields
// missing, repeated, added or retyped, odd numbers and strings), and on
// random metric documents. Every case is decoded three ways: decode(),
// decode_with_tree() and decode_without_tree(); the first two must agree
// to the error's text, the third must either decline or give the tree's
// event, numbers' kinds included.

#include "messages/events.hpp"

#include "messages/errc.hpp"
#include "tests/support/sample_events.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace det {

namespace {

using nlohmann::json;

// Equal to the number's kind and a float's sign (== says 1 == 1u == 1.0).
bool strictly_equal(const json& a, const json& b) {
  if (a.type() != b.type())
    return false;
  switch (a.type()) {
  case json::value_t::object: {
    if (a.size() != b.size())
      return false;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
      if (i.key() != j.key() || !strictly_equal(*i, *j))
        return false;
    return true;
  }
  case json::value_t::array: {
    if (a.size() != b.size())
      return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (!strictly_equal(a[k], b[k]))
        return false;
    return true;
  }
  case json::value_t::number_float: {
    auto x = a.get<double>(), y = b.get<double>();
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  default:
    return a == b;
  }
}

std::vector<json> documents_of(domain_event ev) {
  std::vector<json> out;
  event_field_visitor v;
  v.document = [&](const char*, json& d) { out.push_back(d); };
  v.number = [&](const char*, double& x) { out.push_back(x); };
  visit_fields(ev, v);
  return out;
}

::testing::AssertionResult same_event(const domain_event& a,
                                      const domain_event& b) {
  if (a.index() != b.index())
    return ::testing::AssertionFailure() << "different types";
  auto pa = to_envelope(a).payload, pb = to_envelope(b).payload;
  if (pa != pb)
    return ::testing::AssertionFailure() << pa << "\n  vs tree's\n" << pb;
  auto da = documents_of(a), db = documents_of(b);
  for (size_t k = 0; k < da.size(); ++k)
    if (!strictly_equal(da[k], db[k]))
      return ::testing::AssertionFailure()
             << "document " << k << " differs in kind: " << da[k].dump()
             << " vs tree's " << db[k].dump();
  return ::testing::AssertionSuccess();
}

struct tally {
  int cases = 0;
  int taken = 0; // read without a tree
  int refused = 0;
};

// Decodes `payload` three ways and checks they agree.
void check(const std::string& type, int32_t version, const std::string& payload,
           tally& t) {
  SCOPED_TRACE(type + " v" + std::to_string(version) + " payload: " + payload);
  recorded_event rec{42, "s/1", 1, {type, version, payload}, 0};
  auto tree = decode_with_tree(rec);
  auto both = decode(rec);
  auto fast = decode_without_tree(rec.body);
  ++t.cases;
  if (!tree) {
    ++t.refused;
    EXPECT_FALSE(fast) << "the reader without a tree took what the tree "
                          "refuses: "
                       << render(tree.error());
    ASSERT_FALSE(both);
    EXPECT_EQ(render(both.error()), render(tree.error()));
    EXPECT_EQ(code_of(both.error()), code_of(tree.error()));
    return;
  }
  ASSERT_TRUE(both) << render(both.error());
  EXPECT_TRUE(same_event(*both, *tree));
  if (fast) {
    ++t.taken;
    EXPECT_TRUE(same_event(*fast, *tree));
  }
}

const std::string hostile_values[] = {
    "0",
    "-0",
    "1",
    "-1",
    "1.0",
    "-0.0",
    "0.1",
    "1e2",
    "1E+2",
    "-1e-2",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1e400",
    "-1e400",
    "1e-400",
    "01",
    "1.",
    ".5",
    "+1",
    "-",
    "1e",
    "NaN",
    "Infinity",
    "true",
    "false",
    "null",
    "tru",
    "nul",
    "\"\"",
    "\"x\"",
    "\"\\u0000\"",
    "\"a\\u0001b\"",
    "\"\\u00e9\"",
    "\"\\ud800\"",
    "\"\\ud83d\\ude00\"",
    "\"\\uD83D\\uDE00x\\u00e9\\u20ac\"",
    "\"\\udbff\\udfff\"",
    "\"\\ud800\\u0041\"",
    "\"\\ud800\\n\"",
    "\"\\ud800x\"",
    "\"\\udc00\\ud800\"",
    "\"\\ud83d\\ude0\"",
    "\"\\uDFFF\"",
    "\"\\u007f\"",
    "\"\\u004A\"",
    "\"\\x\"",
    "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
    "\"caf\xc3\xa9\"",
    "\"\xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80\"",
    "\"\xf4\x8f\xbf\xbf\"",
    "\"\xf4\x90\x80\x80\"",
    "\"\xe0\x80\xaf\"",
    "\"\xf0\x80\x80\xaf\"",
    "\"\xe6\x97\"",
    "\"\xe6\x97\\n\"",
    "\"\xf0\x9f\x98\"",
    "\"\x80\"",
    "\"\xc3\xa9\x01\"",
    "\"\xff\"",
    "\"\xc3\x28\"",
    "\"\xc0\xaf\"",
    "\"\xed\xa0\x80\"",
    "\"a\tb\"",
    "\"a\nb\"",
    std::string{"\"a\0b\"", 5},
    "\"unterminated",
    "[]",
    "[1,2,3]",
    "[\"a\",\"b\"]",
    "[1,\"a\"]",
    "[1,]",
    "[,1]",
    "[1 2]",
    "[-1, 18446744073709551615]",
    "{}",
    "{\"a\":1}",
    "{\"a\":1,\"a\":2}",
    "{\"a\":{\"b\":[1,{\"c\":null}]}}",
    "{\"a\":}",
    "{\"a\" 1}",
    "{1:2}",
    "{\"a\":1,}",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]"
    "]]]]]]]]]]]]]]]]]]]]",
    "{\"agent_id\":\"a1\",\"slots\":[0]}",
    "[{\"agent_id\":\"a1\",\"slots\":[0,1]}]",
    "[{\"agent_id\":\"a1\",\"slots\":[0],\"x\":1}]",
    "[{\"agent_id\":\"a1\"}]",
    "[{\"slots\":[1]}]",
    "[null]",
};

const char hostile_bytes[] = {'\0',   '\x01', '\x1f', '\x7f', '\x80', '\xc3',
                              '\xff', '"',    '\\',   '{',    '}',    '[',
                              ']',    ',',    ':',    ' ',    '\t',   '0',
                              '9',    '-',    '.',    'e',    'u',    'n'};

// A variant of `payload` (an object's text): one random change.
std::string mutate(const std::string& payload, std::mt19937_64& rng) {
  auto pick = [&](size_t n) {
    return static_cast<size_t>(
        std::uniform_int_distribution<size_t>{0, n - 1}(rng));
  };
  auto doc = json::parse(payload);
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it)
    keys.push_back(it.key());
  auto value = [&] { return hostile_values[pick(std::size(hostile_values))]; };
  switch (pick(9)) {
  case 0: { // a byte changed, inserted or removed
    auto s = payload;
    auto at = pick(s.size() + 1);
    auto b = hostile_bytes[pick(sizeof hostile_bytes)];
    switch (pick(3)) {
    case 0:
      if (at < s.size())
        s[at] = b;
      break;
    case 1:
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), b);
      break;
    default:
      if (at < s.size())
        s.erase(at, 1);
    }
    return s;
  }
  case 1: // a field missing
    if (!keys.empty())
      doc.erase(keys[pick(keys.size())]);
    return doc.dump();
  case 2: // a field null
    if (!keys.empty())
      doc[keys[pick(keys.size())]] = nullptr;
    return doc.dump();
  case 3: { // a field repeated, with a value of any kind first or last
    if (keys.empty())
      return payload;
    auto k = keys[pick(keys.size())];
    auto extra = "\"" + k + "\":" + value();
    auto body = payload.substr(1);
    return pick(2) == 0
               ? "{" + extra + "," + body
               : payload.substr(0, payload.size() - 1) + "," + extra + "}";
  }
  case 4: { // a field replaced by a hostile value (raw text)
    if (keys.empty())
      return payload;
    auto k = keys[pick(keys.size())];
    std::string out = "{";
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (out.size() > 1)
        out += ",";
      out += json(it.key()).dump() + ":"
             + (it.key() == k ? value() : it.value().dump());
    }
    return out + "}";
  }
  case 5: // an unknown field
    return "{\"zz_extra\":" + value() + "," + payload.substr(1);
  case 6: { // whitespace, a byte order mark, or something after the object
    const char* around[] = {" ", "\n\t\r ", "\xef\xbb\xbf", "x", "{}", "\0"};
    auto a = std::string{around[pick(std::size(around))]};
    if (a.empty())
      a = std::string{"\0", 1};
    return pick(2) == 0 ? a + payload : payload + a;
  }
  case 7: // the same payload with whitespace between every token
    return doc.dump(1);
  default: // not an object at all
    return value();
  }
}

} // namespace

TEST(payload_scan, every_type_is_read_without_a_tree_as_the_tree_reads_it) {
  tally t;
  for (const auto& ev : test::one_of_each()) {
    auto env = to_envelope(ev);
    check(env.type, env.schema_version, env.payload, t);
    // The event types a real log is made of must not need the tree.
    EXPECT_TRUE(decode_without_tree(env)) << env.type << " " << env.payload;
  }
  EXPECT_EQ(t.taken, t.cases);
}

// Text beyond ASCII, as it comes from users: raw UTF-8 of two, three and
// four bytes, and the same as \u escapes (a surrogate pair for the last).
TEST(payload_scan, non_ascii_text_of_every_type_is_read_without_a_tree) {
  const std::string suffix =
      " caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80";
  tally t;
  int accepted = 0;
  for (const auto& original : test::one_of_each()) {
    int texts = 0;
    bool has_document = false;
    {
      auto ev = original;
      event_field_visitor count;
      count.text = [&](const char*, std::string&) { ++texts; };
      count.document = [&](const char*, json& d) {
        has_document = has_document || d.is_object();
      };
      visit_fields(ev, count);
    }
    // One variant per text field, and one with every document given a
    // member whose key and value are not ASCII.
    for (int field = 0; field < texts + (has_document ? 1 : 0); ++field) {
      auto ev = original;
      int seen = 0;
      event_field_visitor v;
      v.text = [&](const char*, std::string& s) {
        if (seen++ == field)
          s += suffix;
      };
      v.document = [&](const char*, json& d) {
        if (field == texts && d.is_object())
          d["m\xc3\xa9trique \xf0\x9f\x98\x80"] = "v\xc3\xa4rde\xe2\x82\xac";
      };
      visit_fields(ev, v);
      auto env = to_envelope(ev);
      auto escaped = json::parse(env.payload).dump(-1, ' ', true);
      ASSERT_NE(env.payload, escaped) << env.payload;
      for (const auto& payload : {env.payload, escaped}) {
        recorded_event rec{
            42, "s/1", 1, {env.type, env.schema_version, payload}, 0};
        check(env.type, env.schema_version, payload, t);
        if (!decode_with_tree(rec))
          continue; // a closed vocabulary or an id's rules refuse it
        ++accepted;
        EXPECT_TRUE(decode_without_tree(rec.body))
            << env.type << " " << payload;
      }
    }
  }
  EXPECT_GT(accepted, 100);
  EXPECT_EQ(t.taken, accepted);
}

TEST(payload_scan, hostile_variants_of_every_type_get_the_trees_answer) {
  std::mt19937_64 rng{33};
  tally t;
  for (const auto& ev : test::one_of_each()) {
    auto env = to_envelope(ev);
    for (int k = 0; k < 120; ++k) {
      check(env.type, env.schema_version, mutate(env.payload, rng), t);
      if (::testing::Test::HasFatalFailure())
        return;
    }
  }
  // Both sides were exercised: many variants read without a tree, many
  // refused.
  EXPECT_GT(t.taken, t.cases / 5) << t.taken << " of " << t.cases;
  EXPECT_GT(t.refused, t.cases / 5) << t.refused << " of " << t.cases;
}

TEST(payload_scan, random_metric_reports_get_the_trees_answer) {
  std::mt19937_64 rng{7};
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>{0, n - 1}(rng);
  };
  const char* names[] = {"loss",     "accuracy", "validation_loss",
                         "a\\u0041", "x\\ny",    "",
                         "loss",     "k\\u0000", "caf\xc3\xa9"};
  // A random document as text, nested up to `depth`.
  std::function<std::string(int)> doc = [&](int depth) -> std::string {
    auto n = pick(5);
    if (depth > 0 && pick(3) == 0) {
      std::string out = "[";
      for (size_t k = 0; k < n; ++k)
        out += (k ? "," : "") + doc(depth - 1);
      return out + "]";
    }
    if (depth > 0 && pick(2) == 0) {
      std::string out = "{";
      for (size_t k = 0; k < n; ++k)
        out += std::string{k ? ", " : ""} + "\"" + names[pick(std::size(names))]
               + "\" : " + doc(depth - 1);
      return out + "}";
    }
    if (pick(2) == 0) {
      std::uniform_real_distribution<double> u{-1e6, 1e6};
      char buf[64];
      std::snprintf(buf, sizeof buf, pick(2) ? "%.17g" : "%.3e", u(rng));
      return buf;
    }
    return hostile_values[pick(std::size(hostile_values))];
  };
  tally t;
  for (int k = 0; k < 3000; ++k) {
    std::string metrics = "{";
    auto n = pick(6);
    for (size_t i = 0; i < n; ++i)
      metrics += std::string{i ? "," : ""} + "\""
                 + names[pick(std::size(names))]
                 + "\":" + doc(static_cast<int>(pick(3)));
    metrics += "}";
    auto payload = R"({"trial_id":)" + std::to_string(pick(100))
                   + R"(,"allocation_id":"1.1","kind":")"
                   + (pick(2) ? "training" : "validation")
                   + R"(","steps_completed":)" + std::to_string(pick(1000))
                   + R"(,"metrics":)" + metrics
                   + R"(,"at_us":1800000000000000})";
    check("trial_metrics_reported", 1, payload, t);
    if (::testing::Test::HasFatalFailure())
      return;
  }
  EXPECT_GT(t.taken, t.cases / 4) << t.taken << " of " << t.cases;
  EXPECT_GT(t.refused, t.cases / 10) << t.refused << " of " << t.cases;
}

TEST(payload_scan, an_older_schema_version_is_left_to_the_tree_and_upcast) {
  event_envelope env{"agent_connected", 1,
                     R"({"agent_id":"a","resource_pool":"p","slots":1})"};
  EXPECT_FALSE(decode_without_tree(env));
  tally t;
  check(env.type, env.schema_version, env.payload, t);
  auto ev = decode(env, "test");
  ASSERT_TRUE(ev) << render(ev.error());
  EXPECT_EQ(std::get<agent_connected>(*ev).pool, "p");
}

} // namespace det
