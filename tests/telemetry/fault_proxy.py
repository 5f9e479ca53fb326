#!/usr/bin/env python3
"""A loopback HTTP proxy in front of moto that can play a CloudWatch
outage: every request is forwarded to moto unchanged (signature, body and
all) while the mode is "ok"; in mode "503" it answers 503 Service
Unavailable, in mode "throttle" 400 with the ThrottlingException body
CloudWatch sends (JSON for Logs, XML for the Query protocol), without
forwarding. Used by cloudwatch_moto_test.cpp.

Usage: fault_proxy.py MOTO_URL
Prints its own URL (http://127.0.0.1:PORT) on stdout once listening.
Control: POST /__fault/MODE sets the mode; GET /__fault answers
{"mode": ..., "forwarded": N, "refused": N}. Ends on SIGTERM or after
10 minutes.
"""
import http.server
import json
import sys
import threading
import time
import urllib.error
import urllib.request

moto = sys.argv[1].rstrip("/")
state = {"mode": "ok", "forwarded": 0, "refused": 0}
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, ctype="application/json", headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/__fault":
            with lock:
                return self.answer(200, json.dumps(state))
        self.forward(b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path.startswith("/__fault/"):
            with lock:
                state["mode"] = self.path[len("/__fault/"):]
            return self.answer(200, json.dumps(state))
        with lock:
            mode = state["mode"]
            if mode != "ok":
                state["refused"] += 1
        if mode == "503":
            return self.answer(503, "Service Unavailable", "text/plain")
        if mode == "throttle":
            if self.headers.get("X-Amz-Target"):
                return self.answer(400, json.dumps(
                    {"__type": "ThrottlingException", "message": "Rate exceeded"}),
                    "application/x-amz-json-1.1")
            return self.answer(400, "<ErrorResponse><Error><Type>Sender</Type>"
                               "<Code>Throttling</Code><Message>Rate exceeded"
                               "</Message></Error></ErrorResponse>", "text/xml")
        self.forward(body)

    def forward(self, body):
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("connection", "content-length")}
        req = urllib.request.Request(moto + self.path, data=body or None,
                                     headers=headers, method=self.command)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                status, data, ctype = resp.status, resp.read(), resp.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, data, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
        with lock:
            state["forwarded"] += 1
        self.answer(status, data, ctype)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print("http://127.0.0.1:%d" % server.server_address[1], flush=True)
deadline = time.monotonic() + 600
while time.monotonic() < deadline:
    time.sleep(0.2)
