// The experiments list: the master pages, sorts and filters
// (GET /api/v1/experiments limit/offset/sortBy/orderBy/states/users/name/
// labels); the page polls while visible. Bulk actions post each selected
// experiment's pause/activate/kill.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { pct, shortState, when } from "../format";
import { href, linkHandler, navigate, useLocation } from "../router";
import { ComponentChildren } from "preact";
import { useProjects } from "./workspaces";

const columns: [string, string][] = [
  ["SORT_BY_ID", "ID"],
  ["SORT_BY_NAME", "Name"],
  ["SORT_BY_STATE", "State"],
  ["SORT_BY_USER", "User"],
  ["SORT_BY_NUM_TRIALS", "Trials"],
  ["SORT_BY_PROGRESS", "Progress"],
  ["SORT_BY_START_TIME", "Started"],
  ["SORT_BY_END_TIME", "Ended"],
];

const states = ["", "STATE_ACTIVE", "STATE_PAUSED", "STATE_COMPLETED", "STATE_CANCELED", "STATE_ERROR"];

export function ExperimentList(props: { projectId?: number; title?: ComponentChildren } = {}) {
  const { path, query } = useLocation();
  const [dest, setDest] = useState("");
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [wantProjects, setWantProjects] = useState(false);
  useEffect(() => {
    if (selected.size > 0) setWantProjects(true);
  }, [selected.size > 0]);
  const projects = useProjects(wantProjects);
  const sortBy = query.get("sortBy") || "SORT_BY_ID";
  const orderBy = query.get("orderBy") || "ORDER_BY_DESC";
  const limit = Number(query.get("limit") || 50);
  const offset = Number(query.get("offset") || 0);
  const state = query.get("state") || "";
  const user = query.get("user") || "";
  const name = query.get("name") || "";
  const label = query.get("label") || "";
  // Archived experiments are left out unless asked for, as upstream's list.
  const archived = query.get("archived") === "1";
  const [message, setMessage] = useState<string>();

  const set = (changes: Record<string, string | number>) => {
    const q = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(changes)) {
      if (v === "" || v === undefined) q.delete(k);
      else q.set(k, String(v));
    }
    if (!("offset" in changes)) q.delete("offset");
    navigate(path + "?" + q.toString(), true);
  };

  const params = new URLSearchParams({ limit: String(limit), offset: String(offset), sortBy, orderBy });
  if (state) params.append("states", state);
  if (user) params.append("users", user);
  if (name) params.set("name", name);
  if (!archived) params.set("archived", "false");
  if (label) params.append("labels", label);
  if (props.projectId !== undefined) params.set("projectId", String(props.projectId));
  const list = usePoll((signal) => api.get<{ experiments: api.Experiment[]; pagination: api.Pagination }>("/api/v1/experiments?" + params, signal), [params.toString()]);
  const exps = list.data?.experiments ?? [];
  const total = list.data?.pagination?.total ?? 0;

  const bulk = async (action: "pause" | "activate" | "kill" | "archive" | "unarchive" | "move") => {
    const ids = [...selected];
    const failed: string[] = [];
    if (action === "move" && !dest) return;
    await Promise.all(
      ids.map((id) =>
        (action === "move"
          ? api.post(`/api/v1/experiments/${id}/move`, { destinationProjectId: Number(dest), experimentId: id })
          : api.post(`/api/v1/experiments/${id}/${action}`)
        ).catch((e) => {
          failed.push(`${id}: ${e.message}`);
        }),
      ),
    );
    setMessage(failed.length ? `${action} failed for ${failed.join("; ")}` : `${action}: ${ids.length} experiment(s)`);
    setSelected(new Set());
    list.reload();
  };

  const toggle = (id: number) => {
    const s = new Set(selected);
    if (s.has(id)) s.delete(id);
    else s.add(id);
    setSelected(s);
  };
  const allOnPage = exps.length > 0 && exps.every((e) => selected.has(e.id));

  return (
    <main>
      {props.title ?? <h1>Experiments</h1>}
      <div class="toolbar">
        <label>
          State
          <select data-testid="filter-state" value={state} onChange={(e) => set({ state: (e.target as HTMLSelectElement).value })}>
            {states.map((s) => (
              <option value={s}>{s ? shortState(s) : "any"}</option>
            ))}
          </select>
        </label>
        <FilterInput label="User" value={user} onCommit={(v) => set({ user: v })} testId="filter-user" />
        <FilterInput label="Name" value={name} onCommit={(v) => set({ name: v })} testId="filter-name" />
        <FilterInput label="Label" value={label} onCommit={(v) => set({ label: v })} testId="filter-label" />
        <label>
          <input type="checkbox" data-testid="show-archived" checked={archived} onChange={() => set({ archived: archived ? "" : "1" })} /> archived too
        </label>
        <span class="spacer" />
        <button disabled={!selected.size} onClick={() => bulk("activate")} data-testid="bulk-activate">
          Activate
        </button>
        <button disabled={!selected.size} onClick={() => bulk("pause")} data-testid="bulk-pause">
          Pause
        </button>
        <button disabled={!selected.size} onClick={() => bulk("archive")} data-testid="bulk-archive">
          Archive
        </button>
        <button disabled={!selected.size || !archived} onClick={() => bulk("unarchive")} data-testid="bulk-unarchive">
          Unarchive
        </button>
        <button class="danger" disabled={!selected.size} onClick={() => bulk("kill")} data-testid="bulk-kill">
          Kill
        </button>
        <button disabled={selected.size < 2} onClick={() => navigate("/compare?experiments=" + [...selected].join(","))} data-testid="bulk-compare">
          Compare
        </button>
        <label>
          Move to
          <select data-testid="move-dest" value={dest} onChange={(e) => setDest((e.target as HTMLSelectElement).value)}>
            <option value="">project…</option>
            {projects
              .filter((p) => p.id !== props.projectId)
              .map((p) => (
                <option value={String(p.id)}>{p.label}</option>
              ))}
          </select>
        </label>
        <button disabled={!selected.size || !dest} onClick={() => bulk("move")} data-testid="bulk-move">
          Move
        </button>
      </div>
      {message && <p class="note">{message}</p>}
      {list.error && <p class="error">{list.error}</p>}
      <div class="scroll">
      <table class="grid" data-testid="experiments" data-total={total} data-loaded={list.data ? "1" : "0"}>
        <thead>
          <tr>
            <th>
              <input
                type="checkbox"
                aria-label="select all"
                checked={allOnPage}
                onChange={() => setSelected(allOnPage ? new Set() : new Set(exps.map((e) => e.id)))}
              />
            </th>
            {columns.map(([key, label]) => (
              <th>
                <button
                  class="sort"
                  onClick={() => set({ sortBy: key, orderBy: sortBy === key && orderBy === "ORDER_BY_ASC" ? "ORDER_BY_DESC" : "ORDER_BY_ASC" })}
                >
                  {label}
                  {sortBy === key ? (orderBy === "ORDER_BY_ASC" ? " ▲" : " ▼") : ""}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {exps.map((e) => (
            <tr data-id={e.id} data-state={e.state}>
              <td>
                <input type="checkbox" aria-label={"select " + e.id} checked={selected.has(e.id)} onChange={() => toggle(e.id)} />
              </td>
              <td>{e.id}</td>
              <td>
                <a href={href("/experiments/" + e.id)} onClick={linkHandler}>
                  {e.name}
                </a>
                {(e.labels ?? []).map((l) => (
                  <span class="tag">{l}</span>
                ))}
              </td>
              <td class={"state " + shortState(e.state).replace(/ /g, "-")}>{shortState(e.state)}</td>
              <td>{e.username}</td>
              <td>{e.numTrials}</td>
              <td>
                <progress max={1} value={e.progress ?? 0} /> {pct(e.progress)}
              </td>
              <td>{when(e.startTime)}</td>
              <td>{when(e.endTime)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      {list.data && exps.length === 0 && <p class="muted">No experiments match.</p>}
      <div class="pager">
        <button disabled={offset === 0} onClick={() => set({ offset: Math.max(0, offset - limit) })}>
          ‹ Previous
        </button>
        <span data-testid="page-info">
          {total === 0 ? 0 : offset + 1}–{Math.min(offset + limit, total)} of {total}
        </span>
        <button disabled={offset + limit >= total} onClick={() => set({ offset: offset + limit })}>
          Next ›
        </button>
        <select value={String(limit)} onChange={(e) => set({ limit: (e.target as HTMLSelectElement).value })} aria-label="page size">
          {[20, 50, 100, 200].map((n) => (
            <option value={String(n)}>{n} per page</option>
          ))}
        </select>
      </div>
    </main>
  );
}

function FilterInput(props: { label: string; value: string; onCommit: (v: string) => void; testId: string }) {
  const [v, setV] = useState(props.value);
  return (
    <label>
      {props.label}
      <input
        data-testid={props.testId}
        value={v}
        onInput={(e) => setV((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => e.key === "Enter" && props.onCommit(v)}
        onBlur={() => v !== props.value && props.onCommit(v)}
      />
    </label>
  );
}
