"""What the event log proves after a chaos run. read_events() takes the log
from PostgreSQL; the check functions are pure (a list of events in, a list
of violations out, each naming the events that break the rule), so a
failure prints the evidence."""
import json
import subprocess


def read_events(db_url):
    """Every event in position order, as dicts {position, stream_id, type,
    payload}."""
    out = subprocess.run(
        ["psql", db_url, "-Atqc",
         "SELECT row_to_json(e) FROM (SELECT position, stream_id, type, payload "
         "FROM events ORDER BY position) e"],
        capture_output=True, text=True, timeout=120, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def show(ev):
    return "#%d %s %s" % (ev["position"], ev["type"], json.dumps(ev["payload"], sort_keys=True))


def allocations_and_terminations(events):
    """Replays the allocation bookkeeping of the log: violations of "no two
    live allocations of one trial" and "no busy agent terminated" (an
    instance_terminate_requested for an instance whose agent holds a slot
    of an allocation that has not ended)."""
    violations = []
    open_by_trial = {}      # trial -> {allocation: placed event}
    agents_of_alloc = {}    # allocation -> {agent ids}
    instance_of_agent = {}  # agent -> instance id
    for ev in events:
        t, p = ev["type"], ev["payload"]
        if t == "agent_connected" and p.get("instance_id"):
            instance_of_agent[p["agent_id"]] = p["instance_id"]
        elif t == "trial_placed":
            live = open_by_trial.setdefault(p["trial_id"], {})
            if live:
                violations.append("two live allocations of trial %d: %s while %s"
                                  % (p["trial_id"], show(ev),
                                     "; ".join(show(e) for e in live.values())))
            live[p["allocation_id"]] = ev
            agents_of_alloc[p["allocation_id"]] = {a["agent_id"] for a in p["assignments"]}
        elif t == "trial_exited":
            open_by_trial.get(p["trial_id"], {}).pop(p["allocation_id"], None)
            agents_of_alloc.pop(p["allocation_id"], None)
        elif t == "agent_lost":
            for alloc, agents in list(agents_of_alloc.items()):
                if p["agent_id"] in agents:
                    del agents_of_alloc[alloc]
                    for live in open_by_trial.values():
                        live.pop(alloc, None)
        elif t == "instance_terminate_requested":
            agents = [a for a, i in instance_of_agent.items() if i == p["instance_id"]]
            for alloc, holders in agents_of_alloc.items():
                if holders & set(agents):
                    trial = next((tr for tr, live in open_by_trial.items() if alloc in live), None)
                    violations.append("busy agent terminated: %s while allocation %s "
                                      "(trial %s) holds agent %s"
                                      % (show(ev), alloc, trial, sorted(holders & set(agents))))
    return violations


def runs_lost_with_agents(events):
    """Runs that ended because their agent was lost: by agent_lost, or by a
    reconnecting agent that no longer listed them (trial_exited agent_lost).
    [(event, trial, allocation, agent ids of the run)]."""
    out = []
    agents_of_alloc, trial_of_alloc = {}, {}
    for ev in events:
        t, p = ev["type"], ev["payload"]
        if t == "trial_placed":
            agents_of_alloc[p["allocation_id"]] = {a["agent_id"] for a in p["assignments"]}
            trial_of_alloc[p["allocation_id"]] = p["trial_id"]
        elif t == "trial_exited":
            agents = agents_of_alloc.pop(p["allocation_id"], set())
            if p["reason"] == "agent_lost":
                out.append((ev, p["trial_id"], p["allocation_id"], agents))
        elif t == "agent_lost":
            for alloc, agents in list(agents_of_alloc.items()):
                if p["agent_id"] in agents:
                    del agents_of_alloc[alloc]
                    out.append((ev, trial_of_alloc[alloc], alloc, agents))
    return out


def restarts(events):
    """trial -> {"failed": failed exits, "restarted": trial_restarted,
    "exits": [reasons]}."""
    out = {}
    for ev in events:
        t, p = ev["type"], ev["payload"]
        if t not in ("trial_exited", "trial_restarted", "trial_created"):
            continue
        r = out.setdefault(p["trial_id"], {"failed": 0, "restarted": 0, "exits": []})
        if t == "trial_exited":
            r["exits"].append(p["reason"])
            r["failed"] += p["reason"] == "failed"
        elif t == "trial_restarted":
            r["restarted"] += 1
    return out


def instances_not_terminated(events):
    """Instances that were launched (instance_pending) and never
    terminated."""
    pending, gone = {}, set()
    for ev in events:
        if ev["type"] == "instance_pending":
            pending[ev["payload"]["instance_id"]] = ev
        elif ev["type"] == "instance_terminated":
            gone.add(ev["payload"]["instance_id"])
    return [show(e) for i, e in pending.items() if i not in gone]


def user_state_changes(events, exp_id):
    """The experiment's experiment_state_changed events in order:
    [(state, reason)]."""
    return [(e["payload"]["state"], e["payload"].get("reason", ""))
            for e in events
            if e["type"] == "experiment_state_changed"
            and e["payload"]["experiment_id"] == exp_id]


def counts(events):
    c = {}
    for e in events:
        c[e["type"]] = c.get(e["type"], 0) + 1
    return c
