#include "aws/query_api.hpp"

#include "aws/aws_error.hpp"
#include "messages/errc.hpp"
#include "util/text.hpp"

#include <cctype>
#include <cstdlib>

namespace det::aws {

namespace {

std::string first_text(const xml_element& root,
                       std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto* el = root.find(n); el != nullptr && !el->text.empty())
      return el->text;
  return {};
}

} // namespace

std::string resolve_endpoint(const std::string& service,
                             const std::string& region,
                             const std::string& configured,
                             const env_lookup& env) {
  if (!configured.empty())
    return configured;
  std::string upper = service;
  for (auto& c : upper)
    c = c == '-'
            ? '_'
            : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (auto v = env("AWS_ENDPOINT_URL_" + upper))
    return *v;
  if (auto v = env("AWS_ENDPOINT_URL"))
    return *v;
  return "https://" + service + "." + region + ".amazonaws.com/";
}

env_lookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr || *v == '\0')
      return std::nullopt;
    return std::string(v);
  };
}

query_api::query_api(query_api_config config,
                     std::shared_ptr<net::http_client> http,
                     std::shared_ptr<credential_provider> creds,
                     retry_clock clock, wall_clock now)
    : config_(std::move(config)), http_(std::move(http)),
      creds_(std::move(creds)), clock_(std::move(clock)), now_(std::move(now)) {
}

caf::expected<xml_element> query_api::call(const std::string& action,
                                           const param_list& params) {
  auto url = net::parse_url(config_.endpoint_url);
  if (!url)
    return url.error();
  std::string body = "Action=" + uri_encode(action)
                     + "&Version=" + uri_encode(config_.version);
  for (const auto& [name, value] : params) {
    body += '&';
    body += uri_encode(name);
    body += '=';
    body += uri_encode(value);
  }
  auto should_retry = [](const caf::error& err) {
    return is_retryable(aws_error_of(err).kind);
  };
  return with_retries<xml_element>(config_.retry, clock_, should_retry,
                                   [&] { return attempt(action, body, *url); });
}

caf::expected<xml_element> query_api::attempt(const std::string& action,
                                              const std::string& body,
                                              const net::url_parts& url) {
  auto creds = creds_->get();
  if (!creds)
    return creds.error();
  sigv4_request sreq;
  sreq.method = "POST";
  sreq.host = url.host_header();
  sreq.path = url.path;
  sreq.headers = {
      {"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
      {"Host", sreq.host},
  };
  sreq.body = body;
  auto signed_req =
      sign_v4(sreq, {config_.region, config_.service}, *creds, now_());
  net::http_request hreq;
  hreq.method = "POST";
  hreq.url = config_.endpoint_url;
  hreq.headers = sreq.headers;
  hreq.headers.emplace_back("User-Agent", "det-master/0.1");
  for (auto& h : signed_req.headers)
    hreq.headers.push_back(std::move(h));
  hreq.body = body;
  hreq.timeout = config_.timeout;
  const std::string context =
      config_.service + " " + action + " at " + config_.endpoint_url;
  auto resp = http_->send(hreq);
  if (!resp) {
    auto info = aws_error_of(resp.error());
    if (info.kind == aws_error_kind::none)
      return resp.error();
    // Name the action, not only the URL, in transport failures.
    return annotate(resp.error(),
                    " (during " + config_.service + " " + action + ")");
  }
  auto doc = parse_xml(resp->body);
  if (resp->status == 200) {
    if (!doc)
      return make_aws_error(aws_error_kind::server_error, "MalformedResponse",
                            context + " (HTTP 200)",
                            render(doc.error()) + "; body: "
                                + util::printable_excerpt(resp->body));
    return std::move(*doc);
  }
  std::string code;
  std::string message;
  std::string request_id;
  if (doc) {
    if (auto* err_el = doc->find("Error")) {
      code = err_el->child_text("Code");
      message = err_el->child_text("Message");
      if (message.empty())
        message = err_el->child_text("message");
    }
    request_id = first_text(*doc, {"RequestID", "RequestId", "requestId"});
  }
  if (code.empty()) {
    code = "HTTP" + std::to_string(resp->status);
    message = util::printable_excerpt(resp->body);
  }
  if (!request_id.empty())
    message += " (request id " + request_id + ")";
  return make_aws_error(
      classify_aws_code(code, resp->status), code,
      context + " (HTTP " + std::to_string(resp->status) + ")", message);
}

} // namespace det::aws
