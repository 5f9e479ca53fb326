// util/cli: CLI11 under the house rules (one-line reasons that name the
// argument, help as an outcome, unknown arguments refused).

#include "util/cli.hpp"

#include <gtest/gtest.h>

#include <sstream>

using det::cli::outcome;

namespace {

struct program {
  std::string db;
  int port = -1;
  bool json = false;
  CLI::App app{"A test program.", "det-test"};
  program() {
    app.add_option("--db", db, "database")->type_name("URL");
    app.add_option("--port", port, "port")
        ->type_name("N")
        ->check(det::cli::at_least(1));
    app.add_flag("--json", json, "JSON");
  }
};

} // namespace

TEST(cli, good_arguments_are_stored_in_either_spelling) {
  program p;
  auto r = det::cli::parse(
      p.app, {"--db=postgresql://h/d", "--port", "8080", "--json"});
  ASSERT_EQ(r.what, outcome::kind::ok) << r.text;
  EXPECT_EQ(p.db, "postgresql://h/d");
  EXPECT_EQ(p.port, 8080);
  EXPECT_TRUE(p.json);
}

TEST(cli, each_bad_argument_is_one_line_that_names_it) {
  struct bad_case {
    std::vector<std::string> args;
    std::string reason;
  };
  for (const auto& c : std::vector<bad_case>{
           {{"--bogus"}, "unknown argument --bogus"},
           {{"--bogus=1"}, "unknown argument --bogus"},
           {{"stray"}, "unexpected argument 'stray'"},
           {{"--db"}, "--db needs a value (URL)"},
           {{"--port", "0"}, "--port: '0' is not a whole number >= 1"},
           {{"--port", "x1"}, "--port: 'x1' is not a whole number >= 1"},
           {{"--port", "-"}, "--port: '-' is not a whole number >= 1"},
       }) {
    program p;
    auto r = det::cli::parse(p.app, c.args);
    EXPECT_EQ(r.what, outcome::kind::error) << c.args[0];
    EXPECT_EQ(r.text, c.reason);
  }
}

TEST(cli, help_is_an_outcome_that_starts_with_the_usage) {
  program p;
  auto r = det::cli::parse(p.app, {"--port", "3", "--help"});
  ASSERT_EQ(r.what, outcome::kind::help);
  EXPECT_EQ(r.text.rfind("usage: det-test [OPTIONS]\n", 0), 0u) << r.text;
  EXPECT_NE(r.text.find("A test program."), std::string::npos);
  EXPECT_NE(r.text.find("--db URL"), std::string::npos);
}

TEST(cli, a_main_gets_exit_2_and_one_line_on_stderr_or_0_after_help) {
  const char* bad[] = {"det-test", "--port", "zero"};
  std::ostringstream out, err;
  program p;
  auto code = det::cli::parse_or_exit_code(p.app, 3, bad, out, err);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 2);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(err.str(), "det-test: --port: 'zero' is not a whole number >= 1\n");
  const char* help[] = {"det-test", "-h"};
  program q;
  std::ostringstream out2, err2;
  code = det::cli::parse_or_exit_code(q.app, 2, help, out2, err2);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 0);
  EXPECT_EQ(err2.str(), "");
  EXPECT_EQ(out2.str().rfind("usage: det-test", 0), 0u);
  const char* good[] = {"det-test", "--json"};
  program g;
  EXPECT_FALSE(det::cli::parse_or_exit_code(g.app, 2, good, out2, err2));
}
