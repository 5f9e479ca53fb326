// Historical cluster usage, as upstream's "Cluster > Historical usage":
// slot-hours per day (or month) in total and by user, resource pool and
// experiment label, from GET /api/v1/resources/allocation/aggregated.
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { href, linkHandler } from "../router";

interface Entry {
  periodStart: string;
  seconds: number;
  byUsername: Record<string, number>;
  byExperimentLabel: Record<string, number>;
  byResourcePool: Record<string, number>;
}

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

const hours = (s: number) => (s / 3600).toFixed(s >= 36000 ? 0 : 2);

/** One bar per period of each key's hours (the top 8 keys). */
function Breakdown(props: { title: string; entries: Entry[]; pick: (e: Entry) => Record<string, number>; testId: string }) {
  const totals = new Map<string, number>();
  for (const e of props.entries) for (const [k, v] of Object.entries(props.pick(e) ?? {})) totals.set(k, (totals.get(k) ?? 0) + v);
  const keys = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
  const max = Math.max(1, ...keys.map(([, v]) => v));
  return (
    <section>
      <h2>{props.title}</h2>
      {keys.length === 0 ? (
        <p class="muted">Nothing in this range.</p>
      ) : (
        <table class="grid bars" data-testid={props.testId}>
          <thead>
            <tr>
              <th>{props.title.replace(/^By /, "")}</th>
              <th>slot-hours</th>
              <th>
                <span class="sr-only">share</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map(([k, v]) => (
              <tr data-key={k} data-seconds={v}>
                <td>{k || "(none)"}</td>
                <td>{hours(v)}</td>
                <td class="bar-cell">
                  <span class="bar" style={{ width: (100 * v) / max + "%" }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function UsagePage() {
  const today = new Date();
  const [end, setEnd] = useState(day(today));
  const [start, setStart] = useState(day(new Date(today.getTime() - 13 * 86400000)));
  const [monthly, setMonthly] = useState(false);
  const period = monthly ? "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY" : "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY";
  const q = new URLSearchParams({
    start_date: monthly ? start.slice(0, 7) : start,
    end_date: monthly ? end.slice(0, 7) : end,
    period,
  });
  const usage = usePoll((signal) => api.get<{ resourceEntries: Entry[] }>("/api/v1/resources/allocation/aggregated?" + q, signal), [q.toString()], 30000);
  const entries = usage.data?.resourceEntries ?? [];
  const max = Math.max(1, ...entries.map((e) => e.seconds));
  const total = entries.reduce((a, e) => a + e.seconds, 0);
  return (
    <main>
      <p class="crumbs">
        <a href={href("/cluster")} onClick={linkHandler}>
          Cluster
        </a>{" "}
        / usage
      </p>
      <h1>Historical usage</h1>
      <div class="toolbar">
        <label>
          From
          <input type="date" data-testid="usage-start" value={start} onChange={(e) => setStart((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          To
          <input type="date" data-testid="usage-end" value={end} onChange={(e) => setEnd((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          <input type="checkbox" checked={monthly} onChange={() => setMonthly(!monthly)} /> by month
        </label>
        <a href={"/resources/allocation/aggregated?" + q} download="usage.csv">
          CSV
        </a>
        <span class="muted" data-testid="usage-total" data-seconds={total}>
          {hours(total)} slot-hours in all
        </span>
      </div>
      {usage.error && <p class="error">{usage.error}</p>}
      <section>
        <h2>Per {monthly ? "month" : "day"}</h2>
        <div class="columns" data-testid="usage-periods" role="img" aria-label={`slot-hours per ${monthly ? "month" : "day"}`}>
          {entries.map((e) => (
            <div class="column" title={`${e.periodStart}: ${hours(e.seconds)} slot-hours`} data-period={e.periodStart} data-seconds={e.seconds}>
              <span class="fill" style={{ height: (100 * e.seconds) / max + "%" }} />
              <span class="label">{e.periodStart.slice(monthly ? 0 : 5)}</span>
            </div>
          ))}
        </div>
      </section>
      <div class="breakdowns">
        <Breakdown title="By user" entries={entries} pick={(e) => e.byUsername} testId="usage-users" />
        <Breakdown title="By resource pool" entries={entries} pick={(e) => e.byResourcePool} testId="usage-pools" />
        <Breakdown title="By label" entries={entries} pick={(e) => e.byExperimentLabel} testId="usage-labels" />
      </div>
    </main>
  );
}
