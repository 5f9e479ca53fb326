#pragma once

// The master's webhooks at run time: what the log decided, carried out.
// It follows the durable events (on_durable, on the master's thread: never
// blocks) to know each webhook's URL and TASK_LOG patterns, hands every
// webhook_delivery_due to the sender (net/webhook_sender.hpp, its own
// threads), and reports each outcome back to the master as the record
// command webhook.ended, which appends webhook_delivery_ended. At start,
// load() queues the deliveries the log holds as due and not ended: a
// master restarted mid-delivery sends them again.
//
// Trial log lines (scan_log, on the thread that received them) are matched
// against the TASK_LOG patterns with RE2; a match not yet reported for
// that trial and trigger is sent to the master as webhook.log_matched,
// which decides (once per trial and trigger) and builds the payload.
// Thread-safe.

#include "actors/master_actor.hpp"
#include "core/commands.hpp"
#include "net/webhook_sender.hpp"
#include "state/cluster_state.hpp"
#include "util/serial_worker.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace re2 {
class RE2;
}

namespace det::api {

class webhook_runtime {
public:
  /// Sends a command to the master (no answer awaited).
  using command_sink = std::function<void(command)>;

  webhook_runtime(std::shared_ptr<net::http_client> http,
                  std::string signing_key, net::webhook_sender_options opts);
  ~webhook_runtime();

  void set_command_sink(command_sink sink);
  /// Webhooks and due deliveries of the recovered state (queued, not yet
  /// sent: start() once the command sink is set).
  void load(const state::cluster_state& s);
  void start();
  void on_durable(const std::vector<domain_event>& events);
  void scan_log(int64_t trial_id, const std::string& node,
                const std::vector<std::string>& lines);
  /// POST /webhooks/{id}/test: one signed attempt of upstream's test body
  /// now, on the calling thread (not an actor's or an I/O thread's).
  net::webhook_outcome test(int64_t webhook_id, int64_t now_us);
  /// test() on the runtime's own thread, then `done` there; false when 8
  /// tests wait already.
  [[nodiscard]] bool test_async(int64_t webhook_id, int64_t now_us,
                                std::function<void(net::webhook_outcome)> done);
  void stop();

private:
  struct pattern {
    int64_t webhook_id = 0;
    int64_t trigger_id = 0;
    std::shared_ptr<re2::RE2> re;
  };
  struct hook {
    std::string url;
    std::string type;
    std::vector<pattern> patterns;
  };
  void save(const state::webhook_info& w);
  void queue(int64_t id, int64_t webhook_id, const nlohmann::json& payload);
  void report(const net::webhook_outcome& o);

  std::mutex mu_;
  std::map<int64_t, hook> hooks_;
  /// (trial, trigger) pairs already sent to the master.
  std::set<std::pair<int64_t, int64_t>> reported_;
  command_sink sink_;
  std::unique_ptr<net::webhook_sender> sender_;
  /// POST /webhooks/{id}/test, off the I/O threads.
  util::serial_worker tests_{8};
};

/// A runtime loaded from `st` that follows the master's durable events
/// (chained onto mo.on_durable, as follow_metrics does). Deliveries go out
/// once start() is called.
std::shared_ptr<webhook_runtime> follow_webhooks(master_options& mo,
                                                 const state::cluster_state& st,
                                                 std::string signing_key);

} // namespace det::api
