#!/usr/bin/env python3
"""The process kubelet: the test bed's stand-in for a kubelet, which cannot
run here (no container runtime). It speaks the real protocol to the real API
server: it registers its own Nodes (with GPU and CPU capacity) and keeps
them Ready, watches the pods bound to them (list, then watch from the
resourceVersion; a 410 lists again), runs each container's command as a
local process, writes pod status back (Pending -> Running -> Succeeded or
Failed, with conditions and containerStatuses carrying the exit code), kills
the process group when the pod is deleted (SIGTERM, then SIGKILL after the
grace period) and then removes the pod, and serves container logs on its
HTTPS endpoint (the node's daemonEndpoints port) so that `kubectl logs` and
`GET pods/{name}/log?follow=true` work through the API server.

What stands in for a container (pod_env.py has the rewriting rules):
- the image: --image NAME=ENTRYPOINT maps an image (repository without
  registry or tag, matched on its last components) to the local command a
  container without `command` runs; --bin NAME=PATH maps a command's first
  word (e.g. det-master -> build/bin/det-master). Otherwise the command is
  looked up on PATH. An image without a mapping and a container without a
  command wait with reason ErrImagePull.
- the filesystem: volumes are folders under <work>/pods/<uid>/volumes; mount
  paths in arguments, env values and workingDir are rewritten to them. The
  service-account volume is there too, and DET_K8S_SA_DIR names it (code
  that reads /var/run/secrets/... at a fixed path cannot be redirected).
- the network: every pod shares the host's loopback (podIP 127.0.0.1);
  KUBERNETES_SERVICE_HOST/PORT name the API server.
- restartPolicy Always/OnFailure restarts the container (restartCount, a
  back-off of 1-10 s); Never ends the pod.

Usage: process_kubelet.py --kubeconfig K --work DIR --port P --cert C
--key K [--client-ca CA] --node NAME[:gpu=N][,cpu=N][,memory=Q][,taint=k=v:Effect] ...
Ends on SIGTERM/SIGINT, killing every process it started.
"""
import argparse
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kube_rest import ApiError, Gone, Kube  # noqa: E402
from kubelet_pods import PodRunner  # noqa: E402
from kubelet_logs import serve_logs  # noqa: E402


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def parse_node(spec):
    name, _, rest = spec.partition(":")
    node = {"name": name, "cpu": "8", "memory": "32Gi", "gpu": "0", "taints": []}
    for part in filter(None, rest.split(",")):
        k, _, v = part.partition("=")
        if k == "taint":
            key, _, ve = v.partition("=")
            val, _, eff = ve.partition(":")
            node["taints"].append({"key": key, "value": val, "effect": eff or "NoSchedule"})
        else:
            node[k] = v
    return node


class Kubelet:
    def __init__(self, args):
        self.kube = Kube(args.kubeconfig)
        self.args = args
        self.nodes = [parse_node(s) for s in args.node]
        self.stop = threading.Event()
        self.pods = {}  # uid -> PodRunner
        self.lock = threading.Lock()
        self.images = dict(i.split("=", 1) for i in args.image)
        self.bins = dict(b.split("=", 1) for b in args.bin)

    # --- nodes -------------------------------------------------------------
    def node_status(self, n):
        res = {"cpu": n["cpu"], "memory": n["memory"], "pods": "110"}
        if n["gpu"] != "0":
            res["nvidia.com/gpu"] = n["gpu"]
        t = now()
        return {
            "capacity": res, "allocatable": res,
            "addresses": [{"type": "InternalIP", "address": "127.0.0.1"},
                          {"type": "Hostname", "address": n["name"]}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": self.args.port}},
            "nodeInfo": {"kubeletVersion": "v1.33.13-process", "operatingSystem": "linux",
                         "architecture": "amd64", "containerRuntimeVersion": "process://1",
                         "kernelVersion": "", "osImage": "det process kubelet", "machineID": "",
                         "systemUUID": "", "bootID": "", "kubeProxyVersion": ""},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "process kubelet is ready", "lastHeartbeatTime": t,
                            "lastTransitionTime": t}],
        }

    def register(self):
        for n in self.nodes:
            body = {"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": n["name"],
                                 "labels": {"det-bed": "process", "kubernetes.io/hostname": n["name"],
                                            "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
                    "spec": {"taints": n["taints"]}}
            path = "/api/v1/nodes/" + n["name"]
            if self.kube.try_get(path) is None:
                self.kube.post("/api/v1/nodes", body)
            else:
                self.kube.strategic_patch(path, {"metadata": body["metadata"], "spec": body["spec"]})
            self.kube.strategic_patch(path + "/status", {"status": self.node_status(n)})

    def heartbeat(self):
        while not self.stop.wait(self.args.heartbeat):
            for n in self.nodes:
                try:
                    self.kube.strategic_patch("/api/v1/nodes/%s/status" % n["name"],
                                              {"status": self.node_status(n)})
                except Exception as e:  # noqa: BLE001 - next beat retries
                    print("kubelet: heartbeat of %s failed: %s" % (n["name"], e), flush=True)

    # --- pods --------------------------------------------------------------
    def watch_node(self, node):
        path = "/api/v1/pods"
        params = {"fieldSelector": "spec.nodeName=" + node}
        while not self.stop.is_set():
            try:
                lst = self.kube.get(path, params)
                rv = lst["metadata"]["resourceVersion"]
                seen = set()
                for pod in lst["items"]:
                    seen.add(pod["metadata"]["uid"])
                    self.on_pod("ADDED", pod)
                self.forget_missing(node, seen)
                while not self.stop.is_set():
                    for typ, obj in self.kube.watch(path, rv, params, timeout_seconds=30):
                        rv = obj["metadata"].get("resourceVersion", rv)
                        if typ != "BOOKMARK":
                            self.on_pod(typ, obj)
            except Gone:
                continue
            except Exception as e:  # noqa: BLE001 - the API server may restart
                if not self.stop.is_set():
                    print("kubelet: watch of %s: %s" % (node, e), flush=True)
                    self.stop.wait(1.0)

    def forget_missing(self, node, seen):
        with self.lock:
            gone = [r for uid, r in self.pods.items() if r.node == node and uid not in seen]
        for r in gone:
            r.deleted()

    def on_pod(self, typ, pod):
        uid = pod["metadata"]["uid"]
        with self.lock:
            runner = self.pods.get(uid)
            if runner is None and typ != "DELETED":
                if pod["metadata"].get("deletionTimestamp"):
                    self.remove_unstarted(pod)  # nothing of ours runs for it
                    return
                if pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                    return  # finished before this kubelet started
                runner = PodRunner(self, pod)
                self.pods[uid] = runner
                runner.start()
                return
        if runner is None:
            return
        if typ == "DELETED":
            runner.deleted()
        elif pod["metadata"].get("deletionTimestamp"):
            runner.terminate(pod["metadata"].get("deletionGracePeriodSeconds", 30))

    def remove_unstarted(self, pod):
        m = pod["metadata"]
        opts = {"gracePeriodSeconds": 0, "preconditions": {"uid": m["uid"]}}
        try:
            self.kube.delete("/api/v1/namespaces/%s/pods/%s" % (m["namespace"], m["name"]), opts)
        except ApiError as e:
            print("kubelet: delete %s/%s: %s" % (m["namespace"], m["name"], e), flush=True)

    def forget(self, uid):
        with self.lock:
            self.pods.pop(uid, None)

    def runner_for(self, ns, name):
        with self.lock:
            for r in self.pods.values():
                if r.ns == ns and r.name == name:
                    return r
        return None

    def token_for(self, ns, sa, seconds, audience, pod):
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                "spec": {"expirationSeconds": max(600, int(seconds)),
                         "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                                            "name": pod["metadata"]["name"],
                                            "uid": pod["metadata"]["uid"]}}}
        if audience:
            body["spec"]["audiences"] = [audience]
        r = self.kube.post("/api/v1/namespaces/%s/serviceaccounts/%s/token" % (ns, sa), body)
        return r["status"]["token"]

    def run(self):
        self.register()
        os.makedirs(os.path.join(self.args.work, "pods"), exist_ok=True)
        server = serve_logs(self, self.args.port, self.args.cert, self.args.key, self.args.client_ca)
        threads = [threading.Thread(target=self.heartbeat, daemon=True)]
        threads += [threading.Thread(target=self.watch_node, args=(n["name"],), daemon=True)
                    for n in self.nodes]
        for t in threads:
            t.start()
        print("kubelet: ready, nodes %s, logs on 127.0.0.1:%d" %
              (", ".join(n["name"] for n in self.nodes), self.args.port), flush=True)
        self.stop.wait()
        server.shutdown()
        with self.lock:
            runners = list(self.pods.values())
        for r in runners:
            r.kill_now()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kubeconfig", required=True)
    p.add_argument("--work", required=True, help="folder for pods' volumes and logs")
    p.add_argument("--port", type=int, required=True, help="HTTPS log endpoint on 127.0.0.1")
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--client-ca", help="require log clients' certificates from this CA")
    p.add_argument("--node", action="append", required=True)
    p.add_argument("--image", action="append", default=[], help="IMAGE=ENTRYPOINT")
    p.add_argument("--bin", action="append", default=[], help="NAME=PATH")
    p.add_argument("--heartbeat", type=float, default=10.0)
    args = p.parse_args()
    k = Kubelet(args)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: k.stop.set())
    try:
        k.run()
    except ApiError as e:
        print("kubelet: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
