#pragma once

// The command on users, sessions, access tokens and the cluster message,
// part of core/commands.hpp's `command` (master_core::change_users, in
// core/master_core_on_users.cpp). Unlike the other commands it carries the
// event it asks for: the API makes what only it may see (password hashes,
// session token hashes) and the core checks the event against its state
// before it writes it.

#include "messages/events.hpp"

#include <nlohmann/json.hpp>

namespace det {

/// A user_created, user_password_changed, user_edited, session_started,
/// session_ended, access_token_created, access_token_changed or
/// cluster_message_set. Reply {"tokenId": N} for an access token created
/// (the core numbers them), else {}.
struct user_change {
  domain_event event;
};

/// The event `asked` as the master wrote it, given the reply: the
/// access token's id the core drew.
domain_event written_event(domain_event asked, const nlohmann::json& reply);

} // namespace det
