// One HTTP/1.1 connection (plain or TLS) from accept to close; the link
// through which responders on other threads reach it is in
// http/detail/http_link.hpp. Everything a session does runs on its strand;
// links are the only cross-thread entry and go through the server's io_gate.
//
// A connection is in one phase at a time:
//   idle -> request -> handling -> (responding | streaming -> responding)
//   -> idle (keep-alive) or closing (lingering close) -> closed.
// While a handler is pending or a stream is open, a read stays posted so a
// client that hangs up is noticed at once: its responder reports
// client_gone() and its stream is cancelled.

#include "http/detail/http_link.hpp"
#include "http/detail/server_core.hpp"

#include "http/url.hpp"
#include "http/wire_format.hpp"
#include "util/text.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <algorithm>
#include <deque>
#include <limits>
#include <optional>
#include <type_traits>
#include <variant>

namespace det::http::detail {

conn_base::~conn_base() = default;

namespace {

template <class Stream> class http_session final : public http_conn_iface {
public:
  static constexpr bool is_tls = std::is_same_v<Stream, tls_stream>;

  http_session(std::shared_ptr<server_shared> shared, Stream stream)
      : shared_(std::move(shared)), stream_(std::move(stream)),
        timer_(stream_.get_executor()) {}

  ~http_session() override {
    if (link_)
      link_->gone = true;
    if (flags_)
      flags_->cancel();
    shared_->remove(this);
  }

  void run() {
    shared_->add(shared_from_this());
    net::dispatch(stream_.get_executor(), [self = self()] { self->start(); });
  }

  net::any_io_executor executor() override { return stream_.get_executor(); }

  void begin_shutdown() override {
    net::dispatch(stream_.get_executor(), [self = self()] {
      self->keep_alive_ = false;
      switch (self->phase_) {
      case phase::idle:
        self->close_now();
        break;
      case phase::streaming:
        if (self->flags_)
          self->flags_->cancel();
        self->phase_ = phase::responding;
        self->enqueue(std::string{last_chunk()}, 0);
        self->do_write();
        break;
      default:
        break; // the answer in flight closes the connection
      }
    });
  }

  void force_close() override {
    net::dispatch(stream_.get_executor(),
                  [self = self()] { self->client_gone(); });
  }

  void apply(uint64_t seq, std::vector<http_op>& ops) override {
    for (auto& op : ops) {
      bool current = seq == seq_ && !closed_;
      switch (op.kind) {
      case http_op::response:
        if (!current || phase_ != phase::handling)
          break;
        phase_ = phase::responding;
        enqueue_response(std::move(op.res), keep_alive_);
        break;
      case http_op::stream_head: {
        if (!current || phase_ != phase::handling) {
          op.flags->cancel();
          break;
        }
        op.flags->queue_limit = cfg().send_queue_limit;
        flags_ = op.flags;
        phase_ = phase::streaming;
        head_options opts;
        opts.keep_alive = keep_alive_;
        opts.chunked = true;
        opts.server_name = cfg().server_name;
        enqueue(serialize_head(op.res.status, op.res.headers, opts), 0);
        break;
      }
      case http_op::stream_data:
        if (!current || phase_ != phase::streaming)
          break;
        enqueue(chunk_frame(op.data), op.data.size());
        break;
      case http_op::stream_end:
        if (!current || phase_ != phase::streaming)
          break;
        phase_ = phase::responding;
        enqueue(std::string{last_chunk()}, 0);
        break;
      }
    }
    do_write();
  }

private:
  enum class phase {
    idle,
    request,
    handling,
    streaming,
    responding,
    closing,
    closed
  };

  struct out_item {
    std::string bytes;
    std::shared_ptr<const std::string> shared; // instead of bytes, when set
    size_t accounted; // stream bytes to release from the producer's quota

    const std::string& text() const { return shared ? *shared : bytes; }
  };

  std::shared_ptr<http_session> self() {
    return std::static_pointer_cast<http_session>(shared_from_this());
  }
  const server_config& cfg() const { return shared_->cfg; }
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  void start() {
    if constexpr (is_tls) {
      arm(cfg().read_timeout);
      stream_.async_handshake(net::ssl::stream_base::server,
                              [self = self()](beast::error_code ec) {
                                if (ec)
                                  return self->close_now();
                                self->wait_request();
                              });
    } else {
      wait_request();
    }
  }

  // -- timeouts: one deadline, moved for whatever the phase waits on ----
  //
  // Moving it is a store: the timer is never set further out than the
  // shortest timeout (`horizon`), so a deadline set at least that far
  // ahead cannot be earlier than the wait already pending, which on
  // expiry checks the deadline and waits again if it moved. Re-setting the
  // timer itself three or four times a request (each a cancelled wait to
  // dispatch) was 7% of the HTTP threads' time in the closed loop of
  // metric reports.

  using clock = std::chrono::steady_clock;

  clock::duration horizon() const {
    const auto& c = cfg();
    return std::max<clock::duration>(
        std::chrono::milliseconds{1},
        std::min({c.idle_timeout, c.read_timeout, c.write_timeout}));
  }

  void arm(std::chrono::milliseconds d) {
    auto now = clock::now();
    deadline_ = now + d;
    armed_ = true;
    if (!waiting_ || deadline_ < timer_.expiry())
      wait_until(std::min(deadline_, now + horizon()));
  }

  void disarm() { armed_ = false; }

  /// No deadline, and no wait left: its handler holds the session, and a
  /// wait pending keeps the server's I/O threads from running out of work
  /// when it stops. Where the session closes or hands its stream on.
  void drop_timer() {
    armed_ = false;
    timer_.cancel();
  }

  void wait_until(clock::time_point t) {
    auto gen = ++timer_gen_;
    waiting_ = true;
    timer_.expires_at(t); // a wait pending ends with a generation gone by
    timer_.async_wait([self = self(), gen](beast::error_code ec) {
      self->on_timer(ec, gen);
    });
  }

  void on_timer(beast::error_code ec, uint64_t gen) {
    if (gen != timer_gen_)
      return; // replaced by a nearer deadline
    waiting_ = false;
    if (ec || closed_ || !armed_)
      return;
    auto now = clock::now();
    if (now >= deadline_)
      return close_now();
    wait_until(std::min(deadline_, now + horizon()));
  }

  /// The peer's address, read once (a getpeername call per request was
  /// 2% of the HTTP threads' time in the closed loop).
  const std::string& peer() {
    if (!peer_) {
      boost::system::error_code ec;
      auto ep = lowest().socket().remote_endpoint(ec);
      peer_ = ec ? std::string{} : ep.address().to_string();
    }
    return *peer_;
  }

  // -- reading --------------------------------------------------------

  void wait_request() {
    phase_ = phase::idle;
    if (shared_->stopping)
      return close_now();
    arm(cfg().idle_timeout);
    if (buffer_.size() > 0)
      return read_header();
    if (!reading_)
      watch();
  }

  // A read that waits for the next request, or notices a hang-up while a
  // handler or stream is busy, or drains input during a lingering close.
  void watch() {
    reading_ = true;
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = self()](beast::error_code ec, size_t n) {
                              self->on_watch(ec, n);
                            });
  }

  void on_watch(beast::error_code ec, size_t n) {
    reading_ = false;
    if (ec)
      return client_gone();
    buffer_.commit(n);
    if (phase_ == phase::idle)
      return read_header();
    if (phase_ == phase::closing) {
      buffer_.consume(buffer_.size());
      return watch();
    }
    // Busy: the bytes (a pipelined request) wait for the answer to finish.
  }

  void read_header() {
    phase_ = phase::request;
    arm(cfg().read_timeout);
    parser_.emplace();
    prepare_parser(*parser_, cfg());
    limit_ = cfg().body_limit;
    reading_ = true;
    bhttp::async_read_header(
        stream_, buffer_, *parser_,
        [self = self()](beast::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    reading_ = false;
    if (ec)
      return on_read_error(ec);
    // A declared length over the limit is refused before any body byte.
    if (auto lec = apply_body_limit(*parser_, cfg(), limit_))
      return on_read_error(lec);
    auto expect = parser_->get()[bhttp::field::expect];
    if (!parser_->is_done() && util::iequals(expect, "100-continue")) {
      static const std::string continue_line = "HTTP/1.1 100 Continue\r\n\r\n";
      writing_ = true;
      net::async_write(stream_, net::buffer(continue_line),
                       [self = self()](beast::error_code wec, size_t) {
                         self->writing_ = false;
                         if (wec)
                           return self->client_gone();
                         self->read_body();
                       });
      return;
    }
    read_body();
  }

  void read_body() {
    reading_ = true;
    bhttp::async_read(
        stream_, buffer_, *parser_,
        [self = self()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  void on_read_error(beast::error_code ec) {
    if (auto r = read_refusal(ec, limit_, cfg()))
      return refuse(std::move(*r));
    close_now();
  }

  void on_body(beast::error_code ec) {
    reading_ = false;
    if (ec)
      return on_read_error(ec);
    disarm();
    raw_request msg = parser_->release();
    parser_.reset();
    keep_alive_ = msg.keep_alive() && !shared_->stopping;
    bool upgrade = beast::websocket::is_upgrade(msg);
    std::string path;
    query_params query;
    split_target(msg.target(), path, query);
    if (shared_->proxied(path))
      return start_proxy(std::move(msg), upgrade);
    if (const auto* route = shared_->find_ws(path)) {
      if (upgrade)
        return start_upgrade(std::move(msg), *route);
      phase_ = phase::handling;
      return refuse(
          error_response(grpc_code::invalid_argument,
                         "a WebSocket upgrade is expected on " + path));
    }
    auto req = to_http_request(std::move(msg), peer(), is_tls);
    phase_ = phase::handling;
    link_ = std::make_shared<http_link>(
        shared_->gate,
        std::static_pointer_cast<http_conn_iface>(shared_from_this()), ++seq_);
    // Nothing else may be pending (pipelined input stops the watch), and
    // responders hold the session only weakly: keep it alive until the
    // answer is written or the connection closes.
    hold_ = self();
    if (buffer_.size() == 0 && !reading_)
      watch();
    shared_->routes.dispatch(std::move(req), responder{link_});
  }

  void start_upgrade(raw_request msg, const ws_route& route) {
    // Copy for the handler; Beast's accept needs the original message.
    raw_request copy = msg;
    auto req = to_http_request(std::move(copy), peer(), is_tls);
    std::optional<http_response> refusal;
    try {
      if (route.authorize)
        refusal = route.authorize(req);
    } catch (...) {
      refusal = error_response(grpc_code::internal, "authorizer failed");
    }
    if (refusal) {
      phase_ = phase::handling;
      return refuse(std::move(*refusal));
    }
    drop_timer();
    phase_ = phase::closed;
    closed_ = true;
    shared_->remove(this);
    start_ws_session(shared_, std::move(stream_), std::move(msg),
                     std::move(req), route);
  }

  // -- the proxy (http/proxy.hpp) -------------------------------------

  /// Asks the resolver; the connection waits (read_timeout at most) and
  /// reads nothing more until it answers.
  void start_proxy(raw_request msg, bool upgrade) {
    phase_ = phase::handling;
    keep_alive_ = false;
    raw_request copy = msg;
    auto req = to_http_request(std::move(copy), peer(), is_tls);
    auto remote = req.remote_address;
    hold_ = self();
    arm(cfg().read_timeout);
    auto pending = std::make_shared<raw_request>(std::move(msg));
    std::weak_ptr<http_session> weak = self();
    auto gate = shared_->gate;
    auto done = [weak, gate, pending, upgrade,
                 remote](proxy_decision d) mutable {
      auto dp = std::make_shared<proxy_decision>(std::move(d));
      gate->post([weak, pending, dp, upgrade, remote] {
        auto s = weak.lock();
        if (!s)
          return;
        net::dispatch(s->executor(), [s, pending, dp, upgrade, remote] {
          s->on_proxy_decision(*pending, std::move(*dp), upgrade, remote);
        });
      });
    };
    try {
      shared_->proxy->resolve(req, std::move(done));
    } catch (...) {
      refuse(error_response(grpc_code::internal, "the proxy failed"));
    }
  }

  void on_proxy_decision(const raw_request& msg, proxy_decision d, bool upgrade,
                         const std::string& remote) {
    if (closed_ || phase_ != phase::handling)
      return;
    if (auto* res = std::get_if<http_response>(&d))
      return refuse(std::move(*res));
    auto target = std::get<proxy_target>(std::move(d));
    if (target.tcp && (!upgrade || buffer_.size() > 0))
      return refuse(error_response(grpc_code::invalid_argument,
                                   "a WebSocket upgrade is expected"));
    if (!shared_->proxy_acquire(target.key))
      return refuse(error_response(grpc_code::resource_exhausted,
                                   "too many connections to " + target.key,
                                   429));
    drop_timer();
    phase_ = phase::closed;
    closed_ = true;
    shared_->remove(this);
    if (target.tcp) {
      auto keep = std::move(hold_);
      return start_tcp_over_ws(shared_, std::move(stream_), msg,
                               std::move(target));
    }
    std::string early{static_cast<const char*>(buffer_.data().data()),
                      buffer_.size()};
    buffer_.consume(buffer_.size());
    auto first = proxy_request_bytes(msg, remote, is_tls, upgrade);
    auto keep = std::move(hold_);
    start_proxy_conn(shared_, std::move(stream_), std::move(first),
                     std::move(early), upgrade, std::move(target));
  }

  // -- writing --------------------------------------------------------

  void refuse(http_response res) {
    keep_alive_ = false;
    phase_ = phase::responding;
    enqueue_response(std::move(res), false);
    do_write();
  }

  /// A small answer goes out as one buffer; a large one as its head and
  /// its body, moved, not copied behind the head (lists run to megabytes),
  /// or, when shared, written from where it is kept.
  void enqueue_response(http_response res, bool keep_alive) {
    constexpr size_t copy_below = 16 * 1024;
    auto size = res.body_text().size();
    if (size < copy_below) {
      enqueue(serialize_response(res, keep_alive, cfg().server_name), 0);
      return;
    }
    head_options opts;
    opts.keep_alive = keep_alive;
    opts.content_length = size;
    opts.server_name = cfg().server_name;
    enqueue(serialize_head(res.status, res.headers, opts), 0);
    if (res.shared_body)
      out_.push_back(out_item{{}, std::move(res.shared_body), 0});
    else
      enqueue(std::move(res.body), 0);
  }

  void enqueue(std::string bytes, size_t accounted) {
    if (!bytes.empty())
      out_.push_back(out_item{std::move(bytes), nullptr, accounted});
  }

  void do_write() {
    if (writing_ || closed_)
      return;
    if (out_.empty()) {
      if (phase_ == phase::responding)
        finish_request();
      return;
    }
    writing_ = true;
    arm(cfg().write_timeout);
    bufs_.clear();
    in_flight_ = std::min<size_t>(out_.size(), 64);
    for (size_t i = 0; i < in_flight_; ++i)
      bufs_.push_back(net::buffer(out_[i].text()));
    net::async_write(
        stream_, bufs_,
        [self = self()](beast::error_code ec, size_t) { self->on_write(ec); });
  }

  void on_write(beast::error_code ec) {
    writing_ = false;
    if (ec)
      return client_gone();
    for (size_t i = 0; i < in_flight_; ++i) {
      if (out_.front().accounted && flags_)
        flags_->queued_bytes -= out_.front().accounted;
      out_.pop_front();
    }
    in_flight_ = 0;
    if (out_.empty() && phase_ != phase::responding)
      disarm(); // a handler or producer is thinking: no deadline
    do_write();
  }

  void finish_request() {
    auto keep = std::move(hold_);
    flags_.reset();
    link_.reset();
    if (!keep_alive_ || shared_->stopping)
      return linger();
    wait_request();
  }

  // Half-close and read what the client still sends (a body we refused)
  // for a moment, so closing does not reset the connection before the
  // client has read our answer.
  void linger() {
    phase_ = phase::closing;
    beast::error_code ec;
    lowest().socket().shutdown(tcp::socket::shutdown_send, ec);
    arm(std::chrono::seconds{1});
    buffer_.consume(buffer_.size());
    if (!reading_)
      watch();
  }

  // -- closing --------------------------------------------------------

  void client_gone() {
    if (link_)
      link_->gone = true;
    if (flags_)
      flags_->cancel();
    close_now();
  }

  void close_now() {
    if (closed_)
      return;
    auto keep = std::move(hold_);
    closed_ = true;
    phase_ = phase::closed;
    drop_timer();
    if (link_)
      link_->gone = true;
    if (flags_)
      flags_->cancel();
    beast::error_code ec;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    lowest().socket().close(ec);
    shared_->remove(this);
  }

  std::shared_ptr<server_shared> shared_;
  Stream stream_;
  net::steady_timer timer_;
  uint64_t timer_gen_ = 0;
  clock::time_point deadline_{};
  bool armed_ = false;
  bool waiting_ = false;
  std::optional<std::string> peer_;
  beast::flat_buffer buffer_;
  std::optional<request_parser> parser_;
  /// The body limit of the request being read.
  size_t limit_ = 0;
  phase phase_ = phase::idle;
  bool reading_ = false;
  bool writing_ = false;
  bool closed_ = false;
  bool keep_alive_ = true;
  uint64_t seq_ = 0;
  std::shared_ptr<http_link> link_;
  std::shared_ptr<stream_flags> flags_;
  std::shared_ptr<http_session> hold_; // self, while a handler answers
  std::deque<out_item> out_;
  std::vector<net::const_buffer> bufs_;
  size_t in_flight_ = 0;
};

} // namespace

void start_http_session(std::shared_ptr<server_shared> shared,
                        plain_stream stream) {
  std::make_shared<http_session<plain_stream>>(std::move(shared),
                                               std::move(stream))
      ->run();
}

void start_https_session(std::shared_ptr<server_shared> shared,
                         tls_stream stream) {
  std::make_shared<http_session<tls_stream>>(std::move(shared),
                                             std::move(stream))
      ->run();
}

} // namespace det::http::detail
