#include "telemetry/cloudwatch_telemetry.hpp"

#include "aws/aws_error.hpp"
#include "aws/cloudwatch_client.hpp"
#include "aws/credential_chain.hpp"
#include "aws/imds_client.hpp"
#include "aws/logs_client.hpp"
#include "messages/errc.hpp"
#include "telemetry/cursor_file.hpp"
#include "telemetry/host_metrics.hpp"
#include "util/log.hpp"

#include <chrono>
#include <unistd.h>

namespace det::telemetry {

namespace {

// The shipper own log lines go to; read by util/log's tap on any thread.
std::shared_ptr<log_shipper> tap_target;
std::string tap_program;

const char* level_name(log::level l) {
  switch (l) {
  case log::level::trace:
    return "trace";
  case log::level::debug:
    return "debug";
  case log::level::info:
    return "info";
  case log::level::warn:
    return "warn";
  case log::level::error:
    return "error";
  case log::level::critical:
    return "critical";
  }
  return "info";
}

void tap(log::level l, std::string_view message) {
  auto target = std::atomic_load(&tap_target);
  if (!target)
    return;
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  target->offer(
      {now, own_line(tap_program, getpid(), level_name(l), message), ""});
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0')
    return "unknown-host";
  return buf;
}

} // namespace

std::string own_line(const std::string& program, int pid, const char* level,
                     std::string_view message) {
  std::string out = program + "[" + std::to_string(pid) + "]: " + level + " ";
  out.append(message);
  return out;
}

bool ship_own_lines(const conf::cloudwatch_config& cfg,
                    const aws::env_lookup& env) {
  if (cfg.own_logs != "auto")
    return cfg.own_logs == "true";
  return !(cfg.journald && env("JOURNAL_STREAM"));
}

caf::expected<std::unique_ptr<cloudwatch_telemetry>>
cloudwatch_telemetry::start(const conf::cloudwatch_config& cfg,
                            const telemetry_identity& who,
                            metric_publisher::collect_fn extra,
                            const aws::env_lookup& env) {
  aws::credential_chain_options co;
  co.env = env;
  auto region = cfg.region;
  if (region.empty()) {
    auto r = aws::resolve_region(co);
    if (!r)
      return make_error(errc::invalid_argument,
                        "cloudwatch.region: not set and "
                            + aws::error_text(r.error()));
    region = *r;
  }
  auto creds = aws::make_default_credential_chain(co);
  std::unique_ptr<cloudwatch_telemetry> t{new cloudwatch_telemetry};
  t->stream_ = cfg.log_stream;
  if (t->stream_.empty()) {
    auto imds_cfg = aws::imds_config_from_env(env);
    imds_cfg.timeout = std::chrono::seconds{1};
    aws::imds_client imds{imds_cfg, net::make_curl_http_client()};
    auto id = imds.instance_id();
    t->stream_ = id ? *id : host_name();
  }
  auto cursor_path = cfg.cursor_file;
  if (cursor_path.empty())
    cursor_path = "/var/lib/determined/" + who.program + "-cloudwatch.cursor";
  auto cursor = std::make_shared<cursor_file>(cursor_path);

  log_shipper_options lo;
  lo.group = cfg.log_group;
  lo.stream = t->stream_;
  lo.max_queued = static_cast<size_t>(cfg.max_queued_events);
  lo.flush_interval = cfg.flush_interval;
  aws::logs_client_config lc;
  lc.region = region;
  lc.endpoint_url = cfg.endpoint_url;
  t->shipper_ = std::make_shared<log_shipper>(
      lo, aws::make_logs_client(lc, creds, env), cursor);
  t->shipper_->start();
  if (cfg.journald) {
    journald_options jo;
    jo.journalctl = cfg.journalctl;
    auto shipper = t->shipper_;
    t->journald_ = std::make_unique<journald_source>(
        jo, cursor->load(),
        [shipper](policy::queued_log_event ev,
                  const std::atomic<bool>& cancel) {
          return shipper->push_wait(std::move(ev), cancel);
        });
    t->journald_->start();
  }
  if (ship_own_lines(cfg, env)) {
    tap_program = who.program;
    std::atomic_store(&tap_target, t->shipper_);
    log::set_tap(&tap);
    t->tapped_ = true;
  }
  if (cfg.metrics) {
    host_sampler_options ho;
    ho.nvidia_smi = cfg.nvidia_smi;
    auto cluster = cfg.cluster_id.empty() ? who.cluster_id : cfg.cluster_id;
    ho.dimensions = {{"Cluster", cluster.empty() ? "unknown" : cluster},
                     {"Pool", who.pool.empty() ? "default" : who.pool},
                     {"Instance", t->stream_}};
    auto sampler = std::make_shared<host_sampler>(ho);
    metric_publisher_options mo;
    mo.name_space = cfg.metrics_namespace;
    mo.interval = cfg.metrics_interval;
    aws::cloudwatch_client_config cc;
    cc.region = region;
    cc.endpoint_url = cfg.endpoint_url;
    t->metrics_ = std::make_unique<metric_publisher>(
        mo, aws::make_cloudwatch_client(cc, creds, env),
        [sampler, extra](int64_t now) {
          auto out = sampler->sample(now);
          if (extra)
            for (auto& d : extra(now))
              out.push_back(std::move(d));
          return out;
        });
    t->metrics_->start();
  }
  log::info() << "cloudwatch: shipping logs to " << cfg.log_group << " / "
              << t->stream_ << " in " << region
              << (cfg.journald ? " (journald" : " (")
              << (t->tapped_ ? (cfg.journald ? " and own lines)" : "own lines)")
                             : ")")
              << (cfg.metrics
                      ? ", metrics to namespace " + cfg.metrics_namespace
                      : std::string{});
  return t;
}

cloudwatch_telemetry::~cloudwatch_telemetry() {
  stop();
}

void cloudwatch_telemetry::stop() {
  if (journald_)
    journald_->stop();
  if (metrics_)
    metrics_->stop();
  if (tapped_) {
    log::set_tap(nullptr);
    std::atomic_store(&tap_target, std::shared_ptr<log_shipper>{});
    tapped_ = false;
  }
  if (shipper_)
    shipper_->stop(std::chrono::seconds{5});
}

} // namespace det::telemetry
