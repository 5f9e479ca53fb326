"""One pod under the process kubelet (process_kubelet.py): prepares its
volumes and environment, runs its init containers in order and then its
containers as local process groups, restarts them as restartPolicy says,
and writes the pod's status through the API server at every change. Owned
by one thread per pod; terminate()/deleted()/kill_now() come from the watch
thread and only signal processes and set flags."""
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from urllib.parse import urlparse

from kube_rest import ApiError
from pod_env import SA_DIR, PodContext, PodError, expand


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Container:
    def __init__(self, spec, image):
        self.spec = spec
        self.name = spec["name"]
        self.image = image
        self.proc = None
        self.state = {"waiting": {"reason": "ContainerCreating"}}
        self.last_state = {}
        self.restarts = 0
        self.log_path = None

    def status(self):
        running = "running" in self.state
        return {"name": self.name, "image": self.image, "imageID": "process://" + self.image,
                "containerID": "process://%d" % self.proc.pid if self.proc else "",
                "state": self.state, "lastState": self.last_state, "ready": running,
                "started": running, "restartCount": self.restarts}


class PodRunner:
    def __init__(self, kubelet, pod):
        self.k = kubelet
        self.pod = pod
        m = pod["metadata"]
        self.uid, self.ns, self.name = m["uid"], m["namespace"], m["name"]
        self.node = pod["spec"]["nodeName"]
        self.dir = os.path.join(kubelet.args.work, "pods", self.uid)
        self.init = [Container(c, c.get("image", "")) for c in pod["spec"].get("initContainers") or []]
        self.main = [Container(c, c.get("image", "")) for c in pod["spec"]["containers"]]
        self.phase = "Pending"
        self.started_at = now()
        self.stopping = threading.Event()  # deletion asked: no restarts
        self.gone = threading.Event()  # the pod object is gone
        self.finished = threading.Event()  # every process has exited
        self.lock = threading.Lock()  # processes: start vs signal
        self.status_lock = threading.Lock()  # one status write at a time, in order

    def start(self):
        threading.Thread(target=self._run, name="pod-" + self.name, daemon=True).start()

    # --- from the watch thread ---------------------------------------------
    def terminate(self, grace):
        if self.stopping.is_set():
            return
        self.stopping.set()
        self._signal(signal.SIGTERM)
        threading.Thread(target=self._finish_deletion, args=(grace,), daemon=True).start()

    def deleted(self):
        self.gone.set()
        self.stopping.set()
        self._signal(signal.SIGKILL)
        self.k.forget(self.uid)

    def kill_now(self):
        self.stopping.set()
        self._signal(signal.SIGKILL)

    def container(self, name):
        for c in self.main + self.init:
            if c.name == name:
                return c
        return None

    def _signal(self, sig):
        with self.lock:
            procs = [c.proc for c in self.init + self.main if c.proc and c.proc.poll() is None]
        for p in procs:
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass

    def _finish_deletion(self, grace):
        if not self.finished.wait(max(0, grace)):
            self._signal(signal.SIGKILL)
            self.finished.wait(10)
        opts = {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0,
                "preconditions": {"uid": self.uid}}
        try:
            self.k.kube.delete("/api/v1/namespaces/%s/pods/%s" % (self.ns, self.name), opts)
        except ApiError as e:
            if e.status != 409:  # 409: another pod of the same name now
                print("kubelet: delete %s/%s: %s" % (self.ns, self.name, e), flush=True)
        self.deleted()
        shutil.rmtree(self.dir, ignore_errors=True)

    # --- the pod's thread ----------------------------------------------------
    def _run(self):
        try:
            os.makedirs(os.path.join(self.dir, "logs"), exist_ok=True)
            self._write_status()
            envs = self._prepare()
            if envs is None:
                return
            for c in self.init:
                if not self._run_to_end(c, envs[c.name], restart=False) or self.stopping.is_set():
                    self.phase = "Failed"
                    self._write_status()
                    return
            self.phase = "Running"
            threads = [threading.Thread(target=self._run_to_end, args=(c, envs[c.name], True),
                                        daemon=True) for c in self.main]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            codes = [c.state.get("terminated", {}).get("exitCode", 1) for c in self.main]
            self.phase = "Succeeded" if all(x == 0 for x in codes) else "Failed"
            self._write_status()
        except Exception as e:  # noqa: BLE001 - report, never take the kubelet down
            print("kubelet: pod %s/%s: %r" % (self.ns, self.name, e), flush=True)
        finally:
            self.finished.set()

    def _prepare(self):
        """Volumes and env of every container, retried while a ConfigMap or
        Secret is missing (as a kubelet does), None when deleted meanwhile."""
        while not self.stopping.is_set():
            try:
                ctx = PodContext(self.k.kube, self.pod, self.dir)
                ctx.materialise(lambda sa, secs, aud: self.k.token_for(self.ns, sa, secs, aud, self.pod))
                self.ctx = ctx
                return {c.name: self._env(ctx, c.spec) for c in self.init + self.main}
            except PodError as e:
                for c in self.init + self.main:
                    c.state = {"waiting": {"reason": e.reason, "message": str(e)}}
                self._write_status()
                self.stopping.wait(2.0)
        return None

    def _env(self, ctx, spec):
        api = urlparse(self.k.kube.server)
        sa = ctx.mounts.get(self._sa_volume(), "")
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOSTNAME": self.name,
                "HOME": os.path.join(self.dir, "home"),
                "KUBERNETES_SERVICE_HOST": api.hostname, "KUBERNETES_SERVICE_PORT": str(api.port or 443),
                "DET_K8S_SA_DIR": sa}
        # The sanitizer options of an instrumented build (make test) reach the
        # pods as they reach every other process the tests start.
        for k in ("LANG", "LC_ALL", "PYTHONPATH", "TMPDIR", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"):
            if k in os.environ:
                base[k] = os.environ[k]
        os.makedirs(base["HOME"], exist_ok=True)
        return ctx.env(spec, base)

    def _sa_volume(self):
        for c in self.pod["spec"]["containers"]:
            for vm in c.get("volumeMounts") or []:
                if vm["mountPath"].rstrip("/") == SA_DIR:
                    return vm["name"]
        return None

    def _argv(self, c, env):
        spec = c.spec
        argv = list(spec.get("command") or [])
        if not argv:
            entry = self._image_entrypoint(c.image)
            if entry is None:
                raise PodError("ErrImagePull", "image %s has no local mapping (--image) and the "
                               "container no command" % c.image)
            argv = entry
        argv += spec.get("args") or []
        argv = [self.ctx.rewrite(expand(a, env), spec) for a in argv]
        argv[0] = self.k.bins.get(argv[0], self.k.bins.get(os.path.basename(argv[0]), argv[0]))
        return argv

    def _image_entrypoint(self, image):
        repo = image.rsplit("@", 1)[0]
        if ":" in repo.rsplit("/", 1)[-1]:
            repo = repo.rsplit(":", 1)[0]
        parts = repo.split("/")
        for i in range(len(parts)):
            key = "/".join(parts[i:])
            if key in self.k.images:
                return shlex.split(self.k.images[key])
        return None

    def _run_to_end(self, c, env, restart):
        """Runs c until it ends for good; True when it exited 0."""
        policy = self.pod["spec"].get("restartPolicy", "Always") if restart else "Never"
        backoff = 1.0
        while True:
            code = self._run_once(c, env)
            if self.stopping.is_set() or policy == "Never" or (policy == "OnFailure" and code == 0):
                return code == 0
            c.last_state = c.state
            c.restarts += 1
            c.state = {"waiting": {"reason": "CrashLoopBackOff"}}
            self._write_status()
            if self.stopping.wait(backoff):
                return code == 0
            backoff = min(backoff * 2, 10.0)

    def _run_once(self, c, env):
        started = now()
        try:
            argv = self._argv(c, env)
            wd = self.ctx.rewrite(c.spec.get("workingDir") or "", c.spec) or os.path.join(self.dir, "home")
            os.makedirs(wd, exist_ok=True)
            c.log_path = os.path.join(self.dir, "logs", "%s.%d.log" % (c.name, c.restarts))
            with open(c.log_path, "ab") as log:
                with self.lock:
                    if self.stopping.is_set():
                        return 137
                    c.proc = subprocess.Popen(argv, env=env, cwd=wd, stdout=log, stderr=subprocess.STDOUT,
                                              stdin=subprocess.DEVNULL, start_new_session=True)
        except (OSError, PodError) as e:
            reason = e.reason if isinstance(e, PodError) else "StartError"
            c.state = {"terminated": {"exitCode": 128, "reason": reason, "message": str(e),
                                      "startedAt": started, "finishedAt": now()}}
            self._write_status()
            return 128
        c.state = {"running": {"startedAt": started}}
        self._write_status()
        rc = c.proc.wait()
        code = rc if rc >= 0 else 128 - rc
        c.state = {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                  "startedAt": started, "finishedAt": now(),
                                  "containerID": "process://%d" % c.proc.pid}}
        self._write_status()
        return code

    def _write_status(self):
        with self.status_lock:
            self._write_status_locked()

    def _write_status_locked(self):
        if self.gone.is_set():
            return
        t = now()
        running = self.phase == "Running" and all("running" in c.state for c in self.main)
        inited = self.phase != "Pending" or not self.init

        def cond(typ, ok):
            return {"type": typ, "status": "True" if ok else "False", "lastTransitionTime": t}
        status = {
            "phase": self.phase, "hostIP": "127.0.0.1", "podIP": "127.0.0.1",
            "hostIPs": [{"ip": "127.0.0.1"}], "podIPs": [{"ip": "127.0.0.1"}],
            "startTime": self.started_at,
            "conditions": [cond("PodReadyToStartContainers", True), cond("Initialized", inited),
                           cond("Ready", running), cond("ContainersReady", running),
                           cond("PodScheduled", True)],
            "containerStatuses": [c.status() for c in self.main],
            "initContainerStatuses": [c.status() for c in self.init],
        }
        try:
            self.k.kube.merge_patch("/api/v1/namespaces/%s/pods/%s/status" % (self.ns, self.name),
                                    {"status": status})
        except ApiError as e:
            if e.status == 404:
                self.gone.set()
            else:
                print("kubelet: status of %s/%s: %s" % (self.ns, self.name, e), flush=True)
