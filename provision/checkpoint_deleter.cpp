#include "provision/checkpoint_deleter.hpp"

#include "util/archive.hpp"

#include "aws/async_executor.hpp"
#include "aws/aws_error.hpp"
#include "aws/credential_chain.hpp"
#include "aws/s3_client.hpp"
#include "messages/errc.hpp"

#include <filesystem>
#include <fstream>

namespace det {

namespace {

using nlohmann::json;

// A uuid names one folder or key segment, nothing else.
bool plain_uuid(const std::string& uuid) {
  return !uuid.empty() && uuid != "." && uuid != ".."
         && uuid.find('/') == std::string::npos
         && uuid.find('\0') == std::string::npos;
}

caf::error delete_shared_fs(const checkpoint_deletion& d) {
  for (const auto& uuid : d.uuids) {
    auto dir = shared_fs_checkpoint_dir(d.storage, uuid);
    if (dir.empty())
      return make_error(errc::invalid_argument,
                        "checkpoint '" + uuid + "': no shared_fs folder");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec)
      return make_error(errc::remote_error,
                        "cannot delete " + dir + ": " + ec.message());
  }
  return {};
}

caf::error delete_s3(const checkpoint_deletion& d, const aws::env_lookup& env) {
  auto s3 = storage_s3_client(d.storage, env);
  auto bucket = storage_field(d.storage, "bucket");
  auto prefix = storage_field(d.storage, "prefix");
  std::vector<std::string> keys;
  for (const auto& uuid : d.uuids) {
    auto objects = s3->list_all(bucket, s3_checkpoint_prefix(prefix, uuid));
    if (!objects)
      return objects.error();
    for (auto& o : *objects)
      keys.push_back(std::move(o.key));
  }
  return delete_s3_keys(*s3, bucket, keys);
}

} // namespace

std::string storage_field(const json& storage, const char* key) {
  auto v = storage.find(key);
  return v != storage.end() && v->is_string() ? v->get<std::string>() : "";
}

caf::error delete_s3_keys(aws::s3_client& s3, const std::string& bucket,
                          const std::vector<std::string>& keys) {
  auto failed = s3.delete_objects(bucket, keys);
  if (!failed)
    return failed.error();
  if (!failed->empty())
    return make_error(errc::remote_error,
                      "s3 DeleteObjects kept " + std::to_string(failed->size())
                          + " objects, first " + failed->front().key + ": "
                          + failed->front().code + " "
                          + failed->front().message);
  return {};
}

std::shared_ptr<aws::s3_client> storage_s3_client(const json& storage,
                                                  const aws::env_lookup& env) {
  aws::s3_client_config cfg;
  cfg.region = env("AWS_REGION")
                   .value_or(env("AWS_DEFAULT_REGION").value_or("us-east-1"));
  cfg.endpoint_url = storage_field(storage, "endpoint_url");
  auto key = storage_field(storage, "access_key");
  std::shared_ptr<aws::credential_provider> creds;
  if (!key.empty())
    creds =
        aws::make_static_credentials({key, storage_field(storage, "secret_key"),
                                      "", std::nullopt, "storage"});
  else
    creds = aws::make_default_credential_chain();
  return aws::make_curl_s3_client(cfg, creds, env);
}

std::string s3_checkpoint_prefix(const std::string& prefix,
                                 const std::string& uuid) {
  std::string out;
  size_t at = 0;
  while (at <= prefix.size()) {
    auto slash = prefix.find('/', at);
    if (slash == std::string::npos)
      slash = prefix.size();
    auto seg = prefix.substr(at, slash - at);
    if (!seg.empty() && seg != ".")
      out += seg + "/";
    at = slash + 1;
  }
  return out + uuid + "/";
}

std::string shared_fs_checkpoint_dir(const json& storage,
                                     const std::string& uuid) {
  if (!plain_uuid(uuid))
    return "";
  auto host = storage_field(storage, "host_path");
  auto sub = storage_field(storage, "storage_path");
  if (host.empty() || host.front() != '/')
    return "";
  std::filesystem::path base = !sub.empty() && sub.front() == '/'
                                   ? std::filesystem::path(sub)
                                   : std::filesystem::path(host) / sub;
  return (base / uuid).string();
}

namespace {

caf::error too_big_to_pack(const std::string& uuid) {
  return make_error(errc::invalid_argument,
                    "checkpoint " + uuid + " holds more than "
                        + std::to_string(max_checkpoint_download_bytes >> 20)
                        + " MiB: download it from the storage");
}

/// Checkpoint `uuid`'s objects in an s3 storage, packed: each key under
/// <prefix>/<uuid>/ as a file at the rest of its key. A key that would
/// climb out (a ".." part) or names a folder is left out.
caf::expected<std::string> pack_s3_checkpoint(const json& storage,
                                              const std::string& uuid,
                                              const aws::env_lookup& env) {
  if (!plain_uuid(uuid))
    return make_error(errc::invalid_argument,
                      "checkpoint " + uuid + ": not a checkpoint uuid");
  auto s3 = storage_s3_client(storage, env);
  auto bucket = storage_field(storage, "bucket");
  auto under = s3_checkpoint_prefix(storage_field(storage, "prefix"), uuid);
  auto objects = s3->list_all(bucket, under);
  if (!objects)
    return objects.error();
  if (objects->empty())
    return make_error(errc::not_found,
                      "checkpoint " + uuid + ": no files in its storage");
  std::vector<util::archive_file> files;
  uint64_t total = 0;
  for (const auto& o : *objects) {
    auto rel = o.key.substr(under.size());
    std::filesystem::path p{rel};
    bool climbs = false;
    for (const auto& part : p)
      climbs = climbs || part == "..";
    if (rel.empty() || rel.back() == '/' || p.is_absolute() || climbs)
      continue;
    total += o.size;
    if (total > max_checkpoint_download_bytes)
      return too_big_to_pack(uuid);
    auto body = s3->get_object(bucket, o.key);
    if (!body)
      return body.error();
    files.push_back({rel, false, std::move(*body), 0644});
  }
  std::string why;
  auto tgz = util::make_tgz(files, why);
  if (!why.empty())
    return make_error(errc::remote_error, "packing " + uuid + ": " + why);
  return tgz;
}

} // namespace

caf::expected<std::string> pack_checkpoint(const json& storage,
                                           const std::string& uuid,
                                           const aws::env_lookup& env) {
  namespace fs = std::filesystem;
  if (storage_field(storage, "type") == "s3")
    return pack_s3_checkpoint(storage, uuid, env);
  if (storage_field(storage, "type") != "shared_fs")
    return make_error(errc::invalid_argument,
                      "checkpoint storage type '"
                          + storage_field(storage, "type")
                          + "': downloads through the master are for "
                            "shared_fs and s3; download from the storage");
  auto dir = shared_fs_checkpoint_dir(storage, uuid);
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(fs::symlink_status(dir, ec)))
    return make_error(errc::not_found,
                      "checkpoint " + uuid + ": no files in its storage");
  std::vector<util::archive_file> files;
  uint64_t total = 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    auto st = it->symlink_status(ec);
    if (ec)
      break;
    auto rel = fs::relative(it->path(), dir, ec).generic_string();
    if (fs::is_directory(st)) {
      files.push_back({rel, true, {}, 0755});
    } else if (fs::is_regular_file(st)) {
      total += it->file_size(ec);
      if (total > max_checkpoint_download_bytes)
        return too_big_to_pack(uuid);
      std::ifstream in(it->path(), std::ios::binary);
      std::string content((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
      files.push_back({rel, false, std::move(content), 0644});
    }
  }
  if (ec)
    return make_error(errc::remote_error,
                      "cannot read " + dir + ": " + ec.message());
  std::string why;
  auto tgz = util::make_tgz(files, why);
  if (!why.empty())
    return make_error(errc::remote_error, "packing " + uuid + ": " + why);
  return tgz;
}

caf::error delete_tensorboard_files(const json& storage,
                                    const std::string& cluster_id,
                                    int64_t experiment_id,
                                    aws::env_lookup env) {
  if (!plain_uuid(cluster_id))
    return make_error(errc::invalid_argument,
                      "cluster id '" + cluster_id + "' is not one name");
  // The harness's sync path, one segment at a time (each a plain name).
  auto path =
      cluster_id + "/tensorboard/experiment/" + std::to_string(experiment_id);
  return by_storage_type<caf::error>(
      storage, "deleting",
      [&]() -> caf::error {
        auto base = shared_fs_checkpoint_dir(storage, cluster_id);
        if (base.empty())
          return make_error(errc::invalid_argument, "no shared_fs folder");
        auto dir = std::filesystem::path(base) / "tensorboard" / "experiment"
                   / std::to_string(experiment_id);
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
        if (ec)
          return make_error(errc::remote_error, "cannot delete " + dir.string()
                                                    + ": " + ec.message());
        return {};
      },
      [&] {
        return delete_s3(checkpoint_deletion{experiment_id, {path}, storage},
                         env);
      });
}

checkpoint_delete_fn make_checkpoint_deleter(aws::env_lookup env) {
  return [env = std::move(env)](const checkpoint_deletion& d) -> caf::error {
    if (d.uuids.empty()) // a DELETING experiment without checkpoints
      return {};
    for (const auto& uuid : d.uuids)
      if (!plain_uuid(uuid))
        return make_error(errc::invalid_argument,
                          "checkpoint uuid '" + uuid + "' is not one name");
    return by_storage_type<caf::error>(
        d.storage, "deleting", [&] { return delete_shared_fs(d); },
        [&] { return delete_s3(d, env); });
  };
}

storage_calls make_storage_calls(std::string cluster_id) {
  auto calls = std::make_shared<aws::async_executor>(1, 256);
  storage_calls out;
  out.delete_tensorboard_files =
      [calls, cluster_id](int64_t id, nlohmann::json storage,
                          std::function<void(std::string)> done) {
        calls->run<bool>(
            [id, storage, cluster_id]() -> caf::expected<bool> {
              if (auto err = delete_tensorboard_files(storage, cluster_id, id))
                return err;
              return true;
            },
            [done](caf::expected<bool> r) {
              done(r ? std::string{} : render(r.error()));
            });
      };
  out.pack_checkpoint =
      [calls](std::string uuid, nlohmann::json storage,
              std::function<void(caf::expected<std::string>)> done) {
        calls->run<std::string>(
            [uuid, storage] { return pack_checkpoint(storage, uuid); },
            std::move(done));
      };
  return out;
}

} // namespace det
