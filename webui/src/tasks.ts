// Interactive tasks as the master serves them (upstream's NTSC routes):
// commands, JupyterLab notebooks, TensorBoards and shells, each kind
// under /api/v1/<route> with its list under `list` and one under `one`.
// Shared by the tasks page, the job queue and the experiment page.
import * as api from "./api";

export interface Kind {
  route: string;
  list: string;
  one: string;
  label: string;
  /** Upstream's job type for the kind (GET /api/v1/job-queues). */
  jobType: string;
  /** Launched from the tasks page (a shell is opened with `det shell`). */
  launch: boolean;
  /** It serves a web page through the master's proxy once ready. */
  web: boolean;
}

export const KINDS: Kind[] = [
  { route: "commands", list: "commands", one: "command", label: "Command", jobType: "TYPE_COMMAND", launch: true, web: false },
  { route: "notebooks", list: "notebooks", one: "notebook", label: "JupyterLab", jobType: "TYPE_NOTEBOOK", launch: true, web: true },
  { route: "tensorboards", list: "tensorboards", one: "tensorboard", label: "TensorBoard", jobType: "TYPE_TENSORBOARD", launch: true, web: true },
  { route: "shells", list: "shells", one: "shell", label: "Shell", jobType: "TYPE_SHELL", launch: false, web: false },
];

export interface Task {
  id: string;
  description: string;
  state: string;
  username: string;
  resourcePool: string;
  startTime: string;
  exitStatus?: string;
  serviceAddress?: string;
  experimentIds?: number[];
  trialIds?: number[];
  jobId?: string;
  kind: Kind;
  /** The service answered (its allocation's isReady); undefined for a
   *  kind that serves nothing or a task not running. */
  ready?: boolean;
}

export const live = (t: { state: string }) => t.state !== "STATE_TERMINATED";

/** Whether task `id` reports its service ready (GET /api/v1/tasks/{id}). */
export async function isReady(id: string, signal?: AbortSignal): Promise<boolean> {
  const r = await api.get<{ task: { allocations?: { isReady?: boolean }[] } }>(`/api/v1/tasks/${encodeURIComponent(id)}`, signal);
  return (r.task?.allocations ?? []).some((a) => a.isReady === true);
}

/**
 * Every task of every kind, newest first; a running notebook's,
 * TensorBoard's or shell's readiness is asked of its task (the lists do
 * not carry it), one request per such task.
 */
export async function listTasks(signal?: AbortSignal): Promise<Task[]> {
  const all = await Promise.all(
    KINDS.map((k) => api.get<Record<string, Omit<Task, "kind">[]>>(`/api/v1/${k.route}`, signal).then((r) => (r[k.list] ?? []).map((t) => ({ ...t, kind: k }) as Task))),
  );
  const tasks = all.flat().sort((a, b) => (b.startTime ?? "").localeCompare(a.startTime ?? ""));
  await Promise.all(
    tasks
      .filter((t) => t.kind.route !== "commands" && t.state === "STATE_RUNNING")
      .map((t) =>
        isReady(t.id, signal).then(
          (r) => void (t.ready = r),
          (e) => {
            // Gone between the two reads: not ready.
            if (e instanceof api.ApiError && e.status === 404) t.ready = false;
            else throw e;
          },
        ),
      ),
  );
  return tasks;
}

/** Launches a task of `kind` with `body` ({config, ...}); its id. */
export async function launch(kind: Kind, body: Record<string, unknown>): Promise<string> {
  const r = await api.post<Record<string, { id: string }>>(`/api/v1/${kind.route}`, body);
  const id = r[kind.one]?.id;
  if (!id) throw new Error(`the master answered no ${kind.one} id`);
  return id;
}

export function kindOfJobType(type: string | undefined): Kind | undefined {
  return KINDS.find((k) => k.jobType === type);
}
