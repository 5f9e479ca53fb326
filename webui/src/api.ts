// The master's public REST API, as the app uses it. The session token from
// POST /api/v1/auth/login is kept in localStorage and sent as a bearer
// token; a 401 ends the session and shows the sign-in page.

const TOKEN_KEY = "det.token";

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

let onSignedOut: () => void = () => {};

export function setSignedOutHandler(f: () => void) {
  onSignedOut = f;
}

export function token(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

function headers(extra?: Record<string, string>): Record<string, string> {
  const h: Record<string, string> = { ...(extra ?? {}) };
  const t = token();
  if (t) h["Authorization"] = "Bearer " + t;
  return h;
}

async function check(r: Response): Promise<Response> {
  if (r.ok) return r;
  let message = r.status + " " + r.statusText;
  try {
    const body = await r.json();
    message = body?.error?.error || body?.message || message;
  } catch {
    // not JSON: keep the status line
  }
  if (r.status === 401) {
    localStorage.removeItem(TOKEN_KEY);
    onSignedOut();
  }
  throw new ApiError(r.status, message);
}

export async function get<T = any>(path: string, signal?: AbortSignal): Promise<T> {
  const r = await check(await fetch(path, { headers: headers(), signal }));
  return (await r.json()) as T;
}

/** A route that answers newline-delimited {"result": ...} lines. */
export async function getLines<T = any>(path: string, signal?: AbortSignal): Promise<T[]> {
  const r = await check(await fetch(path, { headers: headers(), signal }));
  const text = await r.text();
  const out: T[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const j = JSON.parse(line);
    if (j.error) throw new ApiError(500, j.error.message || "stream failed");
    out.push(j.result as T);
  }
  return out;
}

export async function post<T = any>(path: string, body?: unknown): Promise<T> {
  return send<T>("POST", path, body);
}

export async function patch<T = any>(path: string, body: unknown): Promise<T> {
  return send<T>("PATCH", path, body);
}

export async function put<T = any>(path: string, body: unknown): Promise<T> {
  return send<T>("PUT", path, body);
}

export async function del<T = any>(path: string): Promise<T> {
  return send<T>("DELETE", path);
}

async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await check(
    await fetch(path, {
      method,
      headers: headers({ "Content-Type": "application/json" }),
      body: JSON.stringify(body ?? {}),
    }),
  );
  const text = await r.text();
  return (text ? JSON.parse(text) : {}) as T;
}

/**
 * Follows a streamed route (GET ...?follow=true): calls `onResult` for each
 * {"result": ...} line as it arrives, until the stream ends or `signal`
 * aborts. Resolves when the server closed the stream.
 */
export async function follow<T = any>(
  path: string,
  onResult: (r: T) => void,
  signal: AbortSignal,
): Promise<void> {
  const r = await check(await fetch(path, { headers: headers(), signal }));
  if (!r.body) return;
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!line.trim()) continue;
      const j = JSON.parse(line);
      if (j.result) onResult(j.result as T);
    }
  }
}

export async function login(username: string, password: string): Promise<void> {
  const r = await fetch("/api/v1/auth/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password, isHashed: false }),
  });
  if (!r.ok) {
    let message = "sign-in failed (" + r.status + ")";
    try {
      message = (await r.json())?.error?.error || message;
    } catch {
      // keep the status
    }
    throw new ApiError(r.status, message);
  }
  const body = await r.json();
  localStorage.setItem(TOKEN_KEY, body.token);
}

export async function logout(): Promise<void> {
  try {
    await post("/api/v1/auth/logout");
  } finally {
    localStorage.removeItem(TOKEN_KEY);
  }
}

// -- shapes the app reads (the fields it uses) -------------------------------

export interface Experiment {
  id: number;
  name: string;
  description: string;
  state: string;
  username: string;
  numTrials: number;
  trialIds: number[];
  progress: number;
  startTime: string;
  endTime?: string;
  labels: string[];
  resourcePool: string;
  searcherMetric: string;
  searcherType: string;
  jobId: string;
  archived?: boolean;
  notes?: string;
  projectId?: number;
  workspaceId?: number;
}

export interface Workspace {
  id: number;
  name: string;
  archived: boolean;
  pinned: boolean;
  username: string;
  numProjects: number;
  numExperiments: number;
  immutable?: boolean;
}

export interface Project {
  id: number;
  name: string;
  description: string;
  workspaceId: number;
  workspaceName?: string;
  archived: boolean;
  immutable?: boolean;
  numExperiments: number;
  numActiveExperiments?: number;
  username?: string;
  notes?: { name: string; contents: string }[];
}

export interface Model {
  id: number;
  name: string;
  description: string;
  metadata: Record<string, unknown>;
  labels: string[];
  notes: string;
  archived: boolean;
  numVersions: number;
  username: string;
  workspaceId: number;
  creationTime: string;
  lastUpdatedTime: string;
}

export interface ModelVersion {
  id: number;
  version: number;
  name: string;
  comment: string;
  notes: string;
  labels: string[];
  metadata: Record<string, unknown>;
  checkpoint: {
    uuid: string;
    training?: { trialId?: number; experimentId?: number };
    trialId?: number;
    metadata?: Record<string, unknown>;
  };
  creationTime: string;
  username: string;
}

export interface User {
  id: number;
  username: string;
  displayName?: string;
  admin: boolean;
  active: boolean;
  remote?: boolean;
  modifiedAt?: string;
}

export interface Trial {
  id: number;
  experimentId: number;
  state: string;
  hparams: Record<string, unknown>;
  restarts: number;
  totalBatchesProcessed: number;
  searcherMetricValue?: number;
  startTime: string;
  endTime?: string;
  pendingReason?: string;
  latestValidation?: { metrics?: { avgMetrics?: Record<string, number> } };
  /** Per group (training as avg_metrics, validation as
   *  validation_metrics, others by name), per metric its summary. */
  summaryMetrics?: Record<string, Record<string, MetricSummary>>;
}

/** A metric's summary over a trial's reports of its group. */
export interface MetricSummary {
  type: string;
  last?: unknown;
  count?: number;
  sum?: number | string;
  min?: number | string;
  max?: number | string;
  mean?: number | string;
}

export interface MetricsReport {
  trialId: number;
  id: number;
  group: string;
  totalBatches: number;
  endTime: string;
  /** As upstream keys it: avg_metrics (training and other groups) or
   *  validation_metrics (validation). */
  metrics: ReportMetrics;
}

export interface ReportMetrics {
  avg_metrics?: Record<string, unknown>;
  validation_metrics?: Record<string, unknown>;
}

/** A report's metric values, whatever key its group uses. */
export function valuesOf(r: { metrics?: ReportMetrics }): Record<string, unknown> {
  return r.metrics?.validation_metrics ?? r.metrics?.avg_metrics ?? {};
}

export interface Pagination {
  offset: number;
  limit: number;
  total: number;
}

/**
 * The reports of `trialIds`, both groups (asked one group at a time, as
 * upstream's route wants a group). `after` holds, per group, the largest
 * report id already seen: ids are log positions, so within one group a
 * later read never brings a smaller new one, and a client that follows a
 * curve asks only for what is new (a server that ignores afterId answers
 * everything; the filter here keeps the result the same).
 */
export async function trialMetrics(
  trialIds: number[],
  signal?: AbortSignal,
  after: Record<string, number> = {},
): Promise<MetricsReport[]> {
  if (trialIds.length === 0) return [];
  const q = trialIds.slice(0, 100).map((id) => "trialIds=" + id).join("&");
  const groups = await Promise.all(
    ["training", "validation"].map(async (g) => {
      const a = after[g] ?? 0;
      const lines = await getLines<{ metrics: MetricsReport[] }>(
        "/api/v1/trials/metrics/trial_metrics?" + q + "&group=" + g + (a > 0 ? "&afterId=" + a : ""),
        signal,
      );
      return lines.flatMap((l) => l.metrics ?? []).filter((r) => r.id > a);
    }),
  );
  return groups.flat();
}

export const terminalStates = new Set(["STATE_COMPLETED", "STATE_CANCELED", "STATE_ERROR", "STATE_DELETED"]);
/** An active experiment, shown by its trials as QUEUED, PULLING, STARTING or RUNNING. */
export const activeStates = new Set(["STATE_ACTIVE", "STATE_QUEUED", "STATE_PULLING", "STATE_STARTING", "STATE_RUNNING"]);
