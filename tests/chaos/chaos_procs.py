"""The processes of one cluster, found in /proc: its det-agent processes (by
the master URL on their command line) and its trial processes (by
DET_MASTER in their environment), so the suite needs no knowledge of where
the local provider keeps its folders."""
import os
from dataclasses import dataclass


@dataclass
class Proc:
    pid: int
    ppid: int
    state: str  # R, S, T (stopped), ... (zombies are never listed)
    argv: list


def _stat(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def _procs():
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            state, ppid = _stat(pid)
            if state == "Z":
                continue
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        yield Proc(pid, ppid, state, argv)


def _environ(pid):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            items = f.read().split(b"\0")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return {}
    env = {}
    for item in items:
        k, sep, v = item.partition(b"=")
        if sep:
            env[k.decode(errors="replace")] = v.decode(errors="replace")
    return env


def _arg(argv, name):
    for i, a in enumerate(argv[:-1]):
        if a == name:
            return argv[i + 1]
    return None


@dataclass
class Snapshot:
    agents: dict        # agent id -> Proc of the det-agent process
    trials: list        # (Proc, trial id, allocation id) of trial processes
    others: list        # every other process of the cluster (supervisors, ...)


def scan(master_url):
    """The cluster's processes now. A trial's supervisor is a fork of
    det-agent (same command line) whose parent is the agent: it is listed
    under `others`, not as an agent."""
    agents, trials, others = {}, [], []
    procs = list(_procs())
    ours = {}
    for p in procs:
        if p.argv and os.path.basename(p.argv[0]) == "det-agent" \
                and _arg(p.argv, "--master-url") == master_url:
            ours[p.pid] = p
    for p in ours.values():
        if p.ppid in ours:
            others.append(p)
        else:
            agents[_arg(p.argv, "--agent-id") or str(p.pid)] = p
    for p in procs:
        if p.pid in ours or not any("train.py" in a for a in p.argv):
            continue
        env = _environ(p.pid)
        if env.get("DET_MASTER", "").rstrip("/") != master_url:
            continue
        trials.append((p, int(env.get("DET_TRIAL_ID", "0") or 0),
                       env.get("DET_ALLOCATION_ID", "")))
    return Snapshot(agents, trials, others)


class AllocationWatch:
    """Samples which allocations of which trial have live processes, to find
    two allocations of one trial alive at once in the real world (the log
    cannot show a stale run that goes on after its allocation ended)."""

    def __init__(self):
        self.seen = {}  # (trial, allocation) -> [first, last] monotonic times

    def sample(self, snapshot, now):
        for _, trial, alloc in snapshot.trials:
            span = self.seen.setdefault((trial, alloc), [now, now])
            span[1] = now

    def overlaps(self):
        """(trial, alloc a, alloc b, seconds both were seen alive)."""
        by_trial = {}
        for (trial, alloc), span in self.seen.items():
            by_trial.setdefault(trial, []).append((alloc, span))
        out = []
        for trial, runs in by_trial.items():
            for i in range(len(runs)):
                for j in range(i + 1, len(runs)):
                    (a, sa), (b, sb) = runs[i], runs[j]
                    both = min(sa[1], sb[1]) - max(sa[0], sb[0])
                    if both >= 0:
                        out.append((trial, a, b, both))
        return out
