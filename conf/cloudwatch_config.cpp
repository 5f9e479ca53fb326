#include "conf/cloudwatch_config.hpp"

namespace det::conf {

using namespace std::chrono_literals;

void read_cloudwatch(object_reader& r, cloudwatch_config& out) {
  out.enabled = r.boolean("enabled", false);
  out.region = r.str("region", "");
  out.endpoint_url = r.str("endpoint_url", "");
  if (!out.endpoint_url.empty() && out.endpoint_url.rfind("http://", 0) != 0
      && out.endpoint_url.rfind("https://", 0) != 0)
    r.fail("endpoint_url", "expected an http:// or https:// URL, got \""
                               + out.endpoint_url + "\"");
  out.log_group = r.str("log_group", "/determined/determined/journald");
  // CloudWatch's rules for group names: 1-512 of [.-_/#A-Za-z0-9].
  if (out.log_group.empty() || out.log_group.size() > 512
      || out.log_group.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
             "0123456789._-/#")
             != std::string::npos)
    r.fail("log_group", "expected 1 to 512 of A-Z a-z 0-9 . _ - / #, got \""
                            + out.log_group + "\"");
  out.log_stream = r.str("log_stream", "");
  if (out.log_stream.size() > 512
      || out.log_stream.find_first_of(":*") != std::string::npos)
    r.fail("log_stream", "at most 512 characters, no ':' or '*'");
  out.cluster_id = r.str("cluster_id", "");
  out.journald = r.boolean("journald", true);
  out.journalctl = r.str("journalctl", "journalctl");
  if (out.journalctl.empty())
    r.fail("journalctl", "must not be empty");
  out.own_logs = r.choice("own_logs", "auto", {"auto", "true", "false"});
  out.cursor_file = r.str("cursor_file", "");
  out.max_queued_events =
      r.integer("max_queued_events", 50'000, 10'000, 10'000'000);
  out.flush_interval = r.dur("flush_interval", 2s, "2s", true);
  out.metrics = r.boolean("metrics", true);
  out.metrics_interval = r.dur("metrics_interval", 60s, "60s", true);
  if (out.metrics_interval < 1s)
    r.fail("metrics_interval", "at least 1s");
  out.metrics_namespace = r.str("namespace", "Determined");
  if (out.metrics_namespace.empty() || out.metrics_namespace.size() > 255
      || out.metrics_namespace.rfind("AWS/", 0) == 0)
    r.fail("namespace", "1 to 255 characters, not starting with AWS/");
  out.nvidia_smi = r.str("nvidia_smi", "nvidia-smi");
  r.finish();
}

} // namespace det::conf
