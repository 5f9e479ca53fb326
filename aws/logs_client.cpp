#include "aws/logs_client.hpp"

#include "aws/aws_error.hpp"
#include "aws/json_api.hpp"
#include "aws/query_api.hpp"

#include <nlohmann/json.hpp>

namespace det::aws {

namespace {

using nlohmann::json;

// The answer to a create call that found the resource already there.
bool already_exists(const caf::error& err) {
  return aws_error_of(err).code == "ResourceAlreadyExistsException";
}

class json_logs_client final : public logs_client {
public:
  explicit json_logs_client(json_api api) : api_(std::move(api)) {}

  caf::error create_log_group(const std::string& group) override {
    auto r =
        api_.attempt("CreateLogGroup", json{{"logGroupName", group}}.dump());
    if (!r && !already_exists(r.error()))
      return r.error();
    return {};
  }

  caf::error create_log_stream(const std::string& group,
                               const std::string& stream) override {
    auto r = api_.attempt(
        "CreateLogStream",
        json{{"logGroupName", group}, {"logStreamName", stream}}.dump());
    if (!r && !already_exists(r.error()))
      return r.error();
    return {};
  }

  caf::expected<put_log_events_result>
  put_log_events(const std::string& group, const std::string& stream,
                 const std::vector<cloudwatch_log_event>& events) override {
    auto r = api_.attempt("PutLogEvents",
                          encode_put_log_events(group, stream, events));
    if (!r)
      return r.error();
    return parse_put_log_events(*r, events.size());
  }

private:
  json_api api_;
};

} // namespace

std::string
encode_put_log_events(const std::string& group, const std::string& stream,
                      const std::vector<cloudwatch_log_event>& events) {
  auto list = json::array();
  for (const auto& e : events)
    list.push_back({{"timestamp", e.timestamp_ms}, {"message", e.message}});
  json doc{{"logGroupName", group},
           {"logStreamName", stream},
           {"logEvents", std::move(list)}};
  // Invalid UTF-8 becomes U+FFFD instead of an exception; the batcher
  // already cleans messages, this is the last guard.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

put_log_events_result parse_put_log_events(const std::string& body,
                                           size_t sent) {
  put_log_events_result out;
  auto doc = json::parse(body, nullptr, false);
  if (!doc.is_object())
    return out;
  auto info = doc.find("rejectedLogEventsInfo");
  if (info == doc.end() || !info->is_object())
    return out;
  auto index = [&](const char* key) -> int64_t {
    auto i = info->find(key);
    if (i == info->end() || !i->is_number_integer())
      return -1;
    return std::clamp<int64_t>(i->get<int64_t>(), 0,
                               static_cast<int64_t>(sent));
  };
  auto n = static_cast<int64_t>(sent);
  // tooOld and expired: the events before the end index (exclusive);
  // tooNew: the events from the start index on.
  if (auto i = index("tooOldLogEventEndIndex"); i >= 0)
    out.too_old = i;
  if (auto i = index("expiredLogEventEndIndex"); i >= 0)
    out.expired = i;
  if (auto i = index("tooNewLogEventStartIndex"); i >= 0)
    out.too_new = n - i;
  return out;
}

std::shared_ptr<logs_client> make_logs_client(
    logs_client_config config, std::shared_ptr<credential_provider> creds,
    const env_lookup& env, std::shared_ptr<net::http_client> http) {
  json_api_config jc;
  jc.service = "logs";
  jc.target_prefix = "Logs_20140328";
  jc.region = config.region;
  jc.endpoint_url =
      resolve_endpoint("logs", config.region, config.endpoint_url, env);
  jc.timeout = config.timeout;
  if (!http)
    http = net::make_curl_http_client();
  return std::make_shared<json_logs_client>(
      json_api{std::move(jc), std::move(http), std::move(creds)});
}

} // namespace det::aws
