#include "deployer/staging.hpp"

#include "aws/aws_error.hpp"
#include "aws/query_api.hpp"
#include "deployer/options.hpp"
#include "messages/errc.hpp"

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <memory>

namespace det::deploy {

namespace fs = std::filesystem;

caf::expected<std::string> find_local_package(const std::string& exe_path) {
  auto dir = fs::path(exe_path).parent_path();
  std::vector<fs::path> dirs{dir, dir / ".." / "share" / "determined",
                             dir / ".." / "package"};
  fs::path best;
  fs::file_time_type best_time{};
  std::string searched;
  for (const auto& d : dirs) {
    searched += (searched.empty() ? "" : ", ") + d.lexically_normal().string();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(d, ec)) {
      auto name = entry.path().filename().string();
      if (!entry.is_regular_file() || entry.path().extension() != ".deb"
          || name.rfind("determined-master", 0) != 0)
        continue;
      auto t = entry.last_write_time(ec);
      if (best.empty() || t > best_time) {
        best = entry.path();
        best_time = t;
      }
    }
  }
  if (best.empty())
    return make_error(errc::not_found,
                      "no determined-master .deb next to det-deploy (searched "
                          + searched
                          + "; `make package` builds one); pass --package");
  return best.lexically_normal().string();
}

caf::expected<std::string>
caller_account(const std::string& region, const std::string& endpoint_url,
               std::shared_ptr<aws::credential_provider> creds,
               const aws::env_lookup& env) {
  aws::query_api_config qc;
  qc.service = "sts";
  qc.version = "2011-06-15";
  qc.region = region;
  qc.endpoint_url = aws::resolve_endpoint("sts", region, endpoint_url, env);
  aws::query_api api(qc, net::make_curl_http_client(), std::move(creds));
  auto doc = api.call("GetCallerIdentity", {});
  if (!doc)
    return doc.error();
  const auto* acct = doc->find("Account");
  if (acct == nullptr || acct->text.empty())
    return make_error(errc::remote_error,
                      "sts GetCallerIdentity: no Account in the answer");
  return acct->text;
}

std::string staging_bucket_name(const std::string& account,
                                const std::string& region) {
  return "det-deploy-staging-" + account + "-" + region;
}

std::string staging_key(const std::string& sha256_hex,
                        const std::string& file_name) {
  return "det-master/" + sha256_hex + "/" + file_name;
}

caf::expected<std::string> file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return make_error(errc::not_found, "cannot read " + path);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                              EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::string buf(1 << 20, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

caf::expected<std::string> stage_package(aws::s3_client& s3,
                                         const std::string& bucket,
                                         const std::string& path,
                                         std::ostream& out) {
  auto exists = s3.bucket_exists(bucket);
  if (!exists)
    return exists.error();
  if (!*exists) {
    out << "Creating the staging bucket " << bucket << std::endl;
    if (auto err = s3.create_bucket(bucket))
      return err;
    if (auto err =
            s3.put_bucket_tagging(bucket, {{managed_by_tag, managed_by_value}}))
      return err;
  } else {
    auto tags = s3.get_bucket_tagging(bucket);
    if (!tags)
      return tags.error();
    auto t = tags->find(managed_by_tag);
    if (t == tags->end() || t->second != managed_by_value)
      return make_error(errc::invalid_argument,
                        "bucket " + bucket + " exists without the tag "
                            + managed_by_tag + ": " + managed_by_value
                            + "; not using it (pass --package)");
  }
  auto sha = file_sha256(path);
  if (!sha)
    return sha.error();
  auto key = staging_key(*sha, fs::path(path).filename().string());
  auto url = "s3://" + bucket + "/" + key;
  auto head = s3.head_object(bucket, key);
  if (head) {
    out << "Package " << fs::path(path).filename().string()
        << " is already staged (sha256 " << sha->substr(0, 12)
        << "...): not uploading\n";
    return url;
  }
  if (aws::aws_error_of(head.error()).kind != aws::aws_error_kind::not_found)
    return head.error();
  out << "Uploading " << path << " to " << url << std::endl;
  int last_pct = -1;
  auto etag =
      s3.put_file(bucket, key, path,
                  [&](uint64_t sent, uint64_t total) {
                    int pct =
                        total == 0 ? 100 : static_cast<int>(sent * 100 / total);
                    if (pct == last_pct)
                      return;
                    last_pct = pct;
                    out << "  uploaded " << sent << " of " << total
                        << " bytes (" << pct << "%)" << std::endl;
                  },
                  {{"sha256", *sha}});
  if (!etag)
    return etag.error();
  return url;
}

std::vector<std::string> stacks_using(const std::vector<aws::stack>& stacks,
                                      const std::string& bucket,
                                      const std::string& except) {
  std::vector<std::string> out;
  const auto prefix = "s3://" + bucket + "/";
  for (const auto& st : stacks) {
    if (st.stack_name == except || st.tag(managed_by_tag) != managed_by_value
        || st.status == "DELETE_COMPLETE")
      continue;
    for (const auto& p : st.parameters)
      if (p.key == "DeterminedPackage" && p.value.rfind(prefix, 0) == 0)
        out.push_back(st.stack_name);
  }
  return out;
}

caf::error purge_bucket(aws::s3_client& s3, const std::string& bucket,
                        std::ostream& out) {
  auto exists = s3.bucket_exists(bucket);
  if (!exists)
    return exists.error();
  if (!*exists) {
    out << "No staging bucket " << bucket << " to purge.\n";
    return {};
  }
  auto tags = s3.get_bucket_tagging(bucket);
  if (!tags)
    return tags.error();
  if (auto t = tags->find(managed_by_tag);
      t == tags->end() || t->second != managed_by_value)
    return make_error(errc::invalid_argument,
                      "bucket " + bucket
                          + " is not det-deploy's; not deleting");
  auto objects = s3.list_all(bucket, "");
  if (!objects)
    return objects.error();
  std::vector<std::string> keys;
  for (auto& o : *objects)
    keys.push_back(std::move(o.key));
  auto failed = s3.delete_objects(bucket, keys);
  if (!failed)
    return failed.error();
  if (!failed->empty())
    return make_error(errc::remote_error, "cannot delete " + failed->front().key
                                              + " from " + bucket + ": "
                                              + failed->front().code);
  if (auto err = s3.delete_bucket(bucket))
    return err;
  out << "Deleted the staging bucket " << bucket << " (" << keys.size()
      << " objects).\n";
  return {};
}

} // namespace det::deploy
