"""A notebook reached through the master's proxy, as a browser would: a
request to /proxy/<id>/... without following redirects, and Python run in
a new kernel over the proxied WebSocket (websocket-client)."""
import json
import urllib.error
import urllib.request
import uuid


def proxied(url, path, token=None, headers=None, method="GET", body=None):
    """(status, body) of a request to master `url`'s proxy, no redirects."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **kw):
            return None
    req = urllib.request.Request(url + path, method=method, data=body)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.build_opener(NoRedirect).open(req, timeout=30) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def run_in_kernel(url, session, nid, nb_token, code):
    """Runs `code` in a new kernel of notebook `nid` over the proxied
    WebSocket, with the user's `session` token; its stdout."""
    import websocket  # websocket-client
    status, text = proxied(url, "/proxy/%s/api/kernels?token=%s" % (nid, nb_token),
                           token=session, method="POST", body=b"{}",
                           headers={"Content-Type": "application/json"})
    assert status == 201, (status, text)
    kid = json.loads(text)["id"]
    ws_url = url.replace("http", "ws", 1) + \
        "/proxy/%s/api/kernels/%s/channels?token=%s" % (nid, kid, nb_token)
    ws = websocket.create_connection(
        ws_url, timeout=60, header=["Authorization: Bearer " + session])
    try:
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": "t", "session": uuid.uuid4().hex,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": False,
                        "user_expressions": {}, "allow_stdin": False}}))
        out = ""
        for _ in range(200):  # bounded: a kernel sends a handful of messages
            m = json.loads(ws.recv())
            if m.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "stream":
                out += m["content"]["text"]
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                return out
        raise AssertionError("no idle status from the kernel")
    finally:
        ws.close()
