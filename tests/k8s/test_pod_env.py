"""The process kubelet's stand-ins for a container (tests/k8s/bed/pod_env.py)
as pure functions: $(VAR) expansion, mount-path and Service-name rewriting,
resourceFieldRef values. No bed needed."""
import pytest

import harness.k8s_bed  # noqa: F401 - puts tests/k8s/bed on sys.path
from pod_env import PodContext, PodError, expand, resource_value


class NoServices:
    def get(self, path, params=None):
        return {"items": [{"metadata": {"name": "db"}}, {"metadata": {"name": "kubernetes"}}]}

    def try_get(self, path):
        return None


def ctx(tmp_path):
    pod = {"metadata": {"name": "p", "namespace": "ns", "uid": "u1", "labels": {"a": "b"}},
           "spec": {"nodeName": "n1", "containers": []}}
    c = PodContext(NoServices(), pod, str(tmp_path))
    c.mounts = {"cfg": "/local/cfg", "data": "/local/data"}
    return c


CONTAINER = {"volumeMounts": [{"name": "cfg", "mountPath": "/etc/determined"},
                              {"name": "data", "mountPath": "/etc/determined/data"}]}


def test_expand_replaces_known_names_keeps_unknown_and_unescapes_dollars():
    assert expand("$(A)-$(B)-$$(A)", {"A": "1"}) == "1-$(B)-$(A)"


@pytest.mark.parametrize("arg,want", [
    ("/etc/determined/master.yaml", "/local/cfg/master.yaml"),
    ("--config=/etc/determined/master.yaml", "--config=/local/cfg/master.yaml"),
    ("cat /etc/determined/data/x; ls", "cat /local/data/x; ls"),
    ("/etc/determined", "/local/cfg"),
    ("/etc/determinedX/a", "/etc/determinedX/a"),
    ("/opt/etc/determined/a", "/opt/etc/determined/a"),
])
def test_mount_paths_are_rewritten_where_they_start_a_word(tmp_path, arg, want):
    assert ctx(tmp_path).rewrite(arg, CONTAINER) == want


@pytest.mark.parametrize("text,want", [
    ("host: db.ns.svc.cluster.local", "host: 127.0.0.1"),
    ("postgres://u@db.ns:5432/x", "postgres://u@127.0.0.1:5432/x"),
    ("master_service_name: db", "master_service_name: db"),
    ("kubernetes.ns.svc", "kubernetes.ns.svc"),
    ("mydb.ns.svc", "mydb.ns.svc"),
])
def test_only_qualified_service_names_become_loopback(tmp_path, text, want):
    assert ctx(tmp_path).rewrite_hosts(text) == want


def test_field_refs_name_the_pod_and_unknown_ones_are_refused(tmp_path):
    c = ctx(tmp_path)
    assert [c.field(f) for f in ("metadata.name", "spec.nodeName", "metadata.labels['a']")] == ["p", "n1", "b"]
    with pytest.raises(PodError):
        c.field("status.phase")


def test_a_missing_configmap_is_a_create_container_config_error(tmp_path):
    with pytest.raises(PodError) as e:
        ctx(tmp_path).env({"env": [{"name": "X", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}}]}, {})
    assert e.value.reason == "CreateContainerConfigError"


def test_resource_field_refs_round_cpu_up_by_the_divisor():
    c = {"resources": {"limits": {"cpu": "1500m", "memory": "1Gi"}}}
    assert resource_value(c, {"resource": "limits.cpu"}) == "2"
    assert resource_value(c, {"resource": "limits.cpu", "divisor": "1m"}) == "1500"
    assert resource_value(c, {"resource": "limits.memory"}) == "1Gi"


def test_volume_paths_cannot_escape_the_volume_folder(tmp_path):
    c = ctx(tmp_path)
    with pytest.raises(PodError):
        c._write(str(tmp_path / "v"), {"../../etc/x": b"no"}, None, None)
