// One experiment: learning curves of all its trials, trials table,
// hyperparameter views, checkpoints, configuration, and actions.
import { useMemo, useState } from "preact/hooks";
import * as api from "../api";
import { Chart, metricNames, seriesOf } from "../chart";
import { useMetrics, usePoll } from "../hooks";
import { num, pct, shortState, when } from "../format";
import { href, linkHandler, navigate } from "../router";
import { toYaml } from "../yaml";
import { Scatter } from "./scatter";
import { RegisterVersion } from "./models";
import { CodeView } from "./code";
import { Field, Form } from "../ui";
import { TensorBoardButton } from "./tensorboard";

export function Actions(props: { exp: api.Experiment; onDone: () => void }) {
  const [error, setError] = useState<string>();
  const [confirmKill, setConfirmKill] = useState(false);
  const act = async (what: string) => {
    setError(undefined);
    try {
      await api.post(`/api/v1/experiments/${props.exp.id}/${what}`);
      props.onDone();
    } catch (e: any) {
      setError(`${what}: ${e.message}`);
    }
  };
  const s = props.exp.state;
  const ended = api.terminalStates.has(s) || s.startsWith("STATE_STOPPING");
  return (
    <div class="actions">
      <button data-testid="activate" disabled={s !== "STATE_PAUSED"} onClick={() => act("activate")}>
        Activate
      </button>
      <button data-testid="pause" disabled={!api.activeStates.has(s)} onClick={() => act("pause")}>
        Pause
      </button>
      {ended && !props.exp.archived && (
        <button data-testid="archive" disabled={!api.terminalStates.has(s)} onClick={() => act("archive")}>
          Archive
        </button>
      )}
      {props.exp.archived && (
        <button data-testid="unarchive" onClick={() => act("unarchive")}>
          Unarchive
        </button>
      )}
      {confirmKill ? (
        <button class="danger" data-testid="kill-confirm" onClick={() => (setConfirmKill(false), act("kill"))}>
          Really kill?
        </button>
      ) : (
        <button class="danger" data-testid="kill" disabled={ended} onClick={() => setConfirmKill(true)}>
          Kill
        </button>
      )}
      {error && <span class="error">{error}</span>}
    </div>
  );
}

/** The experiment's notes (free text, upstream's Notes tab), saved with
 * PATCH. */
function Notes(props: { exp: api.Experiment; onDone: () => void }) {
  const [text, setText] = useState<string>();
  const [saved, setSaved] = useState(false);
  return (
    <Form
      testId="notes"
      submit="Save notes"
      action={() => api.patch(`/api/v1/experiments/${props.exp.id}`, { notes: text ?? props.exp.notes ?? "" })}
      onDone={() => (setSaved(true), props.onDone())}
    >
      <Field label="Notes" name="notes" value={text ?? props.exp.notes ?? ""} onInput={(v) => (setText(v), setSaved(false))} multiline />
      {saved && (
        <span class="note" role="status">
          saved
        </span>
      )}
    </Form>
  );
}

/** Name, description and labels, edited in place (PATCH). */
export function Edit(props: { exp: api.Experiment; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [labels, setLabels] = useState("");
  const [error, setError] = useState<string>();
  if (!open)
    return (
      <button
        data-testid="edit"
        onClick={() => {
          setName(props.exp.name);
          setDescription(props.exp.description ?? "");
          setLabels((props.exp.labels ?? []).join(", "));
          setError(undefined);
          setOpen(true);
        }}
      >
        Edit
      </button>
    );
  const save = async (ev: Event) => {
    ev.preventDefault();
    if (name.trim() === "") {
      setError("name: must not be empty");
      return;
    }
    try {
      const list = labels
        .split(",")
        .map((l) => l.trim())
        .filter((l) => l !== "");
      await api.patch(`/api/v1/experiments/${props.exp.id}`, { name, description, labels: list });
      setOpen(false);
      props.onDone();
    } catch (e: any) {
      setError(e.message);
    }
  };
  return (
    <form class="edit" onSubmit={save} data-testid="edit-form">
      <label>
        Name <input data-testid="edit-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Description{" "}
        <textarea data-testid="edit-description" value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
      </label>
      <label>
        Labels (comma-separated){" "}
        <input data-testid="edit-labels" value={labels} onInput={(e) => setLabels((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" data-testid="edit-save">
        Save
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {error && <span class="error" data-testid="edit-error">{error}</span>}
    </form>
  );
}

export function MetricChart(props: { reports: api.MetricsReport[]; preferred?: string; testId?: string }) {
  const { reports } = props;
  // One pass over the reports per change of them (a curve can be 100,000).
  const namesByGroup = useMemo(() => {
    const out: Record<string, string[]> = {};
    for (const g of ["validation", "training"]) out[g] = metricNames(reports, g);
    return out;
  }, [reports]);
  const groups = ["validation", "training"].filter((g) => namesByGroup[g].length > 0);
  const [group, setGroup] = useState<string>();
  const [metric, setMetric] = useState<string>();
  const [log, setLog] = useState(false);
  const [smoothing, setSmoothing] = useState(0);
  const g = group && groups.includes(group) ? group : groups.find((x) => props.preferred && namesByGroup[x].includes(props.preferred)) ?? groups[0] ?? "training";
  const names = namesByGroup[g] ?? [];
  const m = metric && names.includes(metric) ? metric : props.preferred && names.includes(props.preferred) ? props.preferred : names[0] ?? "";
  const series = useMemo(() => seriesOf(reports, g, m), [reports, g, m]);
  return (
    <section>
      <div class="toolbar">
        <label>
          Group
          <select data-testid="metric-group" value={g} onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}>
            {groups.map((x) => (
              <option value={x}>{x}</option>
            ))}
          </select>
        </label>
        <label>
          Metric
          <select data-testid="metric-name" value={m} onChange={(e) => setMetric((e.target as HTMLSelectElement).value)}>
            {names.map((x) => (
              <option value={x}>{x}</option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={log} onChange={() => setLog(!log)} /> log scale
        </label>
        <label>
          smoothing
          <input type="range" min={0} max={0.99} step={0.01} value={smoothing} onInput={(e) => setSmoothing(Number((e.target as HTMLInputElement).value))} />
        </label>
      </div>
      <Chart series={series} log={log} smoothing={smoothing} testId={props.testId} />
    </section>
  );
}

function bestOf(trials: api.Trial[]): api.Trial | undefined {
  const withValue = trials.filter((t) => typeof t.searcherMetricValue === "number");
  withValue.sort((a, b) => a.searcherMetricValue! - b.searcherMetricValue!);
  return withValue[0];
}

export function ExperimentPage(props: { id: number }) {
  const { id } = props;
  const [tab, setTab] = useState("overview");
  const exp = usePoll((signal) => api.get<{ experiment: api.Experiment; config: any }>(`/api/v1/experiments/${id}`, signal), [id]);
  const trials = usePoll((signal) => api.get<{ trials: api.Trial[] }>(`/api/v1/experiments/${id}/trials`, signal), [id]);
  const e = exp.data?.experiment;
  const active = !!e && !api.terminalStates.has(e.state);
  const trialIds = (trials.data?.trials ?? []).map((t) => t.id);
  const metrics = useMetrics(trialIds, active);
  if (exp.error && !e) return <main class="error">{exp.error}</main>;
  if (!e) return <main class="muted">Loading…</main>;
  const ts = trials.data?.trials ?? [];
  const best = bestOf(ts);
  const hpNames = [...new Set(ts.flatMap((t) => Object.keys(t.hparams ?? {})))].sort();
  return (
    <main>
      <p class="crumbs">
        <a href={href("/experiments")} onClick={linkHandler}>
          Experiments
        </a>{" "}
        / {e.id}
      </p>
      <h1>
        {e.name} <span class={"badge state " + shortState(e.state).replace(/ /g, "-")} data-testid="exp-state" data-state={e.state}>{shortState(e.state)}</span>
      </h1>
      <div class="summary">
        <span>user {e.username}</span>
        <span>pool {e.resourcePool}</span>
        <span>searcher {e.searcherType}</span>
        <span>progress {pct(e.progress)}</span>
        <span>started {when(e.startTime)}</span>
        {e.endTime && <span>ended {when(e.endTime)}</span>}
        {best && (
          <span data-testid="best">
            best {e.searcherMetric} {num(best.searcherMetricValue)} (trial {best.id})
          </span>
        )}
        {(e.labels ?? []).map((l) => (
          <span class="tag" data-testid="exp-label">{l}</span>
        ))}
      </div>
      {e.description && <p data-testid="exp-description">{e.description}</p>}
      {e.archived && <p class="note">archived</p>}
      <p>
        <a href={href("/history?experiment=" + e.id)} onClick={linkHandler} data-testid="through-time">
          This experiment through time (event log)
        </a>
      </p>
      <Actions exp={e} onDone={() => (exp.reload(), trials.reload())} />
      <div class="actions">
        <TensorBoardButton experimentId={e.id} />
      </div>
      <Edit exp={e} onDone={() => exp.reload()} />
      <div class="tabs">
        {["overview", "trials", "hyperparameters", "checkpoints", "config", "code", "notes"].map((t) => (
          <button class={tab === t ? "active" : ""} onClick={() => setTab(t)} data-testid={"tab-" + t}>
            {t}
          </button>
        ))}
      </div>
      {tab === "overview" && (
        <>
          <h2>Learning curves</h2>
          {metrics.error && <p class="error">{metrics.error}</p>}
          <MetricChart reports={metrics.data ?? []} preferred={e.searcherMetric} testId="exp-chart" />
          <TrialTable trials={ts} hpNames={hpNames} metric={e.searcherMetric} />
        </>
      )}
      {tab === "trials" && <TrialTable trials={ts} hpNames={hpNames} metric={e.searcherMetric} />}
      {tab === "hyperparameters" && <HpViews trials={ts} hpNames={hpNames} metric={e.searcherMetric} reports={metrics.data ?? []} />}
      {tab === "checkpoints" && <Checkpoints id={id} />}
      {tab === "code" && <CodeView id={id} />}
      {tab === "notes" && <Notes exp={e} onDone={() => exp.reload()} />}
      {tab === "config" && <pre class="yaml" tabIndex={0} data-testid="config-yaml">{toYaml(exp.data?.config ?? {})}</pre>}
    </main>
  );
}

function TrialTable(props: { trials: api.Trial[]; hpNames: string[]; metric: string }) {
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const toggle = (id: number) => {
    const s2 = new Set(selected);
    if (s2.has(id)) s2.delete(id);
    else s2.add(id);
    setSelected(s2);
  };
  return (
    <>
    <div class="toolbar">
      <button data-testid="compare-trials" disabled={selected.size < 2} onClick={() => navigate("/compare?trials=" + [...selected].sort((a, b) => a - b).join(","))}>
        Compare {selected.size || ""} selected trials
      </button>
    </div>
    <div class="scroll">
    <table class="grid" data-testid="trials">
      <thead>
        <tr>
          <th><span class="sr-only">select</span></th>
          <th>Trial</th>
          <th>State</th>
          <th>Batches</th>
          <th>Restarts</th>
          <th>Best {props.metric}</th>
          {props.hpNames.map((h) => (
            <th>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.trials.map((t) => (
          <tr data-id={t.id} data-state={t.state}>
            <td>
              <input type="checkbox" aria-label={"select trial " + t.id} checked={selected.has(t.id)} onChange={() => toggle(t.id)} />
            </td>
            <td>
              <a href={href("/trials/" + t.id)} onClick={linkHandler}>
                {t.id}
              </a>
            </td>
            <td class={"state " + shortState(t.state)} title={t.pendingReason ?? ""}>
              {shortState(t.state)}
            </td>
            <td>{t.totalBatchesProcessed}</td>
            <td>{t.restarts}</td>
            <td>{num(t.searcherMetricValue)}</td>
            {props.hpNames.map((h) => (
              <td>{typeof t.hparams?.[h] === "object" ? JSON.stringify(t.hparams[h]) : num(t.hparams?.[h])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
    </div>
    </>
  );
}

/** Each trial's curve of the searcher's metric, coloured by the value of
 * one hyperparameter (blue: its least, red: its greatest). */
function CurvesByHp(props: { trials: api.Trial[]; hps: string[]; metric: string; reports: api.MetricsReport[] }) {
  const [hp, setHp] = useState<string>();
  const h = hp && props.hps.includes(hp) ? hp : props.hps[0];
  const group = useMemo(() => (props.reports.some((r) => r.group === "validation" && typeof api.valuesOf(r)[props.metric] === "number") ? "validation" : "training"), [props.reports, props.metric]);
  const series = useMemo(() => {
    if (!h) return [];
    const vals = props.trials.map((t) => t.hparams?.[h]).filter((v): v is number => typeof v === "number");
    const lo = Math.min(...vals);
    const hi = Math.max(...vals);
    const byId = new Map(props.trials.map((t) => [t.id, t]));
    return seriesOf(props.reports, group, props.metric).map((s) => {
      const t = byId.get(Number(s.label.replace(/^trial /, "")));
      const v = t?.hparams?.[h];
      const c = typeof v === "number" && hi > lo ? (v - lo) / (hi - lo) : 0.5;
      return { ...s, label: `${s.label} (${h} ${num(v)})`, color: `hsl(${Math.round(220 - 220 * c)},70%,45%)` };
    });
  }, [props.reports, props.trials, h, group, props.metric]);
  if (!h) return null;
  return (
    <section>
      <h2>Learning curves coloured by a hyperparameter</h2>
      <div class="toolbar">
        <label>
          Colour by
          <select data-testid="colour-by" value={h} onChange={(e) => setHp((e.target as HTMLSelectElement).value)}>
            {props.hps.map((x) => (
              <option value={x}>{x}</option>
            ))}
          </select>
        </label>
        <span class="muted">
          {props.metric} ({group}); blue: least {h}, red: greatest
        </span>
      </div>
      <Chart series={series} testId="hp-curves" />
    </section>
  );
}

function HpViews(props: { trials: api.Trial[]; hpNames: string[]; metric: string; reports: api.MetricsReport[] }) {
  const numericAll = props.hpNames.filter((h) => props.trials.some((t) => typeof t.hparams?.[h] === "number"));
  // Hyperparameters that differ between trials say something; constant
  // ones only when nothing varies.
  const varying = numericAll.filter((h) => new Set(props.trials.map((t) => t.hparams?.[h])).size > 1);
  const numeric = varying.length ? varying : numericAll;
  const scored = props.trials.filter((t) => typeof t.searcherMetricValue === "number");
  if (scored.length === 0) return <p class="muted">No trial has a value of {props.metric} yet.</p>;
  return (
    <section>
      <h2>Parallel coordinates</h2>
      <div class="scroll">
        <Parallel trials={scored} hps={numeric} metric={props.metric} />
      </div>
      <h2>{props.metric} against each hyperparameter</h2>
      <div class="scatters">
        {numeric.map((h) => (
          <Scatter
            title={h}
            points={scored.map((t) => ({ x: t.hparams[h] as number, y: t.searcherMetricValue!, label: "trial " + t.id }))}
            yLabel={props.metric}
          />
        ))}
      </div>
      <CurvesByHp trials={props.trials} hps={numeric} metric={props.metric} reports={props.reports} />
    </section>
  );
}

function Parallel(props: { trials: api.Trial[]; hps: string[]; metric: string }) {
  const axes = [...props.hps, props.metric];
  const value = (t: api.Trial, a: string) => (a === props.metric ? t.searcherMetricValue! : (t.hparams[a] as number));
  const W = 160 * axes.length;
  const H = 240;
  const ranges = axes.map((a) => {
    const vs = props.trials.map((t) => value(t, a)).filter((v) => typeof v === "number");
    const lo = Math.min(...vs);
    const hi = Math.max(...vs);
    return [lo, hi === lo ? lo + 1 : hi];
  });
  const y = (i: number, v: number) => 20 + (H - 40) * (1 - (v - ranges[i][0]) / (ranges[i][1] - ranges[i][0]));
  const x = (i: number) => 60 + i * 150;
  const mrange = ranges[axes.length - 1];
  return (
    <svg class="parallel" width={W} height={H} data-testid="parallel">
      {props.trials.map((t) => {
        const c = (value(t, props.metric) - mrange[0]) / (mrange[1] - mrange[0]);
        return (
          <polyline
            fill="none"
            stroke={`hsl(${Math.round(120 * (1 - c))},70%,40%)`}
            stroke-width="1.5"
            points={axes.map((a, i) => `${x(i)},${y(i, value(t, a))}`).join(" ")}
          >
            <title>trial {t.id}</title>
          </polyline>
        );
      })}
      {axes.map((a, i) => (
        <g>
          <line x1={x(i)} x2={x(i)} y1={20} y2={H - 20} stroke="#888" />
          <text x={x(i)} y={12} text-anchor="middle" font-size="11" fill="currentColor">
            {a}
          </text>
          <text x={x(i) + 4} y={H - 22} font-size="10" fill="currentColor">
            {num(ranges[i][0], 3)}
          </text>
          <text x={x(i) + 4} y={28} font-size="10" fill="currentColor">
            {num(ranges[i][1], 3)}
          </text>
        </g>
      ))}
    </svg>
  );
}

export function CheckpointTable(props: { checkpoints: any[] }) {
  if (props.checkpoints.length === 0) return <p class="muted">No checkpoints.</p>;
  return (
    <div class="scroll">
      <table class="grid" data-testid="checkpoints">
        <thead>
          <tr>
            <th>UUID</th>
            <th>Trial</th>
            <th>Batches</th>
            <th>State</th>
            <th>Reported</th>
            <th>Metadata</th>
            <th>Model registry</th>
          </tr>
        </thead>
        <tbody>
          {props.checkpoints.map((c) => (
            <tr data-uuid={c.uuid}>
              <td class="mono">{c.uuid}</td>
              <td>{c.trialId ?? c.metadata?.trial_id ?? ""}</td>
              <td>{c.metadata?.steps_completed ?? c.totalBatches ?? ""}</td>
              <td>{shortState(c.state)}</td>
              <td>{when(c.reportTime ?? c.endTime)}</td>
              <td>
                {Object.keys(c.metadata ?? {}).length > 0 && (
                  <details>
                    <summary>{Object.keys(c.metadata).length} keys</summary>
                    <pre class="mono">{JSON.stringify(c.metadata, null, 2)}</pre>
                  </details>
                )}
              </td>
              <td>{shortState(c.state) === "completed" && <RegisterVersion uuid={c.uuid} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Checkpoints(props: { id: number }) {
  const cps = usePoll((signal) => api.get<{ checkpoints: any[] }>(`/api/v1/experiments/${props.id}/checkpoints`, signal), [props.id], 5000);
  if (cps.error) return <p class="error">{cps.error}</p>;
  return <CheckpointTable checkpoints={cps.data?.checkpoints ?? []} />;
}
