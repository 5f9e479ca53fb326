#!/usr/bin/env bash
# A private moto AWS emulator (server mode) on loopback, for tests.
#
#   scripts/moto.sh start DIR   start `python3 -m moto.server` on a free port
#                               of 127.0.0.1, wait until it accepts
#                               connections, write its URL to DIR/url and
#                               print it (log in DIR/moto.log, pid DIR/pid)
#   scripts/moto.sh stop DIR    stop it; no error if not running
#   scripts/moto.sh url DIR     print the URL of a running server
#
# moto routes by the SigV4 credential scope; it does not emulate everything
# (it accepts any signature, ignores ClientToken and MaxCount, never throttles).
set -euo pipefail

cmd=${1:?usage: moto.sh start|stop|url DIR}
dir=${2:?usage: moto.sh start|stop|url DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

running() {
  [ -f "$dir/pid" ] || return 1
  local pid; pid=$(cat "$dir/pid")
  # Only ever signal our own moto server, never a recycled pid.
  grep -q "moto.server" "/proc/$pid/cmdline" 2>/dev/null
}

case "$cmd" in
  start)
    if running && [ -f "$dir/url" ]; then cat "$dir/url"; exit 0; fi
    python3 -c 'import moto.server' 2>/dev/null || {
      echo "moto.sh: python3 cannot import moto.server (run scripts/install-deps.sh)" >&2; exit 1; }
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    # Detached from the caller's terminal and pipes, so CTest does not wait
    # on its output.
    setsid python3 -m moto.server -H 127.0.0.1 -p "$port" \
      </dev/null >"$dir/moto.log" 2>&1 &
    echo $! >"$dir/pid"
    # Bounded wait for the listening socket (moto needs ~1-3 s to import).
    if ! python3 - "$port" "$(cat "$dir/pid")" <<'PY'
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        sys.exit(0)
    except OSError:
        if not os.path.exists(f"/proc/{pid}"):
            sys.exit(1)
        time.sleep(0.05)
sys.exit(1)
PY
    then
      echo "moto.sh: moto did not start on 127.0.0.1:$port" >&2
      tail -n 20 "$dir/moto.log" >&2 || true
      exit 1
    fi
    echo "http://127.0.0.1:$port" >"$dir/url"
    cat "$dir/url"
    ;;
  stop)
    if running; then
      pid=$(cat "$dir/pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
      done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/url" "$dir/pid"
    ;;
  url)
    cat "$dir/url"
    ;;
  *)
    echo "moto.sh: unknown command '$cmd' (start, stop, url)" >&2; exit 2 ;;
esac
