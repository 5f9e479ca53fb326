"""A fault-injecting HTTP proxy for the EC2 Query API, on loopback: it
forwards every request to moto and records (time, Action, params, outcome)
of each: "pass" for a call moto answered below 500, "upstream-STATUS" for
one moto itself failed, or the rule's kind; rules make it answer some
requests with an EC2 error instead, drop the connection, or answer slowly.
Test code only."""
import http.client
import http.server
import threading
import time
import urllib.parse

ERRORS = {
    # kind: (HTTP status, EC2 code)
    "throttle": (503, "RequestLimitExceeded"),
    "capacity": (500, "InsufficientInstanceCapacity"),
    "vcpu": (400, "VcpuLimitExceeded"),
    "500": (500, "InternalError"),
}


def error_body(code):
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error>"
            "<Code>%s</Code><Message>injected by the test proxy</Message></Error>"
            "</Errors><RequestID>fault-proxy</RequestID></Response>" % code).encode()


class FaultProxy:
    def __init__(self, upstream):
        self.upstream = urllib.parse.urlparse(upstream)
        self.lock = threading.Lock()
        self.calls = []   # (monotonic time, action, params, outcome)
        self.rules = []   # dicts: action, kind, times, match (param substring)
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                params = urllib.parse.parse_qs(body.decode(errors="replace"))
                action = params.get("Action", [""])[0]
                rule = proxy._take_rule(action, body.decode(errors="replace"))
                kind = rule["kind"] if rule else "pass"
                with proxy.lock:
                    index = len(proxy.calls)
                    proxy.calls.append((time.monotonic(), action, params, kind))
                if kind == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                if kind in ERRORS:
                    status, code = ERRORS[kind]
                    data = error_body(code)
                    self.send_response(status)
                    self.send_header("Content-Type", "text/xml")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if kind == "slow":
                    time.sleep(rule.get("seconds", 2.0))
                conn = http.client.HTTPConnection(proxy.upstream.hostname,
                                                  proxy.upstream.port, timeout=60)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "content-length", "connection")}
                conn.request("POST", self.path, body=body, headers=headers)
                r = conn.getresponse()
                data = r.read()
                if r.status >= 500:
                    # The emulator failed the call itself (moto's server is
                    # not thread-safe everywhere: two RunInstances at once
                    # can race in its subnet's address pool and answer
                    # 500). It did not reach "EC2": the client's retry
                    # with the same token is the call that does.
                    with proxy.lock:
                        c = proxy.calls[index]
                        proxy.calls[index] = (c[0], c[1], c[2], "upstream-%d" % r.status)
                self.send_response(r.status)
                for k, v in r.getheaders():
                    if k.lower() not in ("content-length", "transfer-encoding", "connection",
                                         "server", "date"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _take_rule(self, action, body):
        with self.lock:
            for r in self.rules:
                if r["action"] == action and r["times"] > 0 and r.get("match", "") in body:
                    r["times"] -= 1
                    return r
        return None

    def add(self, action, kind, times=1, **extra):
        with self.lock:
            self.rules.append(dict(action=action, kind=kind, times=times, **extra))

    def actions(self, name=None):
        with self.lock:
            return [c for c in self.calls if name is None or c[1] == name]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
