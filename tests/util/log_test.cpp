// The programs' log: level names, filtering, and the line format.

#include "util/log.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

namespace {

using namespace det;

// Each test logs into its own stream at its own level; the log is global,
// so both are put back afterwards.
class log_test : public ::testing::Test {
protected:
  void SetUp() override { log::write_to(out_, "det-test"); }
  void TearDown() override {
    log::set_level(log::level::info);
    log::init("det-test");
  }
  std::ostringstream out_;
};

TEST_F(log_test, a_debug_record_is_dropped_at_info_and_written_at_debug) {
  log::set_level(log::level::info);
  log::debug() << "hidden " << 1;
  log::info() << "shown " << 2;
  EXPECT_EQ(out_.str().find("hidden"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("shown 2"), std::string::npos) << out_.str();

  ASSERT_FALSE(log::set_level("debug"));
  log::debug() << "now shown " << 3;
  EXPECT_NE(out_.str().find("now shown 3"), std::string::npos) << out_.str();
}

TEST_F(log_test, a_line_has_the_utc_time_the_level_and_the_program) {
  log::set_level(log::level::info);
  log::warn() << "agent a1 disconnected";
  log::write(log::level::error, "second");
  std::regex line{"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z "
                  "warning det-test: agent a1 disconnected\n"
                  "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z "
                  "error det-test: second\n"};
  EXPECT_TRUE(std::regex_match(out_.str(), line)) << out_.str();
}

// Counts how often it is formatted into a record.
struct counted {
  int* formatted;
};
std::ostream& operator<<(std::ostream& os, const counted& c) {
  ++*c.formatted;
  return os << "x";
}

TEST_F(log_test, a_record_below_the_level_is_neither_formatted_nor_written) {
  log::set_level(log::level::warn);
  int formatted = 0;
  log::info() << counted{&formatted};
  EXPECT_EQ(formatted, 0);
  EXPECT_TRUE(out_.str().empty()) << out_.str();
  log::error() << counted{&formatted};
  EXPECT_EQ(formatted, 1);
  EXPECT_NE(out_.str().find("error det-test: x"), std::string::npos);
}

TEST_F(log_test, an_unknown_level_is_refused_by_name_and_the_level_kept) {
  log::set_level(log::level::error);
  auto err = log::set_level("loud");
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "unknown log level 'loud' (expected trace, debug, info, "
                  "warn, error or critical)");
  EXPECT_EQ(log::current_level(), log::level::error);
  EXPECT_TRUE(log::set_level("INFO")); // names are lowercase
  EXPECT_TRUE(log::set_level(""));
}

TEST(log_levels, every_name_master_yaml_accepts_maps_to_a_level) {
  const std::pair<const char*, log::level> names[] = {
      {"trace", log::level::trace},       {"debug", log::level::debug},
      {"info", log::level::info},         {"warn", log::level::warn},
      {"warning", log::level::warn},      {"error", log::level::error},
      {"critical", log::level::critical}, {"fatal", log::level::critical},
      {"panic", log::level::critical}};
  for (const auto& [name, want] : names) {
    auto got = log::parse_level(name);
    ASSERT_TRUE(got) << name;
    EXPECT_EQ(*got, want) << name;
  }
  EXPECT_FALSE(log::parse_level("verbose"));
}

TEST_F(log_test, line_breaks_in_a_message_cannot_start_a_line_of_their_own) {
  log::set_level(log::level::info);
  log::warn() << "failed login for user 'x\n2025-01-01T00:00:00.000Z info "
                 "det-test: forged' from 1.2.3.4\r\n";
  log::info() << "cannot connect:\n\tIs the server running?\n";
  std::istringstream in{out_.str()};
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line.substr(line.find(' ') + 1)); // past the time
  ASSERT_EQ(lines.size(), 2u) << out_.str();
  EXPECT_EQ(lines[0], "warning det-test: failed login for user 'x\\n2025-01-01T"
                      "00:00:00.000Z info det-test: forged' from 1.2.3.4");
  EXPECT_EQ(lines[1],
            "info det-test: cannot connect:\\n\\x09Is the server running?");
}

TEST_F(log_test, control_characters_are_escaped_and_a_huge_value_is_cut) {
  log::set_level(log::level::info);
  std::string name = std::string{"a\0b\x1b[31m", 8} + std::string(1 << 20, 'x');
  log::warn() << "failed login for user '" << name << "'";
  auto text = out_.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << "one line";
  EXPECT_LT(text.size(), log::max_record_bytes + 200) << "a 1 MB line";
  EXPECT_NE(text.find(R"(a\x00b\x1b[31m)"), std::string::npos)
      << text.substr(0, 200);
  EXPECT_NE(text.find("more bytes)"), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST_F(log_test,
       unicode_line_separators_c1_controls_and_bad_bytes_are_escaped) {
  log::set_level(log::level::info);
  // What a viewer may take for a line break (U+2028, U+2029, NEL U+0085),
  // other C1 controls, and bytes that are not UTF-8; real text stays.
  log::warn() << "user 'x\xE2\x80\xA8"
                 "forged\xE2\x80\xA9\xC2\x85\xC2\x9B\xFF' "
              << "\xE5\x90\x8D";
  auto text = out_.str();
  EXPECT_NE(text.find(R"(x\u2028forged\u2029\u0085\u009b\xff')"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\xE5\x90\x8D"), std::string::npos) << text;
  EXPECT_EQ(text.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_EQ(text.find("\xC2\x85"), std::string::npos);
}

TEST_F(log_test, records_of_many_threads_are_whole_lines) {
  log::set_level(log::level::info);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i)
        log::info() << "thread " << t << " record " << i << " end";
    });
  for (auto& th : threads)
    th.join();
  std::istringstream in{out_.str()};
  std::string line;
  int lines = 0;
  std::regex whole{".*Z info det-test: thread \\d record \\d+ end"};
  while (std::getline(in, line)) {
    ++lines;
    ASSERT_TRUE(std::regex_match(line, whole)) << line;
  }
  EXPECT_EQ(lines, 800);
}

} // namespace

namespace {
std::vector<std::pair<det::log::level, std::string>> tapped;
void tap_into_vector(det::log::level l, std::string_view m) {
  tapped.emplace_back(l, std::string{m});
}
} // namespace

TEST_F(log_test, the_tap_sees_each_written_record_and_nothing_filtered) {
  tapped.clear();
  log::set_level(log::level::info);
  log::set_tap(&tap_into_vector);
  log::debug() << "filtered";
  log::warn() << "two\nlines";
  log::set_tap(nullptr);
  log::info() << "after the tap is removed";
  ASSERT_EQ(tapped.size(), 1u);
  EXPECT_EQ(tapped[0].first, log::level::warn);
  EXPECT_EQ(tapped[0].second, "two\nlines"); // as given, not escaped
  EXPECT_NE(out_.str().find("two\\nlines"), std::string::npos);
}
