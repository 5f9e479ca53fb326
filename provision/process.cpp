#include "provision/process.hpp"

#include "messages/errc.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace det::provision {

namespace {

int exit_code_of(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return -1;
}

} // namespace

caf::expected<pid_t> start_process(const process_spec& spec) {
  if (spec.argv.empty())
    return make_error(errc::invalid_argument, "empty command");
  std::vector<char*> argv;
  for (const auto& a : spec.argv)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The environment is built before fork: the child may only exec.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv{*e};
    auto name = kv.substr(0, kv.find('=') + 1);
    bool replaced = false;
    for (const auto& add : spec.env)
      replaced = replaced || add.compare(0, name.size(), name) == 0;
    if (!replaced)
      env_text.push_back(std::move(kv));
  }
  env_text.insert(env_text.end(), spec.env.begin(), spec.env.end());
  std::vector<char*> envp;
  for (auto& kv : env_text)
    envp.push_back(kv.data());
  envp.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return make_error(errc::remote_error, std::strerror(errno));
  auto pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return make_error(errc::remote_error, std::strerror(errno));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    close(fds[0]);
    if (spec.new_session)
      setsid();
    auto out = spec.output_file.empty()
                   ? open("/dev/null", O_WRONLY)
                   : open(spec.output_file.c_str(),
                          O_WRONLY | O_CREAT | O_APPEND, 0644);
    auto in = open("/dev/null", O_RDONLY);
    if (in >= 0)
      dup2(in, 0);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    // Nothing of the master's but stdio and the error pipe reaches the
    // child: an inherited listening socket would keep the master's port
    // bound after the master dies, and a restarted master could not serve.
    auto err_fd = static_cast<unsigned>(fds[1]);
    if (err_fd > 3)
      close_range(3, err_fd - 1, 0);
    close_range(err_fd + 1, ~0U, 0);
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
      int e = errno;
      (void)!write(fds[1], &e, sizeof e);
      _exit(127);
    }
    execvpe(argv[0], argv.data(), envp.data());
    int e = errno;
    (void)!write(fds[1], &e, sizeof e);
    _exit(127);
  }
  close(fds[1]);
  int child_errno = 0;
  auto n = read(fds[0], &child_errno, sizeof child_errno);
  close(fds[0]);
  if (n == sizeof child_errno) {
    int status = 0;
    waitpid(pid, &status, 0);
    return make_error(errc::remote_error, "cannot run " + spec.argv[0] + ": "
                                              + std::strerror(child_errno));
  }
  return pid;
}

caf::expected<int> run_process(const process_spec& spec) {
  auto pid = start_process(spec);
  if (!pid)
    return std::move(pid.error());
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0)
    if (errno != EINTR)
      return make_error(errc::remote_error, std::strerror(errno));
  return exit_code_of(status);
}

int try_reap(pid_t pid) {
  int status = 0;
  auto r = waitpid(pid, &status, WNOHANG);
  if (r == 0)
    return -1;
  if (r < 0)
    return -2;
  return exit_code_of(status);
}

} // namespace det::provision
