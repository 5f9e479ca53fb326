"""The process kubelet's HTTPS log endpoint, the part of the kubelet API the
API server calls for `GET pods/{name}/log`: GET
/containerLogs/{namespace}/{pod}/{container} with follow, tailLines,
limitBytes and previous. Serves on 127.0.0.1 only, with a certificate signed
by the bed's CA. The API server authenticates with its kubelet client
certificate; this endpoint asks for a client certificate from the bed's CA
when one is given (client_ca), so only the API server and the bed's admin
can read logs."""
import os
import re
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

FOLLOW_POLL = 0.2  # seconds between reads of a growing log file
FOLLOW_MAX = 24 * 3600  # a follow ends after a day at most


def serve_logs(kubelet, port, cert, key, client_ca=None):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def do_GET(self):  # noqa: N802 - the http.server name
            u = urlparse(self.path)
            m = re.match(r"^/containerLogs/([^/]+)/([^/]+)/([^/]+)$", u.path)
            if not m:
                self.send_error(404, "only /containerLogs/{ns}/{pod}/{container} is served")
                return
            q = {k: v[-1] for k, v in parse_qs(u.query).items()}
            runner = kubelet.runner_for(m.group(1), m.group(2))
            c = runner.container(m.group(3)) if runner else None
            if c is None or c.log_path is None:
                self.send_error(404, "container %s is not running on this node" % m.group(3))
                return
            path = c.log_path
            if q.get("previous") == "true":
                if c.restarts == 0:
                    self.send_error(400, "previous terminated container %s not found" % c.name)
                    return
                path = os.path.join(os.path.dirname(path), "%s.%d.log" % (c.name, c.restarts - 1))
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                self._stream(path, q, c, runner)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _stream(self, path, q, c, runner):
            limit = int(q["limitBytes"]) if q.get("limitBytes", "").isdigit() else None
            with open(path, "rb") as f:
                data = f.read()
                if q.get("tailLines", "").isdigit():
                    n = int(q["tailLines"])
                    lines = data.splitlines(keepends=True)
                    data = b"".join(lines[-n:]) if n else b""
                sent = self._send(data, limit, 0)
                if q.get("follow") != "true":
                    return
                deadline = time.monotonic() + FOLLOW_MAX
                while time.monotonic() < deadline and (limit is None or sent < limit):
                    chunk = f.read()
                    if chunk:
                        sent = self._send(chunk, limit, sent)
                        continue
                    if c.log_path != path or "running" not in c.state or runner.gone.is_set():
                        self._send(f.read(), limit, sent)
                        return
                    time.sleep(FOLLOW_POLL)

        def _send(self, data, limit, sent):
            if limit is not None:
                data = data[:max(0, limit - sent)]
            if data:
                self.wfile.write(data)
                self.wfile.flush()
            return sent + len(data)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    if client_ca:
        ctx.load_verify_locations(client_ca)
        ctx.verify_mode = ssl.CERT_REQUIRED
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
