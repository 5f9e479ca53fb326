#include "test_support.hpp"

#include "util/text.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <poll.h>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace det::aws::test {

namespace {} // namespace

std::string helper(const std::string& name) {
  return std::string(DET_TEST_AWS_DIR) + "/" + name;
}

command_result run_command(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv)
    cmd += util::shell_quote(a) + " ";
  command_result res;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr)
    return res;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
    res.out.append(buf, n);
  int status = pclose(p);
  res.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return res;
}

std::string moto_url() {
  if (const char* url = std::getenv("DET_TEST_MOTO_URL"))
    return url;
  const char* file = std::getenv("DET_TEST_MOTO_URL_FILE");
  if (file == nullptr)
    return {};
  std::ifstream in(file);
  std::string url;
  std::getline(in, url);
  return url;
}

child_process::child_process(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0)
    return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  out_fd_ = fds[0];
}

child_process::~child_process() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (out_fd_ >= 0)
    close(out_fd_);
}

std::string child_process::read_line(int timeout_ms) {
  for (;;) {
    auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      auto line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    pollfd pfd{out_fd_, POLLIN, 0};
    if (out_fd_ < 0 || poll(&pfd, 1, timeout_ms) <= 0)
      return {};
    char buf[1024];
    auto n = read(out_fd_, buf, sizeof(buf));
    if (n <= 0)
      return {};
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

} // namespace det::aws::test
