#pragma once

// Our S3 client (REST-XML protocol over libcurl, SigV4 with a signed payload
// hash): the calls det-deploy's staging bucket and the master's checkpoint
// garbage collection need. Every call blocks its thread for the whole retry
// loop (throttling, 5xx and transport failures retried with backoff): never
// call it on an actor thread. Thread-safe if its http_client and
// credential_provider are.
//
// Addressing: virtual-host (https://BUCKET.s3.REGION.amazonaws.com/KEY) for
// AWS itself when the bucket name is a DNS label without dots, path-style
// (ENDPOINT/BUCKET/KEY) otherwise, and always path-style behind an endpoint
// override (moto in server mode, MinIO).
//
// Errors are aws errors (aws_error.hpp); a missing bucket or key is kind
// not_found (NoSuchKey, NoSuchBucket, or a bare 404 for HEAD).

#include "aws/credential_provider.hpp"
#include "aws/environment.hpp"
#include "aws/retry.hpp"
#include "net/http_client.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace det::aws {

enum class s3_addressing : uint8_t { automatic, path, virtual_host };

struct s3_client_config {
  std::string region = "us-east-1";
  /// Empty: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then AWS's own.
  std::string endpoint_url;
  s3_addressing addressing = s3_addressing::automatic;
  std::chrono::milliseconds timeout{120'000};
  retry_policy retry;
  /// Files at least this large go up in parts (S3's minimum part is 5 MiB).
  uint64_t multipart_threshold = 16ull << 20;
  uint64_t part_size = 8ull << 20;
};

struct s3_object {
  std::string key;
  uint64_t size = 0;
  /// As S3 returns it, quotes removed.
  std::string etag;
  std::string last_modified;
  /// x-amz-meta-* headers (HEAD only), names lowercase without the prefix.
  std::map<std::string, std::string> metadata;
};

struct s3_list_page {
  std::vector<s3_object> objects;
  /// Empty when this was the last page.
  std::string next_continuation_token;
};

/// What DeleteObjects could not delete, key by key.
struct s3_delete_failure {
  std::string key;
  std::string code;
  std::string message;
};

/// Bytes sent so far out of the total; called after each part (or once for
/// a single PUT), on the calling thread.
using s3_progress = std::function<void(uint64_t sent, uint64_t total)>;

/// One request as the client builds it, before signing: for tests.
struct s3_url {
  std::string url;
  /// The Host header and the signed path (percent-encoded, not normalized).
  std::string host;
  std::string path;
};

class s3_client {
public:
  using wall_clock = std::function<std::chrono::system_clock::time_point()>;

  /// `config.endpoint_url` resolved already (make_curl_s3_client does it).
  s3_client(s3_client_config config, std::shared_ptr<net::http_client> http,
            std::shared_ptr<credential_provider> creds,
            retry_clock clock = retry_clock::real(),
            wall_clock now = std::chrono::system_clock::now);

  /// The URL of `bucket`/`key` ("" for the bucket itself) under the
  /// configured addressing.
  [[nodiscard]] caf::expected<s3_url> url_of(const std::string& bucket,
                                             const std::string& key) const;

  /// PutObject of an in-memory body; returns the ETag.
  [[nodiscard]] caf::expected<std::string>
  put_object(const std::string& bucket, const std::string& key,
             const std::string& body,
             const std::map<std::string, std::string>& metadata = {});

  /// Uploads the file at `path`: one PutObject below the multipart
  /// threshold, else CreateMultipartUpload, UploadPart per part_size chunk
  /// (read one part at a time) and CompleteMultipartUpload (aborted on
  /// failure). Returns the ETag.
  [[nodiscard]] caf::expected<std::string>
  put_file(const std::string& bucket, const std::string& key,
           const std::string& path, const s3_progress& progress = {},
           const std::map<std::string, std::string>& metadata = {});

  /// HeadObject: size, ETag, metadata.
  [[nodiscard]] caf::expected<s3_object> head_object(const std::string& bucket,
                                                     const std::string& key);

  [[nodiscard]] caf::expected<std::string> get_object(const std::string& bucket,
                                                      const std::string& key);

  /// ListObjectsV2, one page of at most `max_keys` (1..1000).
  [[nodiscard]] caf::expected<s3_list_page>
  list_objects(const std::string& bucket, const std::string& prefix,
               const std::string& continuation_token = {}, int max_keys = 1000);

  /// Every page of ListObjectsV2 under `prefix`.
  [[nodiscard]] caf::expected<std::vector<s3_object>>
  list_all(const std::string& bucket, const std::string& prefix);

  /// DeleteObjects in batches of 1000 keys (S3's limit). Keys that do not
  /// exist count as deleted. Returns the keys S3 refused.
  [[nodiscard]] caf::expected<std::vector<s3_delete_failure>>
  delete_objects(const std::string& bucket,
                 const std::vector<std::string>& keys);

  /// CreateBucket with the region as LocationConstraint (none for
  /// us-east-1). A bucket this account already owns is success.
  [[nodiscard]] caf::error create_bucket(const std::string& bucket);

  /// HeadBucket: true if it exists (and we may see it), false on 404.
  [[nodiscard]] caf::expected<bool> bucket_exists(const std::string& bucket);

  [[nodiscard]] caf::error delete_bucket(const std::string& bucket);

  [[nodiscard]] caf::error
  put_bucket_tagging(const std::string& bucket,
                     const std::map<std::string, std::string>& tags);

  /// The bucket's tags; empty when it has none (NoSuchTagSet).
  [[nodiscard]] caf::expected<std::map<std::string, std::string>>
  get_bucket_tagging(const std::string& bucket);

  [[nodiscard]] caf::error put_bucket_versioning(const std::string& bucket,
                                                 bool enabled);

  const s3_client_config& config() const { return config_; }

private:
  using query_list = std::vector<std::pair<std::string, std::string>>;

  // One signed request with retries; non-2xx answers become aws errors.
  caf::expected<net::http_response>
  send(const std::string& method, const std::string& bucket,
       const std::string& key, const query_list& query,
       const net::header_list& headers, const std::string& body,
       const char* action);
  caf::expected<net::http_response>
  attempt(const std::string& method, const s3_url& u, const query_list& query,
          const net::header_list& headers, const std::string& body,
          const char* action);
  caf::expected<std::string>
  put_multipart(const std::string& bucket, const std::string& key,
                const std::string& path, uint64_t size,
                const s3_progress& progress, const net::header_list& meta);

  s3_client_config config_;
  std::shared_ptr<net::http_client> http_;
  std::shared_ptr<credential_provider> creds_;
  retry_clock clock_;
  wall_clock now_;
};

/// The production client: endpoint resolved from `config` and `env`, curl
/// transport unless `http` is given.
std::shared_ptr<s3_client>
make_curl_s3_client(s3_client_config config,
                    std::shared_ptr<credential_provider> creds,
                    const env_lookup& env = process_environment(),
                    std::shared_ptr<net::http_client> http = nullptr,
                    retry_clock clock = retry_clock::real());

/// "s3://bucket/key" -> {bucket, key}; nullopt when not of that form.
std::optional<std::pair<std::string, std::string>>
parse_s3_uri(const std::string& uri);

} // namespace det::aws
