// journalctl's JSON entries as log events, and the journald source run
// against a fake journalctl speaking the real format (journald does not
// run in the test container).

#include "telemetry/cursor_file.hpp"
#include "telemetry/journald_source.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

using namespace det::telemetry;
using det::policy::queued_log_event;

namespace {

// An entry as `journalctl -o json` prints it (fields trimmed).
const char* entry =
    R"({"__CURSOR":"s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece7;b=6c7c6013a8ba4ab3a1d4f4a1d1c4b2b0;m=28fd08d96;t=5b8b9c05e9ccd;x=91e1b5a2c1b8e4f5",)"
    R"("__REALTIME_TIMESTAMP":"1611940466265293","__MONOTONIC_TIMESTAMP":"11004071318",)"
    R"("_BOOT_ID":"6c7c6013a8ba4ab3a1d4f4a1d1c4b2b0","PRIORITY":"6","_PID":"1234",)"
    R"("_COMM":"det-master","SYSLOG_IDENTIFIER":"det-master","_SYSTEMD_UNIT":"det-master.service",)"
    R"("MESSAGE":"2021-01-29T17:14:26.265Z info det-master: serving http on 0.0.0.0:8080"})";

std::string journal_line(int i) {
  nlohmann::json e{{"__CURSOR", "s=abc;i=" + std::to_string(i)},
                   {"__REALTIME_TIMESTAMP",
                    std::to_string(1'750'000'000'000'000LL + i * 1000LL)},
                   {"_PID", "42"},
                   {"SYSLOG_IDENTIFIER", "kernel"},
                   {"MESSAGE", "line " + std::to_string(i)}};
  return e.dump() + "\n";
}

struct collector {
  std::mutex mtx;
  std::condition_variable cv;
  std::vector<queued_log_event> got;

  journald_source::push_fn push() {
    return [this](queued_log_event ev, const std::atomic<bool>&) {
      std::lock_guard<std::mutex> g{mtx};
      got.push_back(std::move(ev));
      cv.notify_all();
      return true;
    };
  }
  bool await(size_t n) {
    std::unique_lock<std::mutex> lock{mtx};
    return cv.wait_for(lock, std::chrono::seconds{30},
                       [&] { return got.size() >= n; });
  }
};

std::string tmpdir(const char* name) {
  auto d = std::filesystem::temp_directory_path()
           / (std::string{name} + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

} // namespace

TEST(journald, an_entry_becomes_ident_pid_message_with_its_time_and_cursor) {
  auto ev = parse_journal_entry(entry);
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->timestamp_ms, 1611940466265);
  EXPECT_EQ(ev->message, "det-master[1234]: 2021-01-29T17:14:26.265Z info "
                         "det-master: serving http on 0.0.0.0:8080");
  EXPECT_EQ(ev->cursor.rfind("s=739ad463", 0), 0u);
}

TEST(journald, a_binary_message_is_decoded_from_its_byte_array) {
  auto ev = parse_journal_entry(
      R"({"__CURSOR":"c","__REALTIME_TIMESTAMP":"1000","MESSAGE":[104,105,255]})");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->message, std::string{"hi\xff"});
}

TEST(journald, lines_that_are_not_entries_are_skipped) {
  EXPECT_FALSE(parse_journal_entry("not json"));
  EXPECT_FALSE(parse_journal_entry(R"({"MESSAGE":"no cursor"})"));
  EXPECT_FALSE(parse_journal_entry(
      R"({"__CURSOR":"c","__REALTIME_TIMESTAMP":"12ab","MESSAGE":"x"})"));
  EXPECT_FALSE(parse_journal_entry(
      R"({"__CURSOR":"c","__REALTIME_TIMESTAMP":"99999999999999999999999","MESSAGE":"x"})"));
}

TEST(journald, journalctl_is_asked_from_the_cursor_or_from_this_boot) {
  EXPECT_EQ(journalctl_argv("journalctl", ""),
            (std::vector<std::string>{"journalctl", "-o", "json", "--no-tail",
                                      "-f", "-b"}));
  EXPECT_EQ(journalctl_argv("journalctl", "s=1;i=2"),
            (std::vector<std::string>{"journalctl", "-o", "json", "--no-tail",
                                      "-f", "--after-cursor", "s=1;i=2"}));
}

TEST(journald, the_source_follows_the_journal_and_resumes_after_its_cursor) {
  auto dir = tmpdir("det-journald");
  auto journal = dir + "/journal";
  {
    std::ofstream out{journal};
    for (int i = 1; i <= 3; ++i)
      out << journal_line(i);
  }
  ::setenv("FAKE_JOURNAL", journal.c_str(), 1);
  ::setenv("FAKE_JOURNAL_ARGS_LOG", (dir + "/args").c_str(), 1);
  journald_options o;
  o.journalctl = std::string{DET_TEST_TELEMETRY_DIR} + "/fake_journalctl";
  o.restart_delay = std::chrono::milliseconds{50};
  {
    collector c;
    journald_source src{o, "", c.push()};
    src.start();
    ASSERT_TRUE(c.await(3));
    // -f: an entry written later arrives too.
    std::ofstream{journal, std::ios::app} << journal_line(4);
    ASSERT_TRUE(c.await(4));
    src.stop();
    EXPECT_EQ(c.got[0].message, "kernel[42]: line 1");
    EXPECT_EQ(c.got[3].cursor, "s=abc;i=4");
  }
  // A restart with the cursor saved after entry 2: entries 3 and 4 again,
  // not 1 and 2.
  cursor_file saved{dir + "/cursor"};
  ASSERT_FALSE(saved.save("s=abc;i=2"));
  {
    collector c;
    journald_source src{o, saved.load(), c.push()};
    src.start();
    ASSERT_TRUE(c.await(2));
    src.stop();
    ASSERT_EQ(c.got.size(), 2u);
    EXPECT_EQ(c.got[0].message, "kernel[42]: line 3");
    EXPECT_EQ(c.got[1].message, "kernel[42]: line 4");
  }
  std::filesystem::remove_all(dir);
}

TEST(journald, a_cursor_file_survives_a_reopen_and_refuses_junk) {
  auto dir = tmpdir("det-cursor");
  cursor_file f{dir + "/c"};
  EXPECT_EQ(f.load(), "");
  ASSERT_FALSE(f.save("s=1;i=2;b=3"));
  EXPECT_EQ(cursor_file{dir + "/c"}.load(), "s=1;i=2;b=3");
  std::ofstream{dir + "/junk"} << "s=1 ; rm -rf /\n";
  EXPECT_EQ(cursor_file{dir + "/junk"}.load(), "");
  std::filesystem::remove_all(dir);
}
