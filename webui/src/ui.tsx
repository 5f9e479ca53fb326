// Small pieces the pages share: a form that reports the API's refusal, a
// text field, and a two-step confirm button.
import { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/** A form whose submit runs `action`; the API's error (which names the
 * field) is shown under it with data-testid `${testId}-error`. */
export function Form(props: { testId: string; action: () => Promise<unknown>; submit: string; children: ComponentChildren; onDone?: () => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="form"
      data-testid={props.testId}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          await props.action();
          props.onDone?.();
        } catch (err: any) {
          setError(String(err?.message ?? err));
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.children}
      <button type="submit" disabled={busy} data-testid={props.testId + "-submit"}>
        {props.submit}
      </button>
      {error && (
        <p class="error" role="alert" data-testid={props.testId + "-error"}>
          {error}
        </p>
      )}
    </form>
  );
}

export function Field(props: { label: string; value: string; onInput: (v: string) => void; name: string; type?: string; multiline?: boolean; required?: boolean }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      {props.multiline ? (
        <textarea name={props.name} rows={6} value={props.value} onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)} />
      ) : (
        <input
          name={props.name}
          type={props.type ?? "text"}
          required={props.required}
          value={props.value}
          onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
        />
      )}
    </label>
  );
}

/** A button that asks "really?" before doing a destructive action. */
export function Confirm(props: { label: string; testId: string; onConfirm: () => void; disabled?: boolean }) {
  const [armed, setArmed] = useState(false);
  return armed ? (
    <button class="danger" data-testid={props.testId + "-confirm"} onClick={() => (setArmed(false), props.onConfirm())}>
      Really {props.label.toLowerCase()}?
    </button>
  ) : (
    <button class="danger" data-testid={props.testId} disabled={props.disabled} onClick={() => setArmed(true)}>
      {props.label}
    </button>
  );
}

/** A JSON object typed in a text area; "" is {}. */
export function parseObject(text: string, field: string): Record<string, unknown> {
  if (!text.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e: any) {
    throw new Error(`${field}: not JSON (${e.message})`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`${field}: expected a JSON object`);
  return v as Record<string, unknown>;
}

export function labelsOf(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
