#include "http/ws_session.hpp"

namespace det::http {

namespace detail {
ws_channel::~ws_channel() = default;
} // namespace detail

ws_session::ws_session(std::shared_ptr<detail::ws_channel> ch)
    : ch_(std::move(ch)) {}

const http_request& ws_session::request() const {
  return ch_->request();
}

bool ws_session::send(std::string text) const {
  return ch_->send(std::move(text));
}

void ws_session::close(uint16_t code, std::string reason) const {
  ch_->close(code, std::move(reason));
}

bool ws_session::is_open() const {
  return ch_->is_open();
}

void ws_session::on_message(std::function<void(std::string)> fn) const {
  ch_->set_on_message(std::move(fn));
}

void ws_session::on_close(std::function<void(ws_close_info)> fn) const {
  ch_->set_on_close(std::move(fn));
}

} // namespace det::http
