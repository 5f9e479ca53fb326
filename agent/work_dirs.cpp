#include "agent/work_dirs.hpp"

#include "util/private_dirs.hpp"

#include "messages/errc.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace det::agent {

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in{p};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

caf::expected<std::string>
prepare_allocation_dir(const std::string& work_dir,
                       const std::string& cluster_id, const std::string& master,
                       const std::string& allocation_id) {
  auto base =
      fs::path{work_dir}
      / util::safe_dir_name(cluster_id.empty() ? "determined" : cluster_id);
  std::error_code ec;
  if (!util::make_private_dirs(base, ec))
    return make_error(errc::remote_error,
                      "cannot create " + base.string() + ": " + ec.message());
  // The allocation's own name, or (taken by another master) the first free
  // "<allocation>.N": another master's folder is never deleted.
  auto name = util::safe_dir_name(allocation_id);
  for (int n = 1; n <= 100; ++n) {
    auto dir = base / (n == 1 ? name : name + "." + std::to_string(n));
    auto owner_file = fs::path{dir.string() + ".owner"};
    if (fs::exists(dir, ec) || fs::exists(owner_file, ec)) {
      if (read_all(owner_file) != master)
        continue;
      fs::remove_all(dir, ec);
      fs::remove_all(dir.string() + ".run", ec);
      if (ec)
        return make_error(errc::remote_error, "cannot remove the old "
                                                  + dir.string() + ": "
                                                  + ec.message());
    }
    {
      std::ofstream out{owner_file, std::ios::trunc};
      out << master;
      if (!out)
        return make_error(errc::remote_error,
                          "cannot write " + owner_file.string());
    }
    if (!util::make_private_dirs(dir, ec))
      return make_error(errc::remote_error,
                        "cannot create " + dir.string() + ": " + ec.message());
    return dir.string();
  }
  return make_error(errc::conflict,
                    "every folder for allocation " + allocation_id + " under "
                        + base.string() + " belongs to another master");
}

caf::expected<std::string> prepare_pod_allocation_dir(
    const std::string& work_dir, const std::string& cluster_id,
    const std::string& master, const std::string& allocation_id,
    const std::string& pod_rank) {
  return prepare_allocation_dir(
      work_dir, cluster_id, master,
      pod_rank.empty() ? allocation_id : allocation_id + "-rank" + pod_rank);
}

} // namespace det::agent
