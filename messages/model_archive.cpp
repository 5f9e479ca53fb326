#include "messages/model_archive.hpp"

#include "messages/errc.hpp"
#include "util/archive.hpp"
#include "util/base64.hpp"

#include <filesystem>

namespace det {

namespace fs = std::filesystem;

namespace {

bool is_directory_entry(const nlohmann::json& f) {
  // v1File.type is the tar type flag: '5' (53) for a directory.
  auto t = f.find("type");
  return t != f.end() && t->is_number_integer() && t->get<int>() == 53;
}

caf::error check_one(const nlohmann::json& f, size_t i) {
  auto where = "modelDefinition[" + std::to_string(i) + "]";
  if (!f.is_object())
    return make_error(errc::invalid_argument, where + ": must be an object");
  auto p = f.find("path");
  if (p == f.end() || !p->is_string() || p->get<std::string>().empty())
    return make_error(errc::invalid_argument, where + ".path: required");
  fs::path path{p->get<std::string>()};
  if (path.is_absolute())
    return make_error(errc::invalid_argument,
                      where + ".path: must be relative");
  for (const auto& part : path)
    if (part == "..")
      return make_error(errc::invalid_argument,
                        where + ".path: must not contain '..'");
  if (is_directory_entry(f))
    return {};
  auto c = f.find("content");
  if (c != f.end() && !c->is_null()
      && (!c->is_string() || !is_base64(c->get_ref<const std::string&>())))
    return make_error(errc::invalid_argument,
                      where + ".content: must be base64 text");
  return {};
}

} // namespace

caf::error check_model_files(const nlohmann::json& files) {
  if (files.is_null())
    return {};
  if (!files.is_array())
    return make_error(errc::invalid_argument,
                      "modelDefinition: must be a list of files");
  for (size_t i = 0; i < files.size(); ++i)
    if (auto err = check_one(files[i], i))
      return err;
  return {};
}

caf::error check_model_size(const nlohmann::json& files, int64_t limit) {
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
                    "modelDefinition: the model directory is about "
                        + std::to_string(total) + " bytes, over the limit of "
                        + std::to_string(limit) + " bytes");
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
