#include "conf/redact.hpp"

#include "conf/master_config.hpp"

#include <set>

namespace det::conf {

using nlohmann::json;

namespace {

bool is_secret_key(const std::string& key) {
  static const std::set<std::string> names = {
      "password",          "initial_user_password",
      "agent_token",       "token",
      "secret_key",        "access_key",
      "secret_access_key", "aws_secret_access_key",
      "aws_access_key_id", "access_key_id",
      "session_token",     "aws_session_token",
      "connection_string", "credential",
      "startup_script",    "container_startup_script",
      "client_key",        "password_hash",
      "token_hash",        "signing_key",
  };
  return names.count(key) > 0;
}

bool is_url_key(const std::string& key) {
  return key == "url"
         || (key.size() > 4 && key.compare(key.size() - 4, 4, "_url") == 0);
}

/// Replaces (or, with `drop`, erases) each set secret under `node`.
void walk(json& node, bool drop) {
  if (node.is_array()) {
    for (auto& x : node)
      walk(x, drop);
    return;
  }
  if (!node.is_object())
    return;
  for (auto it = node.begin(); it != node.end();) {
    auto& v = it.value();
    if (is_secret_key(it.key())) {
      bool set =
          !(v.is_null() || (v.is_string() && v.get<std::string>().empty()));
      if (set && drop) {
        it = node.erase(it);
        continue;
      }
      if (set)
        v = redacted_text;
    } else if (v.is_string() && is_url_key(it.key())) {
      v = redact_url(v.get<std::string>());
    } else {
      walk(v, drop);
    }
    ++it;
  }
}

} // namespace

std::string redact_url(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos)
    return url;
  auto start = scheme + 3;
  auto at = url.find('@', start);
  auto slash = url.find('/', start);
  if (at == std::string::npos || (slash != std::string::npos && slash < at))
    return url;
  auto colon = url.find(':', start);
  if (colon == std::string::npos || colon > at)
    return url;
  return url.substr(0, colon + 1) + redacted_text + url.substr(at);
}

json redact(const json& tree) {
  json out = tree;
  walk(out, false);
  return out;
}

json without_secrets(const json& tree) {
  json out = tree;
  walk(out, true);
  return out;
}

json redacted_config(const master_config& cfg) {
  return redact(cfg.effective);
}

} // namespace det::conf
