"""Two clusters on one host (issue #13, finding 8), written as the attack:
two masters with their own databases, the same (default) cluster id, the
same pool name and the same local provider base folder. Each one's local
agents survive the other's start-up, scale-down and shutdown, and each
master's next start adopts its own agents again."""
import os
import signal
import subprocess

from conftest import experiment_yaml, wait_for


def agents_of(c):
    """Pids of the det-agent processes that serve master `c` (their command
    line names its URL), found in /proc, not through any folder."""
    pids = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
            with open("/proc/%s/stat" % name) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        if argv and argv[0].endswith("det-agent") and c.url in argv:
            pids.add(int(name))
    return pids


def connected_agents(c):
    return [a["id"] for a in c.get("/api/v1/agents")["agents"]]


def shut_down(c):
    """SIGTERM to the master only (Cluster.stop would also kill its agents)."""
    c.proc.send_signal(signal.SIGTERM)
    c.proc.wait(timeout=30)


def run_two_trials(c):
    """Two one-slot trials on a pool that keeps one agent: a second agent is
    launched and, idle, terminated again (a scale-down)."""
    status, body = c.submit(experiment_yaml(max_length=60, trials=2, batch_delay=0.1))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    wait_for("a second agent", lambda: len(agents_of(c)) == 2, timeout=60)
    wait_for("the experiment to complete",
             lambda: c.experiment(exp_id)["state"] == "STATE_COMPLETED", timeout=120)
    wait_for("the pool to scale back to one agent",
             lambda: len(agents_of(c)) == 1, timeout=60)
    terminated = subprocess.check_output(
        ["psql", c.db, "-qAtc",
         "SELECT count(*) FROM events WHERE type = 'instance_terminate_requested'"],
        text=True).strip()
    assert int(terminated) >= 1, "no scale-down happened"


def test_two_clusters_on_one_host_never_touch_each_others_agents(cluster_factory, tmp_path):
    base = str(tmp_path / "shared-base")
    kw = dict(min_instances=1, max_instances=2, idle="2s", reconnect_wait="30s",
              work_dir=base)
    a = cluster_factory(**kw)
    a_agents = wait_for("a's agent", lambda: len(agents_of(a)) == 1 and agents_of(a), timeout=60)
    wait_for("a's agent to connect", lambda: connected_agents(a), timeout=60)

    # b's start-up, beside a's running agent.
    b = cluster_factory(**kw)
    b_agents = wait_for("b's agent", lambda: len(agents_of(b)) == 1 and agents_of(b), timeout=60)
    wait_for("b's agent to connect", lambda: connected_agents(b), timeout=60)
    assert a.cluster_dir() and b.cluster_dir() and a.cluster_dir() != b.cluster_dir()
    for d in (a.cluster_dir(), b.cluster_dir()):
        assert os.stat(d).st_mode & 0o777 == 0o700, d
    assert agents_of(a) == a_agents

    # b scales up and down, then shuts down.
    run_two_trials(b)
    assert agents_of(a) == a_agents, "b's scale-down touched a's agents"
    b_agents = agents_of(b)
    shut_down(b)
    assert agents_of(a) == a_agents, "b's shutdown touched a's agents"
    assert agents_of(b) == b_agents, "b's agents outlive their master's shutdown"

    # a restarts beside b's agents (whose master is down), scales up and
    # down, and shuts down.
    shut_down(a)
    a.start()
    wait_for("a's agent to reconnect", lambda: connected_agents(a), timeout=60)
    assert agents_of(a) == a_agents, "a's own restart lost its agent"
    run_two_trials(a)
    assert agents_of(b) == b_agents, "a's start-up or scale-down touched b's agents"
    a_agents = agents_of(a)
    shut_down(a)
    assert agents_of(b) == b_agents, "a's shutdown touched b's agents"

    # b's next master adopts its own agent again, and only it.
    b.start()
    wait_for("b's agent to reconnect", lambda: connected_agents(b), timeout=60)
    assert agents_of(b) == b_agents
    assert set(b.agent_pids().values()) == b_agents
    assert agents_of(a) == a_agents
