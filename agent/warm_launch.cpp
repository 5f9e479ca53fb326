#include "agent/warm_launch.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace det::agent {

const char* warm_launch_server_source() {
  return R"PY(# Written by det-agent (agent/warm_launch.hpp): the launch layer's
# imports made once; each trial is a fork that imports the determined
# package again under the trial's own environment and runs launch.py, and
# the trial's own `python3 SCRIPT` is a fork too when it can be.
import os
import re
import runpy
import shutil
import signal
import socket
import struct
import subprocess
import sys
import sysconfig
import traceback

SAME = ("PATH", "VIRTUAL_ENV")
SAME_PREFIXES = ("PYTHON", "PYENV", "CONDA")


def _forget_harness():
    for name in list(sys.modules):
        if name in ("determined", "sitecustomize") or name.startswith("determined."):
            del sys.modules[name]


def _interpreter_setting(name):
    return name != "PYTHONPATH" and (name in SAME or name.startswith(SAME_PREFIXES))


def _read_baseline(path):
    """The environment det-agent started this server with (before any
    wrapper, such as pyenv's shim, changed it)."""
    with open(path, "rb") as f:
        items = f.read().split(b"\0")
    out = {}
    for kv in items:
        k, sep, v = kv.partition(b"=")
        if sep:
            out[os.fsdecode(k)] = os.fsdecode(v)
    return out


def _equivalent(env, baseline):
    """Whether a cold `python3 launch.py` under env starts this interpreter
    with these settings."""
    for name in set(env) | set(baseline):
        if _interpreter_setting(name) and env.get(name) != baseline.get(name):
            return False
    return True


def _child_environment(env):
    """The trial's environment as the cold interpreter would see it: the
    interpreter's settings as they are here (what a wrapper such as pyenv's
    shim added to PATH included), everything else the trial's own."""
    out = {k: v for k, v in env.items() if not _interpreter_setting(k)}
    out.update((k, v) for k, v in os.environ.items() if _interpreter_setting(k))
    return out


def _recv(conn, fds):
    """A request, its fds appended to `fds` as they come (the caller closes
    them when this returns None or raises: a client killed half-way must
    not leave its trial's pipes open here)."""
    head = b""
    while len(head) < 4:
        data, more, _, _ = socket.recv_fds(conn, 4 - len(head), 3)
        if not data:
            return None
        head += data
        fds += more
    size = struct.unpack(">I", head)[0]
    body = b""
    while len(body) < size:
        chunk = conn.recv(min(1 << 20, size - len(body)))
        if not chunk:
            return None
        body += chunk
    parts = body.split(b"\0")
    if len(fds) != 3 or len(parts) < 2:
        return None
    # "PGID" (the launch layer), or "PGID N": N argv items follow (a script).
    head = parts[1].split()
    argc = int(head[1]) if len(head) > 1 else 0
    if len(head) > 2 or argc < 0 or len(parts) < 2 + argc:
        return None
    argv = [os.fsdecode(a) for a in parts[2:2 + argc]]
    env = {}
    for kv in parts[2 + argc:]:
        k, sep, v = kv.partition(b"=")
        if sep:
            env[os.fsdecode(k)] = os.fsdecode(v)
    return os.fsdecode(parts[0]), int(head[0]), argv, env, fds


def _send(conn, cwd, pgid, argv, env):
    """A request as the C++ client makes it, with argv: this process's
    stdin, stdout and stderr go along."""
    items = [os.fsencode(cwd), b"%d %d" % (pgid, len(argv))]
    items += [os.fsencode(a) for a in argv]
    items += [os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]
    body = b"\0".join(items)
    socket.send_fds(conn, [struct.pack(">I", len(body))], [0, 1, 2])
    conn.sendall(body)


def _line(conn):
    out = b""
    while not out.endswith(b"\n"):
        c = conn.recv(1)
        if not c:
            return ""
        out += c
    return out.decode().strip()


_TRIAL_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1,
                  signal.SIGUSR2, signal.SIGWINCH}

# A trial entrypoint the launch layer runs as ["sh", "-c", TEXT] that is
# no more than `python3 SCRIPT.py ARG...` with plain words.
_PLAIN = re.compile(r"^python3( +[A-Za-z0-9_./=:,+@%-]+)+ *$")


class _ForkedScript:
    """What the launch layer keeps of its entrypoint's process when the
    server forked it: Popen's pid, wait, poll and signals. The child is the
    server's, so its end comes over the connection ("exit CODE", negative
    for a signal as Popen's returncode)."""

    def __init__(self, conn, pid, args):
        self.pid, self.args, self.returncode, self._conn = pid, args, None, conn

    def wait(self, timeout=None):
        if self.returncode is None:
            self._conn.settimeout(timeout)
            try:
                last = _line(self._conn)
            except socket.timeout:
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._conn.close()
            self.returncode = int(last[5:]) if last.startswith("exit ") else 1
        return self.returncode

    def poll(self):
        return self.returncode

    def send_signal(self, sig):
        if self.returncode is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


def _fork_through(server, real_popen):
    """subprocess.Popen for the launch layer: its plain `python3 SCRIPT`
    entrypoint forked by the server; anything else, or a refusal, started
    as it would have been. A subclass, so that isinstance and subclasses
    of Popen made later keep working."""

    def forked(args):
        if not (isinstance(args, list) and len(args) == 3 and args[:2] == ["sh", "-c"]
                and _PLAIN.match(args[2])):
            return None
        words = args[2].split()
        if not (words[1].endswith(".py") and os.path.isfile(words[1])):
            return None
        sys.stdout.flush()
        sys.stderr.flush()
        # A signal to the trial's group before the script is in it would
        # miss the script: held back until the server has moved it there,
        # then passed on to it as well as taken here.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _TRIAL_SIGNALS)
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(server)
            _send(conn, os.getcwd(), os.getpgrp(), words[1:], dict(os.environ))
            first = _line(conn)
            if first.startswith("pid "):
                script = _ForkedScript(conn, int(first[4:]), args)
                for sig in signal.sigpending() & _TRIAL_SIGNALS:
                    script.send_signal(sig)
                return script
        except (OSError, ValueError):
            pass
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        conn.close()
        return None

    class Popen(real_popen):
        def __new__(cls, args=None, *rest, **kwargs):
            if cls is Popen and not rest and not kwargs:
                script = forked(args)
                if script is not None:
                    return script  # not a Popen: __init__ is not called
            return super().__new__(cls)

    return Popen


def _stdlib_module(module):
    """Whether a loaded module is the interpreter's own (a script cannot
    have a newer one from its PYTHONPATH), not a site package."""
    path = getattr(module, "__file__", None)
    if not path:
        return True  # built in, or a namespace
    paths = sysconfig.get_paths()
    if path.startswith((paths["purelib"], paths["platlib"])):
        return False
    return path.startswith((paths["stdlib"], paths["platstdlib"]))


def _shadowed(folders):
    """Whether a folder ahead of the site packages on a script's sys.path
    holds a module this server has loaded (a cold start would import that
    file instead)."""
    loaded = {n for n in sys.modules if "." not in n}
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.partition(".")[0] in loaded:
                return True
    return False


def _script_paths(cwd, argv, env):
    """A script's first sys.path entries as `python3 SCRIPT` makes them:
    its folder, then PYTHONPATH's."""
    folder = os.path.dirname(os.path.abspath(os.path.join(cwd, argv[0])))
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    return [folder] + extra


def _child(conn, listener, others, cwd, pgid, argv, env, fds, base_path, server):
    try:
        listener.close()
        conn.close()
        for other in others:
            other.close()
        for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1,
                  signal.SIGUSR2):
            signal.signal(s, signal.SIG_DFL)
        # As the interpreter sets them at its start.
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.set_wakeup_fd(-1)
        os.setpgid(0, pgid)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(cwd)
        trial_env = _child_environment(env)  # before the clear: it reads ours
        os.environ.clear()
        os.environ.update(trial_env)
        if argv:
            # The trial's own script: what it imports beyond the standard
            # library it imports afresh, as a cold start would.
            for name, module in list(sys.modules.items()):
                if not _stdlib_module(module):
                    del sys.modules[name]
            script = argv[0]
            sys.path[:] = _script_paths(cwd, argv, env) + base_path
        else:
            script = os.path.join(env.get("DET_RUN_DIR", cwd), "launch.py")
            extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
            sys.path[:] = [os.path.dirname(script)] + extra + base_path
            subprocess.Popen = _fork_through(server, subprocess.Popen)
        sys.path_importer_cache.clear()
        sys.argv = list(argv) if argv else [script]
        try:
            import sitecustomize  # noqa: F401  (the trial's, as at a cold start)
        except ImportError:
            pass
        code = 0
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    # The interpreter's own end, less its teardown of every module (which
    # a forked copy of this server pays dearly for and nobody sees):
    # non-daemon threads joined, atexit run, streams flushed.
    try:
        import atexit
        import threading
        me = threading.current_thread()
        for thread in threading.enumerate():
            if thread is not me and not thread.daemon:
                thread.join()
        atexit._run_exitfuncs()
    except BaseException:
        traceback.print_exc()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code & 0xFF)


def main():
    path, baseline = sys.argv[1], _read_baseline(sys.argv[2])
    try:
        import determined.exec.launch  # noqa: F401
        import determined.common.storage  # noqa: F401
    except Exception as e:
        print("warm launcher: the harness does not import (%s); trials start cold" % e,
              file=sys.stderr)
        return 3
    _forget_harness()
    own = {p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    base_path = [p for p in sys.path[1:] if p not in own]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    waiting = {}  # child pid -> the client's connection
    r, w = os.pipe()
    os.set_blocking(w, False)
    signal.set_wakeup_fd(w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    import select
    print("ready", flush=True)
    while True:
        readable, _, _ = select.select([listener, r], [], [])
        if r in readable:
            os.read(r, 4096)
        while waiting:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = waiting.pop(pid, None)
            code = os.waitstatus_to_exitcode(status)  # -N for signal N
            if conn is not None:
                try:
                    conn.sendall(b"exit %d\n" % code)
                except OSError:
                    pass
                conn.close()
        if listener not in readable:
            continue
        conn, _ = listener.accept()
        conn.settimeout(10)
        fds = []
        try:
            got = _recv(conn, fds)
        except (OSError, ValueError):
            got = None
        if got is None:
            for fd in fds:
                os.close(fd)
            conn.close()
            continue
        cwd, pgid, argv, env, fds = got
        # The launch layer's request comes with det-agent's environment; a
        # script's with the launch layer's, whose interpreter settings are
        # this server's own (_child_environment).
        same = _equivalent(env, os.environ if argv else baseline)
        shadowed = same and argv and _shadowed(_script_paths(cwd, argv, env))
        if not same or shadowed:
            if argv:  # the launch layer's cold start is the documented rule
                print("warm launcher: %s starts cold (%s)" % (
                    argv[0], "a module on its path has a loaded module's name"
                    if shadowed else "its interpreter settings differ"),
                    file=sys.stderr, flush=True)
            for fd in fds:
                os.close(fd)
            try:
                conn.sendall(b"cold\n")
            except OSError:
                pass
            conn.close()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(conn, listener, list(waiting.values()), cwd, pgid, argv, env,
                   fds, base_path, path)
        for fd in fds:
            os.close(fd)
        waiting[pid] = conn
        try:
            # In the trial's group before the requester hears of it (the
            # child does the same; whichever runs first wins the race).
            os.setpgid(pid, pgid)
        except OSError:
            pass
        try:
            conn.sendall(b"pid %d\n" % pid)
        except OSError:
            pass


if __name__ == "__main__":
    sys.exit(main())
)PY";
}

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

std::unique_ptr<warm_launcher>
warm_launcher::start(const std::map<std::string, std::string>& env) {
  namespace fs = std::filesystem;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string{tmp != nullptr && *tmp != '\0' ? tmp : "/tmp"}
      + "/det-warm-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    return nullptr;
  std::unique_ptr<warm_launcher> w{new warm_launcher};
  w->dir_ = buf.data();
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
  if (ready_ || exited_ || ready_fd_ < 0)
    return ready_;
  auto until = std::chrono::steady_clock::now() + limit;
  std::string got;
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
}

} // namespace det::agent
