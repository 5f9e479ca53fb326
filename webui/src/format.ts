export function shortState(s: string | undefined): string {
  return (s ?? "").replace(/^STATE_/, "").toLowerCase().replace(/_/g, " ");
}

export function when(t: string | undefined): string {
  if (!t || t.startsWith("0001") || t.startsWith("1970")) return "";
  const d = new Date(t);
  if (isNaN(d.getTime())) return "";
  return d.toLocaleString();
}

export function num(v: unknown, digits = 4): string {
  if (typeof v !== "number") return v === undefined || v === null ? "" : String(v);
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : v.toFixed(digits);
}

export function pct(p: number | undefined): string {
  return Math.round((p ?? 0) * 100) + "%";
}
