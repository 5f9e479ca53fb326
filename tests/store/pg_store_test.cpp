// What only the PostgreSQL store does: migrations, the writer lock across
// processes, reconnecting, and the log read back through decode and apply.

#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "state/cluster_state.hpp"
#include "store/model_def_store.hpp"
#include "store/pg_event_store.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/test_pg.hpp"

#include <pqxx/pqxx>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <csignal>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace det {
namespace {

class pg_store : public ::testing::Test {
protected:
  void SetUp() override { url = test::fresh_database("pg_store"); }

  std::unique_ptr<pg_event_store> open(lock_policy lock = lock_policy::wait) {
    pg_store_options o;
    o.url = url;
    o.lock = lock;
    auto s = pg_event_store::open(o);
    EXPECT_TRUE(s) << render(s.error());
    return s ? std::move(*s) : nullptr;
  }

  int64_t count(const std::string& sql) {
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    return tx.exec1(sql)[0].as<int64_t>();
  }

  std::string url;
};

TEST_F(pg_store, migrations_are_recorded_once_and_reopening_applies_nothing) {
  { auto s = open(); }
  auto applied = count("SELECT count(*) FROM schema_migrations");
  EXPECT_EQ(applied, pg_event_store::known_schema_version());
  auto s = open();
  EXPECT_EQ(count("SELECT count(*) FROM schema_migrations"), applied);
  EXPECT_EQ(*s->schema_version(), pg_event_store::known_schema_version());
}

/// This process's TCP sockets connected to `port`, by their descriptors.
std::vector<int> sockets_to_port(int port) {
  std::vector<int> out;
  for (const auto& entry :
       std::filesystem::directory_iterator{"/proc/self/fd"}) {
    int fd = std::stoi(entry.path().filename().string());
    sockaddr_storage peer{};
    socklen_t len = sizeof(peer);
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0)
      continue;
    int p = peer.ss_family == AF_INET
                ? ntohs(reinterpret_cast<sockaddr_in*>(&peer)->sin_port)
            : peer.ss_family == AF_INET6
                ? ntohs(reinterpret_cast<sockaddr_in6*>(&peer)->sin6_port)
                : -1;
    if (p == port)
      out.push_back(fd);
  }
  return out;
}

// A server whose host vanishes must fail the statement waiting on it (and
// so the append, which stops the master) rather than hold every write: the
// store's connection probes an idle peer and bounds unacknowledged data.
TEST_F(pg_store, the_connection_finds_out_when_the_server_is_gone) {
  auto at = url.find("@127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << "a TCP test database is needed: " << url;
  int port = std::stoi(url.substr(at + 11));
  ASSERT_TRUE(sockets_to_port(port).empty());
  auto s = open();
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->last_position());
  auto fds = sockets_to_port(port);
  ASSERT_EQ(fds.size(), 1u);
  auto opt = [&](int level, int name) {
    int v = -1;
    socklen_t len = sizeof(v);
    EXPECT_EQ(getsockopt(fds[0], level, name, &v, &len), 0);
    return v;
  };
  EXPECT_EQ(opt(SOL_SOCKET, SO_KEEPALIVE), 1);
  EXPECT_EQ(opt(IPPROTO_TCP, TCP_KEEPIDLE), 10);
  EXPECT_EQ(opt(IPPROTO_TCP, TCP_KEEPINTVL), 5);
  EXPECT_EQ(opt(IPPROTO_TCP, TCP_KEEPCNT), 3);
  EXPECT_EQ(opt(IPPROTO_TCP, TCP_USER_TIMEOUT), 30000);
}

TEST_F(pg_store, a_schema_newer_than_the_binary_is_refused_with_both_versions) {
  { auto s = open(); }
  auto next = pg_event_store::known_schema_version() + 1;
  {
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    tx.exec("INSERT INTO schema_migrations (version, name) VALUES ("
            + std::to_string(next) + ", 'from_the_future')");
  }
  pg_store_options o;
  o.url = url;
  auto s = pg_event_store::open(o);
  ASSERT_FALSE(s);
  EXPECT_EQ(code_of(s.error()), errc::schema_too_new);
  auto msg = render(s.error());
  EXPECT_NE(msg.find("version " + std::to_string(next)), std::string::npos)
      << msg;
  o.lock = lock_policy::reader;
  auto r = pg_event_store::open(o);
  ASSERT_FALSE(r);
  EXPECT_EQ(code_of(r.error()), errc::schema_too_new);
}

TEST_F(pg_store, model_definitions_and_task_contexts_are_kept_once_each) {
  { auto s = open(); } // migrates
  const std::string task = "0123abcd-0000-4000-8000-000000000000";
  {
    auto defs = open_pg_model_def_store(url);
    ASSERT_TRUE(defs) << render(defs.error());
    EXPECT_EQ(code_of((*defs)->get_context(task).error()), errc::not_found);
    ASSERT_FALSE((*defs)->put_context(task, "dGd6"));
    ASSERT_FALSE((*defs)->put(7, "bW9kZWw="));
    EXPECT_FALSE((*defs)->put_context(task, "dGd6")); // a retried launch
    EXPECT_EQ(code_of((*defs)->put_context(task, "b3RoZXI=")), errc::conflict);
  }
  // Another process (a restarted master) reads both back.
  auto defs = open_pg_model_def_store(url);
  ASSERT_TRUE(defs);
  EXPECT_EQ(*(*defs)->get_context(task), "dGd6");
  EXPECT_EQ(*(*defs)->get(7), "bW9kZWw=");
  EXPECT_EQ(code_of((*defs)->get(8).error()), errc::not_found);
}

TEST_F(pg_store, a_reader_on_a_database_without_a_log_says_so) {
  pg_store_options o;
  o.url = url;
  o.lock = lock_policy::reader;
  auto s = pg_event_store::open(o);
  ASSERT_FALSE(s);
  EXPECT_EQ(code_of(s.error()), errc::not_found);
  EXPECT_NE(render(s.error()).find("no event log"), std::string::npos);
}

TEST_F(pg_store, the_log_is_append_only) {
  auto s = open();
  ASSERT_TRUE(s->append({{{"s/1", {"e", 1, "{}"}}}, {}}));
  pqxx::connection c{url};
  pqxx::nontransaction tx{c};
  EXPECT_THROW(tx.exec("UPDATE events SET type = 'x'"), pqxx::sql_error);
  EXPECT_THROW(tx.exec("DELETE FROM events"), pqxx::sql_error);
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'e'"), 1);
}

TEST_F(pg_store,
       a_second_writer_with_fail_fast_names_the_holders_host_and_pid) {
  { auto s = open(); }
  test::child_process holder{{DET_STORE_TOOL, "hold", url}};
  ASSERT_EQ(holder.read_line(), "locked");
  auto s = pg_event_store::open({url, lock_policy::fail_fast, true, nullptr});
  ASSERT_FALSE(s);
  EXPECT_EQ(code_of(s.error()), errc::lock_held);
  auto msg = render(s.error());
  EXPECT_NE(msg.find("(pid " + std::to_string(holder.pid()) + ")"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("on host "), std::string::npos) << msg;
  holder.close_stdin();
  EXPECT_EQ(holder.wait(), 0);
  // Released: now it can be taken. The server ends the holder's session
  // (and its advisory lock) a moment after the client is gone, so the
  // lock is tried again for a bounded time; only lock_held may repeat.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  auto again =
      pg_event_store::open({url, lock_policy::fail_fast, true, nullptr});
  while (!again && code_of(again.error()) == errc::lock_held
         && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
    again = pg_event_store::open({url, lock_policy::fail_fast, true, nullptr});
  }
  EXPECT_TRUE(again) << render(again.error());
}

TEST_F(pg_store, a_second_writer_waits_until_the_first_one_exits) {
  { auto s = open(); }
  test::child_process first{{DET_STORE_TOOL, "hold", url}};
  ASSERT_EQ(first.read_line(), "locked");
  test::child_process second{{DET_STORE_TOOL, "wait", url}};
  auto told = second.read_line();
  ASSERT_TRUE(told);
  EXPECT_NE(told->find("waiting: "), std::string::npos) << *told;
  EXPECT_NE(told->find("(pid " + std::to_string(first.pid()) + ")"),
            std::string::npos)
      << *told;
  first.kill(SIGKILL); // even a crashed holder releases the lock
  first.wait();
  EXPECT_EQ(second.read_line(), "locked");
  EXPECT_EQ(second.wait(), 0);
}

TEST_F(pg_store, appends_continue_after_the_server_drops_the_connection) {
  auto s = open();
  ASSERT_TRUE(s->append({{{"s/1", {"e", 1, "{}"}}}, {}}));
  {
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    tx.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
            "datname = current_database() AND pid <> pg_backend_pid()");
  }
  auto r = s->append({{{"s/1", {"e", 1, "{}"}}}, {{"s/1", 1}}});
  ASSERT_TRUE(r) << render(r.error());
  EXPECT_EQ(r->first_position, 2);
  // The lock was taken again with the new connection.
  auto other =
      pg_event_store::open({url, lock_policy::fail_fast, true, nullptr});
  ASSERT_FALSE(other);
  EXPECT_EQ(code_of(other.error()), errc::lock_held);
}

TEST_F(pg_store, a_version_1_event_in_the_log_is_upgraded_when_read) {
  auto s = open();
  ASSERT_TRUE(
      s->append({{{"agent/a1",
                   {"agent_connected", 1,
                    R"({"agent_id":"a1","resource_pool":"gpu","slots":4})"}}},
                 {}}));
  std::vector<domain_event> got;
  auto err = s->read({}, [&](recorded_event&& rec) {
    auto ev = decode(rec);
    if (!ev)
      return std::move(ev.error());
    got.push_back(std::move(*ev));
    return caf::error{};
  });
  ASSERT_FALSE(err) << render(err);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(std::get<agent_connected>(got[0]).pool, "gpu");
}

TEST_F(pg_store, replay_stops_at_an_unknown_event_type_and_names_its_position) {
  auto s = open();
  ASSERT_TRUE(
      s->append({{to_new_event(master_started{"c", "h", 1, "v"})}, {}}));
  ASSERT_TRUE(s->append({{{"x/1", {"event_from_the_future", 1, "{}"}}}, {}}));
  ASSERT_TRUE(
      s->append({{to_new_event(master_started{"c", "h", 2, "v"})}, {}}));
  state::cluster_state st;
  auto err =
      s->read({}, [&](recorded_event&& rec) { return state::apply(st, rec); });
  ASSERT_TRUE(err);
  EXPECT_EQ(code_of(err), errc::unknown_event_type);
  EXPECT_NE(render(err).find("position 2"), std::string::npos) << render(err);
  EXPECT_EQ(st.position, 1); // nothing past the bad event was applied
}

TEST_F(pg_store, a_snapshot_changed_behind_our_back_is_reported_corrupt) {
  auto s = open();
  ASSERT_FALSE(s->save_snapshot({7, 1, R"({"position":7})", 0}));
  {
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    tx.exec("UPDATE snapshots SET state = '{\"position\":8}'");
  }
  auto snap = s->latest_snapshot();
  ASSERT_FALSE(snap);
  EXPECT_EQ(code_of(snap.error()), errc::corrupt_snapshot);
  EXPECT_NE(render(snap.error()).find("position 7"), std::string::npos);
}

} // namespace
} // namespace det
