#include "agent/model_fetch.hpp"

#include "util/archive.hpp"

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <mutex>

namespace det::agent {

namespace {

size_t append_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

void curl_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

} // namespace

caf::expected<std::string> http_get(const std::string& url,
                                    const http_options& opts) {
  curl_init_once();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> h{curl_easy_init(),
                                                        &curl_easy_cleanup};
  if (!h)
    return make_error(errc::remote_error, "curl_easy_init failed");
  std::string body;
  curl_slist* headers = nullptr;
  if (!opts.bearer_token.empty())
    headers = curl_slist_append(
        headers, ("Authorization: Bearer " + opts.bearer_token).c_str());
  headers = curl_slist_append(headers, "Accept: application/json");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> guard{
      headers, &curl_slist_free_all};
  curl_easy_setopt(h.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(h.get(), CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h.get(), CURLOPT_WRITEFUNCTION, &append_body);
  curl_easy_setopt(h.get(), CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(h.get(), CURLOPT_TIMEOUT, opts.timeout_s);
  curl_easy_setopt(h.get(), CURLOPT_NOSIGNAL, 1L);
  if (!opts.ca_cert.empty())
    curl_easy_setopt(h.get(), CURLOPT_CAINFO, opts.ca_cert.c_str());
  if (opts.skip_verify) {
    curl_easy_setopt(h.get(), CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h.get(), CURLOPT_SSL_VERIFYHOST, 0L);
  }
  auto rc = curl_easy_perform(h.get());
  if (rc != CURLE_OK)
    return make_error(errc::remote_error,
                      "GET " + url + ": " + curl_easy_strerror(rc));
  long status = 0;
  curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299)
    return make_error(errc::remote_error, "GET " + url + ": HTTP "
                                              + std::to_string(status) + ": "
                                              + body.substr(0, 200));
  return body;
}

caf::error unpack_tgz(const std::string& tgz, const std::string& dir) {
  auto why = util::unpack_tgz(tgz, dir);
  if (why.empty())
    return {};
  return make_error(errc::remote_error,
                    "unpacking the model definition into " + dir + ": " + why);
}

caf::error fetch_model_def(const std::string& master_url, int64_t experiment_id,
                           const http_options& opts, const std::string& dir) {
  auto url = master_url + "/api/v1/experiments/" + std::to_string(experiment_id)
             + "/model_def";
  auto body = http_get(url, opts);
  if (!body)
    return body.error();
  auto j = nlohmann::json::parse(*body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("b64Tgz")
      || !j["b64Tgz"].is_string())
    return make_error(errc::remote_error,
                      "GET " + url + ": no b64Tgz string in the answer");
  auto tgz = base64_decode(j["b64Tgz"].get<std::string>());
  if (!tgz)
    return make_error(errc::remote_error,
                      "GET " + url + ": b64Tgz is not base64");
  if (tgz->empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return {};
  }
  return unpack_tgz(*tgz, dir);
}

} // namespace det::agent
