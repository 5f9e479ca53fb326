// Trials side by side (upstream's compare view): the chosen metric of every
// trial on one chart, their hyperparameters (rows that differ marked) and
// their final metrics. /compare?trials=1,2,3 or ?experiments=4,5 (every
// trial of those experiments); at most 100 trials.
import * as api from "../api";
import { useMetrics, usePoll } from "../hooks";
import { num, shortState } from "../format";
import { href, linkHandler, useLocation } from "../router";
import { MetricChart } from "./experiment";

function ids(text: string | null): number[] {
  return [...new Set((text ?? "").split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0))].slice(0, 100);
}

function show(v: unknown): string {
  return typeof v === "object" && v !== null ? JSON.stringify(v) : num(v);
}

/** A trial's last validation metrics (else its last training ones). */
function finalMetrics(t: api.Trial): Record<string, unknown> {
  const s = t.summaryMetrics ?? {};
  const group = s["validation_metrics"] ?? s["avg_metrics"] ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(group)) out[k] = v?.last;
  if (Object.keys(out).length === 0) Object.assign(out, t.latestValidation?.metrics?.avgMetrics ?? {});
  return out;
}

export function ComparePage() {
  const { query } = useLocation();
  const trialIds = ids(query.get("trials"));
  const expIds = ids(query.get("experiments"));
  const key = trialIds.join(",") + "/" + expIds.join(",");
  const data = usePoll(
    async (signal) => {
      const fromExps = await Promise.all(
        expIds.map((e) => api.get<{ trials: api.Trial[] }>(`/api/v1/experiments/${e}/trials?limit=100`, signal).then((r) => r.trials)),
      );
      const direct = await Promise.all(trialIds.map((t) => api.get<{ trial: api.Trial }>(`/api/v1/trials/${t}`, signal).then((r) => r.trial)));
      const trials = [...direct, ...fromExps.flat()].slice(0, 100);
      const expsOf = [...new Set(trials.map((t) => t.experimentId))];
      const exps = await Promise.all(expsOf.map((e) => api.get<{ experiment: api.Experiment }>(`/api/v1/experiments/${e}`, signal).then((r) => r.experiment)));
      return { trials, exps };
    },
    [key],
    10000,
  );
  const trials = data.data?.trials ?? [];
  const active = trials.some((t) => !api.terminalStates.has(t.state));
  const metrics = useMetrics(
    trials.map((t) => t.id),
    active,
  );
  const exps = data.data?.exps ?? [];
  const metric = exps[0]?.searcherMetric;
  const hpNames = [...new Set(trials.flatMap((t) => Object.keys(t.hparams ?? {})))].sort();
  const finals = trials.map(finalMetrics);
  const metricNames = [...new Set(finals.flatMap((f) => Object.keys(f)))].sort();
  const differs = (vals: unknown[]) => new Set(vals.map((v) => JSON.stringify(v))).size > 1;
  return (
    <main>
      <h1>Compare</h1>
      <p class="muted">
        {trials.length} trials of experiments{" "}
        {exps.map((e) => (
          <>
            <a href={href("/experiments/" + e.id)} onClick={linkHandler}>
              {e.id} {e.name}
            </a>{" "}
          </>
        ))}
      </p>
      {data.error && <p class="error">{data.error}</p>}
      {trials.length === 0 && data.data && <p class="muted">No trials chosen: select trials on an experiment's page, or experiments in the list.</p>}
      {trials.length > 0 && (
        <>
          <h2>Metrics</h2>
          {metrics.error && <p class="error">{metrics.error}</p>}
          <MetricChart reports={metrics.data ?? []} preferred={metric} testId="compare-chart" />
          <h2>Hyperparameters</h2>
          <div class="scroll">
            <table class="grid" data-testid="compare-hparams">
              <thead>
                <tr>
                  <th>hyperparameter</th>
                  {trials.map((t) => (
                    <th data-trial={t.id}>
                      <a href={href("/trials/" + t.id)} onClick={linkHandler}>
                        trial {t.id}
                      </a>{" "}
                      <span class="muted">({shortState(t.state)})</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {hpNames.map((h) => {
                  const vals = trials.map((t) => t.hparams?.[h]);
                  return (
                    <tr class={differs(vals) ? "differs" : ""} data-hp={h}>
                      <th>{h}</th>
                      {vals.map((v) => (
                        <td>{show(v)}</td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <h2>Final metrics</h2>
          <div class="scroll">
            <table class="grid" data-testid="compare-metrics">
              <thead>
                <tr>
                  <th>metric</th>
                  {trials.map((t) => (
                    <th>trial {t.id}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th>batches</th>
                  {trials.map((t) => (
                    <td>{t.totalBatchesProcessed}</td>
                  ))}
                </tr>
                {metric && (
                  <tr>
                    <th>best {metric}</th>
                    {trials.map((t) => (
                      <td>{num(t.searcherMetricValue)}</td>
                    ))}
                  </tr>
                )}
                {metricNames.map((m) => (
                  <tr data-metric={m}>
                    <th>{m}</th>
                    {finals.map((f) => (
                      <td>{show(f[m])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </main>
  );
}
