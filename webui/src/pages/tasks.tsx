// Tasks, as upstream's WebUI lists them: commands (and notebooks,
// TensorBoards and shells where the master offers their routes), each
// with its state, owner and pool; launch one, open its service through
// the master's proxy, follow its logs, kill it.
import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { shortState, when } from "../format";
import { href, linkHandler } from "../router";
import { Confirm, Field, Form } from "../ui";

interface Task {
  id: string;
  description: string;
  state: string;
  username: string;
  resourcePool: string;
  startTime: string;
  exitStatus?: string;
  serviceAddress?: string;
}

/** A kind of task: its route under /api/v1 and the key of its list. Only
 * kinds whose routes this master serves are asked for (a missing route
 * would be a 404 on every refresh): set `offered` when they land. */
const KINDS: { route: string; list: string; one: string; label: string; offered: boolean }[] = [
  { route: "commands", list: "commands", one: "command", label: "Command", offered: true },
  { route: "notebooks", list: "notebooks", one: "notebook", label: "JupyterLab", offered: false },
  { route: "tensorboards", list: "tensorboards", one: "tensorboard", label: "TensorBoard", offered: false },
  { route: "shells", list: "shells", one: "shell", label: "Shell", offered: false },
];
const offered = KINDS.filter((k) => k.offered);

export function TasksPage() {
  const [kind, setKind] = useState(offered[0].route);
  const [entrypoint, setEntrypoint] = useState("");
  const [slots, setSlots] = useState("0");
  const [expIds, setExpIds] = useState("");
  const [message, setMessage] = useState<string>();
  const list = usePoll(
    async (signal) => {
      const all = await Promise.all(
        offered.map((k) =>
          api.get<Record<string, Task[]>>(`/api/v1/${k.route}?limit=200`, signal).then((r) => (r[k.list] ?? []).map((t) => ({ ...t, kind: k }))),
        ),
      );
      return all.flat().sort((a, b) => (b.startTime ?? "").localeCompare(a.startTime ?? ""));
    },
    [],
  );
  const k = KINDS.find((x) => x.route === kind)!;
  return (
    <main>
      <h1>Tasks</h1>
      <Form
        testId="launch"
        submit={"Launch " + k.label}
        action={async () => {
          const config: Record<string, unknown> = { resources: { slots: Number(slots) } };
          if (kind === "commands") config.entrypoint = entrypoint;
          const body: Record<string, unknown> = { config };
          // A TensorBoard shows experiments' metrics (upstream's
          // LaunchTensorboardRequest names them).
          if (kind === "tensorboards")
            body.experimentIds = expIds
              .split(",")
              .map((x) => Number(x.trim()))
              .filter((n) => Number.isInteger(n) && n > 0);
          const r = await api.post<Record<string, Task>>(`/api/v1/${kind}`, body);
          setMessage(`launched ${k.label.toLowerCase()} ${r[k.one]?.id ?? ""}`);
        }}
        onDone={() => (setEntrypoint(""), list.reload())}
      >
        <label class="field">
          <span>Kind</span>
          <select name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
            {offered.map((x) => (
              <option value={x.route}>{x.label}</option>
            ))}
          </select>
        </label>
        {kind === "commands" && <Field label="Command line" name="entrypoint" value={entrypoint} onInput={setEntrypoint} required />}
        {kind === "tensorboards" && <Field label="Experiment IDs" name="experiment-ids" value={expIds} onInput={setExpIds} required />}
        <Field label="Slots" name="slots" type="number" value={slots} onInput={setSlots} />
      </Form>
      {KINDS.some((x) => !x.offered) && (
        <p class="muted">
          Not offered by this master yet: {KINDS.filter((x) => !x.offered).map((x) => x.label).join(", ")}.
        </p>
      )}
      {message && (
        <p class="note" role="status">
          {message}
        </p>
      )}
      {list.error && <p class="error">{list.error}</p>}
      <div class="scroll">
        <table class="grid" data-testid="tasks">
          <thead>
            <tr>
              <th>Task</th>
              <th>Kind</th>
              <th>State</th>
              <th>User</th>
              <th>Pool</th>
              <th>Started</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data ?? []).map((t) => (
              <tr data-id={t.id} data-state={t.state}>
                <td>
                  {t.description}
                  <div class="mono muted">{t.id}</div>
                </td>
                <td>{t.kind.label}</td>
                <td class={"state " + shortState(t.state)} title={t.exitStatus ?? ""}>
                  {shortState(t.state)}
                  {t.exitStatus ? <div class="muted">{t.exitStatus}</div> : null}
                </td>
                <td>{t.username}</td>
                <td>{t.resourcePool}</td>
                <td>{when(t.startTime)}</td>
                <td class="actions-cell">
                  {t.serviceAddress && t.state === "STATE_RUNNING" && (
                    <a href={t.serviceAddress} target="_blank" rel="noopener" data-testid={"open-" + t.id}>
                      Open
                    </a>
                  )}{" "}
                  <a href={href("/tasks/" + t.id + "/logs")} onClick={linkHandler} data-testid={"logs-" + t.id}>
                    Logs
                  </a>{" "}
                  {t.state !== "STATE_TERMINATED" && (
                    <Confirm
                      label="Kill"
                      testId={"kill-" + t.id}
                      onConfirm={() =>
                        api
                          .post(`/api/v1/${t.kind.route}/${t.id}/kill`)
                          .then(() => setMessage(`killing ${t.id}`))
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
      {list.data && list.data.length === 0 && <p class="muted">No tasks.</p>}
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
