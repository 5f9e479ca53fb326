#include "http/wire_format.hpp"

#include "util/text.hpp"

#include <cctype>
#include <cstdio>

namespace det::http {

namespace {

void append_clean(std::string& out, std::string_view s) {
  for (char c : s)
    if (c != '\r' && c != '\n')
      out.push_back(c);
}

void append_header(std::string& out, std::string_view name,
                   std::string_view value) {
  append_clean(out, name);
  out += ": ";
  append_clean(out, value);
  out += "\r\n";
}

} // namespace

std::string serialize_head(int status, const header_map& headers,
                           const head_options& opts) {
  std::string out;
  out.reserve(256);
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  const char* reason = status_text(status);
  out += *reason ? reason : "Unknown";
  out += "\r\n";
  bool has_type = false;
  for (const auto& [name, value] : headers.entries()) {
    if (util::iequals(name, "Content-Length")
        || util::iequals(name, "Transfer-Encoding")
        || util::iequals(name, "Connection"))
      continue;
    if (util::iequals(name, "Content-Type"))
      has_type = true;
    append_header(out, name, value);
  }
  if (!has_type && status != 204 && status != 304)
    append_header(out, "Content-Type", "application/json");
  if (!opts.server_name.empty())
    append_header(out, "Server", opts.server_name);
  if (opts.chunked)
    append_header(out, "Transfer-Encoding", "chunked");
  else if (opts.content_length)
    append_header(out, "Content-Length", std::to_string(*opts.content_length));
  append_header(out, "Connection", opts.keep_alive ? "keep-alive" : "close");
  out += "\r\n";
  return out;
}

std::string serialize_response(const http_response& res, bool keep_alive,
                               std::string_view server_name) {
  head_options opts;
  opts.keep_alive = keep_alive;
  auto body = res.body_text();
  opts.content_length = body.size();
  opts.server_name = server_name;
  auto out = serialize_head(res.status, res.headers, opts);
  out += body;
  return out;
}

std::string chunk_frame(std::string_view data) {
  if (data.empty())
    return {};
  char size[20];
  auto n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
  std::string out;
  out.reserve(static_cast<size_t>(n) + data.size() + 2);
  out.append(size, static_cast<size_t>(n));
  out += data;
  out += "\r\n";
  return out;
}

std::string_view last_chunk() {
  return "0\r\n\r\n";
}

} // namespace det::http
