// The experiment page's "TensorBoard" button, as upstream's: it opens the
// experiment's live TensorBoard if one is there, else launches one
// (POST /api/v1/tensorboards {experimentIds: [id]}), then follows it
// until its service is ready and offers it through the master's proxy
// (in a new tab: a browser lets only a click open one), with a link to
// the task on the tasks page meanwhile.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import { href, linkHandler } from "../router";
import { KINDS, Task, isReady, launch, live } from "../tasks";

const TB = KINDS.find((k) => k.route === "tensorboards")!;

/** A live TensorBoard that shows exactly experiment `id`, if any. */
async function existing(id: number): Promise<string | undefined> {
  const r = await api.get<{ tensorboards: Omit<Task, "kind">[] }>("/api/v1/tensorboards");
  const t = (r.tensorboards ?? []).find(
    (x) => live(x) && (x.experimentIds ?? []).length === 1 && x.experimentIds![0] === id && (x.trialIds ?? []).length === 0,
  );
  return t?.id;
}

interface Status {
  state: string;
  ready: boolean;
  address?: string;
  exitStatus?: string;
}

export function TensorBoardButton(props: { experimentId: number }) {
  const [id, setId] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<Status>();
  // Follows the TensorBoard (every 2 s) until it is ready or has ended.
  useEffect(() => {
    if (!id) return;
    let stopped = false;
    let timer: number | undefined;
    const ctl = new AbortController();
    const look = async () => {
      try {
        const r = await api.get<{ tensorboard: Omit<Task, "kind"> }>(`/api/v1/tensorboards/${encodeURIComponent(id)}`, ctl.signal);
        const t = r.tensorboard;
        const ready = t.state === "STATE_RUNNING" && (await isReady(id, ctl.signal));
        if (stopped) return;
        setStatus({ state: t.state, ready, address: t.serviceAddress, exitStatus: t.exitStatus });
        if (ready || !live(t)) return;
      } catch (e: any) {
        if (stopped || e?.name === "AbortError") return;
        setError(String(e?.message ?? e));
        return;
      }
      timer = window.setTimeout(look, 2000);
    };
    look();
    return () => {
      stopped = true;
      ctl.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [id]);
  const start = async () => {
    setBusy(true);
    setError(undefined);
    setStatus(undefined);
    try {
      setId((await existing(props.experimentId)) ?? (await launch(TB, { config: {}, experimentIds: [props.experimentId] })));
    } catch (e: any) {
      setError("TensorBoard: " + String(e?.message ?? e));
    } finally {
      setBusy(false);
    }
  };
  const ended = status && !live(status);
  return (
    <span class="tensorboard">
      <button data-testid="tensorboard" disabled={busy} onClick={start}>
        TensorBoard
      </button>{" "}
      {id && (
        <span role="status" data-testid="tensorboard-status" data-id={id} data-ready={status?.ready ? "1" : "0"}>
          {status?.ready && status.address ? (
            <a href={status.address} target="_blank" rel="noopener noreferrer" data-testid="tensorboard-open">
              Open TensorBoard (new tab)
            </a>
          ) : ended ? (
            <span class="error">TensorBoard ended{status?.exitStatus ? ": " + status.exitStatus : ""}</span>
          ) : (
            <span class="muted">TensorBoard starting…</span>
          )}{" "}
          <a href={href("/tasks?task=" + encodeURIComponent(id))} onClick={linkHandler} data-testid="tensorboard-task">
            see it in Tasks
          </a>
        </span>
      )}
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
