#include "inspect/source.hpp"
#include "messages/errc.hpp"

#include <openssl/sha.h>

#include <cctype>
#include <cstdio>

namespace det::inspect_cli {

using nlohmann::json;

std::string salt_and_hash(const std::string& password) {
  if (password.empty())
    return "";
  auto salted = "GubPEmmotfiK9TMD6Zdw" + password;
  unsigned char digest[SHA512_DIGEST_LENGTH];
  SHA512(reinterpret_cast<const unsigned char*>(salted.data()), salted.size(),
         digest);
  std::string hex;
  char buf[3];
  for (auto b : digest) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    hex += buf;
  }
  return hex;
}

namespace {

std::string url_encode(const std::string& s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

/// The message of an error answer: upstream's {"error": {"error": ...}},
/// grpc-gateway's {"message": ...}, or the body itself.
std::string error_message(const json& j, const std::string& body) {
  auto text = [](const json& o, const char* key) -> std::string {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (!j.is_object())
    return body;
  auto e = j.find("error");
  if (e != j.end() && e->is_object()) {
    for (auto key : {"error", "message", "reason"})
      if (auto m = text(*e, key); !m.empty())
        return m;
  }
  for (auto key : {"message", "error"})
    if (auto m = text(j, key); !m.empty())
      return m;
  return body;
}

class api_source : public source {
public:
  api_source(api_options o, http_transport http)
      : opts_(std::move(o)), http_(std::move(http)) {
    while (!opts_.master_url.empty() && opts_.master_url.back() == '/')
      opts_.master_url.pop_back();
  }

  caf::error login() {
    if (!opts_.user)
      return {};
    json body{{"username", *opts_.user},
              {"password", salt_and_hash(opts_.password)},
              {"isHashed", true}};
    auto res = call("POST", "/api/v1/auth/login", body.dump());
    if (!res)
      return make_error(errc::remote_error,
                        "logging in as " + *opts_.user
                            + " failed: " + render(res.error()));
    auto token = res->value("token", std::string{});
    if (token.empty())
      return make_error(errc::remote_error,
                        "logging in as " + *opts_.user
                            + " failed: the answer has no token");
    opts_.token = token;
    return {};
  }

  caf::expected<json> view(inspection::view_kind k) override {
    return call("GET",
                std::string{"/api/v1/inspect/"} + inspection::to_string(k));
  }

  caf::expected<json> events(const inspection::event_filter& f) override {
    std::string q = "?limit=" + std::to_string(f.limit);
    if (f.from)
      q += "&from=" + std::to_string(*f.from);
    if (f.to)
      q += "&to=" + std::to_string(*f.to);
    if (f.stream)
      q += "&stream=" + url_encode(*f.stream);
    if (f.type)
      q += "&type=" + url_encode(*f.type);
    return call("GET", "/api/v1/inspect/events" + q);
  }

  caf::expected<state::cluster_state>
  state(std::optional<int64_t> at) override {
    auto j = call("GET", "/api/v1/inspect/state"
                             + (at ? "?at=" + std::to_string(*at) : ""));
    if (!j)
      return std::move(j.error());
    return state::from_snapshot(*j);
  }

private:
  /// The JSON answer of a 2xx; otherwise an error with the master's message.
  caf::expected<json> call(const std::string& method, const std::string& path,
                           std::string body = "") {
    http_exchange req;
    req.method = method;
    req.url = opts_.master_url + path;
    req.body = std::move(body);
    if (!req.body.empty())
      req.headers.emplace_back("Content-Type", "application/json");
    if (!opts_.token.empty())
      req.headers.emplace_back("Authorization", "Bearer " + opts_.token);
    auto res = http_(req);
    if (!res)
      return make_error(errc::remote_error, "cannot reach the master at "
                                                + opts_.master_url + ": "
                                                + render(res.error()));
    auto j = json::parse(res->body, nullptr, false);
    if (res->status / 100 != 2) {
      auto msg = error_message(j, res->body);
      return make_error(res->status == 404 ? errc::not_found
                                           : errc::remote_error,
                        method + " " + path + ": HTTP "
                            + std::to_string(res->status) + ": " + msg);
    }
    if (j.is_discarded())
      return make_error(errc::remote_error,
                        method + " " + path + ": the answer is not JSON");
    return j;
  }

  api_options opts_;
  http_transport http_;
};

} // namespace

caf::expected<std::unique_ptr<source>> make_api_source(const api_options& o,
                                                       http_transport http) {
  auto s = std::make_unique<api_source>(o, std::move(http));
  if (auto err = s->login())
    return err;
  return std::unique_ptr<source>{std::move(s)};
}

} // namespace det::inspect_cli
