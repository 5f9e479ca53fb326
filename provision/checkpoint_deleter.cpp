#include "provision/checkpoint_deleter.hpp"

#include "aws/aws_error.hpp"
#include "aws/credential_chain.hpp"
#include "aws/s3_client.hpp"
#include "messages/errc.hpp"

#include <filesystem>

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
    for (const auto& uuid : d.uuids)
      if (!plain_uuid(uuid))
        return make_error(errc::invalid_argument,
                          "checkpoint uuid '" + uuid + "' is not one name");
    return by_storage_type<caf::error>(
        d.storage, "deleting", [&] { return delete_shared_fs(d); },
        [&] { return delete_s3(d, env); });
  };
}

} // namespace det
