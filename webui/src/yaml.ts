// A small YAML writer for showing a configuration (JSON values only).

function scalar(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  const s = String(v);
  const plain = /^[A-Za-z_./][\w./ -]*$/.test(s) && !/^(true|false|null|yes|no|on|off|~)$/i.test(s) && !s.endsWith(" ") && !s.includes(": ") && !s.includes(" #");
  return plain ? s : JSON.stringify(s);
}

function isEmpty(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
}

export function toYaml(v: unknown, indent = ""): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return indent + "[]\n";
    return v
      .map((item) => {
        if (typeof item === "object" && item !== null && !isEmpty(item)) {
          const inner = toYaml(item, indent + "  ");
          return indent + "- " + inner.slice(indent.length + 2);
        }
        return indent + "- " + (isEmpty(item) ? JSON.stringify(item) : scalar(item)) + "\n";
      })
      .join("");
  }
  if (typeof v === "object" && v !== null) {
    const keys = Object.keys(v);
    if (keys.length === 0) return indent + "{}\n";
    return keys
      .map((k) => {
        const val = (v as Record<string, unknown>)[k];
        if (typeof val === "object" && val !== null && !isEmpty(val))
          return indent + scalar(k) + ":\n" + toYaml(val, indent + "  ");
        return indent + scalar(k) + ": " + (isEmpty(val) ? JSON.stringify(val) : scalar(val)) + "\n";
      })
      .join("");
  }
  return indent + scalar(v) + "\n";
}
