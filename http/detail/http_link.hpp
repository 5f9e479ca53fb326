#pragma once

// Private to http_session.cpp: the link through which responders on other
// threads reach an HTTP session (http_link, the reply_sink behind one
// request's responder), and what a link needs of its session
// (http_conn_iface). A link's calls are queued under a mutex and applied in
// order on the session's strand.

#include "http/detail/server_core.hpp"
#include "http/responder.hpp"

#include <boost/asio/dispatch.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace det::http::detail {

/// One queued call from a responder or stream producer.
struct http_op {
  enum kind_t { response, stream_head, stream_data, stream_end };
  kind_t kind = response;
  http_response res; // response; status and headers of stream_head
  std::shared_ptr<stream_flags> flags;
  std::string data;
};

/// What a link needs from its connection, whatever the stream type.
class http_conn_iface : public conn_base {
public:
  virtual net::any_io_executor executor() = 0;
  virtual void apply(uint64_t seq, std::vector<http_op>& ops) = 0;
};

/// The reply_sink behind one request's responder. Thread-safe: calls are
/// queued under a mutex and applied in order on the connection's strand.
class http_link final : public reply_sink,
                        public std::enable_shared_from_this<http_link> {
public:
  http_link(std::shared_ptr<io_gate> gate, std::weak_ptr<http_conn_iface> conn,
            uint64_t seq)
      : gate_(std::move(gate)), conn_(std::move(conn)), seq_(seq) {}

  void send_response(http_response res) override {
    http_op op;
    op.res = std::move(res);
    push(std::move(op));
  }

  void start_stream(int status, header_map headers,
                    std::shared_ptr<stream_flags> flags) override {
    http_op op;
    op.kind = http_op::stream_head;
    op.res.status = status;
    op.res.headers = std::move(headers);
    op.flags = std::move(flags);
    push(std::move(op));
  }

  void stream_data(std::string data) override {
    http_op op;
    op.kind = http_op::stream_data;
    op.data = std::move(data);
    push(std::move(op));
  }

  void end_stream() override {
    http_op op;
    op.kind = http_op::stream_end;
    push(std::move(op));
  }

  bool client_gone() const override { return gone.load(); }

  std::atomic<bool> gone{false};

private:
  void push(http_op op) {
    std::lock_guard<std::mutex> guard{mu_};
    if (op.kind == http_op::stream_head && gone.load())
      op.flags->cancel();
    ops_.push_back(std::move(op));
    if (scheduled_)
      return;
    scheduled_ = true;
    auto self = shared_from_this();
    if (!gate_->post([self] { self->deliver(); }))
      drop_locked();
  }

  void drop_locked() {
    for (auto& op : ops_)
      if (op.flags)
        op.flags->cancel();
    ops_.clear();
    scheduled_ = false;
  }

  // On an I/O thread: hop onto the connection's strand, if it still lives.
  void deliver() {
    auto conn = conn_.lock();
    if (!conn) {
      std::lock_guard<std::mutex> guard{mu_};
      drop_locked();
      return;
    }
    auto self = shared_from_this();
    net::dispatch(conn->executor(), [self, conn] {
      std::vector<http_op> ops;
      {
        std::lock_guard<std::mutex> guard{self->mu_};
        ops.swap(self->ops_);
        self->scheduled_ = false;
      }
      conn->apply(self->seq_, ops);
    });
  }

  std::shared_ptr<io_gate> gate_;
  std::weak_ptr<http_conn_iface> conn_;
  const uint64_t seq_;
  std::mutex mu_;
  std::vector<http_op> ops_;
  bool scheduled_ = false;
};

} // namespace det::http::detail
