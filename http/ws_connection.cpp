// One accepted WebSocket (plain or TLS) and the ws_channel behind the
// ws_session handles given to the application. The connection runs on its
// strand; the channel is the thread-safe side: it queues sends under a
// mutex and posts them through the server's io_gate, so handles may outlive
// the connection and the server.

#include "http/detail/server_core.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <algorithm>
#include <deque>

namespace det::http::detail {

namespace {

namespace websocket = beast::websocket;

/// The connection as its channel sees it.
class ws_conn_iface : public conn_base {
public:
  virtual net::any_io_executor executor() = 0;
  virtual void pump() = 0; // take queued sends / close from the channel
};

class ws_link final : public ws_channel,
                      public std::enable_shared_from_this<ws_link> {
public:
  ws_link(std::shared_ptr<io_gate> gate, http_request req, size_t limit)
      : gate_(std::move(gate)), req_(std::move(req)), limit_(limit) {}

  void attach(std::weak_ptr<ws_conn_iface> conn) { conn_ = std::move(conn); }

  const http_request& request() const override { return req_; }

  bool send(std::string text) override {
    std::lock_guard<std::mutex> guard{mu_};
    if (!open_ || close_requested_)
      return false;
    if (queued_bytes_ + text.size() > limit_) {
      close_requested_ = true;
      close_code_ = 1008;
      close_reason_ = "send queue over limit";
      schedule_locked();
      return false;
    }
    queued_bytes_ += text.size();
    outbox_.push_back(std::move(text));
    schedule_locked();
    return true;
  }

  void close(uint16_t code, std::string reason) override {
    std::lock_guard<std::mutex> guard{mu_};
    if (!open_ || close_requested_)
      return;
    close_requested_ = true;
    close_code_ = code;
    close_reason_ = std::move(reason);
    schedule_locked();
  }

  bool is_open() const override {
    std::lock_guard<std::mutex> guard{mu_};
    return open_;
  }

  void set_on_message(std::function<void(std::string)> fn) override {
    std::lock_guard<std::mutex> guard{mu_};
    on_message_ = std::move(fn);
  }

  void set_on_close(std::function<void(ws_close_info)> fn) override {
    std::lock_guard<std::mutex> guard{mu_};
    on_close_ = std::move(fn);
  }

  // -- the connection's side, on its strand --------------------------

  void mark_open() {
    std::lock_guard<std::mutex> guard{mu_};
    open_ = true;
  }

  void deliver_message(std::string text) {
    std::function<void(std::string)> fn;
    {
      std::lock_guard<std::mutex> guard{mu_};
      fn = on_message_;
    }
    if (fn)
      fn(std::move(text));
  }

  /// Runs on_close once; later sends return false.
  void finish(ws_close_info info) {
    std::function<void(ws_close_info)> fn;
    {
      std::lock_guard<std::mutex> guard{mu_};
      if (finished_)
        return;
      finished_ = true;
      open_ = false;
      outbox_.clear();
      fn = std::move(on_close_);
      on_message_ = nullptr;
    }
    if (fn) {
      try {
        fn(std::move(info));
      } catch (...) {
      }
    }
  }

  struct batch {
    std::deque<std::string> texts;
    bool close = false;
    uint16_t code = 1000;
    std::string reason;
  };

  batch take() {
    std::lock_guard<std::mutex> guard{mu_};
    batch b;
    b.texts.swap(outbox_);
    b.close = close_requested_;
    b.code = close_code_;
    b.reason = close_reason_;
    scheduled_ = false;
    return b;
  }

  void written(size_t n) {
    std::lock_guard<std::mutex> guard{mu_};
    queued_bytes_ -= n;
  }

private:
  void schedule_locked() {
    if (scheduled_)
      return;
    scheduled_ = true;
    auto self = shared_from_this();
    bool posted = gate_->post([self] {
      auto conn = self->conn_.lock();
      if (!conn)
        return;
      net::dispatch(conn->executor(), [conn] { conn->pump(); });
    });
    if (!posted)
      scheduled_ = false;
  }

  std::shared_ptr<io_gate> gate_;
  std::weak_ptr<ws_conn_iface> conn_;
  const http_request req_;
  const size_t limit_;
  mutable std::mutex mu_;
  std::deque<std::string> outbox_;
  size_t queued_bytes_ = 0;
  bool scheduled_ = false;
  bool open_ = false;
  bool finished_ = false;
  bool close_requested_ = false;
  uint16_t close_code_ = 1000;
  std::string close_reason_;
  std::function<void(std::string)> on_message_;
  std::function<void(ws_close_info)> on_close_;
};

template <class Stream> class ws_connection final : public ws_conn_iface {
public:
  ws_connection(std::shared_ptr<server_shared> shared, Stream stream,
                std::shared_ptr<ws_link> link, const ws_route& route)
      : shared_(std::move(shared)), ws_(std::move(stream)),
        link_(std::move(link)), on_accept_(route.on_accept) {}

  ~ws_connection() override {
    link_->finish(ws_close_info{1006, "connection dropped"});
    shared_->remove(this);
  }

  void run(raw_request upgrade) {
    shared_->add(shared_from_this());
    link_->attach(std::static_pointer_cast<ws_conn_iface>(shared_from_this()));
    websocket::stream_base::timeout opt;
    opt.handshake_timeout = shared_->cfg.read_timeout;
    opt.idle_timeout = shared_->cfg.ws_idle_timeout;
    opt.keep_alive_pings = true;
    ws_.set_option(opt);
    // The size is counted in on_read (Boost 1.74's own limit resets the
    // connection instead of closing it).
    ws_.read_message_max(0);
    ws_.set_option(websocket::stream_base::decorator(
        [name = shared_->cfg.server_name](websocket::response_type& res) {
          if (!name.empty())
            res.set(bhttp::field::server, name);
        }));
    auto self = self_ptr();
    auto req = std::make_shared<raw_request>(std::move(upgrade));
    net::dispatch(ws_.get_executor(), [self, req] {
      self->ws_.async_accept(
          *req, [self, req](beast::error_code ec) { self->on_accept(ec); });
    });
  }

  net::any_io_executor executor() override { return ws_.get_executor(); }

  void pump() override {
    auto b = link_->take();
    for (auto& t : b.texts)
      out_.push_back(std::move(t));
    if (b.close && !close_wanted_) {
      close_wanted_ = true;
      close_reason_.code = b.code;
      close_reason_.reason = b.reason;
    }
    do_write();
  }

  void begin_shutdown() override {
    net::dispatch(ws_.get_executor(), [self = self_ptr()] {
      if (!self->close_wanted_) {
        self->close_wanted_ = true;
        self->close_reason_ = websocket::close_reason{
            websocket::close_code::going_away, "server stopping"};
      }
      self->do_write();
    });
  }

  void force_close() override {
    net::dispatch(ws_.get_executor(), [self = self_ptr()] {
      beast::error_code ec;
      beast::get_lowest_layer(self->ws_).socket().close(ec);
      self->finish(ws_close_info{1006, "server stopped"});
    });
  }

private:
  std::shared_ptr<ws_connection> self_ptr() {
    return std::static_pointer_cast<ws_connection>(shared_from_this());
  }

  void on_accept(beast::error_code ec) {
    if (ec)
      return finish(ws_close_info{1006, "handshake failed: " + ec.message()});
    accepted_ = true;
    link_->mark_open();
    try {
      if (on_accept_)
        on_accept_(ws_session{link_});
    } catch (...) {
      close_wanted_ = true;
      close_reason_ = websocket::close_reason{
          websocket::close_code::internal_error, "accept handler failed"};
    }
    do_read();
    pump();
  }

  /// A message at a time, read in parts into a buffer that never holds
  /// more than the body limit. An oversized message is refused with a
  /// closing handshake (1009); what the peer sends until its close is read
  /// and dropped.
  void do_read() {
    auto limit = shared_->cfg.body_limit;
    auto room = limit - std::min(rbuf_.size(), limit);
    if (room == 0 && !refusing_) {
      refusing_ = true;
      rbuf_.consume(rbuf_.size());
      if (!close_wanted_) {
        close_wanted_ = true;
        close_reason_ = websocket::close_reason{websocket::close_code::too_big,
                                                "message too big"};
      }
      do_write();
      room = read_chunk;
    }
    ws_.async_read_some(rbuf_, std::min(room, read_chunk),
                        [self = self_ptr()](beast::error_code ec, size_t) {
                          self->on_read(ec);
                        });
  }

  void on_read(beast::error_code ec) {
    if (ec) {
      if (ec == websocket::error::closed) {
        auto r = ws_.reason();
        return finish(ws_close_info{refusing_ ? close_reason_.code : r.code,
                                    refusing_ ? "message too big"
                                              : std::string{r.reason.c_str()}});
      }
      return finish(ws_close_info{1006, ec.message()});
    }
    if (refusing_) {
      rbuf_.consume(rbuf_.size());
      return do_read();
    }
    if (!ws_.is_message_done())
      return do_read();
    auto text = beast::buffers_to_string(rbuf_.data());
    rbuf_.consume(rbuf_.size());
    try {
      link_->deliver_message(std::move(text));
    } catch (...) {
      // A throwing callback is a bug upstream of us; drop the peer rather
      // than the I/O thread.
      return finish(ws_close_info{1011, "message handler failed"});
    }
    if (!finished_)
      do_read();
  }

  void do_write() {
    if (writing_ || finished_ || !accepted_)
      return;
    if (!out_.empty()) {
      writing_ = true;
      ws_.text(true);
      ws_.async_write(net::buffer(out_.front()),
                      [self = self_ptr()](beast::error_code ec, size_t) {
                        self->on_write(ec);
                      });
      return;
    }
    if (close_wanted_ && !close_sent_) {
      close_sent_ = true;
      writing_ = true;
      ws_.async_close(close_reason_, [self = self_ptr()](beast::error_code ec) {
        self->writing_ = false;
        // Our close was answered (the pending read is then aborted), or
        // the close failed.
        if (ec)
          return self->finish(ws_close_info{1006, ec.message()});
        self->finish(
            ws_close_info{self->close_reason_.code,
                          std::string{self->close_reason_.reason.c_str()}});
      });
    }
  }

  void on_write(beast::error_code ec) {
    writing_ = false;
    if (finished_)
      return; // out_ may be gone with the connection; nothing more to do
    if (ec)
      return finish(ws_close_info{1006, ec.message()});
    link_->written(out_.front().size());
    out_.pop_front();
    do_write();
  }

  void finish(ws_close_info info) {
    if (finished_)
      return;
    finished_ = true;
    // out_ stays: a write in flight still reads its front element.
    beast::error_code ec;
    beast::get_lowest_layer(ws_).socket().close(ec);
    shared_->remove(this);
    link_->finish(std::move(info));
  }

  std::shared_ptr<server_shared> shared_;
  websocket::stream<Stream> ws_;
  std::shared_ptr<ws_link> link_;
  ws_accept_handler on_accept_;
  beast::flat_buffer rbuf_;
  std::deque<std::string> out_;
  bool accepted_ = false;
  bool writing_ = false;
  bool finished_ = false;
  bool close_wanted_ = false;
  bool close_sent_ = false;
  /// An oversized message was refused: reads are dropped until the close.
  bool refusing_ = false;
  websocket::close_reason close_reason_;
  static constexpr size_t read_chunk = 64 * 1024;
};

template <class Stream>
void start_ws(std::shared_ptr<server_shared> shared, Stream stream,
              raw_request upgrade, http_request req, const ws_route& route) {
  auto link = std::make_shared<ws_link>(shared->gate, std::move(req),
                                        shared->cfg.send_queue_limit);
  auto conn = std::make_shared<ws_connection<Stream>>(
      std::move(shared), std::move(stream), std::move(link), route);
  conn->run(std::move(upgrade));
}

} // namespace

void start_ws_session(std::shared_ptr<server_shared> shared,
                      plain_stream stream, raw_request upgrade,
                      http_request req, const ws_route& route) {
  start_ws(std::move(shared), std::move(stream), std::move(upgrade),
           std::move(req), route);
}

void start_ws_session(std::shared_ptr<server_shared> shared, tls_stream stream,
                      raw_request upgrade, http_request req,
                      const ws_route& route) {
  start_ws(std::move(shared), std::move(stream), std::move(upgrade),
           std::move(req), route);
}

} // namespace det::http::detail
