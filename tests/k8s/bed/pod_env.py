"""What a pod's process sees, for the process kubelet: its environment
(value, configMapKeyRef, secretKeyRef, fieldRef, resourceFieldRef, envFrom,
$(VAR) expansion), its volumes materialised into a per-pod folder, and the
rewriting of paths and Service names that stands in for a container's
filesystem and the cluster's DNS.

Rewriting (the process runs on this host, not in a container):
- a mount path in an argument, an env value or workingDir becomes the
  volume's folder, longest mount path first, where it starts a word: at the
  start, or after whitespace, `=`, `:`, a quote or `(` (so --config=/etc/x
  and `sh -c "cat /etc/x"` work), and ends at `/`, the end, whitespace, `:`,
  `;`, a quote or `)`;
- a Service's qualified cluster DNS name (`svc.ns`, `svc.ns.svc`,
  `svc.ns.svc.cluster.local`; not the bare `svc`, which names the Service
  in configurations too, and not `kubernetes`) in an argument, an env value
  or the text of a configMap/secret volume file becomes 127.0.0.1: every
  pod shares the
  host's loopback, so a Service reaches its pods when the Service's port
  equals the container's port (charts on the bed set ports to free ones).
"""
import base64
import os
import re

SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


class PodError(Exception):
    """The pod cannot start (a missing ConfigMap key, an unknown volume): its
    container waits with this reason, as a real kubelet reports
    CreateContainerConfigError."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason


def _b64(s):
    return base64.b64decode(s) if s else b""


class PodContext:
    def __init__(self, kube, pod, pod_dir, node_ip="127.0.0.1"):
        self.kube = kube
        self.pod = pod
        self.ns = pod["metadata"]["namespace"]
        self.dir = pod_dir
        self.node_ip = node_ip
        self._cms = {}
        self._secrets = {}
        self.mounts = {}  # volume name -> local folder
        self.service_names = self._service_names()

    # --- lookups ---------------------------------------------------------
    def configmap(self, name, optional=False):
        if name not in self._cms:
            self._cms[name] = self.kube.try_get("/api/v1/namespaces/%s/configmaps/%s" % (self.ns, name))
        cm = self._cms[name]
        if cm is None and not optional:
            raise PodError("CreateContainerConfigError", 'configmap "%s" not found' % name)
        return cm

    def secret(self, name, optional=False):
        if name not in self._secrets:
            self._secrets[name] = self.kube.try_get("/api/v1/namespaces/%s/secrets/%s" % (self.ns, name))
        s = self._secrets[name]
        if s is None and not optional:
            raise PodError("CreateContainerConfigError", 'secret "%s" not found' % name)
        return s

    def _cm_data(self, cm):
        out = {k: v.encode() for k, v in (cm.get("data") or {}).items()}
        out.update({k: _b64(v) for k, v in (cm.get("binaryData") or {}).items()})
        return out

    def _secret_data(self, s):
        out = {k: _b64(v) for k, v in (s.get("data") or {}).items()}
        out.update({k: v.encode() for k, v in (s.get("stringData") or {}).items()})
        return out

    def _service_names(self):
        names = []
        try:
            svcs = self.kube.get("/api/v1/namespaces/%s/services" % self.ns)["items"]
        except Exception:  # noqa: BLE001 - no Services is a valid answer here
            svcs = []
        for s in svcs:
            n = s["metadata"]["name"]
            if n == "kubernetes":
                continue
            names += ["%s.%s.svc.cluster.local" % (n, self.ns), "%s.%s.svc" % (n, self.ns),
                      "%s.%s" % (n, self.ns)]
        names.sort(key=len, reverse=True)
        return names

    def field(self, path):
        m = self.pod["metadata"]
        simple = {
            "metadata.name": m["name"], "metadata.namespace": self.ns,
            "metadata.uid": m.get("uid", ""), "spec.nodeName": self.pod["spec"].get("nodeName", ""),
            "spec.serviceAccountName": self.pod["spec"].get("serviceAccountName", ""),
            "status.podIP": self.node_ip, "status.hostIP": self.node_ip,
            "status.podIPs": self.node_ip, "status.hostIPs": self.node_ip,
        }
        if path in simple:
            return simple[path]
        g = re.match(r"metadata\.(labels|annotations)\['(.+)'\]$", path)
        if g:
            return (m.get(g.group(1)) or {}).get(g.group(2), "")
        raise PodError("CreateContainerConfigError", "unsupported fieldRef %s" % path)

    # --- rewriting ---------------------------------------------------------
    def rewrite(self, text, container):
        """Mount paths to local folders, Service names to 127.0.0.1."""
        for mp, local in self._mount_paths(container):
            text = re.sub(r"(^|[\s=:'\"(])" + re.escape(mp) + r"(?=[/:;'\")\s]|$)",
                          lambda g, local=local: g.group(1) + local, text)
        return self.rewrite_hosts(text)

    def rewrite_hosts(self, text):
        for n in self.service_names:
            text = re.sub(r"(?<![\w.-])" + re.escape(n) + r"(?![\w.-])", "127.0.0.1", text)
        return text

    def _mount_paths(self, container):
        out = []
        for vm in container.get("volumeMounts") or []:
            local = self.mounts.get(vm["name"])
            if local is None:
                continue
            if vm.get("subPath"):
                local = os.path.join(local, vm["subPath"])
            out.append((vm["mountPath"].rstrip("/") or "/", local))
        out.sort(key=lambda p: len(p[0]), reverse=True)
        return out

    # --- environment -------------------------------------------------------
    def env(self, container, base):
        env = dict(base)
        for src in container.get("envFrom") or []:
            prefix = src.get("prefix", "")
            if "configMapRef" in src:
                ref = src["configMapRef"]
                cm = self.configmap(ref["name"], ref.get("optional", False)) or {}
                data = self._cm_data(cm)
            else:
                ref = src["secretRef"]
                s = self.secret(ref["name"], ref.get("optional", False)) or {}
                data = self._secret_data(s)
            for k, v in data.items():
                env[prefix + k] = v.decode(errors="replace")
        for e in container.get("env") or []:
            env[e["name"]] = self._env_value(e, container, env)
        return {k: self.rewrite(v, container) for k, v in env.items()}

    def _env_value(self, e, container, env):
        if "valueFrom" not in e:
            return expand(e.get("value", ""), env)
        vf = e["valueFrom"]
        if "configMapKeyRef" in vf:
            ref = vf["configMapKeyRef"]
            cm = self.configmap(ref["name"], ref.get("optional", False)) or {}
            v = self._cm_data(cm).get(ref["key"])
        elif "secretKeyRef" in vf:
            ref = vf["secretKeyRef"]
            s = self.secret(ref["name"], ref.get("optional", False)) or {}
            v = self._secret_data(s).get(ref["key"])
        elif "fieldRef" in vf:
            return self.field(vf["fieldRef"]["fieldPath"])
        elif "resourceFieldRef" in vf:
            return resource_value(container, vf["resourceFieldRef"])
        else:
            raise PodError("CreateContainerConfigError", "unsupported valueFrom in %s" % e["name"])
        if v is None:
            if ref.get("optional"):
                return ""
            raise PodError("CreateContainerConfigError",
                           'couldn\'t find key %s in %s' % (ref["key"], ref["name"]))
        return v.decode(errors="replace")

    # --- volumes -----------------------------------------------------------
    def materialise(self, token_for):
        """Writes every volume into <pod_dir>/volumes/<name>. token_for(sa,
        seconds) returns a service-account token (TokenRequest)."""
        for vol in self.pod["spec"].get("volumes") or []:
            name = vol["name"]
            local = os.path.join(self.dir, "volumes", name)
            if "hostPath" in vol:
                self.mounts[name] = vol["hostPath"]["path"]
                continue
            if "persistentVolumeClaim" in vol:
                claim = vol["persistentVolumeClaim"]["claimName"]
                local = os.path.join(os.path.dirname(os.path.dirname(self.dir)), "claims", self.ns, claim)
            os.makedirs(local, exist_ok=True)
            self.mounts[name] = local
            if "configMap" in vol:
                v = vol["configMap"]
                cm = self.configmap(v["name"], v.get("optional", False)) or {}
                self._write(local, self._cm_data(cm), v.get("items"), v.get("defaultMode"))
            elif "secret" in vol:
                v = vol["secret"]
                s = self.secret(v["secretName"], v.get("optional", False)) or {}
                self._write(local, self._secret_data(s), v.get("items"), v.get("defaultMode"))
            elif "downwardAPI" in vol:
                self._write_downward(local, vol["downwardAPI"].get("items") or [])
            elif "projected" in vol:
                for src in vol["projected"].get("sources") or []:
                    self._projected(local, src, token_for)
            elif not ({"emptyDir", "persistentVolumeClaim"} & vol.keys()):
                raise PodError("CreateContainerConfigError", "unsupported volume %s" % name)

    def _projected(self, local, src, token_for):
        if "serviceAccountToken" in src:
            t = src["serviceAccountToken"]
            sa = self.pod["spec"].get("serviceAccountName", "default")
            tok = token_for(sa, t.get("expirationSeconds", 3607), t.get("audience"))
            self._write(local, {t["path"]: tok.encode()}, None, None)
        elif "configMap" in src:
            v = src["configMap"]
            cm = self.configmap(v["name"], v.get("optional", False)) or {}
            self._write(local, self._cm_data(cm), v.get("items"), None)
        elif "secret" in src:
            v = src["secret"]
            s = self.secret(v["name"], v.get("optional", False)) or {}
            self._write(local, self._secret_data(s), v.get("items"), None)
        elif "downwardAPI" in src:
            self._write_downward(local, src["downwardAPI"].get("items") or [])

    def _write_downward(self, local, items):
        data = {}
        for it in items:
            if "fieldRef" in it:
                data[it["path"]] = self.field(it["fieldRef"]["fieldPath"]).encode()
        self._write(local, data, None, None)

    def _write(self, local, data, items, mode):
        if items:
            data = {it["path"]: data[it["key"]] for it in items if it["key"] in data}
        for path, content in data.items():
            target = os.path.normpath(os.path.join(local, path))
            if not target.startswith(local + os.sep):
                raise PodError("CreateContainerConfigError", "volume path escapes: %s" % path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            try:
                text = content.decode()
                content = self.rewrite_hosts(text).encode()
            except UnicodeDecodeError:
                pass
            with open(target, "wb") as f:
                f.write(content)
            os.chmod(target, mode if mode is not None else 0o644)


def expand(value, env):
    """Kubernetes' $(VAR) expansion: known names are replaced, $$ escapes,
    unknown references stay as written."""
    def sub(m):
        if m.group(0) == "$$":
            return "$"
        return env.get(m.group(1), m.group(0))
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)", sub, value)


def resource_value(container, ref):
    res = container.get("resources") or {}
    kind, _, name = ref["resource"].partition(".")
    v = (res.get(kind) or {}).get(name)
    if v is None:
        return "0"
    if name == "cpu":
        milli = int(v[:-1]) if v.endswith("m") else int(float(v) * 1000)
        div = ref.get("divisor", "1")
        d = int(div[:-1]) if div.endswith("m") else int(float(div) * 1000)
        return str(-(-milli // d))
    return str(v)
