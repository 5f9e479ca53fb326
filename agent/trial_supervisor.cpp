#include "agent/trial_supervisor.hpp"

#include <cerrno>
#include <csignal>
#include <ctime>

#include <sys/wait.h>
#include <unistd.h>

namespace det::agent {

namespace {

void set_handler(int sig, void (*handler)(int)) {
  struct sigaction sa = {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

constexpr int polite_signals[] = {SIGTERM, SIGINT, SIGHUP};

} // namespace

void supervise_trial(pid_t agent, char* const argv[], char* const envp[],
                     std::chrono::milliseconds parent_check) {
  for (int sig : polite_signals)
    set_handler(sig, SIG_IGN);
  // SIGCHLD stays pending until sigtimedwait takes it: no handler races.
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);

  pid_t trial = fork();
  if (trial < 0)
    _exit(127);
  if (trial == 0) {
    for (int sig : polite_signals)
      set_handler(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(argv[0], argv, envp);
    _exit(127);
  }

  timespec wait = {};
  wait.tv_sec = static_cast<time_t>(parent_check.count() / 1000);
  wait.tv_nsec = static_cast<long>((parent_check.count() % 1000) * 1000000);
  for (;;) {
    int status = 0;
    pid_t r = waitpid(trial, &status, WNOHANG);
    if (r == trial) {
      if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
      if (WIFSIGNALED(status))
        _exit(128 + WTERMSIG(status));
      _exit(255);
    }
    if (r < 0 && errno != EINTR)
      _exit(255);
    if (getppid() != agent) {
      // The agent is gone: so is everything it started here.
      kill(0, SIGKILL);
      _exit(128 + SIGKILL);
    }
    sigtimedwait(&chld, nullptr, &wait);
  }
}

} // namespace det::agent
