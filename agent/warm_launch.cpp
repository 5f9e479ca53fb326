#include "agent/warm_launch.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace det::agent {

namespace wire {

int connect_to(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path))
    return -1;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_header(int sock, uint32_t body_size, const int (&fds)[3]) {
  uint32_t n = htonl(body_size);
  char head[4];
  std::memcpy(head, &n, 4);
  iovec iov{head, 4};
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(fds))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl;
  msg.msg_controllen = sizeof(ctrl);
  auto* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(fds));
  std::memcpy(CMSG_DATA(c), fds, sizeof(fds));
  return ::sendmsg(sock, &msg, MSG_NOSIGNAL) == 4;
}

} // namespace wire

namespace {

/// `s` in single quotes for /bin/sh.
std::string sh_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
  return out + "'";
}

/// The request: length, then "cwd\0pgid\0K=V\0...", with fds 0, 1, 2.
bool send_request(int fd) {
  std::vector<char> cwd(4096);
  if (::getcwd(cwd.data(), cwd.size()) == nullptr)
    return false;
  std::string body =
      std::string{cwd.data()} + '\0' + std::to_string(::getpgrp());
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    body += std::string{"\0", 1} + *e;
  if (!wire::send_header(fd, static_cast<uint32_t>(body.size()), {0, 1, 2}))
    return false;
  size_t sent = 0;
  while (sent < body.size()) {
    auto w = ::send(fd, body.data() + sent, body.size() - sent, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    sent += static_cast<size_t>(w);
  }
  return true;
}

/// The next line from the server ("" at its end).
std::string read_line(int fd) {
  std::string line;
  char c = 0;
  while (true) {
    auto r = ::read(fd, &c, 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0 || c == '\n')
      return line;
    if (line.size() < 64)
      line += c;
  }
}

/// Signals that reached this client before the server said which child
/// it forked (by number; set from the handler).
volatile std::sig_atomic_t early_signal[NSIG] = {};

void remember_signal(int sig) {
  if (sig > 0 && sig < NSIG)
    early_signal[sig] = 1;
}

constexpr int trial_signals[] = {SIGINT,  SIGTERM, SIGHUP,
                                 SIGUSR1, SIGUSR2, SIGWINCH};

void set_trial_signals(void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  for (int s : trial_signals)
    ::sigaction(s, &sa, nullptr);
}

} // namespace

std::optional<int> warm_launch_client(const std::string& socket) {
  int fd = wire::connect_to(socket);
  if (fd < 0)
    return std::nullopt;
  if (!send_request(fd)) {
    ::close(fd);
    return std::nullopt;
  }
  // The trial's group gets its signals, and the child is in it once the
  // server says "pid" (it moves the child before it answers). A signal to
  // the group before then may have missed the child: this client keeps it
  // and passes it on. Afterwards the client only stays to report the
  // child's exit, which the server sends.
  set_trial_signals(remember_signal);
  auto first = read_line(fd);
  if (first.rfind("pid ", 0) != 0) {
    ::close(fd);
    set_trial_signals(SIG_DFL);
    for (int s : trial_signals) // as if no launcher had been asked
      if (early_signal[s])
        ::raise(s);
    return std::nullopt; // "cold", or the server went away before forking
  }
  auto child = static_cast<pid_t>(std::atol(first.c_str() + 4));
  set_trial_signals(SIG_IGN);
  for (int s : trial_signals)
    if (early_signal[s] && child > 0)
      ::kill(child, s);
  auto last = read_line(fd);
  ::close(fd);
  if (last.rfind("exit ", 0) == 0) { // -N: signal N
    int code = std::atoi(last.c_str() + 5);
    return code < 0 ? 128 - code : code;
  }
  static const char lost[] =
      "det-agent: the warm launcher went away before the trial's launch "
      "layer exited\n";
  [[maybe_unused]] auto w = ::write(2, lost, sizeof(lost) - 1);
  return 1;
}

int warm_launch_main(const std::string& socket) {
  if (auto code = warm_launch_client(socket))
    return *code;
  ::execl("/bin/sh", "sh", "-c", "exec python3 \"$DET_RUN_DIR/launch.py\"",
          static_cast<char*>(nullptr));
  return 127;
}

std::string warm_trial_command(const std::string& agent_binary,
                               const std::string& socket) {
  return "command -v python3 >/dev/null 2>&1 && exec " + sh_quoted(agent_binary)
         + " --warm-launch " + sh_quoted(socket)
         + "; exec /bin/sh -c \"$DET_ENTRYPOINT\"";
}

namespace {

constexpr std::string_view launcher_dir_prefix = "det-warm-";

// A descriptor of `dir` holding an exclusive lock on it, or -1 when it
// cannot be opened or another descriptor holds the lock.
int lock_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

} // namespace

int remove_stale_launcher_dirs(const std::string& tmp,
                               std::chrono::seconds min_age) {
  namespace fs = std::filesystem;
  std::error_code ec;
  int removed = 0;
  auto now = fs::file_time_type::clock::now();
  // Never throws: an agent's start must not fail on a folder it cannot
  // read or an entry that goes while it looks.
  for (fs::directory_iterator it{tmp, ec}, end; !ec && it != end;
       it.increment(ec)) {
    const auto& entry = *it;
    auto name = entry.path().filename().string();
    if (name.compare(0, launcher_dir_prefix.size(), launcher_dir_prefix) != 0)
      continue;
    struct stat st {};
    if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)
        || st.st_uid != ::geteuid())
      continue; // a link, a file, or someone else's
    auto changed = fs::last_write_time(entry.path(), ec);
    if (ec || now - changed < min_age)
      continue;
    int fd = lock_dir(entry.path().string());
    if (fd < 0)
      continue; // its agent lives
    std::error_code removing;
    fs::remove_all(entry.path(), removing);
    ::close(fd);
    if (!removing)
      ++removed;
  }
  return removed;
}

std::unique_ptr<warm_launcher>
warm_launcher::start(const std::map<std::string, std::string>& env) {
  namespace fs = std::filesystem;
  const char* tmp_env = std::getenv("TMPDIR");
  std::string tmp = tmp_env != nullptr && *tmp_env != '\0' ? tmp_env : "/tmp";
  remove_stale_launcher_dirs(tmp, std::chrono::minutes{1});
  std::string pattern = tmp + "/" + std::string{launcher_dir_prefix} + "XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    return nullptr;
  std::unique_ptr<warm_launcher> w{new warm_launcher};
  w->dir_ = buf.data();
  // Held as long as this agent lives (the kernel lets go when it dies,
  // however it dies): the next agent's sweep leaves a locked folder alone.
  w->dir_lock_ = lock_dir(w->dir_);
  w->socket_ = w->dir_ + "/launch.sock";
  auto script = w->dir_ + "/warm_launch.py";
  auto baseline = w->dir_ + "/baseline.env";
  {
    std::ofstream out{script};
    out << warm_launch_server_source();
    std::ofstream base{baseline, std::ios::binary};
    for (const auto& [k, v] : env)
      base << k << '=' << v << '\0';
    if (!out || !base)
      return nullptr;
  }
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    return nullptr;
  std::vector<std::string> kv;
  for (const auto& [k, v] : env)
    kv.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : kv)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  // python3 as the trials' PATH finds it, looked up before fork(): the
  // child of a multi-threaded program may only make async-signal-safe
  // calls.
  std::string py;
  std::string path_env = env.count("PATH") ? env.at("PATH") : "/usr/bin:/bin";
  for (size_t at = 0; py.empty() && at <= path_env.size();) {
    auto colon = path_env.find(':', at);
    auto part = path_env.substr(
        at, colon == std::string::npos ? std::string::npos : colon - at);
    auto candidate = (part.empty() ? std::string{"."} : part) + "/python3";
    if (::access(candidate.c_str(), X_OK) == 0)
      py = candidate;
    if (colon == std::string::npos)
      break;
    at = colon + 1;
  }
  if (py.empty()) {
    ::close(out[0]);
    ::close(out[1]);
    return nullptr;
  }
  std::vector<char*> argv{py.data(), script.data(), w->socket_.data(),
                          baseline.data(), nullptr};
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    return nullptr;
  }
  if (pid == 0) {
    // Goes with the agent, even one killed with SIGKILL (the forking
    // thread is the agent's main thread, which lives as long as it).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(0);
    ::setpgid(0, 0);
    ::dup2(out[1], 1);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0)
      ::dup2(devnull, 0);
    ::execve(py.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out[1]);
  w->pid_ = pid;
  w->ready_fd_ = out[0];
  return w;
}

bool warm_launcher::wait_ready(std::chrono::milliseconds limit) {
  if (ready_)
    return true;
  auto until = std::chrono::steady_clock::now() + limit;
  std::unique_lock<std::timed_mutex> reading{reading_, std::defer_lock};
  if (!reading.try_lock_until(until))
    return ready_;
  if (ready_ || ready_fd_ < 0)
    return ready_;
  auto& got = ready_line_;
  while (got.find('\n') == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    pollfd p{ready_fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return false; // not yet: a later call reads on
    char buf[64];
    auto n = ::read(ready_fd_, buf, sizeof(buf));
    if (n <= 0) { // the server exited: no harness here
      ::close(ready_fd_);
      ready_fd_ = -1;
      return false;
    }
    got.append(buf, static_cast<size_t>(n));
  }
  ready_ = got.rfind("ready", 0) == 0;
  return ready_;
}

bool warm_launcher::alive() {
  if (exited_ || pid_ <= 0)
    return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_)
    exited_ = true;
  return !exited_;
}

warm_launcher::~warm_launcher() {
  if (pid_ > 0 && !exited_) {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (ready_fd_ >= 0)
    ::close(ready_fd_);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  if (dir_lock_ >= 0)
    ::close(dir_lock_);
}

} // namespace det::agent
