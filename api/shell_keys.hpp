#pragma once

// The key pair of a shell (`det shell`): an ed25519 key, the private half
// in OpenSSH's own PEM ("BEGIN OPENSSH PRIVATE KEY", unencrypted, as
// upstream's master generates by default), the public half as an
// authorized_keys line. The master derives it from its session secret and
// the task id, so it is stored nowhere (no event holds it), survives a
// restart, and no two shells share one. Only the public half leaves the
// master for the agent (the shell's sshd trusts it); the private half goes
// to the shell's owner and admins in the Shell object.

#include "api/codec.hpp"

#include <string>

namespace det::api {

struct shell_key_pair {
  std::string private_key; ///< OpenSSH PEM, ends with a newline
  std::string public_key;  ///< "ssh-ed25519 AAAA...\n"
};

/// The key pair of shell `task_id`; empty strings if OpenSSL cannot make
/// one (it always can with a working libcrypto).
shell_key_pair shell_keys(const session_tokens& tokens,
                          const std::string& task_id);

} // namespace det::api
