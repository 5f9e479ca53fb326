#pragma once

// Sends webhook deliveries off the actor threads: a bounded queue, a few
// worker threads, one HTTP POST per attempt with a timeout, retries with
// exponential backoff, and one outcome per delivery. Every request carries
// upstream's signature headers: X-Determined-AI-Signature-Timestamp (unix
// seconds t) and X-Determined-AI-Signature, the hex HMAC-SHA256 of
// "<t>,<body>" under the cluster's signing key (the key is never logged).
//
// Policy, as upstream's shipper: a 2xx/3xx answer is delivered; 4xx gives
// up at once (the receiver refused it); 5xx and no answer are retried,
// `max_attempts` in all, waiting first_backoff * 2^(n-1) (at most
// max_backoff) before retry n. offer() refuses a delivery when
// `max_queued` wait already (the caller keeps it due: see
// docs/webhooks.md); a delivery id already queued is not queued twice.
//
// Thread-safe. start() runs the workers; step() runs one due attempt on
// the calling thread, for tests with an injected clock. `done` is called
// on the thread that finished the delivery (never with a lock held), not
// for a delivery whose webhook was cancelled.

#include "net/http_client.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace det::net {

struct webhook_delivery {
  int64_t id = 0;
  int64_t webhook_id = 0;
  std::string url;
  std::string body;
};

struct webhook_outcome {
  int64_t id = 0;
  int64_t webhook_id = 0;
  bool delivered = false;
  int attempts = 0;
  /// The last HTTP status, 0 when no answer came.
  int status = 0;
  std::string reason;
};

struct webhook_sender_options {
  size_t max_queued = 1000;
  int max_attempts = 5;
  std::chrono::milliseconds first_backoff{1000};
  std::chrono::milliseconds max_backoff{60'000};
  std::chrono::milliseconds attempt_timeout{10'000};
  int threads = 2;
  /// Monotonic clock for retries; tests inject their own.
  std::function<std::chrono::steady_clock::time_point()> now;
  /// Unix seconds for the signature timestamp.
  std::function<int64_t()> unix_now;
};

/// The POST of `body` to `url` signed with `key` at unix time `t`.
http_request signed_webhook_request(const std::string& url,
                                    const std::string& body,
                                    const std::string& key, int64_t t);

/// hex(HMAC-SHA256(key, "<t>,<body>")).
std::string webhook_signature(const std::string& key, int64_t t,
                              const std::string& body);

class webhook_sender {
public:
  using clock = std::chrono::steady_clock;

  webhook_sender(std::shared_ptr<http_client> http, std::string signing_key,
                 webhook_sender_options opts,
                 std::function<void(webhook_outcome)> done);
  ~webhook_sender();
  webhook_sender(const webhook_sender&) = delete;
  webhook_sender& operator=(const webhook_sender&) = delete;

  [[nodiscard]] bool offer(webhook_delivery d);
  /// Drops the queued deliveries of `webhook_id` (it was deleted) and
  /// gives no outcome for one in flight.
  void cancel_webhook(int64_t webhook_id);
  /// A delivery's URL changed (PATCH): later attempts use `url`.
  void set_url(int64_t webhook_id, const std::string& url);

  void start();
  void stop();

  /// Runs one attempt whose time has come; false when none has.
  bool step();
  size_t queued() const;

  /// One attempt now, no retry, for POST /webhooks/{id}/test.
  webhook_outcome send_once(const webhook_delivery& d);

private:
  struct entry {
    webhook_delivery d;
    int attempts = 0;
    clock::time_point next_at;
    bool in_flight = false;
  };
  clock::time_point now() const;
  void work();
  /// Sends one attempt of `e` (a copy) and returns its outcome.
  webhook_outcome attempt(const webhook_delivery& d, int attempts_before);
  void settle(int64_t id, const webhook_outcome& o);

  std::shared_ptr<http_client> http_;
  std::string key_;
  webhook_sender_options opts_;
  std::function<void(webhook_outcome)> done_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<int64_t, entry> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace det::net
