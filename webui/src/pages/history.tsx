// Time travel through the event log (admins): the cluster, or one
// experiment, as it was after any position, replayed by the master
// (GET /api/v1/inspect/state?at=N). A slider and step buttons move
// through the positions (arrow keys on the slider step by one); the URL
// keeps the position (/history?at=120&experiment=3).
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { href, linkHandler, navigate, useLocation } from "../router";

const us = (t: number | null | undefined) => (t ? new Date(t / 1000).toLocaleString() : "");

function Table(props: { testId: string; head: string[]; rows: (string | number)[][]; ids?: (string | number)[] }) {
  return (
    <div class="scroll">
      <table class="grid" data-testid={props.testId}>
        <thead>
          <tr>
            {props.head.map((h) => (
              <th>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r, i) => (
            <tr data-id={props.ids?.[i]}>
              {r.map((c) => (
                <td>{c}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function HistoryPage(props: { admin: boolean }) {
  const { query } = useLocation();
  const exp = Number(query.get("experiment") || 0) || undefined;
  const tail = usePoll((signal) => api.get<{ last_position: number }>("/api/v1/inspect/events?limit=1", signal), [], 5000);
  const last = tail.data?.last_position ?? 0;
  const at = Math.min(Number(query.get("at") || 0) || last, last || Infinity);
  const [typed, setTyped] = useState<string>();
  const go = (p: number) => {
    const q = new URLSearchParams(location.search);
    q.set("at", String(Math.max(1, Math.min(last, Math.round(p)))));
    setTyped(undefined);
    navigate("/history?" + q.toString(), true);
  };
  const st = usePoll((signal) => (at > 0 ? api.get<any>("/api/v1/inspect/state?at=" + at, signal) : Promise.resolve(undefined)), [at], 0);
  const ev = usePoll(
    (signal) => (at > 0 ? api.get<{ events: any[] }>(`/api/v1/inspect/events?from=${at}&to=${at}&limit=1`, signal) : Promise.resolve({ events: [] })),
    [at],
    0,
  );
  if (!props.admin) return <main class="muted">The event log is for administrators.</main>;
  const s = st.data;
  const event = ev.data?.events?.[0];
  const exps: any[] = (s?.experiments ?? []).filter((e: any) => !exp || e.id === exp);
  const trials: any[] = (s?.trials ?? []).filter((t: any) => !exp || t.experiment_id === exp);
  return (
    <main>
      <h1>{exp ? `Experiment ${exp} through time` : "The cluster through time"}</h1>
      <p class="muted">
        The state as the master replays it from the event log after a position.{" "}
        {exp ? (
          <>
            <a href={href("/experiments/" + exp)} onClick={linkHandler}>
              the experiment now
            </a>{" "}
            ·{" "}
            <a href={href("/history?at=" + at)} onClick={linkHandler}>
              the whole cluster at this position
            </a>
          </>
        ) : (
          <a href={href("/events")} onClick={linkHandler}>
            the event log
          </a>
        )}
      </p>
      <div class="toolbar">
        <button onClick={() => go(at - 10)} disabled={at <= 1} aria-label="back 10 events">
          −10
        </button>
        <button onClick={() => go(at - 1)} disabled={at <= 1} aria-label="back one event" data-testid="back">
          ◀
        </button>
        <input
          type="range"
          min={1}
          max={Math.max(1, last)}
          value={at}
          aria-label="position"
          data-testid="position-slider"
          onChange={(e) => go(Number((e.target as HTMLInputElement).value))}
          style={{ flex: 1, minWidth: "160px" }}
        />
        <button onClick={() => go(at + 1)} disabled={at >= last} aria-label="forward one event" data-testid="forward">
          ▶
        </button>
        <button onClick={() => go(at + 10)} disabled={at >= last} aria-label="forward 10 events">
          +10
        </button>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (typed) go(Number(typed));
          }}
        >
          <label>
            Position
            <input type="number" min={1} max={last} data-testid="position" value={typed ?? String(at)} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
          </label>
          <span class="muted">of {last}</span>
        </form>
      </div>
      {event && (
        <p data-testid="event-at" data-position={event.position}>
          Event {event.position}: <b>{event.type}</b> on <span class="mono">{event.stream}</span>, {event.recorded_at && new Date(event.recorded_at).toLocaleString()}
        </p>
      )}
      {(st.error || tail.error) && <p class="error">{st.error || tail.error}</p>}
      {s && (
        <div data-testid="history" data-at={s.position ?? at}>
          <h2>Experiments</h2>
          <Table
            testId="history-experiments"
            head={["ID", "Name", "State", "Progress", "Owner", "Pool", "Priority", "Trials"]}
            ids={exps.map((e) => e.id)}
            rows={exps.map((e) => [e.id, e.config?.name ?? "", e.status, Math.round(100 * (e.progress ?? 0)) + "%", e.owner, e.pool, e.priority, (e.trial_ids ?? []).length])}
          />
          <h2>Trials</h2>
          <Table
            testId="history-trials"
            head={["ID", "Experiment", "State", "Restarts", "Checkpoints", "Placed on", "Created", "Ended"]}
            ids={trials.map((t) => t.id)}
            rows={trials.map((t) => [
              t.id,
              t.experiment_id,
              t.status,
              t.restarts,
              (t.checkpoints ?? []).length,
              (t.allocation?.assignments ?? []).map((a: any) => `${a.agent_id} [${(a.slots ?? []).join(",")}]`).join(", "),
              us(t.created_at_us),
              us(t.ended_at_us),
            ])}
          />
          {!exp && (
            <>
              <h2>Pools</h2>
              <Table
                testId="history-pools"
                head={["Pool", "Provider", "Instances (min-max)", "Launches asked", "Last launch error"]}
                rows={(s.pools ?? []).map((p: any) => [p.config?.pool, p.config?.provider, `${p.config?.min_instances}-${p.config?.max_instances}`, p.launches_requested, p.last_launch_error])}
              />
              <h2>Agents</h2>
              <Table
                testId="history-agents"
                head={["Agent", "Pool", "Status", "Slots in use", "Connected"]}
                ids={(s.agents ?? []).map((a: any) => a.id)}
                rows={(s.agents ?? []).map((a: any) => [a.id, a.pool, a.status, (a.slots ?? []).filter((x: string) => x).join(", "), us(a.connected_at_us)])}
              />
              <h2>Instances</h2>
              <Table
                testId="history-instances"
                head={["Instance", "Pool", "Status", "Agent", "Launched"]}
                rows={(s.instances ?? []).map((i: any) => [i.id, i.pool, i.status, i.agent_id, us(i.launched_at_us)])}
              />
            </>
          )}
        </div>
      )}
    </main>
  );
}
