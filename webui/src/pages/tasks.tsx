// Tasks, as upstream's WebUI lists them: commands, JupyterLab notebooks,
// TensorBoards and shells, each with its state, readiness, owner and pool;
// launch a command, a notebook or a TensorBoard, open a notebook's or a
// TensorBoard's page through the master's proxy once it is ready, follow
// a task's logs, kill it.
import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { shortState, when } from "../format";
import { href, linkHandler, useLocation } from "../router";
import { KINDS, Task, launch, listTasks, live } from "../tasks";
import { Confirm, Field, Form } from "../ui";

const launchable = KINDS.filter((k) => k.launch);

/** "1, 2,3" -> [1, 2, 3]; anything that is not a positive integer is
 * named in the error. */
function idsOf(text: string, field: string): number[] {
  const parts = text
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);
  const bad = parts.filter((x) => !/^[1-9][0-9]*$/.test(x));
  if (bad.length) throw new Error(`${field}: not an id: ${bad.join(", ")}`);
  return parts.map(Number);
}

/** The launch form: a command (its command line), a JupyterLab notebook,
 * or a TensorBoard over experiments (and trials); name, slots, pool and
 * template for any of them. */
function Launch(props: { onLaunched: (kind: string, id: string) => void }) {
  const [kind, setKind] = useState(launchable[0].route);
  const [name, setName] = useState("");
  const [entrypoint, setEntrypoint] = useState("");
  const [slots, setSlots] = useState("0");
  const [pool, setPool] = useState("");
  const [template, setTemplate] = useState("");
  const [expIds, setExpIds] = useState("");
  const [trialIds, setTrialIds] = useState("");
  const pools = usePoll((signal) => api.get<{ resourcePools: { name: string }[] }>("/api/v1/resource-pools", signal), [], 0);
  const k = KINDS.find((x) => x.route === kind)!;
  return (
    <Form
      testId="launch"
      submit={"Launch " + k.label}
      action={async () => {
        const resources: Record<string, unknown> = { slots: Number(slots) };
        if (pool) resources.resource_pool = pool;
        const config: Record<string, unknown> = { resources };
        if (name.trim()) config.description = name.trim();
        if (kind === "commands") config.entrypoint = entrypoint;
        const body: Record<string, unknown> = { config };
        if (template.trim()) body.templateName = template.trim();
        // A TensorBoard shows experiments' (or trials') metrics, as
        // upstream's LaunchTensorboardRequest names them.
        if (kind === "tensorboards") {
          body.experimentIds = idsOf(expIds, "experiment ids");
          body.trialIds = idsOf(trialIds, "trial ids");
          if ((body.experimentIds as number[]).length + (body.trialIds as number[]).length === 0)
            throw new Error("experiment ids: name at least one experiment or trial");
        }
        props.onLaunched(k.label, await launch(k, body));
      }}
      onDone={() => (setEntrypoint(""), setName(""))}
    >
      <label class="field">
        <span>Kind</span>
        <select name="kind" data-testid="launch-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
          {launchable.map((x) => (
            <option value={x.route}>{x.label}</option>
          ))}
        </select>
      </label>
      <Field label="Name (optional)" name="task-name" value={name} onInput={setName} />
      {kind === "commands" && <Field label="Command line" name="entrypoint" value={entrypoint} onInput={setEntrypoint} required />}
      {kind === "tensorboards" && <Field label="Experiment IDs (comma-separated)" name="experiment-ids" value={expIds} onInput={setExpIds} />}
      {kind === "tensorboards" && <Field label="Trial IDs (optional)" name="trial-ids" value={trialIds} onInput={setTrialIds} />}
      <Field label="Slots" name="slots" type="number" value={slots} onInput={setSlots} />
      <label class="field">
        <span>Resource pool</span>
        <select name="pool" value={pool} onChange={(e) => setPool((e.target as HTMLSelectElement).value)}>
          <option value="">default</option>
          {(pools.data?.resourcePools ?? []).map((p) => (
            <option value={p.name}>{p.name}</option>
          ))}
        </select>
      </label>
      <Field label="Template (optional)" name="template" value={template} onInput={setTemplate} />
    </Form>
  );
}

/** Whether a task's service is up: "ready", "starting", or nothing for a
 * kind that serves nothing. */
function readiness(t: Task): string {
  if (t.kind.route === "commands" || !live(t)) return "";
  return t.ready ? "ready" : "starting";
}

export function TasksPage() {
  const { query } = useLocation();
  // ?task=<id>: the row to show (the experiment page's TensorBoard leads here).
  const focus = query.get("task") ?? "";
  const [show, setShow] = useState("");
  const [message, setMessage] = useState<string>();
  const list = usePoll((signal) => listTasks(signal), []);
  const rows = (list.data ?? []).filter((t) => !show || t.kind.route === show);
  return (
    <main>
      <h1>Tasks</h1>
      <Launch onLaunched={(label, id) => (setMessage(`launched ${label} ${id}`), list.reload())} />
      {message && (
        <p class="note" role="status" data-testid="tasks-message">
          {message}
        </p>
      )}
      {list.error && <p class="error">{list.error}</p>}
      <div class="toolbar">
        <label>
          Show
          <select data-testid="show-kind" value={show} onChange={(e) => setShow((e.target as HTMLSelectElement).value)}>
            <option value="">every kind</option>
            {KINDS.map((x) => (
              <option value={x.route}>{x.label}</option>
            ))}
          </select>
        </label>
      </div>
      <div class="scroll">
        <table class="grid" data-testid="tasks">
          <thead>
            <tr>
              <th>Task</th>
              <th>Type</th>
              <th>State</th>
              <th>Service</th>
              <th>User</th>
              <th>Pool</th>
              <th>Started</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr
                data-id={t.id}
                data-kind={t.kind.route}
                data-state={t.state}
                data-ready={t.ready ? "1" : "0"}
                class={t.id === focus ? "selected" : ""}
                aria-current={t.id === focus ? "true" : undefined}
              >
                <td>
                  {t.description}
                  <div class="mono muted">{t.id}</div>
                  {(t.experimentIds ?? []).length > 0 && (
                    <div class="muted">
                      experiments{" "}
                      {t.experimentIds!.map((e) => (
                        <>
                          <a href={href("/experiments/" + e)} onClick={linkHandler}>
                            {e}
                          </a>{" "}
                        </>
                      ))}
                    </div>
                  )}
                </td>
                <td>{t.kind.label}</td>
                <td class={"state " + shortState(t.state)} title={t.exitStatus ?? ""}>
                  {shortState(t.state)}
                  {t.exitStatus ? <div class="muted">{t.exitStatus}</div> : null}
                </td>
                <td data-testid={"ready-" + t.id}>{readiness(t)}</td>
                <td>{t.username}</td>
                <td>{t.resourcePool}</td>
                <td>{when(t.startTime)}</td>
                <td class="actions-cell">
                  {t.kind.web && t.serviceAddress && t.ready && t.state === "STATE_RUNNING" && (
                    <a
                      href={t.serviceAddress}
                      target="_blank"
                      rel="noopener noreferrer"
                      data-testid={"open-" + t.id}
                      aria-label={`Open ${t.kind.label} ${t.description} (new tab)`}
                    >
                      Open
                    </a>
                  )}{" "}
                  <a href={href("/tasks/" + t.id + "/logs")} onClick={linkHandler} data-testid={"logs-" + t.id}>
                    Logs
                  </a>{" "}
                  {live(t) && (
                    <Confirm
                      label="Kill"
                      testId={"kill-" + t.id}
                      onConfirm={() =>
                        api
                          .post(`/api/v1/${t.kind.route}/${t.id}/kill`)
                          .then(() => setMessage(`killing ${t.kind.label} ${t.id}`))
                          .catch((e) => setMessage(e.message))
                          .then(list.reload)
                      }
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.data && rows.length === 0 && <p class="muted">No tasks.</p>}
    </main>
  );
}

/** A task's output, followed until it ends. */
export function TaskLogsPage(props: { id: string }) {
  const [lines, setLines] = useState<{ id: string; log: string; timestamp: string }[]>([]);
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<string>();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const ctl = new AbortController();
    setLines([]);
    setEnded(false);
    api
      .follow<{ id: string; log: string; timestamp: string }>(
        `/api/v1/tasks/${encodeURIComponent(props.id)}/logs?follow=true`,
        (l) => setLines((old) => (old.length >= 10000 ? old.slice(1) : old).concat(l)),
        ctl.signal,
      )
      .then(() => setEnded(true))
      .catch((e) => {
        if (e?.name !== "AbortError") setError(String(e?.message ?? e));
      });
    return () => ctl.abort();
  }, [props.id]);
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines]);
  return (
    <main>
      <p class="crumbs">
        <a href={href("/tasks")} onClick={linkHandler}>
          Tasks
        </a>{" "}
        / {props.id}
      </p>
      <h1>Task logs</h1>
      <p class="muted">
        {lines.length} lines{ended ? " · end of log" : " · live"}
      </p>
      {error && <p class="error">{error}</p>}
      <div class="logs" tabIndex={0} aria-label="log lines" ref={box} data-testid="task-logs" data-lines={lines.length} data-ended={ended ? "1" : "0"}>
        {lines.map((l) => (
          <div class="line">
            <span class="ts">{l.timestamp?.slice(11, 19)}</span> {l.log.replace(/\n$/, "")}
          </div>
        ))}
      </div>
    </main>
  );
}
