"""A small Kubernetes REST client for the test bed's tools (the process
kubelet, the pytest fixtures): a kubeconfig's server, CA and credentials
(client certificate or bearer token), JSON verbs, and list-then-watch.

Not the product's client (that one is C++); this serves only test tooling.
Every request has a timeout; a watch ends when the server closes it (at
most `timeout_seconds`) and the caller watches again from the last
resourceVersion, or lists again after a 410."""
import json
import os

import requests
import yaml


class Gone(Exception):
    """The watch's resourceVersion is too old (410): list again."""


class ApiError(Exception):
    def __init__(self, status, body):
        super().__init__("%s: %s" % (status, body[:500]))
        self.status = status
        self.body = body


class Kube:
    def __init__(self, kubeconfig, timeout=30.0):
        with open(kubeconfig) as f:
            cfg = yaml.safe_load(f)
        ctx_name = cfg.get("current-context")
        ctx = next(c["context"] for c in cfg["contexts"] if c["name"] == ctx_name)
        cluster = next(c["cluster"] for c in cfg["clusters"] if c["name"] == ctx["cluster"])
        user = next(u["user"] for u in cfg["users"] if u["name"] == ctx["user"])
        self.server = cluster["server"].rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        # Passed with each request: a session's verify loses to
        # REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE in the environment.
        self.verify = cluster.get("certificate-authority", True)
        self.session.trust_env = False  # no proxies from the environment: loopback only
        if "client-certificate" in user:
            self.session.cert = (user["client-certificate"], user["client-key"])
        if "token" in user:
            self.session.headers["Authorization"] = "Bearer " + user["token"]
        self.ca_file = cluster.get("certificate-authority")

    def request(self, method, path, body=None, params=None, content_type=None,
                ok=(200, 201, 202), stream=False, timeout=None):
        headers = {}
        data = None
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
            data = json.dumps(body)
        r = self.session.request(method, self.server + path, data=data, params=params,
                                 headers=headers, stream=stream, verify=self.verify,
                                 timeout=timeout or self.timeout)
        if r.status_code not in ok:
            raise ApiError(r.status_code, r.text)
        return r

    def get(self, path, params=None, ok=(200,)):
        return self.request("GET", path, params=params, ok=ok).json()

    def try_get(self, path):
        """The object, or None when it does not exist."""
        r = self.request("GET", path, ok=(200, 404))
        return r.json() if r.status_code == 200 else None

    def post(self, path, body):
        return self.request("POST", path, body).json()

    def merge_patch(self, path, body):
        return self.request("PATCH", path, body,
                            content_type="application/merge-patch+json").json()

    def strategic_patch(self, path, body):
        return self.request("PATCH", path, body,
                            content_type="application/strategic-merge-patch+json").json()

    def delete(self, path, body=None):
        """True when deleted or being deleted, False when it was not there."""
        r = self.request("DELETE", path, body, ok=(200, 202, 404))
        return r.status_code != 404

    def watch(self, path, resource_version, params=None, timeout_seconds=60):
        """Yields (type, object) from a watch starting after resource_version,
        BOOKMARKs included; raises Gone on a 410 ERROR event."""
        q = dict(params or {})
        q.update(watch="true", resourceVersion=resource_version,
                 allowWatchBookmarks="true", timeoutSeconds=str(timeout_seconds))
        r = self.request("GET", path, params=q, stream=True, timeout=(10, timeout_seconds + 15))
        with r:
            for line in r.iter_lines():
                if not line:
                    continue
                ev = json.loads(line)
                if ev.get("type") == "ERROR":
                    status = ev.get("object", {})
                    if status.get("code") == 410:
                        raise Gone(status.get("message", "expired"))
                    raise ApiError(status.get("code", 500), json.dumps(status))
                yield ev["type"], ev["object"]


def from_env():
    """A client for the bed named by KUBECONFIG (bed.sh up writes bed.env)."""
    return Kube(os.environ["KUBECONFIG"])
