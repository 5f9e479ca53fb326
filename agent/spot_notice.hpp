#pragma once

// The spot interruption notice of the instance an agent runs on: a thread
// polls IMDSv2 spot/instance-action (AWS recommends every 5 s) and, the
// first time a notice is there, hands it to a callback once (det-agent then
// tells the master with a spot_interruption frame, see
// docs/agent_protocol.md). A 404 means no notice; other IMDS failures are
// retried at the next poll.

#include "aws/imds_client.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace det::agent {

/// {"type": "spot_interruption", "action": ..., "time": ...}
std::string spot_interruption_frame(const aws::spot_action& a);

class spot_notice_watcher {
public:
  using callback = std::function<void(const aws::spot_action&)>;

  /// Starts polling at once.
  spot_notice_watcher(std::shared_ptr<aws::imds_client> imds,
                      std::chrono::milliseconds interval, callback on_notice);
  /// Stops and joins the thread.
  ~spot_notice_watcher();

  spot_notice_watcher(const spot_notice_watcher&) = delete;
  spot_notice_watcher& operator=(const spot_notice_watcher&) = delete;

private:
  void loop();

  std::shared_ptr<aws::imds_client> imds_;
  std::chrono::milliseconds interval_;
  callback on_notice_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace det::agent
