#include "agent/trial_process.hpp"

#include "agent/trial_supervisor.hpp"

#include "messages/errc.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace det::agent {

namespace {

/// The child's environment: the allow-listed part of ours
/// (trial_environment_allowed) with `extra` added or replaced. Nothing else
/// of the agent's environment reaches the trial: not its token, cloud
/// credentials or database settings.
std::vector<std::string>
merged_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string kv{*e};
    auto name = kv.substr(0, kv.find('='));
    if (extra.count(name) == 0 && trial_environment_allowed(name))
      out.push_back(std::move(kv));
  }
  for (auto& [k, v] : extra)
    out.push_back(k + "=" + v);
  return out;
}

int decode_status(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return 255;
}

} // namespace

std::map<std::string, std::string> trial_base_environment() {
  std::map<std::string, std::string> out;
  for (const auto& kv : merged_environment({})) {
    auto eq = kv.find('=');
    if (eq != std::string::npos)
      out.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return out;
}

bool trial_environment_allowed(std::string_view name) {
  static constexpr std::string_view exact[] = {
      "PATH",        "HOME",
      "USER",        "LOGNAME",
      "SHELL",       "LANG",
      "LANGUAGE",    "TZ",
      "TERM",        "TMPDIR",
      "PYTHONPATH",  "PYTHONHOME",
      "VIRTUAL_ENV", "LD_LIBRARY_PATH",
      "CUDA_HOME",   "CUDA_VISIBLE_DEVICES",
      "HOSTNAME",
  };
  static constexpr std::string_view prefixes[] = {"LC_", "PYENV_", "CONDA_",
                                                  "NVIDIA_"};
  for (auto e : exact)
    if (name == e)
      return true;
  for (auto p : prefixes)
    if (name.substr(0, p.size()) == p)
      return true;
  return false;
}

caf::expected<std::unique_ptr<trial_process>>
trial_process::start(const process_spec& spec, process_callbacks cb,
                     process_options opts) {
  // Everything the child needs is built before fork(): after it, only
  // async-signal-safe calls.
  auto env = merged_environment(spec.env);
  std::vector<char*> envp;
  for (auto& kv : env)
    envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::string sh = "/bin/sh";
  std::string dash_c = "-c";
  auto command = spec.command;
  char* argv[] = {sh.data(), dash_c.data(), command.data(), nullptr};
  const auto agent_pid = getpid();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return make_error(errc::remote_error,
                      std::string{"pipe: "} + std::strerror(errno));
  auto pid = fork();
  if (pid < 0) {
    auto err = errno;
    close(fds[0]);
    close(fds[1]);
    return make_error(errc::remote_error,
                      std::string{"fork: "} + std::strerror(err));
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
      dup2(devnull, STDIN_FILENO);
    // Restore what the agent may have blocked or ignored.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    if (!spec.work_dir.empty() && chdir(spec.work_dir.c_str()) != 0)
      _exit(127);
    supervise_trial(agent_pid, argv, envp.data()); // never returns
  }
  // Also here, so a kill() right after start() finds the group.
  setpgid(pid, pid);
  close(fds[1]);
  return std::unique_ptr<trial_process>{
      new trial_process(pid, fds[0], std::move(cb), opts)};
}

std::chrono::milliseconds
log_wait_of(const std::map<std::string, std::string>& env) {
  auto i = env.find("DET_LOG_WAIT_TIME");
  if (i != env.end()) {
    char* end = nullptr;
    errno = 0;
    auto secs = std::strtol(i->second.c_str(), &end, 10);
    if (errno == 0 && end != i->second.c_str() && *end == '\0' && secs >= 0
        && secs <= 3600)
      return std::chrono::seconds{secs};
  }
  return std::chrono::seconds{30};
}

trial_process::trial_process(pid_t pid, int out_fd, process_callbacks cb,
                             process_options opts)
    : pid_(pid), out_fd_(out_fd), cb_(std::move(cb)), opts_(opts) {
  reader_ = std::thread{[this] { read_output(); }};
  waiter_ = std::thread{[this] { wait_exit(); }};
}

trial_process::~trial_process() {
  {
    std::lock_guard<std::mutex> guard{mu_};
    if (!exit_code_)
      ::kill(-pid_, SIGKILL);
    kill_requested_ = true;
  }
  cv_.notify_all();
  if (waiter_.joinable())
    waiter_.join();
  if (killer_.joinable())
    killer_.join();
}

void trial_process::read_output() {
  std::vector<std::string> batch;
  std::string partial;
  auto first_pending = std::chrono::steady_clock::now();
  auto flush = [&] {
    if (batch.empty())
      return;
    if (cb_.on_lines)
      cb_.on_lines(std::move(batch));
    batch.clear();
  };
  char buf[8192];
  for (;;) {
    pollfd p{out_fd_, POLLIN, 0};
    auto rc = poll(&p, 1, static_cast<int>(opts_.flush_interval.count()));
    if (rc < 0 && errno == EINTR)
      continue;
    {
      std::lock_guard<std::mutex> guard{mu_};
      if (output_abandoned_)
        break;
    }
    if (rc > 0) {
      auto n = read(out_fd_, buf, sizeof(buf));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      partial.append(buf, static_cast<size_t>(n));
      size_t pos;
      while ((pos = partial.find('\n')) != std::string::npos) {
        if (batch.empty())
          first_pending = std::chrono::steady_clock::now();
        batch.push_back(partial.substr(0, pos));
        partial.erase(0, pos + 1);
        if (batch.size() >= opts_.batch_lines)
          flush();
      }
    }
    if (!batch.empty()
        && std::chrono::steady_clock::now() - first_pending
               >= opts_.flush_interval)
      flush();
  }
  if (!partial.empty())
    batch.push_back(std::move(partial));
  flush();
  close(out_fd_);
  {
    std::lock_guard<std::mutex> guard{mu_};
    output_done_ = true;
  }
  cv_.notify_all();
}

void trial_process::wait_exit() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  // Leftovers of the group keep the pipe open: what they write within
  // log_wait is kept (unless a kill was asked), then they are killed.
  {
    std::unique_lock<std::mutex> lock{mu_};
    cv_.wait_for(lock, opts_.log_wait,
                 [this] { return output_done_ || kill_requested_; });
  }
  ::kill(-pid_, SIGKILL);
  {
    std::unique_lock<std::mutex> lock{mu_};
    if (!cv_.wait_for(lock, opts_.orphan_output_wait,
                      [this] { return output_done_; }))
      output_abandoned_ = true;
  }
  reader_.join();
  auto code = decode_status(status);
  {
    std::lock_guard<std::mutex> guard{mu_};
    exit_code_ = code;
  }
  cv_.notify_all();
  if (cb_.on_exit)
    cb_.on_exit(code);
  {
    std::lock_guard<std::mutex> guard{mu_};
    exited_ = true;
  }
  cv_.notify_all();
}

void trial_process::kill() {
  std::lock_guard<std::mutex> guard{mu_};
  if (kill_requested_ || exit_code_)
    return;
  kill_requested_ = true;
  ::kill(-pid_, SIGTERM);
  killer_ = std::thread{[this] {
    std::unique_lock<std::mutex> lock{mu_};
    if (!cv_.wait_for(lock, opts_.kill_grace,
                      [this] { return exit_code_.has_value(); }))
      ::kill(-pid_, SIGKILL);
  }};
}

bool trial_process::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock{mu_};
  return cv_.wait_for(lock, timeout, [this] { return exited_; });
}

std::optional<int> trial_process::exit_code() const {
  std::lock_guard<std::mutex> guard{mu_};
  return exit_code_;
}

} // namespace det::agent
