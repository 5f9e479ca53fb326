#include "net/http_client.hpp"

#include "messages/errc.hpp"
#include "util/text.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

namespace det::net {

namespace {

size_t on_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<header_list*>(user);
  std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear(); // a new response (after 100 Continue or a redirect)
    return size * count;
  }
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    auto value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n'))
      value.remove_suffix(1);
    headers->emplace_back(std::string(line.substr(0, colon)),
                          std::string(value));
  }
  return size * count;
}

/// errc::remote_error in the form http_client::send promises.
caf::error transport_error(const std::string& code, const http_request& req,
                           const std::string& detail) {
  return make_error(errc::remote_error, "[transport " + code + "] " + req.method
                                            + " " + req.url + ": " + detail);
}

class curl_http_client final : public http_client {
public:
  curl_http_client() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  ~curl_http_client() override {
    for (auto* h : idle_)
      curl_easy_cleanup(h);
  }

  caf::expected<http_response> send(const http_request& req) override {
    CURL* h = acquire();
    if (h == nullptr)
      return transport_error("CurlInitFailed", req, "curl_easy_init failed");
    http_response resp;
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(req.timeout.count()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(req.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    if (req.no_proxy)
      curl_easy_setopt(h, CURLOPT_PROXY, "");
    if (!req.ca_cert.empty())
      curl_easy_setopt(h, CURLOPT_CAINFO, req.ca_cert.c_str());
    if (req.skip_verify) {
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (req.method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else if (req.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(req.body.size()));
    }
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : req.headers)
      headers = curl_slist_append(headers, (name + ": " + value).c_str());
    // libcurl would add "Expect: 100-continue" for large bodies.
    headers = curl_slist_append(headers, "Expect:");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp.body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &resp.headers);
    auto rc = curl_easy_perform(h);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
      std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
      release(h);
      return transport_error("curl:" + std::to_string(static_cast<int>(rc)),
                             req, detail);
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp.status);
    release(h);
    return resp;
  }

private:
  CURL* acquire() {
    {
      std::lock_guard<std::mutex> guard{mtx_};
      if (!idle_.empty()) {
        auto* h = idle_.back();
        idle_.pop_back();
        return h;
      }
    }
    return curl_easy_init();
  }

  void release(CURL* h) {
    curl_easy_reset(h); // keeps the connection cache, drops the options
    std::lock_guard<std::mutex> guard{mtx_};
    if (idle_.size() < max_idle)
      idle_.push_back(h);
    else
      curl_easy_cleanup(h);
  }

  static constexpr size_t max_idle = 8;
  std::mutex mtx_;
  std::vector<CURL*> idle_;
};

} // namespace

std::string http_response::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (util::iequals(n, name))
      return v;
  return {};
}

std::shared_ptr<http_client> make_curl_http_client() {
  return std::make_shared<curl_http_client>();
}

std::string url_parts::host_header() const {
  bool default_port = port == 0 || (scheme == "http" && port == 80)
                      || (scheme == "https" && port == 443);
  return default_port ? host : host + ":" + std::to_string(port);
}

caf::expected<url_parts> parse_url(const std::string& url) {
  auto bad = [&](const char* why) {
    return make_error(errc::invalid_argument,
                      "endpoint URL '" + url + "': " + why);
  };
  url_parts out;
  auto sep = url.find("://");
  if (sep == std::string::npos)
    return bad("not an absolute URL (want http://host[:port]/)");
  out.scheme = url.substr(0, sep);
  for (auto& c : out.scheme)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out.scheme != "http" && out.scheme != "https")
    return bad("scheme must be http or https");
  auto rest = url.substr(sep + 3);
  auto path_at = rest.find_first_of("/?#");
  auto authority = rest.substr(0, path_at);
  if (path_at != std::string::npos && rest[path_at] == '/') {
    auto end = rest.find_first_of("?#", path_at);
    out.path = rest.substr(path_at, end == std::string::npos ? std::string::npos
                                                             : end - path_at);
  }
  if (authority.find('@') != std::string::npos)
    return bad("user info is not supported");
  std::string host = authority;
  auto colon = authority.rfind(':');
  auto bracket = authority.find(']'); // IPv6 literal: [::1]:8080
  bool has_port =
      colon != std::string::npos
      && (bracket == std::string::npos ? authority.find(':') == colon
                                       : colon > bracket);
  if (has_port) {
    auto port_text = authority.substr(colon + 1);
    host = authority.substr(0, colon);
    if (port_text.empty()
        || !std::all_of(
            port_text.begin(), port_text.end(),
            [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })
        || port_text.size() > 5)
      return bad("bad port");
    out.port = std::stoi(port_text);
    if (out.port <= 0 || out.port > 65535)
      return bad("bad port");
  }
  if (host.empty())
    return bad("no host");
  for (auto& c : host)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  out.host = host;
  return out;
}

} // namespace det::net
