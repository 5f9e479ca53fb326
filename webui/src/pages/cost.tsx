// "What would it cost": the jobs this cluster really ran in a pool, run
// again through det-sim under the pool's fleet and the changes asked here
// (idle period, instance bounds and size, price, boot time), beside
// Determined's defaults and two autoscalers' rules, from POST
// /api/v1/resource-pools/{pool}/simulate (admins). One row per policy,
// then det-sim's picture: fleet, busy GPUs and queue over time.
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { href, linkHandler } from "../router";

interface Run {
  policy: string;
  instance_hours: number;
  cost: number;
  overhead_above_work_pct: number;
  wait: { p50_s: number; p95_s: number; p99_s: number; max_s: number };
  never_started: number;
  peak_instances: number;
}

interface Answer {
  pool: string;
  bounds: { jobs: number; work_h: number; pack_h: number; clairvoyant_h: number };
  runs: Run[];
  svg: string;
}

const FIELDS: [key: string, label: string, hint: string][] = [
  ["idleSeconds", "Idle period (s)", "max_idle_agent_period"],
  ["maxInstances", "Max instances", "the fleet's cap"],
  ["gpusPerInstance", "GPUs per instance", "slots of one instance"],
  ["pricePerHour", "Price per hour (USD)", "of one instance"],
  ["bootSeconds", "Boot time (s)", "launch to a usable agent"],
];

function duration(s: number): string {
  if (s < 120) return s + " s";
  if (s < 7200) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

export function CostPage(props: { admin: boolean; pool: string }) {
  const pools = usePoll((signal) => api.get<{ resourcePools: any[] }>("/api/v1/resource-pools", signal), []);
  const names = (pools.data?.resourcePools ?? []).map((p) => p.name as string);
  const [pool, setPool] = useState(props.pool);
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const chosen = pool || names[0] || "";

  async function simulate(e: Event) {
    e.preventDefault();
    const body: Record<string, number> = {};
    for (const [k] of FIELDS) if ((values[k] ?? "").trim() !== "") body[k] = Number(values[k]);
    setBusy(true);
    setError(null);
    try {
      setAnswer(await api.post<Answer>(`/api/v1/resource-pools/${encodeURIComponent(chosen)}/simulate`, body));
    } catch (err) {
      setAnswer(null);
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main>
      <p class="crumbs">
        <a href={href("/cluster")} onClick={linkHandler}>
          Cluster
        </a>{" "}
        / what would it cost
      </p>
      <h1>What would it cost</h1>
      <p class="muted">
        The jobs this pool really ran, from the event log, simulated again by the master's own scheduler and scale decisions in virtual time. Leave a
        field empty to keep the pool's setting.
      </p>
      {!props.admin && <p class="error">Only an administrator may simulate: the event log holds everyone's work.</p>}
      <form class="form" onSubmit={simulate} data-testid="cost-form">
        <label>
          Pool
          <select data-testid="cost-pool" value={chosen} onChange={(e) => setPool((e.target as HTMLSelectElement).value)}>
            {names.map((n) => (
              <option value={n}>{n}</option>
            ))}
          </select>
        </label>
        {FIELDS.map(([k, label, hint]) => (
          <label title={hint}>
            {label}
            <input
              type="number"
              min="0"
              step="any"
              data-testid={"cost-" + k}
              placeholder={k === "bootSeconds" ? "180" : "as the pool"}
              value={values[k] ?? ""}
              onInput={(e) => setValues({ ...values, [k]: (e.target as HTMLInputElement).value })}
            />
          </label>
        ))}
        <button type="submit" disabled={busy || !chosen || !props.admin} data-testid="cost-run">
          {busy ? "Simulating…" : "Simulate"}
        </button>
      </form>
      {error && (
        <p class="error" data-testid="cost-error">
          {error}
        </p>
      )}
      {answer && (
        <section data-testid="cost-result" data-jobs={answer.bounds.jobs}>
          <p>
            {answer.bounds.jobs} job(s) of pool {answer.pool}; the work alone needs {answer.bounds.work_h} instance-hours (packed:{" "}
            {answer.bounds.pack_h}, with boots foreseen: {answer.bounds.clairvoyant_h}).
          </p>
          <table class="grid" data-testid="cost-runs">
            <thead>
              <tr>
                <th>Policy</th>
                <th>Instance-hours</th>
                <th>Cost (USD)</th>
                <th>Above the work</th>
                <th>Wait p50 / p95 / p99</th>
                <th>Never started</th>
                <th>Peak instances</th>
              </tr>
            </thead>
            <tbody>
              {answer.runs.map((r) => (
                <tr data-policy={r.policy} data-instance-hours={r.instance_hours} data-cost={r.cost}>
                  <td>{r.policy}</td>
                  <td>{r.instance_hours}</td>
                  <td>{r.cost.toFixed(2)}</td>
                  <td>{r.overhead_above_work_pct} %</td>
                  <td>
                    {duration(r.wait.p50_s)} / {duration(r.wait.p95_s)} / {duration(r.wait.p99_s)}
                  </td>
                  <td>{r.never_started}</td>
                  <td>{r.peak_instances}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <img
            class="sim-report"
            data-testid="cost-svg"
            alt={`Fleet size, busy GPUs and waiting jobs over time for each policy of pool ${answer.pool}`}
            src={"data:image/svg+xml;charset=utf-8," + encodeURIComponent(answer.svg)}
          />
        </section>
      )}
    </main>
  );
}
