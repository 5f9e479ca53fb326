#include "tests/support/child_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace det::test {

child_process::child_process(const std::vector<std::string>& argv) {
  int in[2];
  int out[2];
  if (pipe(in) != 0 || pipe(out) != 0)
    throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0)
    throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  in_fd_ = in[1];
  out_fd_ = out[0];
}

child_process::~child_process() {
  if (!status_) {
    ::kill(pid_, SIGKILL);
    wait();
  }
  close_stdin();
  if (out_fd_ >= 0)
    close(out_fd_);
}

std::optional<std::string>
child_process::read_line(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto nl = buf_.find('\n');
    if (nl != std::string::npos) {
      auto line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return line;
    }
    if (eof_)
      return std::nullopt;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return std::nullopt;
    pollfd p{out_fd_, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return std::nullopt;
    char chunk[65536];
    auto n = read(out_fd_, chunk, sizeof(chunk));
    if (n <= 0)
      eof_ = true;
    else
      buf_.append(chunk, static_cast<size_t>(n));
  }
}

void child_process::close_stdin() {
  if (in_fd_ >= 0) {
    close(in_fd_);
    in_fd_ = -1;
  }
}

void child_process::kill(int sig) {
  if (!status_)
    ::kill(pid_, sig);
}

int child_process::wait() {
  if (!status_) {
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  return *status_;
}

} // namespace det::test
