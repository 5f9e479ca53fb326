// Every event type, every field a client can choose, every kind of hostile
// value: storable() refuses it naming the field, or PostgreSQL stores it and
// replay reads back exactly what was decided. An append never fails because
// of a value (a failed append stops the master).

#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "store/pg_event_store.hpp"
#include "tests/support/sample_events.hpp"
#include "tests/support/test_pg.hpp"
#include "util/text.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace det {
namespace {

using nlohmann::json;

/// Values a hostile client sends, and whether the log can hold them at all.
struct hostile {
  std::string name;
  std::string value;
  bool storable_anywhere; // false: NUL or not UTF-8, never storable
};

std::vector<hostile> hostile_texts() {
  return {
      {"empty", "", true},
      {"NUL", std::string{"\0", 1}, false},
      {"NUL inside", std::string{"ab\0cd", 5}, false},
      {"escape sequence", "\x1b[31mred\x1b[0m", true},
      {"forged log line", "x\n2026-11-24 [error] forged", true},
      {"DEL", "a\x7f", true},
      {"invalid UTF-8", "\xff\xfe", false},
      {"cut UTF-8", "ok\xc3", false},
      {"overlong slash", "\xc0\xaf", false},
      {"surrogate", "\xed\xa0\x80", false},
      {"one megabyte", std::string(1 << 20, 'a'), true},
      {"unicode", "\xe5\x90\x8d\xe5\x89\x8d \xf0\x9f\x9a\x80", true},
      {"right-to-left override",
       "\xe2\x80\xae"
       "evil",
       true},
      {"255 bytes", std::string(255, 'n'), true},
      {"256 bytes", std::string(256, 'n'), true},
      {"4097 bytes", std::string(4097, 'r'), true},
  };
}

class storable_events : public ::testing::Test {
protected:
  void SetUp() override {
    pg_store_options o;
    o.url = test::fresh_database("storable_events");
    auto s = pg_event_store::open(o);
    ASSERT_TRUE(s) << render(s.error());
    store = std::move(*s);
  }

  /// Refused by the master's checks, or appended and read back equal.
  /// Returns true when it was stored.
  bool refused_or_replayed(const domain_event& ev, const std::string& key,
                           const std::string& what) {
    if (auto err = storable(ev)) {
      EXPECT_EQ(err.code(), static_cast<uint8_t>(errc::invalid_argument));
      EXPECT_NE(render(err).find(key), std::string::npos)
          << what << ": the refusal does not name the field: " << render(err);
      ++refused;
      return false;
    }
    if (validate(ev)) { // a closed vocabulary or a range: replay refuses too
      ++refused;
      return false;
    }
    auto appended = store->append(append_request{{to_new_event(ev)}, {}});
    EXPECT_TRUE(appended) << what << ": admitted, but the append failed: "
                          << render(appended.error());
    if (!appended)
      return false;
    read_options ro;
    ro.after = appended->first_position - 1;
    ro.up_to = appended->last_position;
    std::optional<domain_event> back;
    auto err = store->read(ro, [&](recorded_event&& rec) -> caf::error {
      auto d = decode(rec);
      if (!d)
        return std::move(d.error());
      back = std::move(*d);
      return {};
    });
    EXPECT_FALSE(err) << what << ": " << render(err);
    EXPECT_TRUE(back.has_value()) << what;
    if (back) {
      EXPECT_EQ(to_envelope(*back).payload, to_envelope(ev).payload) << what;
    }
    ++stored;
    return true;
  }

  std::unique_ptr<pg_event_store> store;
  int refused = 0;
  int stored = 0;
};

/// The number of text (or document, or number) fields of `ev`.
int count_fields(domain_event ev, int kind) {
  int n = 0;
  event_field_visitor v;
  if (kind == 0)
    v.text = [&](const char*, std::string&) { ++n; };
  if (kind == 1)
    v.document = [&](const char*, json&) { ++n; };
  if (kind == 2)
    v.number = [&](const char*, double&) { ++n; };
  visit_fields(ev, v);
  return n;
}

TEST_F(storable_events, every_text_field_of_every_event_refuses_or_replays) {
  int text_fields = 0;
  for (const auto& sample : test::one_of_each()) {
    int fields = count_fields(sample, 0);
    text_fields += fields;
    for (int k = 0; k < fields; ++k)
      for (const auto& h : hostile_texts()) {
        auto ev = sample;
        std::string key;
        int i = 0;
        event_field_visitor v;
        v.text = [&](const char* name, std::string& value) {
          if (i++ == k) {
            key = name;
            value = h.value;
          }
        };
        visit_fields(ev, v);
        auto what = std::string{type_name_of(ev)} + "." + key + " = " + h.name;
        bool kept = refused_or_replayed(ev, key, what);
        if (!h.storable_anywhere) {
          EXPECT_FALSE(kept) << what << " was stored";
        }
        // Names and ids stay small enough for an index row and clean
        // enough for a log line.
        bool prose = key == "reason" || key == "message" || key == "description"
                     || key == "notes" || key == "comment" || key == "line"
                     || key == "pattern";
        // A URL is one line but may be longer than a name.
        bool long_line = key == "url";
        if (kept && !prose) {
          if (!long_line) {
            EXPECT_LE(h.value.size(), 255u) << what;
          }
          EXPECT_EQ(h.value.find_first_of("\n\x1b\x7f"), std::string::npos)
              << what;
        }
      }
  }
  EXPECT_GE(text_fields, 60) << "fewer text fields than the events have";
  std::cout << "[ storable ] " << text_fields << " text fields x "
            << hostile_texts().size() << " values: " << stored
            << " stored and replayed, " << refused << " refused\n";
}

TEST_F(storable_events,
       every_document_field_refuses_or_replays_hostile_keys_and_values) {
  int documents = 0;
  for (const auto& sample : test::one_of_each()) {
    int fields = count_fields(sample, 1);
    documents += fields;
    for (int k = 0; k < fields; ++k) {
      std::vector<std::pair<std::string, std::function<void(json&)>>> attacks;
      for (const auto& h : hostile_texts()) {
        if (!h.storable_anywhere || h.value.size() < 100000) {
          attacks.push_back(
              {"value " + h.name, [h](json& d) { d["hostile"] = h.value; }});
          attacks.push_back(
              {"key " + h.name, [h](json& d) { d[h.value] = 1; }});
          attacks.push_back({"nested value " + h.name, [h](json& d) {
                               d["a"]["b"] = json::array({1, h.value});
                             }});
        }
      }
      attacks.push_back({"NaN", [](json& d) {
                           d["x"] = std::numeric_limits<double>::quiet_NaN();
                         }});
      attacks.push_back({"infinity", [](json& d) {
                           d["x"] = std::numeric_limits<double>::infinity();
                         }});
      attacks.push_back({"64 levels", [](json& d) {
                           json deep = 1;
                           for (int i = 0; i < 62; ++i)
                             deep = json::array({deep});
                           d["deep"] = deep;
                         }});
      // Deeper than the limit, yet shallow enough that copying the event
      // (which recurses, as every walk of a document does) stays safe
      // under ASan: the HTTP layer refuses deeper bodies before any copy.
      attacks.push_back({"200 levels", [](json& d) {
                           json deep = 1;
                           for (int i = 0; i < 200; ++i)
                             deep = json::array({deep});
                           d["deep"] = std::move(deep);
                         }});
      attacks.push_back({"one megabyte", [](json& d) {
                           d["big"] = std::string(1 << 20, 'b');
                         }});
      for (const auto& named : attacks) {
        // (a lambda may not capture a structured binding before C++20)
        const auto& name = named.first;
        const auto& attack = named.second;
        auto ev = sample;
        std::string key;
        bool free_form = true;
        int i = 0;
        event_field_visitor v;
        v.document = [&](const char* field, json& d) {
          if (i++ == k) {
            key = field;
            free_form = d.is_object();
            if (!d.is_object())
              d = json::object();
            attack(d);
          }
        };
        visit_fields(ev, v);
        auto what = std::string{type_name_of(ev)} + "." + key + ": " + name;
        bool kept = refused_or_replayed(ev, key, what);
        bool must_refuse = name.find("NUL") != std::string::npos
                           || name.find("UTF-8") != std::string::npos
                           || name.find("overlong") != std::string::npos
                           || name.find("surrogate") != std::string::npos
                           || name == "NaN" || name == "infinity"
                           || name == "200 levels";
        if (must_refuse) {
          EXPECT_FALSE(kept) << what << " was stored";
        }
        // A document with a shape of its own (a list of webhook
        // triggers) refuses any attack; a free-form one keeps these.
        if (free_form
            && (name == "64 levels" || name == "one megabyte"
                || name == "value unicode")) {
          EXPECT_TRUE(kept) << what << " was refused";
        }
      }
    }
  }
  EXPECT_GE(documents, 5);
  std::cout << "[ storable ] " << documents << " documents: " << stored
            << " stored and replayed, " << refused << " refused\n";
}

TEST_F(storable_events, a_number_that_is_not_finite_is_refused_naming_it) {
  int numbers = 0;
  for (const auto& sample : test::one_of_each()) {
    int fields = count_fields(sample, 2);
    numbers += fields;
    for (int k = 0; k < fields; ++k)
      for (double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
        auto ev = sample;
        std::string key;
        int i = 0;
        event_field_visitor v;
        v.number = [&](const char* field, double& x) {
          if (i++ == k) {
            key = field;
            x = bad;
          }
        };
        visit_fields(ev, v);
        auto err = storable(ev);
        ASSERT_TRUE(err) << type_name_of(ev) << "." << key;
        EXPECT_NE(render(err).find("'" + key + "'"), std::string::npos)
            << render(err);
      }
  }
  EXPECT_GE(numbers, 2);
}

TEST(storable_prose, the_masters_reasons_are_fitted_not_refused) {
  trial_errored ev{9,
                   std::string{"hyperparameter '\0\x1b' is bad\xff", 20}
                       + std::string(10000, '!'),
                   1};
  domain_event d = ev;
  EXPECT_TRUE(storable(d));
  fit_prose(d);
  EXPECT_FALSE(storable(d));
  const auto& reason = std::get<trial_errored>(d).reason;
  EXPECT_LE(reason.size(), 4096u);
  EXPECT_EQ(reason.rfind("hyperparameter '", 0), 0u);
  // Names are not prose: fit_prose leaves them for storable() to refuse.
  domain_event a = agent_enabled{std::string(300, 'a')};
  fit_prose(a);
  EXPECT_TRUE(storable(a));
}

} // namespace
} // namespace det
