// The PostgreSQL log archive (store/log_archive.hpp): lines saved off the
// caller's thread are read back by another connection (a restarted
// master), the last N of each key in order; text the table cannot hold
// (NUL) and SQL's own quoting characters survive; a line saved twice is
// kept once; forget() drops a key; and saving goes on after the server
// dropped the writer's connection.

#include "messages/errc.hpp"
#include "store/log_archive.hpp"
#include "store/pg_event_store.hpp"
#include "tests/support/test_pg.hpp"

#include <pqxx/pqxx>

#include <gtest/gtest.h>

namespace det {
namespace {

class log_archive_pg : public ::testing::Test {
protected:
  void SetUp() override {
    url = test::fresh_database("log_archive");
    pg_store_options o;
    o.url = url;
    ASSERT_TRUE(pg_event_store::open(o)); // migrates
  }

  std::unique_ptr<log_archive> open() {
    auto a = open_pg_log_archive(url, 1000);
    EXPECT_TRUE(a) << render(a.error());
    return a ? std::move(*a) : nullptr;
  }

  std::vector<archived_line> load(const std::string& prefix, size_t n) {
    auto a = open();
    auto got = a->load(prefix, n);
    EXPECT_TRUE(got) << render(got.error());
    return got ? *got : std::vector<archived_line>{};
  }

  std::string url;
};

std::vector<std::string> texts(const std::vector<archived_line>& ls) {
  std::vector<std::string> out;
  for (const auto& l : ls)
    out.push_back(l.key + "#" + std::to_string(l.id) + " " + l.text);
  return out;
}

TEST_F(log_archive_pg, lines_come_back_to_another_connection_last_n_in_order) {
  {
    auto a = open();
    a->save({{"trial:7", 1, "a1", 10, "", "first"},
             {"trial:7", 2, "a1", 11, "", std::string{"nul\0here", 8}},
             {"trial:7", 3, "a1", 12, "", "it's a \\ back'slash"}});
    a->save({{"task:ab-12", 1, "master", 20, "master", "Scheduling"},
             {"trial:70", 1, "a2", 21, "", "another trial"}});
    a->save({{"trial:7", 3, "a1", 12, "", "sent twice"}});
    a->flush();
  }
  auto trials = load("trial:", 2);
  EXPECT_EQ(texts(trials),
            (std::vector<std::string>{"trial:7#2 nul\xEF\xBF\xBDhere",
                                      "trial:7#3 it's a \\ back'slash",
                                      "trial:70#1 another trial"}));
  auto tasks = load("task:", 10);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].source, "master");
  EXPECT_EQ(tasks[0].agent_id, "master");
  EXPECT_EQ(tasks[0].at_us, 20);

  {
    auto a = open();
    a->forget({"trial:7", "task:ab-12"});
    a->flush();
  }
  EXPECT_EQ(texts(load("trial:", 10)),
            (std::vector<std::string>{"trial:70#1 another trial"}));
  EXPECT_TRUE(load("task:", 10).empty());
}

TEST_F(log_archive_pg, saving_goes_on_after_the_server_drops_the_connection) {
  auto a = open();
  a->save({{"task:x", 1, "a1", 1, "", "before"}});
  a->flush();
  {
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    tx.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
            "datname = current_database() AND pid <> pg_backend_pid()");
  }
  a->save({{"task:x", 2, "a1", 2, "", "after"}});
  a->flush();
  EXPECT_EQ(texts(load("task:", 10)),
            (std::vector<std::string>{"task:x#1 before", "task:x#2 after"}));
}

} // namespace
} // namespace det
