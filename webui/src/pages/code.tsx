// An experiment's code: the model directory it was created with (GET
// /api/v1/experiments/{id}/model_def, a base64 .tar.gz), unpacked in the
// browser (DecompressionStream and a ustar reader), listed by path, one
// file shown at a time. Binary files and files past 1 MiB are named only.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api";

export interface TarFile {
  path: string;
  size: number;
  data: Uint8Array;
}

const MAX_SHOWN = 1 << 20;

function cstring(b: Uint8Array, off: number, len: number): string {
  let end = off;
  while (end < off + len && b[end] !== 0) end++;
  return new TextDecoder().decode(b.subarray(off, end));
}

/** The regular files of a ustar archive (GNU long names and pax path
 * records honoured; anything malformed ends the listing). */
export function untar(b: Uint8Array): TarFile[] {
  const out: TarFile[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + 512 <= b.length) {
    if (b.subarray(off, off + 512).every((x) => x === 0)) break;
    let name = cstring(b, off, 100);
    const size = parseInt(cstring(b, off + 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(b[off + 156] || 48);
    const prefix = cstring(b, off + 345, 155);
    if (!Number.isFinite(size) || size < 0) break;
    const body = b.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = cstring(body, 0, body.length);
      continue;
    }
    if (type === "x") {
      const m = new TextDecoder().decode(body).match(/\d+ path=([^\n]*)\n/);
      if (m) longName = m[1];
      continue;
    }
    if (prefix) name = prefix + "/" + name;
    if (longName !== undefined) {
      name = longName;
      longName = undefined;
    }
    if (type === "0" || type === "\0" || type === "7") out.push({ path: name.replace(/^\.\//, ""), size, data: body });
  }
  return out.sort((x, y) => x.path.localeCompare(y.path));
}

/** The gzip stream's content. Bytes after its end (the master's archive
 * comes padded with zeros to a 10 KiB record) make DecompressionStream
 * fail once all of it has come out: what came out before is kept. */
async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      n += value.length;
    }
  } catch (e) {
    if (n === 0) throw e;
  }
  const out = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

function isText(d: Uint8Array): boolean {
  const n = Math.min(d.length, 4096);
  for (let i = 0; i < n; i++) if (d[i] === 0) return false;
  return true;
}

export function CodeView(props: { id: number }) {
  const [files, setFiles] = useState<TarFile[]>();
  const [error, setError] = useState<string>();
  const [chosen, setChosen] = useState<string>();
  useEffect(() => {
    const ctl = new AbortController();
    api
      .get<{ b64Tgz: string }>(`/api/v1/experiments/${props.id}/model_def`, ctl.signal)
      .then(async (r) => {
        const raw = Uint8Array.from(atob(r.b64Tgz ?? ""), (c) => c.charCodeAt(0));
        const list = untar(await gunzip(raw));
        setFiles(list);
        const first = list.find((f) => /\.(py|ya?ml)$/.test(f.path)) ?? list[0];
        if (first) setChosen(first.path);
      })
      .catch((e) => {
        if (e?.name !== "AbortError") setError(String(e?.message ?? e));
      });
    return () => ctl.abort();
  }, [props.id]);
  if (error) return <p class="error">{error}</p>;
  if (!files) return <p class="muted">Loading the model definition…</p>;
  if (files.length === 0) return <p class="muted">The experiment has no model files.</p>;
  const f = files.find((x) => x.path === chosen);
  return (
    <div class="code-view" data-testid="code" data-files={files.length}>
      <ul class="files" aria-label="files">
        {files.map((x) => (
          <li>
            <button class={"link" + (x.path === chosen ? " active" : "")} data-path={x.path} onClick={() => setChosen(x.path)}>
              {x.path}
            </button>{" "}
            <span class="muted">{x.size} B</span>
          </li>
        ))}
      </ul>
      {f && (
        <section class="file">
          <h2 class="mono">{f.path}</h2>
          {f.size > MAX_SHOWN || !isText(f.data) ? (
            <p class="muted">{f.size > MAX_SHOWN ? "Too large to show." : "A binary file."}</p>
          ) : (
            <pre class="yaml" tabIndex={0} data-testid="code-file" data-path={f.path}>
              {new TextDecoder().decode(f.data)}
            </pre>
          )}
        </section>
      )}
    </div>
  );
}
