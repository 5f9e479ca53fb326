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
  // The polite signals are blocked, not ignored: one sent to the group
  // before the trial exists stays pending here and is passed on to it
  // (an ignored one would be lost, and a kill right after the start with
  // it). SIGCHLD stays pending until sigtimedwait takes it: no handler
  // races.
  sigset_t polite;
  sigemptyset(&polite);
  for (int sig : polite_signals) {
    set_handler(sig, SIG_DFL);
    sigaddset(&polite, sig);
  }
  sigset_t taken = polite;
  sigaddset(&taken, SIGCHLD);
  sigprocmask(SIG_BLOCK, &taken, nullptr);

  pid_t trial = fork();
  if (trial < 0)
    _exit(127);
  if (trial == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(argv[0], argv, envp);
    _exit(127);
  }
  // What reached the group before the trial was in it; later ones reach
  // the trial directly and are only taken off here.
  sigset_t early;
  sigemptyset(&early);
  sigpending(&early);
  for (int sig : polite_signals)
    if (sigismember(&early, sig) == 1)
      kill(trial, sig);

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
    sigtimedwait(&taken, nullptr, &wait);
  }
}

} // namespace det::agent
