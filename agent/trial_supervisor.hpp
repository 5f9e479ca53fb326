#pragma once

// The first process of every trial: trial_process::start forks it (the
// process group leader) and it, instead of exec'ing the trial itself, forks
// the trial command and stays beside it. Its one job is that a trial never
// outlives det-agent unnoticed: when its parent changes (det-agent died,
// even by SIGKILL, and it was re-parented) it SIGKILLs its whole process
// group, itself included, within `parent_check`. Otherwise it exits with
// the trial's status (exit code N, or 128+N for signal N), so the agent
// sees what it saw before.
//
// It takes SIGTERM, SIGINT and SIGHUP, which the agent's kill() sends to
// the group for the trial, without dying of them (the trial gets them at
// their defaults), so the kill grace period still applies; SIGKILL to the
// group ends it with the trial. One that came before the trial existed
// (a kill right after the start) is passed on to the trial.
//
// PR_SET_PDEATHSIG is not used: it fires when the forking *thread* exits,
// and the agent forks from short-lived worker threads.
//
// Runs between fork() and exec() of a multi-threaded program: only
// async-signal-safe calls (fork, execve, waitpid, kill, getppid,
// sigaction, sigprocmask, sigpending, sigtimedwait, _exit), no allocation.

#include <chrono>

#include <sys/types.h>

namespace det::agent {

/// Never returns. `agent` is det-agent's pid as read before fork();
/// `argv`/`envp` are execve's (argv[0] is the program path).
[[noreturn]] void supervise_trial(
    pid_t agent, char* const argv[], char* const envp[],
    std::chrono::milliseconds parent_check = std::chrono::milliseconds{200});

} // namespace det::agent
