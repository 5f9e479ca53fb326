#!/usr/bin/env python3
"""Signs requests with botocore's SigV4Auth: the independent signer that the
C++ signer is cross-checked against (tests/aws/sigv4_botocore_test.cpp).

Usage: botocore_sign.py REQUESTS.json
REQUESTS.json is a list of objects with method, host, raw_path (decoded),
query ([[name, value], ...] decoded), headers ([[name, value], ...]),
body_hex, access_key_id, secret_access_key, session_token, region, service,
epoch (seconds, UTC) and add_content_sha256; with "s3": true (and an
optional "scheme"), botocore's S3SigV4Auth signs instead (no path
normalization, payload hash always signed). Prints a JSON list with, per
request, the Authorization and X-Amz-Date headers botocore produced.

The URL is built here with Python's own percent-encoding, so the C++ path and
query encoders are checked too, not only the hashing.
"""
import datetime
import hashlib
import json
import sys
from urllib.parse import quote

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def sign(r):
    when = datetime.datetime.fromtimestamp(r["epoch"], datetime.timezone.utc)
    # SigV4Auth reads the clock through this module-level name.
    botocore.auth.get_current_datetime = lambda *a, **k: when.replace(tzinfo=None)
    path = quote(r["raw_path"], safe="/") if r["raw_path"] else "/"
    query = "&".join(
        quote(k, safe="-_.~") + "=" + quote(v, safe="-_.~") for k, v in r["query"])
    url = r.get("scheme", "http") + "://" + r["host"] + path + ("?" + query if query else "")
    body = bytes.fromhex(r["body_hex"])
    req = AWSRequest(method=r["method"], url=url, data=body)
    for name, value in r["headers"]:
        req.headers[name] = value
    if r["add_content_sha256"]:
        req.headers["X-Amz-Content-SHA256"] = hashlib.sha256(body).hexdigest()
    creds = Credentials(r["access_key_id"], r["secret_access_key"],
                        r["session_token"] or None)
    if r.get("s3"):
        req.context["payload_signing_enabled"] = True
        botocore.auth.S3SigV4Auth(creds, "s3", r["region"]).add_auth(req)
    else:
        botocore.auth.SigV4Auth(creds, r["service"], r["region"]).add_auth(req)
    return {"authorization": req.headers["Authorization"],
            "x_amz_date": req.headers["X-Amz-Date"]}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        requests = json.load(f)
    json.dump([sign(r) for r in requests], sys.stdout)


if __name__ == "__main__":
    main()
