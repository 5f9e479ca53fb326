#include "messages/model_archive.hpp"

#include "messages/errc.hpp"
#include "util/archive.hpp"
#include "util/base64.hpp"
#include "util/text.hpp"

#include <filesystem>
#include <unordered_map>
#include <vector>

namespace det {

namespace fs = std::filesystem;

namespace {

// v1File.type is the tar type flag: '0' (48) a file (0, the old tar's
// NUL flag, too), '5' (53) a directory.
constexpr int64_t regular_type = 48;
constexpr int64_t old_regular_type = 0;
constexpr int64_t directory_type = 53;
constexpr size_t max_path_bytes = 1024;
constexpr size_t max_name_bytes = 255;

bool is_directory_entry(const nlohmann::json& f) {
  auto t = f.find("type");
  return t != f.end() && t->is_number_integer()
         && t->get<int64_t>() == directory_type;
}

/// The parts of a relative path that name something ("a//b/" is a, b).
std::vector<std::string> parts_of(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& part : fs::path{path})
    if (!part.empty())
      out.push_back(part.string());
  return out;
}

caf::error check_one(const nlohmann::json& f, size_t i,
                     const std::string& field) {
  auto where = field + "[" + std::to_string(i) + "]";
  if (!f.is_object())
    return make_error(errc::invalid_argument, where + ": must be an object");
  auto p = f.find("path");
  if (p == f.end() || !p->is_string() || p->get<std::string>().empty())
    return make_error(errc::invalid_argument, where + ".path: required");
  const auto& text = p->get_ref<const std::string&>();
  // A path the agent's file system can hold: PATH_MAX and NAME_MAX bound
  // it, and no byte that is not text.
  static const util::text_rules path_rules{max_path_bytes, false, false};
  if (auto why = util::text_problem(text, path_rules); !why.empty())
    return make_error(errc::invalid_argument, where + ".path " + why);
  if (fs::path{text}.is_absolute())
    return make_error(errc::invalid_argument,
                      where + ".path: must be relative");
  auto parts = parts_of(text);
  if (parts.empty())
    return make_error(errc::invalid_argument, where + ".path: names no file");
  for (const auto& part : parts) {
    if (part == "..")
      return make_error(errc::invalid_argument,
                        where + ".path: must not contain '..'");
    if (part == ".")
      return make_error(errc::invalid_argument,
                        where + ".path: must not contain '.'");
    if (part.size() > max_name_bytes)
      return make_error(
          errc::invalid_argument,
          where + ".path: a name is " + std::to_string(part.size())
              + " bytes long, more than " + std::to_string(max_name_bytes));
  }
  // Only files and directories: a link, device or FIFO could send what is
  // written later anywhere the agent's user can write.
  if (auto t = f.find("type"); t != f.end() && !t->is_null()) {
    auto n = t->is_number_integer() ? t->get<int64_t>() : -1;
    bool known =
        n == regular_type || n == old_regular_type || n == directory_type;
    if (!known)
      return make_error(errc::invalid_argument,
                        where + ".type: "
                            + util::fit_text(t->dump(), {32, false, true})
                            + " is not a file (48) or a directory (53)");
  }
  if (is_directory_entry(f))
    return {};
  auto c = f.find("content");
  if (c != f.end() && !c->is_null()
      && (!c->is_string() || !is_base64(c->get_ref<const std::string&>())))
    return make_error(errc::invalid_argument,
                      where + ".content: must be base64 text");
  return {};
}

/// No entry lies under a file, and no directory has a file's name: the
/// archive unpacks whole, as listed.
caf::error check_tree(const nlohmann::json& files, const std::string& field) {
  std::unordered_map<std::string, size_t> file_at;
  for (size_t i = 0; i < files.size(); ++i)
    if (!is_directory_entry(files[i])) {
      auto parts = parts_of(files[i].at("path").get<std::string>());
      std::string joined;
      for (const auto& part : parts)
        joined += (joined.empty() ? "" : "/") + part;
      file_at.emplace(joined, i);
    }
  for (size_t i = 0; i < files.size(); ++i) {
    auto parts = parts_of(files[i].at("path").get<std::string>());
    std::string prefix;
    for (size_t k = 0; k < parts.size(); ++k) {
      prefix += (prefix.empty() ? "" : "/") + parts[k];
      bool last = k + 1 == parts.size();
      if (last && !is_directory_entry(files[i]))
        break;
      if (auto hit = file_at.find(prefix); hit != file_at.end())
        return make_error(errc::invalid_argument,
                          field + "[" + std::to_string(i) + "].path: '" + prefix
                              + "' is a file (" + field + "["
                              + std::to_string(hit->second)
                              + "]), not a directory");
    }
  }
  return {};
}

} // namespace

caf::error check_model_files(const nlohmann::json& files,
                             const std::string& field) {
  if (files.is_null())
    return {};
  if (!files.is_array())
    return make_error(errc::invalid_argument,
                      field + ": must be a list of files");
  for (size_t i = 0; i < files.size(); ++i)
    if (auto err = check_one(files[i], i, field))
      return err;
  return check_tree(files, field);
}

caf::error check_model_size(const nlohmann::json& files, int64_t limit,
                            const std::string& field) {
  if (!files.is_array())
    return {};
  int64_t total = 0;
  for (const auto& f : files)
    if (auto c = f.find("content"); c != f.end() && c->is_string())
      total +=
          static_cast<int64_t>(c->get_ref<const std::string&>().size()) / 4 * 3;
  if (total <= limit)
    return {};
  return make_error(errc::invalid_argument,
                    field + ": the files are about " + std::to_string(total)
                        + " bytes, over the limit of " + std::to_string(limit)
                        + " bytes");
}

caf::expected<std::string> make_model_archive(const nlohmann::json& files) {
  if (auto err = check_model_files(files))
    return err;
  std::vector<util::archive_file> entries;
  if (files.is_array())
    for (const auto& f : files) {
      util::archive_file a;
      a.path = f.at("path").get<std::string>();
      a.directory = is_directory_entry(f);
      if (!a.directory)
        if (auto c = f.find("content"); c != f.end() && c->is_string())
          a.content = *base64_decode(c->get_ref<const std::string&>());
      auto m = f.find("mode");
      if (m != f.end() && m->is_number_integer())
        a.mode = m->get<int>();
      entries.push_back(std::move(a));
    }
  std::string error;
  auto tgz = util::make_tgz(entries, error);
  if (!error.empty())
    return make_error(errc::remote_error,
                      "building the model definition archive: " + error);
  return base64_encode(tgz);
}

} // namespace det
