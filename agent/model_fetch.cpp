#include "agent/model_fetch.hpp"

#include "net/http_client.hpp"
#include "util/archive.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <thread>

namespace det::agent {

namespace {

/// One GET; `away` is set when the master may just be restarting (a
/// transport error, or 502/503/504 from a proxy in front of it).
caf::expected<std::string> get_once(const std::string& url,
                                    const http_options& opts, bool& away) {
  // One client for the process: it keeps connections to the master.
  static const auto client = net::make_curl_http_client();
  net::http_request req;
  req.url = url;
  if (!opts.bearer_token.empty())
    req.headers.emplace_back("Authorization", "Bearer " + opts.bearer_token);
  req.headers.emplace_back("Accept", "application/json");
  req.timeout = std::chrono::seconds{opts.timeout_s};
  req.connect_timeout = req.timeout;
  req.ca_cert = opts.ca_cert;
  req.skip_verify = opts.skip_verify;
  auto resp = client->send(req);
  away = !resp || resp->status == 502 || resp->status == 503
         || resp->status == 504;
  if (!resp)
    return std::move(resp.error());
  if (resp->status < 200 || resp->status > 299)
    return make_error(errc::remote_error,
                      "GET " + url + ": HTTP " + std::to_string(resp->status)
                          + ": " + resp->body.substr(0, 200));
  return std::move(resp->body);
}

} // namespace

caf::expected<std::string> http_get(const std::string& url,
                                    const http_options& opts) {
  bool away = false;
  return get_once(url, opts, away);
}

caf::error unpack_tgz(const std::string& tgz, const std::string& dir) {
  auto why = util::unpack_tgz(tgz, dir);
  if (why.empty())
    return {};
  return make_error(errc::remote_error,
                    "unpacking the archive into " + dir + ": " + why);
}

caf::error fetch_model_def(const std::string& master_url, int64_t experiment_id,
                           const http_options& opts, const std::string& dir,
                           const fetch_retry& retry) {
  return fetch_tgz(master_url + "/api/v1/experiments/"
                       + std::to_string(experiment_id) + "/model_def",
                   opts, dir, retry);
}

caf::error fetch_task_context(const std::string& master_url,
                              const std::string& task_id,
                              const http_options& opts, const std::string& dir,
                              const fetch_retry& retry) {
  return fetch_tgz(master_url + "/api/v1/tasks/" + task_id
                       + "/context_directory",
                   opts, dir, retry);
}

caf::error fetch_tgz(const std::string& url, const http_options& opts,
                     const std::string& dir, const fetch_retry& retry) {
  using std::chrono::milliseconds;
  milliseconds delay{250}, waited{0};
  bool away = false;
  auto body = get_once(url, opts, away);
  while (!body && away && waited + delay <= retry.budget
         && !(retry.stop && retry.stop())) {
    if (retry.sleep)
      retry.sleep(delay);
    else
      std::this_thread::sleep_for(delay);
    waited += delay;
    delay = std::min(delay * 2, milliseconds{5000});
    body = get_once(url, opts, away);
  }
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
