#include "cmd/det_master/model_archive.hpp"

#include "cmd/det_master/codec.hpp"
#include "cmd/det_master/process.hpp"
#include "messages/errc.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace det::master {

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
    return make_error(errc::invalid_argument, where + ".path: must be relative");
  for (const auto& part : path)
    if (part == "..")
      return make_error(errc::invalid_argument,
                        where + ".path: must not contain '..'");
  if (is_directory_entry(f))
    return {};
  auto c = f.find("content");
  if (c != f.end() && !c->is_null()
      && (!c->is_string() || !base64_decode(c->get<std::string>())))
    return make_error(errc::invalid_argument,
                      where + ".content: must be base64 text");
  return {};
}

caf::error write_files(const fs::path& root, const nlohmann::json& files) {
  for (const auto& f : files) {
    auto path = root / f.at("path").get<std::string>();
    std::error_code ec;
    if (is_directory_entry(f)) {
      fs::create_directories(path, ec);
      continue;
    }
    fs::create_directories(path.parent_path(), ec);
    auto content = f.value("content", std::string{});
    std::ofstream out{path, std::ios::binary};
    out << *base64_decode(content);
    if (!out)
      return make_error(errc::remote_error,
                        "cannot write " + path.string());
    out.close();
    auto mode = f.value("mode", 0644);
    fs::permissions(path, static_cast<fs::perms>(mode & 0777), ec);
  }
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
      total += static_cast<int64_t>(c->get_ref<const std::string&>().size())
               / 4 * 3;
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
  std::string tmpl = (fs::temp_directory_path() / "det-model-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr)
    return make_error(errc::remote_error, "cannot create a temp directory");
  fs::path dir{tmpl};
  auto cleanup = [&] {
    std::error_code ec;
    fs::remove_all(dir, ec);
  };
  auto root = dir / "model";
  fs::create_directories(root);
  if (auto err = write_files(root, files.is_null() ? nlohmann::json::array()
                                                   : files)) {
    cleanup();
    return err;
  }
  auto tgz = (dir / "model.tgz").string();
  auto rc = run_process(
    {{"tar", "czf", tgz, "-C", root.string(), "."}, "", "", false});
  if (!rc || *rc != 0) {
    cleanup();
    return make_error(errc::remote_error, "tar failed building the model "
                                          "definition archive");
  }
  std::ifstream in{tgz, std::ios::binary};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  cleanup();
  return base64_encode(bytes.str());
}

} // namespace det::master
