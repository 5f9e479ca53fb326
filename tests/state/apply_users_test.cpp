#include "state_fixture.hpp"

namespace det::state::test {

namespace {

const std::string token_a(64, 'a');
const std::string token_b(64, 'b');

class users : public state_fixture {};

TEST_F(users, created_users_get_ids_in_creation_order) {
  ok(user_created{"admin", true, "", 10});
  ok(user_created{"determined", false, "", 10});
  EXPECT_EQ(s.users.at("admin").id, 1);
  EXPECT_TRUE(s.users.at("admin").admin);
  EXPECT_EQ(s.users.at("determined").id, 2);
  EXPECT_FALSE(s.users.at("determined").admin);
}

TEST_F(users, a_user_cannot_be_created_twice) {
  ok(user_created{"admin", true, "", 10});
  EXPECT_NE(refused(user_created{"admin", false, "", 11}).find("already"),
            std::string::npos);
}

TEST_F(users, a_password_change_replaces_the_stored_hash) {
  ok(user_created{"alice", false, "", 10});
  ok(user_password_changed{"alice", "pbkdf2-sha256$1$00$11", 20});
  EXPECT_EQ(s.users.at("alice").password_hash, "pbkdf2-sha256$1$00$11");
  EXPECT_EQ(s.users.at("alice").modified_at_us, 20);
  refused(user_password_changed{"bob", "", 21});
}

TEST_F(users, sessions_start_for_known_users_and_end_once) {
  ok(user_created{"alice", false, "", 10});
  refused(session_started{"bob", token_a, 11});
  ok(session_started{"alice", token_a, 12});
  ok(session_started{"alice", token_b, 13});
  refused(session_started{"alice", token_a, 14});
  EXPECT_EQ(s.sessions.size(), 2u);
  ok(session_ended{"alice", token_a, 15});
  EXPECT_EQ(s.sessions.count(token_a), 0u);
  refused(session_ended{"alice", token_a, 16});
}

TEST_F(users, users_and_sessions_survive_a_snapshot_round_trip) {
  ok(user_created{"admin", true, "pbkdf2-sha256$1$00$11", 10});
  ok(session_started{"admin", token_a, 12});
  auto back = from_snapshot(to_snapshot(s));
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == s);
}

TEST_F(users, a_snapshot_written_before_users_existed_reads_as_no_users) {
  ok(user_created{"admin", true, "", 10});
  auto j = to_snapshot(s);
  j.erase("users");
  j.erase("sessions");
  // The counters still say one event was applied; only the records differ.
  auto back = from_snapshot(j);
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(back->users.empty());
}

} // namespace

} // namespace det::state::test
