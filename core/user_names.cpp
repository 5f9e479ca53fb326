#include "core/user_names.hpp"

#include "util/text.hpp"

namespace det {

std::string reserved_name_problem(const std::string& name,
                                  const std::string& username, bool admin) {
  auto bare = util::to_lower(util::trim(name));
  if (!admin && bare == "admin")
    return "Non-admin user cannot be renamed 'admin'";
  if (username != "determined" && bare == "determined")
    return "User cannot be renamed 'determined'";
  return {};
}

} // namespace det
