#include "api/log_reader.hpp"

#include "store/pg_event_store.hpp"

namespace det::api {

log_reader::log_reader(std::string url)
    : url_(std::move(url)), thread_([this] { run(); }) {}

log_reader::~log_reader() {
  {
    std::lock_guard<std::mutex> g{mu_};
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

bool log_reader::submit(job j) {
  {
    std::lock_guard<std::mutex> g{mu_};
    if (jobs_.size() >= 32)
      return false;
    jobs_.push_back(std::move(j));
  }
  cv_.notify_one();
  return true;
}

void log_reader::run() {
  for (;;) {
    job j;
    {
      std::unique_lock<std::mutex> g{mu_};
      cv_.wait(g, [this] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty())
        return;
      j = std::move(jobs_.front());
      jobs_.pop_front();
    }
    if (!store_) {
      pg_store_options o;
      o.url = url_;
      o.lock = lock_policy::reader;
      o.migrate = false;
      auto s = pg_event_store::open(o);
      if (!s) {
        j(nullptr, s.error());
        continue;
      }
      store_ = std::move(*s);
    }
    j(store_.get(), caf::error{});
  }
}

} // namespace det::api
