// A learning-curve chart on uPlot: one line per series against batches,
// linear or log scale, optional exponential smoothing, values on hover (the
// legend). The container carries data-series, data-points and, once uPlot
// has drawn, data-drawn: the browser tests and the bench read them.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { ReportMetrics, valuesOf } from "./api";

export interface Series {
  label: string;
  x: number[];
  y: number[];
  /** A stroke colour (else the palette's, by position). */
  color?: string;
}

const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

function smooth(y: number[], weight: number): number[] {
  if (weight <= 0) return y;
  const out = new Array<number>(y.length);
  let last = y.length ? y[0] : 0;
  for (let i = 0; i < y.length; i++) {
    last = last * weight + (1 - weight) * y[i];
    out[i] = last;
  }
  return out;
}

function align(series: Series[], weight: number): uPlot.AlignedData {
  if (series.length === 1) return [series[0].x, smooth(series[0].y, weight)];
  const tables = series.map((s) => [s.x, smooth(s.y, weight)] as uPlot.AlignedData);
  return uPlot.join(tables);
}

export function Chart(props: {
  series: Series[];
  log?: boolean;
  smoothing?: number;
  xLabel?: string;
  height?: number;
  testId?: string;
}) {
  const el = useRef<HTMLDivElement>(null);
  const { series, log = false, smoothing = 0, xLabel = "batches", height = 300 } = props;
  useEffect(() => {
    const div = el.current;
    if (!div) return;
    div.removeAttribute("data-drawn");
    if (series.length === 0) return;
    const usable = log ? series.map((s) => ({ ...s, y: s.y.map((v) => (v > 0 ? v : NaN)) })) : series;
    const data = align(usable, smoothing);
    const css = getComputedStyle(div);
    const fg = css.color || "#1d2330";
    const grid = css.getPropertyValue("--line").trim() || "#dfe3ea";
    const opts: uPlot.Options = {
      width: Math.max(300, div.clientWidth || 800),
      height,
      scales: { x: { time: false }, y: { distr: log ? 3 : 1 } },
      // Axis text and grid in the page's colours (dark mode draws light
      // text on the canvas).
      axes: [
        { label: xLabel, stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid } },
        { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid } },
      ],
      cursor: { drag: { x: true, y: false } },
      series: [
        { label: xLabel },
        ...series.map((s, i) => ({
          label: s.label,
          stroke: s.color ?? palette[i % palette.length],
          width: 1.5,
          spanGaps: true,
          points: { show: s.x.length < 60 },
        })),
      ],
      hooks: {
        draw: [() => div.setAttribute("data-drawn", "1")],
      },
    };
    const plot = new uPlot(opts, data, div);
    const resize = () => plot.setSize({ width: Math.max(300, div.clientWidth), height });
    const ro = new ResizeObserver(resize);
    ro.observe(div);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [series, log, smoothing, xLabel, height]);
  const points = series.reduce((n, s) => n + s.x.length, 0);
  return (
    <div class="chart" ref={el} data-testid={props.testId ?? "chart"} data-series={series.length} data-points={points}>
      {series.length === 0 && <p class="muted">No metrics reported yet.</p>}
    </div>
  );
}

/** Builds one series per trial for `metric` of `group` from reports. */
export function seriesOf(
  reports: { trialId: number; group: string; totalBatches: number; metrics: ReportMetrics }[],
  group: string,
  metric: string,
): Series[] {
  const byTrial = new Map<number, Series>();
  for (const r of reports) {
    if (r.group !== group) continue;
    const v = valuesOf(r)[metric];
    if (typeof v !== "number") continue;
    let s = byTrial.get(r.trialId);
    if (!s) {
      s = { label: "trial " + r.trialId, x: [], y: [] };
      byTrial.set(r.trialId, s);
    }
    s.x.push(r.totalBatches);
    s.y.push(v);
  }
  // uPlot wants x ascending; reports come in log order, which a restart
  // can step back: sort when needed.
  for (const s of byTrial.values()) {
    let sorted = true;
    for (let i = 1; i < s.x.length; i++) if (s.x[i] < s.x[i - 1]) sorted = false;
    if (!sorted) {
      const idx = s.x.map((_, i) => i).sort((a, b) => s.x[a] - s.x[b]);
      s.x = idx.map((i) => s.x[i]);
      s.y = idx.map((i) => s.y[i]);
    }
  }
  return [...byTrial.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

/** The metric names reported in `group`. */
export function metricNames(reports: { group: string; metrics: ReportMetrics }[], group: string): string[] {
  // Reports of one run carry the same names: look at each distinct key set
  // once (by the first report that has it), not at every report.
  const names = new Set<string>();
  let lastKeys = "";
  for (const r of reports) {
    if (r.group !== group) continue;
    const vals = valuesOf(r);
    const keys = Object.keys(vals);
    const sig = keys.join("\u0000");
    if (sig === lastKeys) continue;
    lastKeys = sig;
    for (const k of keys) if (typeof vals[k] === "number") names.add(k);
  }
  return [...names].sort();
}
