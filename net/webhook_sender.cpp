#include "net/webhook_sender.hpp"

#include "util/backoff.hpp"
#include "util/text.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

namespace det::net {

std::string webhook_signature(const std::string& key, int64_t t,
                              const std::string& body) {
  auto message = std::to_string(t) + "," + body;
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
       md.data(), &len);
  return util::to_hex(
      std::string_view{reinterpret_cast<const char*>(md.data()), len});
}

http_request signed_webhook_request(const std::string& url,
                                    const std::string& body,
                                    const std::string& key, int64_t t) {
  http_request r;
  r.method = "POST";
  r.url = url;
  r.body = body;
  r.headers = {{"Content-Type", "application/json; charset=UTF-8"},
               {"X-Determined-AI-Signature-Timestamp", std::to_string(t)},
               {"X-Determined-AI-Signature", webhook_signature(key, t, body)}};
  return r;
}

webhook_sender::webhook_sender(std::shared_ptr<http_client> http,
                               std::string signing_key,
                               webhook_sender_options opts,
                               std::function<void(webhook_outcome)> done)
    : http_(std::move(http)), key_(std::move(signing_key)),
      opts_(std::move(opts)), done_(std::move(done)) {
  if (!opts_.unix_now)
    opts_.unix_now = [] {
      return static_cast<int64_t>(
          std::chrono::duration_cast<std::chrono::seconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count());
    };
}

webhook_sender::~webhook_sender() {
  stop();
}

webhook_sender::clock::time_point webhook_sender::now() const {
  return opts_.now ? opts_.now() : clock::now();
}

bool webhook_sender::offer(webhook_delivery d) {
  {
    std::lock_guard<std::mutex> lock{mu_};
    if (queue_.count(d.id) != 0)
      return true;
    if (queue_.size() >= opts_.max_queued)
      return false;
    auto id = d.id;
    queue_.emplace(id, entry{std::move(d), 0, now(), false});
  }
  cv_.notify_one();
  return true;
}

void webhook_sender::cancel_webhook(int64_t webhook_id) {
  std::lock_guard<std::mutex> lock{mu_};
  for (auto i = queue_.begin(); i != queue_.end();) {
    if (i->second.d.webhook_id != webhook_id) {
      ++i;
    } else if (i->second.in_flight) {
      i->second.d.webhook_id = -webhook_id; // settle() drops its outcome
      ++i;
    } else {
      i = queue_.erase(i);
    }
  }
}

void webhook_sender::set_url(int64_t webhook_id, const std::string& url) {
  std::lock_guard<std::mutex> lock{mu_};
  for (auto& [id, e] : queue_)
    if (e.d.webhook_id == webhook_id)
      e.d.url = url;
}

size_t webhook_sender::queued() const {
  std::lock_guard<std::mutex> lock{mu_};
  return queue_.size();
}

webhook_outcome webhook_sender::attempt(const webhook_delivery& d,
                                        int attempts_before) {
  webhook_outcome o{d.id, d.webhook_id, false, attempts_before + 1, 0, {}};
  auto req = signed_webhook_request(d.url, d.body, key_, opts_.unix_now());
  req.timeout = opts_.attempt_timeout;
  req.connect_timeout =
      std::min(opts_.attempt_timeout, std::chrono::milliseconds{5000});
  auto res = http_->send(req);
  if (!res) {
    o.reason = "no answer";
    return o;
  }
  o.status = static_cast<int>(res->status);
  o.delivered = res->status < 400;
  if (!o.delivered)
    o.reason = "answered " + std::to_string(res->status);
  return o;
}

void webhook_sender::settle(int64_t id, const webhook_outcome& o) {
  bool report = false;
  {
    std::lock_guard<std::mutex> lock{mu_};
    auto i = queue_.find(id);
    if (i == queue_.end())
      return;
    auto& e = i->second;
    e.in_flight = false;
    e.attempts = o.attempts;
    bool cancelled = e.d.webhook_id < 0;
    bool final = o.delivered || (o.status >= 400 && o.status < 500)
                 || e.attempts >= opts_.max_attempts;
    if (cancelled || final) {
      queue_.erase(i);
      report = !cancelled;
    } else {
      auto wait = util::backoff_delay(
          static_cast<double>(opts_.first_backoff.count()), 2.0,
          static_cast<double>(opts_.max_backoff.count()), e.attempts, 0.0, 0.0);
      e.next_at = now() + std::chrono::milliseconds{static_cast<int64_t>(wait)};
    }
  }
  cv_.notify_all();
  if (report && done_)
    done_(o);
}

bool webhook_sender::step() {
  webhook_delivery d;
  int before = 0;
  {
    std::lock_guard<std::mutex> lock{mu_};
    auto t = now();
    auto i = std::find_if(queue_.begin(), queue_.end(), [t](const auto& kv) {
      return !kv.second.in_flight && kv.second.next_at <= t;
    });
    if (i == queue_.end())
      return false;
    i->second.in_flight = true;
    d = i->second.d;
    before = i->second.attempts;
  }
  settle(d.id, attempt(d, before));
  return true;
}

webhook_outcome webhook_sender::send_once(const webhook_delivery& d) {
  return attempt(d, 0);
}

void webhook_sender::work() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock{mu_};
      if (stopping_)
        return;
      auto t = clock::now();
      auto next = t + std::chrono::seconds{1};
      bool ready = false;
      for (const auto& [id, e] : queue_)
        if (!e.in_flight) {
          if (e.next_at <= t)
            ready = true;
          else if (e.next_at < next)
            next = e.next_at;
        }
      if (!ready) {
        cv_.wait_until(lock, next);
        continue;
      }
    }
    step();
  }
}

void webhook_sender::start() {
  std::lock_guard<std::mutex> lock{mu_};
  if (!threads_.empty())
    return;
  stopping_ = false;
  for (int i = 0; i < opts_.threads; ++i)
    threads_.emplace_back([this] { work(); });
}

void webhook_sender::stop() {
  {
    std::lock_guard<std::mutex> lock{mu_};
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable())
      t.join();
  threads_.clear();
}

} // namespace det::net
