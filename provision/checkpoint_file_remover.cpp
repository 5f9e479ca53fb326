#include "provision/checkpoint_file_remover.hpp"

#include "messages/errc.hpp"
#include "provision/checkpoint_deleter.hpp"

#include <filesystem>

namespace det {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool matches_any(const std::vector<std::string>& globs,
                 const std::string& path) {
  for (const auto& g : globs)
    if (checkpoint_glob_matches(g, path))
      return true;
  return false;
}

caf::expected<json> remove_shared_fs(const checkpoint_file_removal& r) {
  auto dir = shared_fs_checkpoint_dir(r.storage, r.uuid);
  if (dir.empty())
    return make_error(errc::invalid_argument,
                      "checkpoint '" + r.uuid + "': no shared_fs folder");
  json left = json::object();
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec)))
    return left;
  // Regular files only; a link is a file of the checkpoint, never followed.
  std::vector<fs::path> doomed;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    auto st = it->symlink_status(ec);
    if (ec)
      break;
    if (fs::is_directory(st))
      continue;
    auto rel = it->path().lexically_relative(dir).generic_string();
    if (matches_any(r.globs, rel))
      doomed.push_back(it->path());
    else {
      std::error_code size_ec;
      auto size =
          fs::is_regular_file(st) ? fs::file_size(it->path(), size_ec) : 0;
      left[rel] = size_ec ? 0 : size;
    }
  }
  if (ec)
    return make_error(errc::remote_error,
                      "cannot list " + dir + ": " + ec.message());
  for (const auto& p : doomed)
    if (!fs::remove(p, ec) && ec)
      return make_error(errc::remote_error,
                        "cannot remove " + p.string() + ": " + ec.message());
  // Folders left empty go too (deepest first), the checkpoint's own when
  // nothing is left in it.
  std::vector<fs::path> folders;
  for (fs::recursive_directory_iterator d(dir, ec); !ec && d != end;
       d.increment(ec))
    if (fs::is_directory(d->symlink_status(ec)))
      folders.push_back(d->path());
  for (auto f = folders.rbegin(); f != folders.rend(); ++f)
    if (fs::is_empty(*f, ec))
      fs::remove(*f, ec);
  if (left.empty())
    fs::remove(dir, ec);
  return left;
}

caf::expected<json> remove_s3(const checkpoint_file_removal& r,
                              const aws::env_lookup& env) {
  if (r.uuid.empty() || r.uuid == "." || r.uuid == ".."
      || r.uuid.find('/') != std::string::npos)
    return make_error(errc::invalid_argument,
                      "checkpoint uuid '" + r.uuid + "' is not one name");
  auto s3 = storage_s3_client(r.storage, env);
  auto bucket = storage_field(r.storage, "bucket");
  auto prefix =
      s3_checkpoint_prefix(storage_field(r.storage, "prefix"), r.uuid);
  auto objects = s3->list_all(bucket, prefix);
  if (!objects)
    return objects.error();
  json left = json::object();
  std::vector<std::string> doomed;
  for (const auto& o : *objects) {
    if (o.key.size() <= prefix.size() || o.key.rfind(prefix, 0) != 0)
      continue;
    auto rel = o.key.substr(prefix.size());
    if (matches_any(r.globs, rel))
      doomed.push_back(o.key);
    else
      left[rel] = o.size;
  }
  if (doomed.empty())
    return left;
  if (auto err = delete_s3_keys(*s3, bucket, doomed))
    return err;
  return left;
}

} // namespace

checkpoint_remove_files_fn make_checkpoint_file_remover(aws::env_lookup env) {
  return [env = std::move(env)](
             const checkpoint_file_removal& r) -> caf::expected<json> {
    if (!r.storage.is_object())
      return make_error(errc::invalid_argument, "no checkpoint storage");
    return by_storage_type<caf::expected<json>>(
        r.storage, "removing files", [&] { return remove_shared_fs(r); },
        [&] { return remove_s3(r, env); });
  };
}

} // namespace det
