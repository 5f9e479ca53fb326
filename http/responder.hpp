#pragma once

// How a handler answers. A handler receives a `responder` with its request
// and may answer at once or later from ANY thread (typically from a CAF
// actor's reply handler). The server marshals the answer onto its own I/O
// thread; if the client has gone away or the server has stopped, the answer
// is dropped quietly. Copies of a responder share one answer: the first
// send() or stream() wins and later calls are ignored. If every copy is
// destroyed without an answer, the client gets a 500 (Internal), so a
// forgotten reply cannot hang a connection.

#include "http/grpc_error.hpp"
#include "http/http_message.hpp"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace det::http {

namespace detail {

/// The cancellation state of one streamed response, shared by the producer
/// handle and the connection that writes it.
class stream_flags {
public:
  /// Marks the stream cancelled and runs the on_cancel callback once.
  void cancel();
  [[nodiscard]] bool cancelled() const { return cancelled_.load(); }
  /// Runs `fn` at once if already cancelled, otherwise on cancel().
  void on_cancel(std::function<void()> fn);

  /// Bytes pushed by the producer and not yet written to the socket.
  std::atomic<size_t> queued_bytes{0};
  /// Cancel the stream when queued_bytes would exceed this.
  std::atomic<size_t> queue_limit{16u << 20};

private:
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::function<void()> on_cancel_;
  bool fired_ = false;
};

/// What the server implements for one request awaiting an answer. Every
/// method may be called from any thread, in order; the implementation
/// queues the calls and applies them on its I/O thread in the same order.
class reply_sink {
public:
  virtual ~reply_sink();
  virtual void send_response(http_response res) = 0;
  virtual void start_stream(int status, header_map headers,
                            std::shared_ptr<stream_flags> flags) = 0;
  virtual void stream_data(std::string data) = 0;
  virtual void end_stream() = 0;
  /// True once the server knows the client closed its connection.
  [[nodiscard]] virtual bool client_gone() const = 0;
};

struct reply_state;
struct stream_producer;

} // namespace detail

/// The producer side of a chunked response whose body is newline-delimited
/// JSON (`det trial logs -f`). Copyable; copies share the stream; when the
/// last copy is destroyed the stream is closed. Writes from any thread are
/// queued in order. A write returns false once the client has gone away,
/// the server stopped, or more than the server's stream buffer limit is
/// queued unwritten: the producer should then stop.
class chunk_stream {
public:
  chunk_stream() = default;
  explicit chunk_stream(std::shared_ptr<detail::stream_producer> p);

  /// Sends `line` plus '\n' as one chunk.
  [[nodiscard]] bool write_line(std::string line) const;
  /// Sends {"result":<result_json>}\n.
  [[nodiscard]] bool write_result(std::string_view result_json) const;
  /// Sends a mid-stream error line, then closes the stream.
  void fail(grpc_code code, std::string_view message) const;
  /// Ends the body (the terminating zero-length chunk). Idempotent.
  void close() const;

  [[nodiscard]] bool cancelled() const;
  /// Runs `fn` once when the stream is cancelled (client gone, server
  /// stopping, buffer limit); at once if it already is. `fn` runs on a
  /// server thread or the caller's: it must be quick and must not block.
  void on_cancel(std::function<void()> fn) const;

private:
  std::shared_ptr<detail::stream_producer> p_;
};

class responder {
public:
  explicit responder(std::shared_ptr<detail::reply_sink> sink);

  /// Answers with a complete response. Ignored after the first answer.
  void send(http_response res) const;
  /// Answers with the upstream error JSON.
  void send_error(grpc_code code, std::string_view message) const;
  /// Answers 200 with `json` as body (already serialised).
  void send_json(std::string json) const;

  /// Answers with a chunked stream: sends the status line and headers now
  /// (Content-Type defaults to application/json) and returns the producer.
  /// After another answer, returns a stream whose writes return false.
  [[nodiscard]] chunk_stream stream(int status = 200,
                                    header_map headers = {}) const;

  /// True once any copy answered.
  [[nodiscard]] bool answered() const;
  /// True once the server noticed that the client disconnected; a long
  /// poll may then stop early (answering is still harmless).
  [[nodiscard]] bool client_gone() const;

  /// A responder that hands the response to `fn` on the answering thread,
  /// for testing handlers without a server. Streams are not supported
  /// (their writes return false). A shared body arrives copied into
  /// `body`.
  [[nodiscard]] static responder capture(std::function<void(http_response)> fn);

private:
  std::shared_ptr<detail::reply_state> state_;
};

} // namespace det::http
