"""The chaos run: a mixed workload of small experiments on the local
provider, commands (submit, pause, activate, kill) issued over time, the
master SIGKILLed at random moments (often right after a command is
acknowledged) and restarted on the same database, agents SIGKILLed and
SIGSTOPped. Every decision comes from one seeded random.Random; the waits
between steps are drawn from it too (that is the chaos), while everything
the run waits *for* is polled with a deadline."""
import json
import os
import signal
import time
import urllib.error

from chaos_log import instances_not_terminated, read_events
from chaos_procs import AllocationWatch, scan

ACTIVE_STATES = ("STATE_ACTIVE", "STATE_QUEUED", "STATE_PULLING", "STATE_STARTING",
                 "STATE_RUNNING")


class ChaosFailure(Exception):
    pass


def experiment_config(kind, name, length, trials):
    """The sample model's config for one kind of experiment:
    single / grid (`trials` learning rates) / random (`trials` trials) /
    failing (a fresh run fails at step 3; checkpoints every 2 batches, so
    its restart resumes past it) / long (killed by the run before it ends)."""
    hp = {"batch_size": 16, "metrics_every": 5, "batch_delay": 0.03,
          "checkpoint_every": 2 if kind == "failing" else 10}
    searcher = {"name": "single", "metric": "validation_loss",
                "max_length": {"batches": length}}
    if kind == "grid":
        hp["learning_rate"] = {"type": "double", "minval": 0.05, "maxval": 0.2,
                               "count": trials}
        searcher["name"] = "grid"
    elif kind == "random":
        hp["learning_rate"] = {"type": "double", "minval": 0.05, "maxval": 0.2}
        searcher.update(name="random", max_trials=trials)
    else:
        hp["learning_rate"] = 0.1
    if kind == "failing":
        hp["fail_at_step"] = 3
    return json.dumps({"name": name, "entrypoint": "python3 train.py",
                       "max_restarts": 3, "resources": {"slots_per_trial": 1},
                       "hyperparameters": hp, "searcher": searcher})


class Experiment:
    def __init__(self, exp_id, kind, length, trials, round_no):
        self.id = exp_id
        self.kind = kind
        self.length = length
        self.trials = trials
        self.submitted_round = round_no
        self.acked = []        # commands acknowledged with 200, in order
        self.unsure = []       # commands whose answer was lost (timeout)
        self.paused_round = None
        self.state = "STATE_ACTIVE"

    @property
    def killed(self):
        return "kill" in self.acked

    def ended(self):
        return self.state in ("STATE_COMPLETED", "STATE_CANCELED", "STATE_ERROR")


def percentile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    k = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[k]


class ChaosRun:
    SAMPLE_EVERY = 0.5   # seconds between /proc samples
    READY_TIMEOUT = 60   # kill -> master answers and agents reconnected

    def __init__(self, cluster, rng, kills, note):
        self.c = cluster
        self.rng = rng
        self.kills = kills
        self.note = note  # note(text): the run's log (printed on failure)
        self.experiments = {}
        self.round = 0
        self.restart_ms = []
        self.kills_done = 0
        self.info_ms = []
        self.kill_contexts = {}
        self.agent_kills = 0
        self.agent_stops = 0
        self.stopped = {}  # pid -> monotonic time to SIGCONT it
        self.hurt_agents = set()  # ids of the agents SIGKILLed or SIGSTOPped
        self.watch = AllocationWatch()
        self.last_sample = 0.0
        # Enough experiments that the workload runs through every round
        # (three slots; a few live experiments at a time).
        self.submit_budget = 4 + kills // 3
        self.submitted = 0

    # -- housekeeping, run by every wait ------------------------------------

    def tick(self):
        now = time.monotonic()
        for pid, at in list(self.stopped.items()):
            if now >= at:
                self._signal(pid, signal.SIGCONT)
                del self.stopped[pid]
        if now - self.last_sample >= self.SAMPLE_EVERY:
            self.last_sample = now
            self.watch.sample(scan(self.c.url), now)

    def pause_for(self, seconds):
        """A chaos delay (drawn from the seeded RNG), not a wait for
        anything: the workload runs meanwhile."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.tick()
            time.sleep(min(0.05, max(0.0, end - time.monotonic())))

    def until(self, what, predicate, timeout, interval=0.05):
        deadline = time.monotonic() + timeout
        while True:
            self.tick()
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise ChaosFailure("timed out after %.0f s waiting for %s" % (timeout, what))
            time.sleep(interval)

    @staticmethod
    def _signal(pid, sig):
        try:
            os.kill(pid, sig)
            return True
        except ProcessLookupError:
            return False

    def resume_all(self):
        for pid in list(self.stopped):
            self._signal(pid, signal.SIGCONT)
        self.stopped.clear()

    # -- the master ----------------------------------------------------------

    def _request(self, method, path):
        try:
            if method == "GET":
                return 200, self.c.get(path)
            return self.c.post(path)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
            return None, str(e)

    def refresh(self):
        for e in self.experiments.values():
            if e.ended():
                continue
            status, body = self._request("GET", "/api/v1/experiments/%d" % e.id)
            if status == 200:
                # An active experiment shows as QUEUED, PULLING or RUNNING
                # by its trials; the workload's model knows it as ACTIVE.
                state = body["experiment"]["state"]
                e.state = "STATE_ACTIVE" if state in ACTIVE_STATES else state

    def kill_and_restart(self, context, interrupt=None):
        """SIGKILLs the master and starts it again on the same database;
        ready when /info answers and every agent that was connected (and is
        not stopped) has connected to the new master. With `interrupt`
        (seconds), returns that long after /info answers instead, while the
        agents are reconnecting and re-sending what they kept (exits, logs):
        the caller kills the master again then."""
        snap = scan(self.c.url)
        expected = {a for a, p in snap.agents.items() if p.state != "T"}
        offset = os.path.getsize(self.c.log_path)
        t0 = time.monotonic()
        self.c.kill_master()
        self.kills_done += 1
        self.kill_contexts[context] = self.kill_contexts.get(context, 0) + 1
        self.tick()
        self.c.start()
        t_info = time.monotonic()
        self.info_ms.append((t_info - t0) * 1000)
        if interrupt is not None:
            self.pause_for(interrupt)
            self.note("round %d: master killed (%s), /info after %.0f ms, killed again "
                      "%.0f ms later" % (self.round, context, self.info_ms[-1],
                                         interrupt * 1000))
            return

        def reconnected():
            with open(self.c.log_path, errors="replace") as f:
                f.seek(offset)
                tail = f.read()
            live = scan(self.c.url).agents
            missing = [a for a in expected
                       if a in live and live[a].state != "T"
                       and "agent %s connected (" % a not in tail]
            return not missing
        self.until("the agents to reconnect after restart %d" % (len(self.restart_ms) + 1),
                   reconnected, self.READY_TIMEOUT)
        self.restart_ms.append((time.monotonic() - t0) * 1000)
        self.note("round %d: master killed (%s), ready after %.0f ms (/info %.0f ms)"
                  % (self.round, context, self.restart_ms[-1], self.info_ms[-1]))

    # -- commands ------------------------------------------------------------

    def submit(self):
        r = self.rng.random()
        if r < 0.3:
            kind, trials, length = "single", 1, self.rng.randrange(40, 121, 10)
        elif r < 0.5:
            kind, trials, length = "grid", self.rng.randint(2, 3), self.rng.randrange(30, 81, 10)
        elif r < 0.7:
            kind, trials, length = "random", self.rng.randint(2, 3), self.rng.randrange(30, 81, 10)
        elif r < 0.85:
            kind, trials, length = "failing", 1, 40
        else:
            kind, trials, length = "long", 1, 100000
        name = "chaos-%s-%d" % (kind, self.submitted + 1)
        self.submitted += 1
        try:
            status, body = self.c.submit(experiment_config(kind, name, length, trials))
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
            self.note("round %d: submit %s: no answer (%s)" % (self.round, name, e))
            return False
        if status != 200:
            raise ChaosFailure("submit %s refused: %s %s" % (name, status, body))
        e = Experiment(int(body["experiment"]["id"]), kind, length, trials, self.round)
        self.experiments[e.id] = e
        e.acked.append("submit")
        self.note("round %d: submitted experiment %d (%s, %d trial(s), %d batches)"
                  % (self.round, e.id, kind, trials, length))
        return True

    def command(self, e, verb):
        status, body = self._request("POST", "/api/v1/experiments/%d/%s" % (e.id, verb))
        if status == 200:
            e.acked.append(verb)
            if verb == "pause":
                e.paused_round = self.round
                e.state = "STATE_PAUSED"
            elif verb == "activate":
                e.paused_round = None
                e.state = "STATE_ACTIVE"
            self.note("round %d: %s experiment %d acknowledged" % (self.round, verb, e.id))
            return True
        if status is None:
            e.unsure.append(verb)
        self.note("round %d: %s experiment %d not acknowledged: %s %s"
                  % (self.round, verb, e.id, status, body))
        return False

    def pick_command(self):
        """A command to issue this round, or None: (verb, experiment). A
        weighted draw among the commands that make sense now."""
        live = [e for e in self.experiments.values() if not e.ended() and not e.killed]
        paused = [e for e in live if e.state == "STATE_PAUSED"
                  and self.round - e.paused_round >= 1]
        active = [e for e in live if e.state == "STATE_ACTIVE"]
        longs = [e for e in live if e.kind == "long" and self.round - e.submitted_round >= 2]
        options = [(1.0, None, None)]
        if self.submitted < self.submit_budget and len(live) < 4:
            options.append((3.0, "submit", None))
        if active:
            options.append((2.0, "pause", active))
            options.append((0.4, "kill", active))
        if paused:
            options.append((2.5, "activate", paused))
        if longs:
            options.append((2.5, "kill", longs))
        r = self.rng.uniform(0, sum(w for w, _, _ in options))
        for w, verb, among in options:
            r -= w
            if r <= 0:
                break
        if verb is None:
            return None
        return verb, (self.rng.choice(among) if among else None)

    # -- agents --------------------------------------------------------------

    def agent_chaos(self):
        r = self.rng.random()
        if r >= 0.3:
            return
        snap = scan(self.c.url)
        candidates = sorted((a, p) for a, p in snap.agents.items()
                            if p.state != "T" and p.pid not in self.stopped)
        if not candidates:
            return
        busy = {o.ppid for o in snap.others}
        busy_ones = [x for x in candidates if x[1].pid in busy]
        agent_id, p = self.rng.choice(busy_ones or candidates)
        self.hurt_agents.add(agent_id)
        if r < 0.15:
            if self._signal(p.pid, signal.SIGKILL):
                self.agent_kills += 1
                self.note("round %d: SIGKILL agent %s (pid %d, %s)"
                          % (self.round, agent_id, p.pid, "busy" if p.pid in busy else "idle"))
        else:
            seconds = self.rng.uniform(1.0, 9.0)
            if self._signal(p.pid, signal.SIGSTOP):
                self.agent_stops += 1
                self.stopped[p.pid] = time.monotonic() + seconds
                self.note("round %d: SIGSTOP agent %s (pid %d, %s) for %.1f s"
                          % (self.round, agent_id, p.pid, "busy" if p.pid in busy else "idle",
                             seconds))

    # -- the run -------------------------------------------------------------

    def kill(self, context):
        """One kill, or (one time in five, when two are left) two: the
        second while the agents reconnect to the first restart."""
        if self.kills - self.kills_done >= 2 and self.rng.random() < 0.2:
            self.kill_and_restart(context, interrupt=self.rng.uniform(0.0, 1.2))
            context = "while agents reconnect"
        self.kill_and_restart(context)

    def run(self):
        while self.kills_done < self.kills:
            self.round += 1
            self.refresh()
            self.agent_chaos()
            self.pause_for(self.rng.uniform(0.2, 2.5))
            pick = self.pick_command()
            acked = False
            if pick:
                verb, e = pick
                acked = self.submit() if verb == "submit" else self.command(e, verb)
            if acked and self.rng.random() < 0.6:
                self.kill("right after %s ack" % pick[0])
            else:
                self.pause_for(self.rng.uniform(0.0, 2.0))
                self.kill("random moment")
        # Wind down: no more chaos; paused experiments go on, long ones end.
        self.resume_all()
        self.refresh()
        for e in self.experiments.values():
            if e.ended() or e.killed:
                continue
            if e.kind == "long":
                self.until("kill of long experiment %d acknowledged" % e.id,
                           lambda: self.command(e, "kill"), 30, interval=1.0)
            elif e.state == "STATE_PAUSED":
                self.until("activate of experiment %d acknowledged" % e.id,
                           lambda: self.command(e, "activate"), 30, interval=1.0)

    def drain(self, timeout):
        def all_ended():
            self.refresh()
            return all(e.ended() for e in self.experiments.values())
        self.until("every experiment to end", all_ended, timeout, interval=1.0)

        def idle():
            s = scan(self.c.url)
            return not (s.agents or s.trials or s.others)
        self.until("the pool to idle with no agent or trial process left", idle, 120,
                   interval=0.5)
        # The log records the terminations the provisioner saw.
        self.until("every launched instance terminated in the log",
                   lambda: not instances_not_terminated(read_events(self.c.db)), 60,
                   interval=1.0)

    def figures(self):
        def stats(xs):
            return {"median": round(percentile(xs, 0.5) or 0), "p95": round(percentile(xs, 0.95) or 0),
                    "max": round(max(xs) if xs else 0)}
        return {"kills": self.kills_done, "rounds": self.round,
                "kill_contexts": self.kill_contexts,
                "agent_kills": self.agent_kills, "agent_stops": self.agent_stops,
                "experiments": len(self.experiments),
                "trial_runs_seen": len(self.watch.seen),
                "restart_ready_ms": stats(self.restart_ms), "restart_info_ms": stats(self.info_ms)}
