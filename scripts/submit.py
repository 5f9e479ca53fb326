#!/usr/bin/env python3
"""Submit an experiment to det-master with only the standard library.

    scripts/submit.py --master http://127.0.0.1:8080 CONFIG MODEL_DIR

POSTs /api/v1/experiments in the upstream shape ({"config": <yaml text>,
"modelDefinition": [v1File...], "activate": true}) and prints the new
experiment id on stdout. Exit 1 with the master's error message on refusal.
Logs in first as $DET_USER (default admin) with $DET_PASS (default blank),
hashing the password as the det CLI does.
"""
import argparse
import base64
import hashlib
import json
import os
import sys
import urllib.error
import urllib.request


def model_files(model_dir):
    files = []
    for root, dirs, names in os.walk(model_dir):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", ".git"))
        rel_root = os.path.relpath(root, model_dir)
        if rel_root != ".":
            files.append({"path": rel_root, "type": 53, "content": "",
                          "mode": 0o755, "uid": 0, "gid": 0, "mtime": "0"})
        for name in sorted(names):
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                content = base64.b64encode(f.read()).decode()
            st = os.stat(path)
            files.append({"path": os.path.relpath(path, model_dir),
                          "type": 48, "content": content,
                          "mode": st.st_mode & 0o777, "uid": 0, "gid": 0,
                          "mtime": str(int(st.st_mtime))})
    return files


def login(master, user=None, password=None, context=None):
    """A bearer token for `user` (POST /api/v1/auth/login, CLI hashing)."""
    user = user if user is not None else os.environ.get("DET_USER", "admin")
    password = password if password is not None else os.environ.get("DET_PASS", "")
    hashed = hashlib.sha512(("GubPEmmotfiK9TMD6Zdw" + password).encode()).hexdigest() \
        if password else ""
    req = urllib.request.Request(
        master.rstrip("/") + "/api/v1/auth/login", method="POST",
        data=json.dumps({"username": user, "password": hashed, "isHashed": True}).encode())
    with urllib.request.urlopen(req, timeout=30, context=context) as r:
        return json.load(r)["token"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--master", default=os.environ.get(
        "DET_MASTER", "http://127.0.0.1:8080"))
    p.add_argument("config")
    p.add_argument("model_dir")
    a = p.parse_args()
    with open(a.config) as f:
        config = f.read()
    body = json.dumps({"config": config,
                       "modelDefinition": model_files(a.model_dir),
                       "activate": True}).encode()
    req = urllib.request.Request(a.master.rstrip("/") + "/api/v1/experiments",
                                 data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        req.add_header("Authorization", "Bearer " + login(a.master))
        with urllib.request.urlopen(req, timeout=60) as r:
            answer = json.load(r)
    except urllib.error.HTTPError as e:
        try:
            msg = json.load(e)["error"]["error"]
        except Exception:  # noqa: BLE001 - any unreadable body
            msg = str(e)
        print(f"submit.py: refused ({e.code}): {msg}", file=sys.stderr)
        return 1
    print(answer["experiment"]["id"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
