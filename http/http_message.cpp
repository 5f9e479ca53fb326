#include "http/http_message.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <cctype>

namespace det::http {

namespace {} // namespace

void header_map::add(std::string name, std::string value) {
  entries_.emplace_back(std::move(name), std::move(value));
}

void header_map::set(std::string name, std::string value) {
  erase(name);
  add(std::move(name), std::move(value));
}

void header_map::erase(std::string_view name) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const entry& e) {
                                  return util::iequals(e.first, name);
                                }),
                 entries_.end());
}

std::optional<std::string> header_map::get(std::string_view name) const {
  for (const auto& [k, v] : entries_)
    if (util::iequals(k, name))
      return v;
  return std::nullopt;
}

std::vector<std::string> header_map::get_all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : entries_)
    if (util::iequals(k, name))
      out.push_back(v);
  return out;
}

bool header_map::contains(std::string_view name) const {
  return get(name).has_value();
}

void query_params::add(std::string key, std::string value) {
  entries_.emplace_back(std::move(key), std::move(value));
}

std::optional<std::string> query_params::get(std::string_view key) const {
  for (const auto& [k, v] : entries_)
    if (k == key)
      return v;
  return std::nullopt;
}

std::vector<std::string> query_params::get_all(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : entries_)
    if (k == key)
      out.push_back(v);
  return out;
}

bool query_params::contains(std::string_view key) const {
  return get(key).has_value();
}

std::string http_request::param(std::string_view name) const {
  for (const auto& [k, v] : params)
    if (k == name)
      return v;
  return {};
}

http_response http_response::json(int status, std::string body) {
  http_response r;
  r.status = status;
  r.headers.set("Content-Type", "application/json");
  r.body = std::move(body);
  return r;
}

http_response http_response::json(int status,
                                  std::shared_ptr<const std::string> body) {
  http_response r;
  r.status = status;
  r.headers.set("Content-Type", "application/json");
  r.shared_body = std::move(body);
  return r;
}

http_response http_response::text(int status, std::string body) {
  http_response r;
  r.status = status;
  r.headers.set("Content-Type", "text/plain; charset=utf-8");
  r.body = std::move(body);
  return r;
}

const char* status_text(int status) {
  switch (status) {
  case 100:
    return "Continue";
  case 101:
    return "Switching Protocols";
  case 200:
    return "OK";
  case 201:
    return "Created";
  case 202:
    return "Accepted";
  case 204:
    return "No Content";
  case 301:
    return "Moved Permanently";
  case 302:
    return "Found";
  case 304:
    return "Not Modified";
  case 400:
    return "Bad Request";
  case 401:
    return "Unauthorized";
  case 403:
    return "Forbidden";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 408:
    return "Request Timeout";
  case 409:
    return "Conflict";
  case 413:
    return "Payload Too Large";
  case 429:
    return "Too Many Requests";
  case 431:
    return "Request Header Fields Too Large";
  case 499:
    return "Client Closed Request";
  case 500:
    return "Internal Server Error";
  case 501:
    return "Not Implemented";
  case 502:
    return "Bad Gateway";
  case 503:
    return "Service Unavailable";
  case 504:
    return "Gateway Timeout";
  default:
    return "";
  }
}

} // namespace det::http
