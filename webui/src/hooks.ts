import { useEffect, useRef, useState } from "preact/hooks";
import { MetricsReport, trialMetrics } from "./api";

export interface Polled<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `load()` now and again every `everyMs` while the page is visible
 * (bounded polling: one request in flight at a time, none while hidden).
 * `deps` restart it.
 */
export function usePoll<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
  everyMs = 2000,
): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [kick, setKick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    let ctl: AbortController | undefined;
    const run = async () => {
      if (stopped) return;
      if (document.hidden) {
        timer = window.setTimeout(run, everyMs);
        return;
      }
      ctl = new AbortController();
      try {
        const d = await loadRef.current(ctl.signal);
        if (stopped) return;
        setData(d);
        setError(undefined);
      } catch (e: any) {
        if (stopped || e?.name === "AbortError") return;
        setError(String(e?.message ?? e));
      } finally {
        if (!stopped) setLoading(false);
      }
      if (!stopped && everyMs > 0) timer = window.setTimeout(run, everyMs);
    };
    setLoading(true);
    run();
    return () => {
      stopped = true;
      ctl?.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [...deps, kick]);
  return { data, error, loading, reload: () => setKick((k) => k + 1) };
}

/**
 * The metric reports of `trialIds`, followed: the first load reads them
 * all, later polls (every 5 s while `live`) only the reports past the
 * newest id seen, so a long curve is not read again. A new set of trials
 * starts over.
 */
export function useMetrics(trialIds: number[], live: boolean): Polled<MetricsReport[]> {
  const key = trialIds.join(",");
  const seen = useRef<{ key: string; after: Record<string, number>; reports: MetricsReport[] }>({ key: "", after: {}, reports: [] });
  return usePoll(
    async (signal) => {
      if (seen.current.key !== key) seen.current = { key, after: {}, reports: [] };
      const cur = seen.current;
      const fresh = await trialMetrics(trialIds, signal, { ...cur.after });
      if (seen.current !== cur) return cur.reports;
      if (fresh.length === 0 && cur.reports.length > 0) return cur.reports;
      for (const r of fresh) cur.after[r.group] = Math.max(cur.after[r.group] ?? 0, r.id);
      cur.reports = cur.reports.length ? cur.reports.concat(fresh) : fresh;
      return cur.reports;
    },
    [key, live],
    live ? 5000 : 0,
  );
}
