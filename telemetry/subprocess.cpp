#include "telemetry/subprocess.hpp"

#include "messages/errc.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace det::telemetry {

caf::expected<subprocess>
subprocess::spawn(const std::vector<std::string>& argv) {
  if (argv.empty())
    return make_error(errc::invalid_argument, "no program to run");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return make_error(errc::remote_error,
                      std::string{"pipe: "} + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  // The program runs with the default signal mask (ours blocks SIGTERM for
  // sigwait, and a child inherits the mask).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return make_error(errc::not_found,
                      "cannot run " + argv[0] + ": " + std::strerror(rc));
  }
  subprocess p;
  p.pid_ = pid;
  p.fd_ = fds[0];
  return p;
}

subprocess::subprocess(subprocess&& other) noexcept
    : pid_(other.pid_), fd_(other.fd_), eof_(other.eof_),
      buffer_(std::move(other.buffer_)) {
  other.pid_ = -1;
  other.fd_ = -1;
}

subprocess& subprocess::operator=(subprocess&& other) noexcept {
  if (this != &other) {
    this->~subprocess();
    new (this) subprocess(std::move(other));
  }
  return *this;
}

subprocess::~subprocess() {
  if (fd_ >= 0)
    close(fd_);
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
}

std::optional<std::string>
subprocess::read_line(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      auto line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (eof_ || fd_ < 0) {
      eof_ = true;
      auto rest = std::move(buffer_);
      buffer_.clear();
      return rest;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0)
      return std::nullopt;
    pollfd p{fd_, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left.count()));
    if (n == 0)
      return std::nullopt;
    if (n < 0) {
      if (errno == EINTR)
        continue;
      eof_ = true;
      continue;
    }
    char buf[65536];
    auto got = ::read(fd_, buf, sizeof buf);
    if (got > 0)
      buffer_.append(buf, static_cast<size_t>(got));
    else if (got == 0 || errno != EINTR)
      eof_ = true;
  }
}

void subprocess::terminate() {
  if (pid_ > 0)
    kill(pid_, SIGTERM);
}

int subprocess::wait() {
  if (pid_ <= 0)
    return -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

caf::expected<std::string> run_capture(const std::vector<std::string>& argv,
                                       std::chrono::milliseconds timeout) {
  auto p = subprocess::spawn(argv);
  if (!p)
    return p.error();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string out;
  while (!p->eof()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      p->terminate();
      p->wait();
      return make_error(errc::remote_error,
                        argv[0] + ": no answer within "
                            + std::to_string(timeout.count()) + " ms");
    }
    auto line = p->read_line(left);
    if (line && !(p->eof() && line->empty()))
      out += *line + "\n";
  }
  if (auto status = p->wait(); status != 0)
    // exec failure in the child shows as 127.
    return make_error(status == 127 ? errc::not_found : errc::remote_error,
                      argv[0] + " exited with status "
                          + std::to_string(status));
  return out;
}

} // namespace det::telemetry
