// The warm launcher's Python side (agent/warm_launch.hpp): the server
// det-agent writes to its folder and starts, kept apart from the C++
// client and the process that runs it.

#include "agent/warm_launch.hpp"

namespace det::agent {

const char* warm_launch_server_source() {
  return R"PY(# Written by det-agent (agent/warm_launch.hpp): the launch layer's
# imports made once; each trial is a fork that imports the determined
# package again under the trial's own environment and runs launch.py, and
# the trial's own `python3 SCRIPT` is a fork too when it can be.
import gc
import importlib.machinery
import importlib.util
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
_PATHS = sysconfig.get_paths()  # the same for every module: asked once
_SITE_DIRS = (_PATHS["purelib"], _PATHS["platlib"])
_STDLIB_DIRS = (_PATHS["stdlib"], _PATHS["platstdlib"])
# Harness modules that a trial's import of the harness takes from this
# server instead of running again: definitions only, built from the
# standard library and the site packages the server keeps (no environment
# read, no state). The REST bindings are about half of the harness's
# import time.
_KEPT = ("determined.common.api.bindings",)
# What a forked script forgets of the server's site packages stays
# referenced here: forgetting is then only a dictionary entry, not the
# teardown of every module (which the script's exit makes moot).
_forgotten = []


_codes = {}  # a source file -> ((its mtime, its size), its module's code)
_recording = False
_plain_get_code = importlib.machinery.SourceFileLoader.get_code


def _get_code(loader, fullname):
    """SourceFileLoader.get_code, with the code of what the server imported
    at its start kept: a forked trial that imports those modules again
    runs the same code without reading and unmarshalling each file. A file
    whose mtime or size changed since is read again, as Python's own check
    of a compiled file against its source does."""
    path = loader.path
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None
    known = _codes.get(path)
    if known is not None and stamp is not None and known[0] == stamp:
        return known[1]
    code = _plain_get_code(loader, fullname)
    if _recording and stamp is not None:
        _codes[path] = (stamp, code)
    return code


def _forget_harness():
    """Drops the harness from sys.modules: the modules of _KEPT, by name."""
    kept = {}
    for name in list(sys.modules):
        if name in ("determined", "sitecustomize") or name.startswith("determined."):
            module = sys.modules.pop(name)
            if name in _KEPT:
                kept[name] = module
    return kept


def _harness_origin():
    """The file `import determined` would load on the current sys.path."""
    try:
        spec = importlib.util.find_spec("determined")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None


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
    if path.startswith(_SITE_DIRS):
        return False
    return path.startswith(_STDLIB_DIRS)


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


def _child(conn, listener, others, cwd, pgid, argv, env, fds, base_path, server,
           harness):
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
                    _forgotten.append(sys.modules.pop(name))
            script = argv[0]
            sys.path[:] = _script_paths(cwd, argv, env) + base_path
        else:
            script = os.path.join(env.get("DET_RUN_DIR", cwd), "launch.py")
            extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
            sys.path[:] = [os.path.dirname(script)] + extra + base_path
            subprocess.Popen = _fork_through(server, subprocess.Popen)
        # The finders of the server's own (absolute) folders stay: each
        # checks its folder's mtime before it answers.
        for entry in list(sys.path_importer_cache):
            if entry not in base_path:
                del sys.path_importer_cache[entry]
        sys.argv = list(argv) if argv else [script]
        try:
            import sitecustomize  # noqa: F401  (the trial's, as at a cold start)
        except ImportError:
            pass
        origin, kept = harness
        if not argv and kept and origin and _harness_origin() == origin:
            # The harness this trial imports is the server's own files.
            sys.modules.update(kept)
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
    global _recording
    path, baseline = sys.argv[1], _read_baseline(sys.argv[2])
    importlib.machinery.SourceFileLoader.get_code = _get_code
    _recording = True
    try:
        import determined.exec.launch  # noqa: F401
        import determined.common.storage  # noqa: F401
    except Exception as e:
        print("warm launcher: the harness does not import (%s); trials start cold" % e,
              file=sys.stderr)
        return 3
    _recording = False
    origin = getattr(sys.modules["determined"], "__file__", None)
    kept = _forget_harness()
    # What is loaded now lives as long as the server: the collector of a
    # forked child leaves it alone (and so leaves its pages shared) rather
    # than walk it at each collection of the trial's own objects.
    gc.collect()
    gc.freeze()
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
                   fds, base_path, path, (origin, kept))
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

} // namespace det::agent
