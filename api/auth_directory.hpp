#pragma once

// The API's read copy of the users and live sessions, so that every request
// is authenticated on its I/O thread without asking the master. It is filled
// from the recovered state at start-up (load) and then only by the auth
// routes, each after the master acknowledged the event as durable (apply):
// the event log stays the source of truth and a restart rebuilds the same
// copy. Thread-safe (one mutex); every method is quick.
//
// Trial allocation tokens are not sessions: they are HMACs of the
// allocation id (codec.hpp). The directory remembers which allocation (and
// owner) a token was last found to belong to, bounded in size, so that the
// guard asks the master only once per token.

#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace det::api {

/// A user account as the state has it (state::user_info).
using user_record = state::user_info;

struct allocation_identity {
  std::string allocation_id;
  int64_t trial_id = 0;
  std::string owner;
  int64_t experiment_id = 0;
  /// The task's DET_USER_TOKEN (session_tokens::user_token_for): the owner
  /// with the owner's rights, not the allocation's scope.
  bool as_owner = false;

  bool operator==(const allocation_identity& o) const {
    return allocation_id == o.allocation_id && trial_id == o.trial_id
           && owner == o.owner && experiment_id == o.experiment_id
           && as_owner == o.as_owner;
  }
  bool operator!=(const allocation_identity& o) const { return !(*this == o); }
};

class auth_directory {
public:
  /// Replaces the contents with the state's users and sessions.
  void load(const state::cluster_state& s);

  /// Applies a durable account event (state::apply_account: users,
  /// sessions, access tokens); ignores other events.
  void apply(const domain_event& ev);

  /// The user a bearer token belongs to: a live session's, or a live
  /// access token's (not revoked, not expired at `now_us`).
  std::optional<user_record> user_of_token(const std::string& token,
                                           int64_t now_us) const;
  std::optional<user_record> find(const std::string& username) const;
  std::optional<user_record> find_id(int64_t id) const;
  /// Every user, by id.
  std::vector<user_record> list() const;
  /// The token hashes of a user's live sessions.
  std::vector<std::string> sessions_of(const std::string& username) const;
  /// Access tokens (live and revoked), by id.
  std::vector<state::access_token_info> access_tokens() const;
  std::optional<state::access_token_info> access_token(int64_t id) const;

  std::optional<allocation_identity>
  cached_allocation(const std::string& token) const;
  void remember_allocation(const std::string& token, allocation_identity id);
  /// Drops a token whose allocation has ended.
  void forget_allocation(const std::string& token);
  /// Drops every token remembered for `allocation_id` (the master found it
  /// ended).
  void forget_allocation_id(const std::string& allocation_id);

private:
  mutable std::mutex mu_;
  /// Only users, sessions and access_tokens are kept.
  state::cluster_state accounts_;
  /// Index: token hash -> access token id.
  std::map<std::string, int64_t> access_token_ids_;
  std::map<std::string, allocation_identity> allocation_tokens_;
};

} // namespace det::api
