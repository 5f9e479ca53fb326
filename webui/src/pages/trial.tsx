// One trial: metric charts, live logs, checkpoints, hyperparameters and
// its timeline from the event log.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { useMetrics, usePoll } from "../hooks";
import { num, shortState, when } from "../format";
import { href, linkHandler } from "../router";
import { CheckpointTable, MetricChart } from "./experiment";

interface LogLine {
  id: string;
  log: string;
  timestamp: string;
  agentId?: string;
}

// A distributed launch prefixes each worker's lines with its rank, as
// upstream's launchers do ("[rank=1] ...").
const rankRe = /^\[rank=(\d+)\]/;

function rankOf(text: string): string {
  return text.match(rankRe)?.[1] ?? "";
}

const levelRe = /\b(CRITICAL|ERROR|WARNING|WARN|INFO|DEBUG|TRACE)\b/;

function levelOf(text: string): string {
  const m = text.match(levelRe);
  if (!m) return "";
  return m[1] === "WARN" ? "WARNING" : m[1];
}

function Logs(props: { id: number }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<string>();
  const [search, setSearch] = useState("");
  const [level, setLevel] = useState("");
  const [rank, setRank] = useState("");
  const [agent, setAgent] = useState("");
  const [stick, setStick] = useState(true);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const ctl = new AbortController();
    let buf: LogLine[] = [];
    let timer: number | undefined;
    const flush = () => {
      timer = undefined;
      const add = buf;
      buf = [];
      setLines((old) => {
        const all = old.concat(add);
        return all.length > 10000 ? all.slice(all.length - 10000) : all;
      });
    };
    setLines([]);
    setEnded(false);
    api
      .follow<LogLine>(
        `/api/v1/trials/${props.id}/logs?follow=true`,
        (l) => {
          buf.push(l);
          if (timer === undefined) timer = window.setTimeout(flush, 100);
        },
        ctl.signal,
      )
      .then(() => {
        flush();
        setEnded(true);
      })
      .catch((e) => {
        if (e?.name !== "AbortError") setError(String(e?.message ?? e));
      });
    return () => {
      ctl.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [props.id]);
  const shown = useMemo(() => {
    const s = search.toLowerCase();
    return lines.filter(
      (l) =>
        (!s || l.log.toLowerCase().includes(s)) &&
        (!level || levelOf(l.log) === level) &&
        (!rank || rankOf(l.log) === rank) &&
        (!agent || l.agentId === agent),
    );
  }, [lines, search, level, rank, agent]);
  const ranks = useMemo(() => [...new Set(lines.map((l) => rankOf(l.log)).filter(Boolean))].sort((a, b) => Number(a) - Number(b)), [lines]);
  const agents = useMemo(() => [...new Set(lines.map((l) => l.agentId ?? "").filter(Boolean))].sort(), [lines]);
  useEffect(() => {
    if (stick && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [shown, stick]);
  return (
    <section>
      <div class="toolbar">
        <label>
          Search
          <input data-testid="log-search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Level
          <select value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)} data-testid="log-level">
            <option value="">any</option>
            {["CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG"].map((l) => (
              <option value={l}>{l.toLowerCase()}</option>
            ))}
          </select>
        </label>
        <label>
          Rank
          <select value={rank} onChange={(e) => setRank((e.target as HTMLSelectElement).value)} data-testid="log-rank">
            <option value="">any</option>
            {ranks.map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select value={agent} onChange={(e) => setAgent((e.target as HTMLSelectElement).value)} data-testid="log-agent">
            <option value="">any</option>
            {agents.map((a) => (
              <option value={a}>{a}</option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={stick} onChange={() => setStick(!stick)} /> follow
        </label>
        <span class="muted">
          {shown.length} of {lines.length} lines{ended ? " · end of log" : " · live"}
        </span>
      </div>
      {error && <p class="error">{error}</p>}
      <div class="logs" tabIndex={0} aria-label="log lines" ref={box} data-testid="logs" data-lines={lines.length} data-shown={shown.length}>
        {shown.map((l) => (
          <div class={"line " + levelOf(l.log).toLowerCase()}>
            <span class="ts">{l.timestamp?.slice(11, 19)}</span> {l.log.replace(/\n$/, "")}
          </div>
        ))}
      </div>
    </section>
  );
}

function Timeline(props: { id: number; active: boolean }) {
  const tl = usePoll((signal) => api.get<{ events: any[] }>(`/api/v1/trials/${props.id}/timeline`, signal), [props.id, props.active], props.active ? 5000 : 0);
  if (tl.error) return <p class="error">{tl.error}</p>;
  // A placement resumes from the latest checkpoint before it (the trial
  // rules: a restart continues from its latest checkpoint).
  let latest: any = undefined;
  const describe = (ev: any): string => {
    const p = ev.payload ?? {};
    switch (ev.type) {
      case "trial_created":
        return "created";
      case "trial_placed":
        return (
          "placed on " +
          (p.assignments ?? []).map((a: any) => a.agent_id + " (slots " + (a.slots ?? []).join(",") + ")").join(", ") +
          (p.allocation_id ? " as " + p.allocation_id : "") +
          (latest ? `; resumes from checkpoint ${latest.uuid} (batch ${latest.steps_completed})` : "; starts from scratch")
        );
      case "trial_running":
        return "running" + (p.allocation_id ? " (" + p.allocation_id + ")" : "");
      case "trial_checkpointed":
        latest = p;
        return "checkpoint " + p.uuid + " at batch " + p.steps_completed;
      case "trial_preemption_requested":
        return "asked to stop: " + (p.reason ?? "");
      case "trial_exited":
        return "exited: " + (p.reason ?? "") + (p.exit_code !== undefined ? " (code " + p.exit_code + ")" : "");
      case "trial_restarted":
        return "restarted";
      default:
        return ev.type.replace(/^trial_/, "").replace(/_/g, " ");
    }
  };
  return (
    <ol class="timeline" data-testid="timeline">
      {(tl.data?.events ?? []).map((ev) => (
        <li data-type={ev.type}>
          <span class="ts">{when(ev.recordedAt)}</span> <b>{ev.type}</b> {describe(ev)}{" "}
          <details>
            <summary>event {ev.position}</summary>
            <pre>{JSON.stringify(ev.payload, null, 2)}</pre>
          </details>
        </li>
      ))}
    </ol>
  );
}

export function TrialPage(props: { id: number }) {
  const { id } = props;
  const [tab, setTab] = useState("overview");
  const trial = usePoll((signal) => api.get<{ trial: api.Trial }>(`/api/v1/trials/${id}`, signal), [id]);
  const t = trial.data?.trial;
  const active = !!t && !api.terminalStates.has(t.state);
  const metrics = useMetrics([id], active);
  // The chart opens on the searcher's metric, as upstream's trial page.
  const expId = t?.experimentId;
  const exp = usePoll(
    (signal) => (expId ? api.get<{ experiment: api.Experiment }>(`/api/v1/experiments/${expId}`, signal) : Promise.resolve(undefined)),
    [expId],
    0,
  );
  const cps = usePoll((signal) => api.get<{ checkpoints: any[] }>(`/api/v1/trials/${id}/checkpoints`, signal), [id, active], active ? 5000 : 0);
  if (trial.error && !t) return <main class="error">{trial.error}</main>;
  if (!t) return <main class="muted">Loading…</main>;
  return (
    <main>
      <p class="crumbs">
        <a href={href("/experiments")} onClick={linkHandler}>
          Experiments
        </a>{" "}
        /{" "}
        <a href={href("/experiments/" + t.experimentId)} onClick={linkHandler}>
          {t.experimentId}
        </a>{" "}
        / trial {t.id}
      </p>
      <h1>
        Trial {t.id} <span class={"badge state " + shortState(t.state)} data-testid="trial-state" data-state={t.state}>{shortState(t.state)}</span>
      </h1>
      <div class="summary">
        <span>batches {t.totalBatchesProcessed}</span>
        <span>restarts {t.restarts}</span>
        <span>started {when(t.startTime)}</span>
        {t.endTime && <span>ended {when(t.endTime)}</span>}
        {typeof t.searcherMetricValue === "number" && <span>best {num(t.searcherMetricValue)}</span>}
        {t.pendingReason && <span class="warn">{t.pendingReason}</span>}
      </div>
      <div class="tabs">
        {["overview", "logs", "checkpoints", "timeline"].map((x) => (
          <button class={tab === x ? "active" : ""} onClick={() => setTab(x)} data-testid={"tab-" + x}>
            {x}
          </button>
        ))}
      </div>
      {tab === "overview" && (
        <>
          <MetricChart reports={metrics.data ?? []} preferred={exp.data?.experiment.searcherMetric} testId="trial-chart" />
          <h2>Hyperparameters</h2>
          <table class="grid kv" data-testid="hparams">
            <tbody>
              {Object.entries(t.hparams ?? {}).map(([k, v]) => (
                <tr>
                  <th>{k}</th>
                  <td>{typeof v === "object" ? JSON.stringify(v) : num(v)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {tab === "logs" && <Logs id={id} />}
      {tab === "checkpoints" && <CheckpointTable checkpoints={cps.data?.checkpoints ?? []} />}
      {tab === "timeline" && <Timeline id={id} active={active} />}
    </main>
  );
}
