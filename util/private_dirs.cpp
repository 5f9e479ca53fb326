#include "util/private_dirs.hpp"

#include <cctype>

namespace det::util {

namespace fs = std::filesystem;

bool make_private_dirs(const fs::path& p, std::error_code& ec) {
  fs::path at;
  for (const auto& part : p) {
    at /= part;
    if (fs::exists(at, ec))
      continue;
    if (!fs::create_directory(at, ec) && ec)
      return false;
    fs::permissions(at, fs::perms::owner_all, fs::perm_options::replace, ec);
    if (ec)
      return false;
  }
  return true;
}

std::string safe_dir_name(const std::string& id) {
  std::string out;
  for (char c : id)
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-'
                          || c == '_' || c == '.'
                      ? c
                      : '_');
  if (out.empty() || out == "." || out == "..")
    out = "_" + out;
  return out;
}

} // namespace det::util
