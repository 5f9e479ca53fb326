#include "k8s/api_client.hpp"

#include <curl/curl.h>

#include <mutex>

namespace det::k8s {

namespace {

using nlohmann::json;

struct slist_guard {
  curl_slist* list = nullptr;
  ~slist_guard() { curl_slist_free_all(list); }
  void add(const std::string& h) { list = curl_slist_append(list, h.c_str()); }
};

struct easy_guard {
  CURL* h = curl_easy_init();
  ~easy_guard() {
    if (h != nullptr)
      curl_easy_cleanup(h);
  }
};

size_t append_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

caf::error transport(CURLcode code, const std::string& method,
                     const std::string& url, const char* errbuf) {
  std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(code);
  return make_error(errc::remote_error,
                    "[transport curl:" + std::to_string(code) + "] " + method
                        + " " + url + ": " + detail);
}

void set_blob(CURL* h, CURLoption opt, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(h, opt, &blob);
}

struct stream_state {
  CURL* h = nullptr;
  const std::function<bool(std::string_view)>* on_data = nullptr;
  const std::atomic<bool>* stop = nullptr;
  std::string* error_body = nullptr;
  bool stopped = false;
};

size_t on_stream(char* data, size_t size, size_t count, void* user) {
  auto* s = static_cast<stream_state*>(user);
  size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    if (s->error_body != nullptr && s->error_body->size() < 65536)
      s->error_body->append(data, n);
    return n;
  }
  if (s->stop->load() || !(*s->on_data)(std::string_view(data, n))) {
    s->stopped = true;
    return 0; // aborts the transfer: CURLE_WRITE_ERROR
  }
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* s = static_cast<stream_state*>(user);
  if (s->stop->load()) {
    s->stopped = true;
    return 1; // aborts: CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

class curl_api_client final : public api_client {
public:
  curl_api_client(cluster_access access, client_options opts)
      : access_(std::move(access)), opts_(opts) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  caf::expected<api_response> call(const std::string& method,
                                   const std::string& path, const json& body,
                                   const std::string& content_type) override {
    counters_.requests.fetch_add(1);
    easy_guard e;
    if (e.h == nullptr)
      return make_error(errc::remote_error, "curl_easy_init failed");
    std::string url = access_.server + path;
    slist_guard headers;
    char errbuf[CURL_ERROR_SIZE] = {0};
    if (auto err = prepare(e.h, url, headers, errbuf))
      return err;
    std::string payload;
    curl_easy_setopt(e.h, CURLOPT_CUSTOMREQUEST, method.c_str());
    if (!body.is_null()) {
      payload = body.dump();
      headers.add("Content-Type: " + content_type);
      curl_easy_setopt(e.h, CURLOPT_POSTFIELDS, payload.c_str());
      curl_easy_setopt(e.h, CURLOPT_POSTFIELDSIZE,
                       static_cast<long>(payload.size()));
    }
    curl_easy_setopt(e.h, CURLOPT_HTTPHEADER, headers.list);
    curl_easy_setopt(e.h, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(opts_.timeout.count()));
    std::string text;
    curl_easy_setopt(e.h, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(e.h, CURLOPT_WRITEDATA, &text);
    CURLcode rc = curl_easy_perform(e.h);
    if (rc != CURLE_OK)
      return transport(rc, method, url, errbuf);
    api_response out;
    curl_easy_getinfo(e.h, CURLINFO_RESPONSE_CODE, &out.status);
    out.body = json::parse(text, nullptr, false);
    if (out.body.is_discarded())
      out.body = nullptr;
    return out;
  }

  caf::expected<long> stream(const std::string& path,
                             const std::function<bool(std::string_view)>& fn,
                             const std::atomic<bool>& stop,
                             std::chrono::milliseconds timeout,
                             std::string* error_body) override {
    counters_.streams.fetch_add(1);
    easy_guard e;
    if (e.h == nullptr)
      return make_error(errc::remote_error, "curl_easy_init failed");
    std::string url = access_.server + path;
    slist_guard headers;
    char errbuf[CURL_ERROR_SIZE] = {0};
    if (auto err = prepare(e.h, url, headers, errbuf))
      return err;
    curl_easy_setopt(e.h, CURLOPT_HTTPHEADER, headers.list);
    curl_easy_setopt(e.h, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(timeout.count()));
    stream_state st{e.h, &fn, &stop, error_body};
    curl_easy_setopt(e.h, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(e.h, CURLOPT_WRITEDATA, &st);
    curl_easy_setopt(e.h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e.h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e.h, CURLOPT_XFERINFODATA, &st);
    CURLcode rc = curl_easy_perform(e.h);
    long status = 0;
    curl_easy_getinfo(e.h, CURLINFO_RESPONSE_CODE, &status);
    if (rc != CURLE_OK && !st.stopped)
      return transport(rc, "GET", url, errbuf);
    return status;
  }

  const api_counters& counters() const override { return counters_; }

private:
  caf::error prepare(CURL* h, const std::string& url, slist_guard& headers,
                     char* errbuf) {
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(opts_.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    if (!access_.ca_pem.empty())
      set_blob(h, CURLOPT_CAINFO_BLOB, access_.ca_pem);
    if (access_.insecure_skip_verify) {
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (!access_.client_cert_pem.empty()) {
      curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
      set_blob(h, CURLOPT_SSLCERT_BLOB, access_.client_cert_pem);
      curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
      set_blob(h, CURLOPT_SSLKEY_BLOB, access_.client_key_pem);
    }
    auto token = access_.bearer_token();
    if (!token)
      return token.error();
    if (!token->empty())
      headers.add("Authorization: Bearer " + *token);
    headers.add("Accept: application/json");
    return {};
  }

  cluster_access access_;
  client_options opts_;
  api_counters counters_;
};

} // namespace

std::string api_response::message() const {
  if (body.is_object() && body.contains("message")
      && body["message"].is_string())
    return body["message"].get<std::string>();
  return "HTTP " + std::to_string(status);
}

std::string api_response::reason() const {
  if (body.is_object() && body.contains("reason") && body["reason"].is_string())
    return body["reason"].get<std::string>();
  return {};
}

std::shared_ptr<api_client> make_curl_api_client(cluster_access access,
                                                 client_options opts) {
  return std::make_shared<curl_api_client>(std::move(access), opts);
}

} // namespace det::k8s
