#include "http/responder.hpp"

namespace det::http {

namespace detail {

reply_sink::~reply_sink() = default;

void stream_flags::cancel() {
  std::function<void()> fn;
  {
    std::lock_guard<std::mutex> guard{mu_};
    cancelled_ = true;
    if (fired_)
      return;
    fired_ = true;
    fn = std::move(on_cancel_);
  }
  if (fn)
    fn();
}

void stream_flags::on_cancel(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> guard{mu_};
    if (!cancelled_) {
      on_cancel_ = std::move(fn);
      return;
    }
  }
  if (fn)
    fn();
}

struct reply_state {
  explicit reply_state(std::shared_ptr<reply_sink> s) : sink(std::move(s)) {}

  ~reply_state() {
    if (!answered.exchange(true))
      sink->send_response(
          error_response(grpc_code::internal, "the handler gave no answer"));
  }

  bool claim() { return !answered.exchange(true); }

  std::shared_ptr<reply_sink> sink;
  std::atomic<bool> answered{false};
};

struct stream_producer {
  stream_producer(std::shared_ptr<reply_sink> s,
                  std::shared_ptr<stream_flags> f)
      : sink(std::move(s)), flags(std::move(f)) {}

  ~stream_producer() { close(); }

  bool write(std::string data) {
    if (closed.load() || flags->cancelled())
      return false;
    auto n = data.size();
    auto queued = flags->queued_bytes.fetch_add(n) + n;
    if (queued > flags->queue_limit.load()) {
      flags->queued_bytes.fetch_sub(n);
      flags->cancel();
      close();
      return false;
    }
    std::lock_guard<std::mutex> guard{mu};
    if (closed.load()) {
      flags->queued_bytes.fetch_sub(n);
      return false;
    }
    sink->stream_data(std::move(data));
    return true;
  }

  void close() {
    std::lock_guard<std::mutex> guard{mu};
    if (closed.exchange(true))
      return;
    sink->end_stream();
  }

  std::shared_ptr<reply_sink> sink;
  std::shared_ptr<stream_flags> flags;
  std::atomic<bool> closed{false};
  std::mutex mu; // orders data against end_stream across threads
};

namespace {

/// The sink behind responder::capture().
class capture_sink : public reply_sink {
public:
  explicit capture_sink(std::function<void(http_response)> fn)
      : fn_(std::move(fn)) {}
  void send_response(http_response res) override {
    // Tests read `body`: a shared body is copied into it here.
    if (res.shared_body) {
      res.body = *res.shared_body;
      res.shared_body.reset();
    }
    fn_(std::move(res));
  }
  void start_stream(int, header_map,
                    std::shared_ptr<stream_flags> flags) override {
    flags->cancel();
  }
  void stream_data(std::string) override {}
  void end_stream() override {}
  bool client_gone() const override { return false; }

private:
  std::function<void(http_response)> fn_;
};

} // namespace

} // namespace detail

chunk_stream::chunk_stream(std::shared_ptr<detail::stream_producer> p)
    : p_(std::move(p)) {}

bool chunk_stream::write_line(std::string line) const {
  if (!p_)
    return false;
  line.push_back('\n');
  return p_->write(std::move(line));
}

bool chunk_stream::write_result(std::string_view result_json) const {
  return write_line(result_line(result_json));
}

void chunk_stream::fail(grpc_code code, std::string_view message) const {
  if (!p_)
    return;
  (void)write_line(stream_error_line(code, message));
  p_->close();
}

void chunk_stream::close() const {
  if (p_)
    p_->close();
}

bool chunk_stream::cancelled() const {
  return !p_ || p_->flags->cancelled();
}

void chunk_stream::on_cancel(std::function<void()> fn) const {
  if (!p_) {
    if (fn)
      fn();
    return;
  }
  p_->flags->on_cancel(std::move(fn));
}

responder::responder(std::shared_ptr<detail::reply_sink> sink)
    : state_(std::make_shared<detail::reply_state>(std::move(sink))) {}

void responder::send(http_response res) const {
  if (state_->claim())
    state_->sink->send_response(std::move(res));
}

void responder::send_error(grpc_code code, std::string_view message) const {
  send(error_response(code, message));
}

void responder::send_json(std::string json) const {
  send(http_response::json(200, std::move(json)));
}

chunk_stream responder::stream(int status, header_map headers) const {
  auto flags = std::make_shared<detail::stream_flags>();
  if (!state_->claim()) {
    flags->cancel();
    return chunk_stream{};
  }
  if (!headers.contains("Content-Type"))
    headers.set("Content-Type", "application/json");
  state_->sink->start_stream(status, std::move(headers), flags);
  return chunk_stream{std::make_shared<detail::stream_producer>(
      state_->sink, std::move(flags))};
}

bool responder::answered() const {
  return state_->answered.load();
}

bool responder::client_gone() const {
  return state_->sink->client_gone();
}

responder responder::capture(std::function<void(http_response)> fn) {
  return responder{std::make_shared<detail::capture_sink>(std::move(fn))};
}

} // namespace det::http
