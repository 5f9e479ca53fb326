#include "api/webhook_runtime.hpp"

#include "api/durable_feed.hpp"
#include "api/log_scan.hpp"
#include "core/webhooks.hpp"
#include "util/log.hpp"

#include <re2/re2.h>

namespace det::api {

using nlohmann::json;

namespace {

/// Lines printed by the harness that echo the experiment's config (and so
/// the pattern itself) are not scanned, as upstream skips them.
bool echoes_config(const std::string& line) {
  return line.find("\"integrations\"") != std::string::npos
         || line.find("'integrations'") != std::string::npos;
}

} // namespace

webhook_runtime::webhook_runtime(std::shared_ptr<net::http_client> http,
                                 std::string signing_key,
                                 net::webhook_sender_options opts) {
  sender_ = std::make_unique<net::webhook_sender>(
      std::move(http), std::move(signing_key), std::move(opts),
      [this](net::webhook_outcome o) { report(o); });
}

webhook_runtime::~webhook_runtime() {
  stop();
}

void webhook_runtime::stop() {
  if (sender_)
    sender_->stop();
}

void webhook_runtime::set_command_sink(command_sink sink) {
  std::lock_guard<std::mutex> lock{mu_};
  sink_ = std::move(sink);
}

void webhook_runtime::save(const state::webhook_info& w) {
  hook h;
  h.url = w.url;
  h.type = w.webhook_type;
  for (const auto& t : w.triggers) {
    if (t.value("trigger_type", "") != "TASK_LOG")
      continue;
    RE2::Options o;
    o.set_log_errors(false);
    o.set_max_mem(1 << 20);
    auto re =
        std::make_shared<RE2>(t["condition"].value("regex", std::string{}), o);
    if (re->ok())
      h.patterns.push_back({w.id, t.value("id", int64_t{0}), re});
  }
  std::lock_guard<std::mutex> lock{mu_};
  hooks_[w.id] = std::move(h);
}

void webhook_runtime::queue(int64_t id, int64_t webhook_id,
                            const json& payload) {
  std::string url;
  {
    std::lock_guard<std::mutex> lock{mu_};
    auto h = hooks_.find(webhook_id);
    if (h == hooks_.end())
      return;
    url = h->second.url;
  }
  if (!sender_->offer({id, webhook_id, url, payload.dump()}))
    log::warn() << "webhook delivery " << id
                << " not queued: the send queue is full; it stays due in "
                   "the log and is sent after the next master start";
}

void webhook_runtime::load(const state::cluster_state& s) {
  for (const auto& [id, w] : s.webhooks)
    save(w);
  for (const auto& [id, d] : s.webhook_deliveries)
    queue(id, d.webhook_id, d.payload);
}

void webhook_runtime::start() {
  sender_->start();
}

void webhook_runtime::on_durable(const std::vector<domain_event>& events) {
  for (const auto& ev : events) {
    if (const auto* w = std::get_if<webhook_saved>(&ev)) {
      state::webhook_info info;
      info.id = w->webhook_id;
      info.url = w->url;
      info.webhook_type = w->webhook_type;
      info.triggers = w->triggers;
      save(info);
      sender_->set_url(w->webhook_id, w->url);
    } else if (const auto* d = std::get_if<webhook_deleted>(&ev)) {
      {
        std::lock_guard<std::mutex> lock{mu_};
        hooks_.erase(d->webhook_id);
      }
      sender_->cancel_webhook(d->webhook_id);
    } else if (const auto* due = std::get_if<webhook_delivery_due>(&ev)) {
      queue(due->delivery_id, due->webhook_id, due->payload);
    }
  }
}

void webhook_runtime::scan_log(int64_t trial_id, const std::string& node,
                               const std::vector<std::string>& lines) {
  std::vector<pattern> patterns;
  command_sink sink;
  {
    std::lock_guard<std::mutex> lock{mu_};
    for (const auto& [id, h] : hooks_)
      for (const auto& p : h.patterns)
        if (reported_.count({trial_id, p.trigger_id}) == 0)
          patterns.push_back(p);
    sink = sink_;
  }
  if (patterns.empty() || !sink)
    return;
  scan_once<pattern, int64_t>(
      trial_id, lines, patterns, echoes_config, mu_, reported_,
      &pattern::trigger_id, [&](const pattern& p, const std::string& line) {
        sink(webhook_log_match{p.webhook_id, p.trigger_id, trial_id, line,
                               node});
      });
}

void webhook_runtime::report(const net::webhook_outcome& o) {
  if (!o.delivered)
    log::warn() << "webhook " << o.webhook_id << " delivery " << o.id
                << " failed after " << o.attempts
                << " attempt(s): " << o.reason;
  command_sink sink;
  {
    std::lock_guard<std::mutex> lock{mu_};
    sink = sink_;
  }
  if (sink)
    sink(webhook_delivery_report{o.id, o.delivered,
                                 static_cast<int32_t>(o.attempts),
                                 static_cast<int32_t>(o.status), o.reason});
}

net::webhook_outcome webhook_runtime::test(int64_t webhook_id, int64_t now_us) {
  hook h;
  {
    std::lock_guard<std::mutex> lock{mu_};
    auto i = hooks_.find(webhook_id);
    if (i == hooks_.end())
      return {0, webhook_id, false, 0, 0, "not found"};
    h = i->second;
  }
  json body =
      h.type == "SLACK"
          ? json{{"blocks", json::array({{{"type", "section"},
                                          {"text",
                                           {{"type", "plain_text"},
                                            {"text", "test"}}}}})}}
          : default_payload(delivery_event_id(now_us, "test"),
                            "EXPERIMENT_STATE_CHANGE", now_us,
                            {{"state", "COMPLETED"}}, {{"data", "test"}});
  return sender_->send_once({0, webhook_id, h.url, body.dump()});
}

bool webhook_runtime::test_async(
    int64_t webhook_id, int64_t now_us,
    std::function<void(net::webhook_outcome)> done) {
  return tests_.submit([this, webhook_id, now_us, done = std::move(done)] {
    done(test(webhook_id, now_us));
  });
}

std::shared_ptr<webhook_runtime> follow_webhooks(master_options& mo,
                                                 const state::cluster_state& st,
                                                 std::string signing_key) {
  auto w = std::make_shared<webhook_runtime>(net::make_curl_http_client(),
                                             std::move(signing_key),
                                             net::webhook_sender_options{});
  w->load(st);
  follow_durable(mo, [w](const std::vector<domain_event>& events, int64_t) {
    w->on_durable(events);
  });
  return w;
}

} // namespace det::api
