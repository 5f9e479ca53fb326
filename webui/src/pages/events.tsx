// The event log (admins): the tail, following live, filtered by stream and
// type; and the whole cluster's state as it was at any position.
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { when } from "../format";
import { href, linkHandler } from "../router";

export function EventsPage(props: { admin: boolean }) {
  if (!props.admin) return <main class="muted">The event log is for administrators.</main>;
  return <EventLog />;
}

function EventLog() {
  const [stream, setStream] = useState("");
  const [type, setType] = useState("");
  const [at, setAt] = useState<number>();
  const q = new URLSearchParams({ limit: "200" });
  if (stream) q.set("stream", stream);
  if (type) q.set("type", type);
  const events = usePoll((signal) => api.get<{ events: any[]; last_position: number }>("/api/v1/inspect/events?" + q, signal), [q.toString()]);
  const list = [...(events.data?.events ?? [])].reverse();
  return (
    <main>
      <h1>Event log</h1>
      <div class="toolbar">
        <label>
          Stream
          <input data-testid="event-stream" placeholder="trial/1" value={stream} onChange={(e) => setStream((e.target as HTMLInputElement).value.trim())} />
        </label>
        <label>
          Type
          <input data-testid="event-type" placeholder="trial_placed" value={type} onChange={(e) => setType((e.target as HTMLInputElement).value.trim())} />
        </label>
        <span class="muted">last position {events.data?.last_position ?? "…"} · newest first, live</span>
      </div>
      {events.error && <p class="error">{events.error}</p>}
      <div class="split">
        <table class="grid" data-testid="events">
          <thead>
            <tr>
              <th>Position</th>
              <th>Recorded</th>
              <th>Stream</th>
              <th>Type</th>
              <th>Payload</th>
            </tr>
          </thead>
          <tbody>
            {list.map((e) => (
              <tr class={at === e.position ? "selected" : ""}>
                <td>
                  <button class="link" title="the cluster as it was after this event" onClick={() => setAt(e.position)}>
                    {e.position}
                  </button>
                </td>
                <td>{when(e.recorded_at)}</td>
                <td class="mono">
                  <button class="link" onClick={() => setStream(e.stream)}>
                    {e.stream}
                  </button>
                </td>
                <td>
                  <button class="link" onClick={() => setType(e.type)}>
                    {e.type}
                  </button>
                </td>
                <td class="mono payload">{JSON.stringify(e.payload)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {at !== undefined && <StateAt at={at} onClose={() => setAt(undefined)} />}
      </div>
    </main>
  );
}

function StateAt(props: { at: number; onClose: () => void }) {
  const st = usePoll((signal) => api.get<any>("/api/v1/inspect/state?at=" + props.at, signal), [props.at], 0);
  return (
    <aside class="state-at" data-testid="state-at">
      <h2>
        The cluster after event {props.at}{" "}
        <button class="link" onClick={props.onClose}>
          close
        </button>
      </h2>
      <p>
        <a href={href("/history?at=" + props.at)} onClick={linkHandler} data-testid="time-travel">
          Step through time from here
        </a>
      </p>
      {st.error && <p class="error">{st.error}</p>}
      {st.data && (
        <>
          <p>
            {Object.keys(st.data.experiments ?? {}).length} experiments, {Object.keys(st.data.trials ?? {}).length} trials,{" "}
            {Object.keys(st.data.agents ?? {}).length} agents, {Object.keys(st.data.instances ?? {}).length} instances
          </p>
          <pre tabIndex={0} aria-label="state at this position">{JSON.stringify(st.data, null, 2)}</pre>
        </>
      )}
    </aside>
  );
}
