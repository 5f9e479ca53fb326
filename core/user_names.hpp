#pragma once

// The names a user account may go by (its username and display name), as
// upstream's master allows them. Pure; called by the user routes (a quick
// 400 before anything is written) and by master_core::change_users (the
// decision, against the master's own state).

#include <string>

namespace det {

/// Why account `username` (an admin or not) may not take `name` as its
/// username or display name, or "" when it may. Case and the blanks at the
/// ends are ignored: a non-admin is never "admin", and no account but
/// "determined" itself is "determined" (upstream's wording).
[[nodiscard]] std::string reserved_name_problem(const std::string& name,
                                                const std::string& username,
                                                bool admin);

} // namespace det
