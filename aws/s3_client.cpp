#include "aws/s3_client.hpp"

#include "aws/aws_error.hpp"
#include "aws/crypto.hpp"
#include "aws/query_api.hpp"
#include "aws/s3_codec.hpp"
#include "aws/sigv4.hpp"
#include "messages/errc.hpp"
#include "util/text.hpp"

#include <cctype>
#include <fstream>
#include <sys/stat.h>

namespace det::aws {

namespace {

// "name" for an empty value (?uploads), "name=value" otherwise, encoded.
std::string
wire_query(const std::vector<std::pair<std::string, std::string>>& query) {
  std::string out;
  for (const auto& [k, v] : query) {
    out += out.empty() ? '?' : '&';
    out += uri_encode(k);
    if (!v.empty())
      out += '=' + uri_encode(v);
  }
  return out;
}

// With a Content-Type of its own, libcurl would send a body as
// application/x-www-form-urlencoded, which servers may parse as a form.
net::header_list meta_headers(const std::map<std::string, std::string>& meta) {
  net::header_list out{{"Content-Type", "application/octet-stream"}};
  for (const auto& [k, v] : meta)
    out.emplace_back("x-amz-meta-" + k, v);
  return out;
}

caf::error s3_invalid(const std::string& what) {
  return make_error(errc::invalid_argument, "s3: " + what);
}

} // namespace

s3_client::s3_client(s3_client_config config,
                     std::shared_ptr<net::http_client> http,
                     std::shared_ptr<credential_provider> creds,
                     retry_clock clock, wall_clock now)
    : config_(std::move(config)), http_(std::move(http)),
      creds_(std::move(creds)), clock_(std::move(clock)), now_(std::move(now)) {
}

caf::expected<s3_url> s3_client::url_of(const std::string& bucket,
                                        const std::string& key) const {
  if (!s3_codec::valid_bucket_name(bucket))
    return s3_invalid("bucket name '" + bucket
                      + "' is not 3-63 of [a-z0-9.-] starting and ending with "
                        "a letter or digit");
  if (key.size() > 1024)
    return s3_invalid("key longer than 1024 bytes");
  auto ep = net::parse_url(config_.endpoint_url);
  if (!ep)
    return ep.error();
  bool virtual_host = false;
  switch (config_.addressing) {
  case s3_addressing::path:
    break;
  case s3_addressing::virtual_host:
    virtual_host = true;
    break;
  case s3_addressing::automatic:
    // Dots break the TLS wildcard certificate; endpoints other than AWS's
    // (moto, MinIO) route by path.
    virtual_host = util::ends_with(ep->host, ".amazonaws.com")
                   && bucket.find('.') == std::string::npos;
    break;
  }
  std::string base = ep->path;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  s3_url out;
  auto host = ep->host_header();
  if (virtual_host) {
    out.host = bucket + "." + host;
    out.path = base + "/" + (key.empty() ? "" : encode_path(key));
  } else {
    out.host = host;
    out.path =
        base + "/" + bucket + (key.empty() ? "" : "/" + encode_path(key));
  }
  out.url = ep->scheme + "://" + out.host + out.path;
  return out;
}

caf::expected<net::http_response>
s3_client::send(const std::string& method, const std::string& bucket,
                const std::string& key, const query_list& query,
                const net::header_list& headers, const std::string& body,
                const char* action) {
  auto u = url_of(bucket, key);
  if (!u)
    return u.error();
  auto should_retry = [](const caf::error& err) {
    return is_retryable(aws_error_of(err).kind);
  };
  return with_retries<net::http_response>(
      config_.retry, clock_, should_retry,
      [&] { return attempt(method, *u, query, headers, body, action); });
}

caf::expected<net::http_response>
s3_client::attempt(const std::string& method, const s3_url& u,
                   const query_list& query, const net::header_list& headers,
                   const std::string& body, const char* action) {
  auto creds = creds_->get();
  if (!creds)
    return creds.error();
  sigv4_request sreq;
  sreq.method = method;
  sreq.host = u.host;
  sreq.path = u.path;
  sreq.query = query;
  sreq.headers = headers;
  sreq.headers.emplace_back("Host", u.host);
  sreq.body = body;
  sigv4_options opts;
  opts.add_content_sha256 = true;
  opts.normalize_path = false;
  auto signed_req = sign_v4(sreq, {config_.region, "s3"}, *creds, now_(), opts);
  net::http_request hreq;
  hreq.method = method;
  hreq.url = u.url + wire_query(query);
  hreq.headers = sreq.headers;
  hreq.headers.emplace_back("User-Agent", "det/0.1");
  for (auto& h : signed_req.headers)
    hreq.headers.push_back(std::move(h));
  hreq.body = body;
  hreq.timeout = config_.timeout;
  const std::string context = std::string("s3 ") + action + " " + u.url;
  auto resp = http_->send(hreq);
  if (!resp)
    return annotate(resp.error(), std::string(" (during s3 ") + action + ")");
  auto err = s3_codec::parse_error(resp->body);
  // CompleteMultipartUpload may answer 200 with an <Error> document.
  if (resp->status / 100 == 2 && err.code.empty())
    return std::move(*resp);
  std::string code = err.code;
  std::string message = err.message;
  if (code.empty()) {
    code = resp->status == 404 ? "NotFound"
                               : "HTTP" + std::to_string(resp->status);
    message = util::printable_excerpt(resp->body);
  }
  if (!err.request_id.empty())
    message += " (request id " + err.request_id + ")";
  auto kind = resp->status == 404       ? aws_error_kind::not_found
              : resp->status / 100 == 2 ? aws_error_kind::server_error
                                        : classify_aws_code(code, resp->status);
  return make_aws_error(
      kind, code, context + " (HTTP " + std::to_string(resp->status) + ")",
      message);
}

caf::expected<std::string>
s3_client::put_object(const std::string& bucket, const std::string& key,
                      const std::string& body,
                      const std::map<std::string, std::string>& metadata) {
  if (key.empty())
    return s3_invalid("empty key");
  auto resp =
      send("PUT", bucket, key, {}, meta_headers(metadata), body, "PutObject");
  if (!resp)
    return resp.error();
  return s3_codec::unquote(resp->header("ETag"));
}

caf::expected<std::string>
s3_client::put_file(const std::string& bucket, const std::string& key,
                    const std::string& path, const s3_progress& progress,
                    const std::map<std::string, std::string>& metadata) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return s3_invalid("'" + path + "' is not a readable file");
  auto size = static_cast<uint64_t>(st.st_size);
  if (size >= config_.multipart_threshold && config_.part_size > 0)
    return put_multipart(bucket, key, path, size, progress,
                         meta_headers(metadata));
  std::ifstream in(path, std::ios::binary);
  std::string body(size, '\0');
  if (!in.read(body.data(), static_cast<std::streamsize>(size)))
    return s3_invalid("cannot read '" + path + "'");
  auto etag = put_object(bucket, key, body, metadata);
  if (etag && progress)
    progress(size, size);
  return etag;
}

caf::expected<std::string> s3_client::put_multipart(
    const std::string& bucket, const std::string& key, const std::string& path,
    uint64_t size, const s3_progress& progress, const net::header_list& meta) {
  auto started = send("POST", bucket, key, {{"uploads", ""}}, meta, "",
                      "CreateMultipartUpload");
  if (!started)
    return started.error();
  auto upload_id = s3_codec::parse_upload_id(started->body);
  if (!upload_id)
    return upload_id.error();
  auto fail = [&](caf::error err) -> caf::expected<std::string> {
    // Best effort: an abandoned upload only costs storage until aborted.
    (void)send("DELETE", bucket, key, {{"uploadId", *upload_id}}, {}, "",
               "AbortMultipartUpload");
    return err;
  };
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> etags;
  uint64_t sent = 0;
  std::string part;
  while (sent < size) {
    auto n = std::min<uint64_t>(config_.part_size, size - sent);
    part.resize(n);
    if (!in.read(part.data(), static_cast<std::streamsize>(n)))
      return fail(s3_invalid("cannot read '" + path + "'"));
    auto number = std::to_string(etags.size() + 1);
    auto resp = send(
        "PUT", bucket, key, {{"partNumber", number}, {"uploadId", *upload_id}},
        {{"Content-Type", "application/octet-stream"}}, part, "UploadPart");
    if (!resp)
      return fail(resp.error());
    etags.push_back(resp->header("ETag"));
    sent += n;
    if (progress)
      progress(sent, size);
  }
  auto done =
      send("POST", bucket, key, {{"uploadId", *upload_id}},
           {{"Content-Type", "application/xml"}},
           s3_codec::complete_multipart_body(etags), "CompleteMultipartUpload");
  if (!done)
    return fail(done.error());
  auto doc = parse_xml(done->body);
  if (doc)
    return s3_codec::unquote(doc->child_text("ETag"));
  return std::string{};
}

caf::expected<s3_object> s3_client::head_object(const std::string& bucket,
                                                const std::string& key) {
  auto resp = send("HEAD", bucket, key, {}, {}, "", "HeadObject");
  if (!resp)
    return resp.error();
  s3_object out;
  out.key = key;
  out.etag = s3_codec::unquote(resp->header("ETag"));
  out.last_modified = resp->header("Last-Modified");
  try {
    out.size = std::stoull(resp->header("Content-Length"));
  } catch (const std::exception&) {
    out.size = 0;
  }
  const std::string prefix = "x-amz-meta-";
  for (const auto& [name, value] : resp->headers) {
    std::string lname;
    for (char c : name)
      lname += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lname.rfind(prefix, 0) == 0)
      out.metadata[lname.substr(prefix.size())] = value;
  }
  return out;
}

caf::expected<std::string> s3_client::get_object(const std::string& bucket,
                                                 const std::string& key) {
  auto resp = send("GET", bucket, key, {}, {}, "", "GetObject");
  if (!resp)
    return resp.error();
  return std::move(resp->body);
}

caf::expected<s3_list_page>
s3_client::list_objects(const std::string& bucket, const std::string& prefix,
                        const std::string& continuation_token, int max_keys) {
  if (max_keys < 1 || max_keys > 1000)
    return s3_invalid("max_keys must be 1 to 1000");
  query_list q{{"list-type", "2"}, {"max-keys", std::to_string(max_keys)}};
  if (!prefix.empty())
    q.emplace_back("prefix", prefix);
  if (!continuation_token.empty())
    q.emplace_back("continuation-token", continuation_token);
  auto resp = send("GET", bucket, "", q, {}, "", "ListObjectsV2");
  if (!resp)
    return resp.error();
  return s3_codec::parse_list(resp->body);
}

caf::expected<std::vector<s3_object>>
s3_client::list_all(const std::string& bucket, const std::string& prefix) {
  std::vector<s3_object> out;
  std::string token;
  do {
    auto page = list_objects(bucket, prefix, token);
    if (!page)
      return page.error();
    for (auto& o : page->objects)
      out.push_back(std::move(o));
    if (!page->next_continuation_token.empty()
        && page->next_continuation_token == token)
      return make_aws_error(aws_error_kind::server_error, "MalformedResponse",
                            "s3 ListObjectsV2", "the same page twice");
    token = page->next_continuation_token;
  } while (!token.empty());
  return out;
}

caf::expected<std::vector<s3_delete_failure>>
s3_client::delete_objects(const std::string& bucket,
                          const std::vector<std::string>& keys) {
  std::vector<s3_delete_failure> failed;
  for (size_t begin = 0; begin < keys.size(); begin += 1000) {
    auto body = s3_codec::delete_body(keys, begin, begin + 1000);
    net::header_list headers{{"Content-Type", "application/xml"},
                             {"Content-MD5", base64_encode(md5(body))}};
    auto resp = send("POST", bucket, "", {{"delete", ""}}, headers, body,
                     "DeleteObjects");
    if (!resp)
      return resp.error();
    auto batch = s3_codec::parse_delete_result(resp->body);
    if (!batch)
      return batch.error();
    for (auto& f : *batch)
      failed.push_back(std::move(f));
  }
  return failed;
}

caf::error s3_client::create_bucket(const std::string& bucket) {
  auto body = s3_codec::create_bucket_body(config_.region);
  net::header_list headers;
  if (!body.empty())
    headers.emplace_back("Content-Type", "application/xml");
  auto resp = send("PUT", bucket, "", {}, headers, body, "CreateBucket");
  if (!resp && aws_error_of(resp.error()).code == "BucketAlreadyOwnedByYou")
    return {};
  return resp ? caf::error{} : resp.error();
}

caf::expected<bool> s3_client::bucket_exists(const std::string& bucket) {
  auto resp = send("HEAD", bucket, "", {}, {}, "", "HeadBucket");
  if (resp)
    return true;
  if (aws_error_of(resp.error()).kind == aws_error_kind::not_found)
    return false;
  return resp.error();
}

caf::error s3_client::delete_bucket(const std::string& bucket) {
  auto resp = send("DELETE", bucket, "", {}, {}, "", "DeleteBucket");
  return resp ? caf::error{} : resp.error();
}

caf::error
s3_client::put_bucket_tagging(const std::string& bucket,
                              const std::map<std::string, std::string>& tags) {
  auto body = s3_codec::tagging_body(tags);
  net::header_list headers{{"Content-Type", "application/xml"},
                           {"Content-MD5", base64_encode(md5(body))}};
  auto resp = send("PUT", bucket, "", {{"tagging", ""}}, headers, body,
                   "PutBucketTagging");
  return resp ? caf::error{} : resp.error();
}

caf::expected<std::map<std::string, std::string>>
s3_client::get_bucket_tagging(const std::string& bucket) {
  auto resp =
      send("GET", bucket, "", {{"tagging", ""}}, {}, "", "GetBucketTagging");
  if (!resp) {
    if (aws_error_of(resp.error()).code == "NoSuchTagSet")
      return std::map<std::string, std::string>{};
    return resp.error();
  }
  return s3_codec::parse_tagging(resp->body);
}

caf::error s3_client::put_bucket_versioning(const std::string& bucket,
                                            bool enabled) {
  auto body = s3_codec::versioning_body(enabled);
  net::header_list headers{{"Content-Type", "application/xml"},
                           {"Content-MD5", base64_encode(md5(body))}};
  auto resp = send("PUT", bucket, "", {{"versioning", ""}}, headers, body,
                   "PutBucketVersioning");
  return resp ? caf::error{} : resp.error();
}

std::shared_ptr<s3_client>
make_curl_s3_client(s3_client_config config,
                    std::shared_ptr<credential_provider> creds,
                    const env_lookup& env,
                    std::shared_ptr<net::http_client> http, retry_clock clock) {
  config.endpoint_url =
      resolve_endpoint("s3", config.region, config.endpoint_url, env);
  if (!http)
    http = net::make_curl_http_client();
  return std::make_shared<s3_client>(std::move(config), std::move(http),
                                     std::move(creds), std::move(clock));
}

std::optional<std::pair<std::string, std::string>>
parse_s3_uri(const std::string& uri) {
  const std::string scheme = "s3://";
  if (uri.rfind(scheme, 0) != 0)
    return std::nullopt;
  auto rest = uri.substr(scheme.size());
  auto slash = rest.find('/');
  auto bucket = rest.substr(0, slash);
  if (!s3_codec::valid_bucket_name(bucket))
    return std::nullopt;
  std::string key = slash == std::string::npos ? "" : rest.substr(slash + 1);
  return std::make_pair(bucket, key);
}

} // namespace det::aws
