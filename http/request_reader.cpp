#include "http/request_reader.hpp"

#include "http/detail/server_core.hpp"
#include "http/url.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <algorithm>
#include <limits>

namespace det::http {

size_t server_config::limit_for(std::string_view method,
                                std::string_view target,
                                bool authorized) const {
  if (!body_limit_for)
    return body_limit;
  auto path = target.substr(0, target.find('?'));
  return std::min(body_limit, body_limit_for(method, path, authorized));
}

namespace detail {

http_request to_http_request(raw_request&& msg, std::string remote_address,
                             bool tls) {
  http_request req;
  req.method = std::string{msg.method_string()};
  req.target = std::string{msg.target()};
  split_target(req.target, req.path, req.query);
  for (const auto& field : msg)
    req.headers.add(std::string{field.name_string()},
                    std::string{field.value()});
  req.body = std::move(msg.body());
  req.remote_address = std::move(remote_address);
  req.tls = tls;
  return req;
}

void prepare_parser(request_parser& p, const server_config& cfg) {
  p.header_limit(static_cast<uint32_t>(std::min<size_t>(
      cfg.header_limit, std::numeric_limits<uint32_t>::max())));
  p.body_limit(static_cast<uint64_t>(cfg.body_limit));
}

beast::error_code apply_body_limit(request_parser& p, const server_config& cfg,
                                   size_t& limit) {
  const auto& head = p.get();
  limit =
      cfg.limit_for({head.method_string().data(), head.method_string().size()},
                    {head.target().data(), head.target().size()},
                    head.find(bhttp::field::authorization) != head.end());
  p.body_limit(static_cast<uint64_t>(limit));
  if (auto len = p.content_length(); len && *len > limit)
    return bhttp::error::body_limit;
  return {};
}

std::optional<http_response> read_refusal(beast::error_code ec, size_t limit,
                                          const server_config& cfg) {
  if (ec == bhttp::error::body_limit)
    return error_response(
        grpc_code::resource_exhausted,
        "request body exceeds " + std::to_string(limit) + " bytes", 413);
  if (ec == bhttp::error::header_limit)
    return error_response(grpc_code::resource_exhausted,
                          "request headers exceed "
                              + std::to_string(cfg.header_limit) + " bytes",
                          431);
  if (ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message
      && ec.category()
             == bhttp::make_error_code(bhttp::error::bad_method).category())
    return error_response(grpc_code::invalid_argument,
                          "malformed HTTP request: " + ec.message());
  return std::nullopt;
}

} // namespace detail

using namespace detail;

namespace {

/// Feeds `bytes` from `used` on to the parser until `done` holds, as
/// Beast's read does with a socket; the input ending counts as the peer
/// closing its side.
template <class Done>
beast::error_code feed(request_parser& p, std::string_view bytes, size_t& used,
                       Done done) {
  beast::error_code ec;
  while (!done()) {
    size_t n = 0;
    if (used < bytes.size())
      n = p.put(net::buffer(bytes.data() + used, bytes.size() - used), ec);
    used += n;
    if (ec == bhttp::error::need_more)
      ec = {};
    else if (ec)
      return ec;
    // Beast took nothing from what is left: it needs bytes that will
    // never come, as with a peer that closed its side.
    if (n == 0 && !done()) {
      p.put_eof(ec);
      if (ec)
        return ec;
      if (!done())
        return bhttp::error::partial_message;
    }
  }
  return {};
}

} // namespace

read_result read_request(std::string_view bytes, const server_config& cfg) {
  read_result out;
  if (bytes.empty())
    return out; // end_of_stream before a request: the server just closes
  request_parser p;
  prepare_parser(p, cfg);
  size_t limit = cfg.body_limit;
  size_t used = 0;
  auto refuse_or_close = [&](beast::error_code ec) {
    out.consumed = used;
    if (auto r = read_refusal(ec, limit, cfg)) {
      out.what = read_result::kind::refused;
      out.refusal = std::move(*r);
    }
    return out;
  };
  if (auto ec = feed(p, bytes, used, [&] { return p.is_header_done(); }))
    return refuse_or_close(ec);
  if (auto ec = apply_body_limit(p, cfg, limit))
    return refuse_or_close(ec);
  p.eager(true);
  if (auto ec = feed(p, bytes, used, [&] { return p.is_done(); }))
    return refuse_or_close(ec);
  auto msg = p.release();
  out.what = read_result::kind::request;
  out.consumed = used;
  out.keep_alive = msg.keep_alive();
  out.upgrade = beast::websocket::is_upgrade(msg);
  out.request = to_http_request(std::move(msg), std::string{}, false);
  return out;
}

} // namespace det::http
