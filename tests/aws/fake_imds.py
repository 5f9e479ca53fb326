#!/usr/bin/env python3
"""A fake EC2 instance metadata service that speaks the IMDSv2 wire
protocol, for tests on machines that are not EC2 instances.

  PUT /latest/api/token  with X-aws-ec2-metadata-token-ttl-seconds (1-21600)
      -> a token, valid for that many seconds; 400 without a valid TTL;
         403 if X-Forwarded-For is present (as IMDS does)
  GET /latest/meta-data/... with X-aws-ec2-metadata-token
      -> 401 without a valid, unexpired token (HttpTokens=required)
  GET /_stats -> JSON counters, for tests (not part of IMDS)
  PUT /_expire_tokens -> every token issued so far expires now (tests)

Usage: fake_imds.py [--role NAME | --no-role] [--expires-in SECONDS]
                    [--spot-action terminate] [--instance-id ID]
                    [--region REGION]
Binds 127.0.0.1 on a free port and prints the port on the first line.
Each credentials GET returns new keys (ASIAFAKE0001, ASIAFAKE0002, ...).
"""
import argparse
import datetime
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = None
lock = threading.Lock()
tokens = {}  # token -> expiry (monotonic seconds)
stats = {"token_puts": 0, "credential_gets": 0, "unauthorized": 0, "gets": 0}


def metadata():
    m = {
        "instance-id": args.instance_id,
        "local-ipv4": "10.0.0.12",
        "public-ipv4": "54.0.0.12",
        "local-hostname": "ip-10-0-0-12.ec2.internal",
        "public-hostname": "ec2-54-0-0-12.compute-1.amazonaws.com",
        "placement/region": args.region,
        "placement/availability-zone": args.region + "b",
    }
    if args.spot_action:
        m["spot/instance-action"] = json.dumps(
            {"action": args.spot_action, "time": "2030-01-01T00:02:00Z"})
    if args.role:
        m["iam/security-credentials/"] = args.role
    return m


class handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body=b"", ctype="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PUT(self):
        length = int(self.headers.get("Content-Length", "0") or 0)
        if length:
            self.rfile.read(length)
        if self.path == "/_expire_tokens":
            with lock:
                tokens.clear()
            return self.reply(200)
        if self.path != "/latest/api/token":
            return self.reply(404)
        if self.headers.get("X-Forwarded-For"):
            return self.reply(403)
        try:
            ttl = int(self.headers.get("X-aws-ec2-metadata-token-ttl-seconds", ""))
        except ValueError:
            return self.reply(400)
        if not 1 <= ttl <= 21600:
            return self.reply(400)
        token = secrets.token_urlsafe(24)
        with lock:
            tokens[token] = time.monotonic() + ttl
            stats["token_puts"] += 1
        self.send_response(200)
        self.send_header("X-aws-ec2-metadata-token-ttl-seconds", str(ttl))
        body = token.encode()
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_stats":
            with lock:
                return self.reply(200, json.dumps(stats).encode(), "application/json")
        prefix = "/latest/meta-data/"
        if not self.path.startswith(prefix):
            return self.reply(404)
        token = self.headers.get("X-aws-ec2-metadata-token", "")
        with lock:
            stats["gets"] += 1
            valid = tokens.get(token, 0) > time.monotonic()
            if not valid:
                stats["unauthorized"] += 1
        if not valid:
            return self.reply(401)
        key = self.path[len(prefix):]
        m = metadata()
        if key in m:
            return self.reply(200, m[key].encode())
        if args.role and key == "iam/security-credentials/" + args.role:
            with lock:
                stats["credential_gets"] += 1
                n = stats["credential_gets"]
            now = datetime.datetime.now(datetime.timezone.utc)
            doc = {
                "Code": "Success",
                "LastUpdated": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "Type": "AWS-HMAC",
                "AccessKeyId": "ASIAFAKE%04d" % n,
                "SecretAccessKey": "fake-secret-%d" % n,
                "Token": "fake-session-token-%d" % n,
                "Expiration": (now + datetime.timedelta(seconds=args.expires_in))
                .strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
            return self.reply(200, json.dumps(doc).encode())
        return self.reply(404)


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--role", default="det-master-role")
    p.add_argument("--no-role", dest="role", action="store_const", const="")
    p.add_argument("--expires-in", type=int, default=3600)
    p.add_argument("--spot-action", default="")
    p.add_argument("--instance-id", default="i-0fake1234567890abc")
    p.add_argument("--region", default="eu-central-1")
    args = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
