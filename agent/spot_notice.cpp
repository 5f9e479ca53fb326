#include "agent/spot_notice.hpp"

#include <nlohmann/json.hpp>

namespace det::agent {

std::string spot_interruption_frame(const aws::spot_action& a) {
  return nlohmann::json{
      {"type", "spot_interruption"}, {"action", a.action}, {"time", a.time}}
      .dump();
}

spot_notice_watcher::spot_notice_watcher(std::shared_ptr<aws::imds_client> imds,
                                         std::chrono::milliseconds interval,
                                         callback on_notice)
    : imds_(std::move(imds)), interval_(interval),
      on_notice_(std::move(on_notice)), thread_([this] { loop(); }) {}

spot_notice_watcher::~spot_notice_watcher() {
  {
    std::lock_guard<std::mutex> guard{mu_};
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void spot_notice_watcher::loop() {
  std::unique_lock<std::mutex> lock{mu_};
  while (!stopping_) {
    lock.unlock();
    auto notice = imds_->spot_instance_action();
    lock.lock();
    if (stopping_)
      return;
    if (notice && *notice) {
      auto a = **notice;
      lock.unlock();
      on_notice_(a);
      return; // one notice per instance: it is about to go away
    }
    cv_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

} // namespace det::agent
