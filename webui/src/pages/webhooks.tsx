// Webhooks (GET/POST/DELETE /api/v1/webhooks, POST .../{id}/test): the
// list, creating one for experiment state changes or a log pattern, a test
// delivery, deleting.
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { Confirm, Field, Form } from "../ui";

interface Webhook {
  id: number;
  name: string;
  url: string;
  webhookType: string;
  mode: string;
  workspaceId?: number;
  triggers: { triggerType: string; condition: Record<string, unknown> }[];
}

const states = ["COMPLETED", "ERROR", "CANCELED", "PAUSED", "ACTIVE"];

export function WebhooksPage() {
  const list = usePoll((signal) => api.get<{ webhooks: Webhook[] }>("/api/v1/webhooks", signal), [], 5000);
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [type, setType] = useState("WEBHOOK_TYPE_DEFAULT");
  const [trigger, setTrigger] = useState("COMPLETED");
  const [regex, setRegex] = useState("");
  const [message, setMessage] = useState<string>();
  const act = async (what: () => Promise<unknown>, done: string) => {
    setMessage(undefined);
    try {
      await what();
      setMessage(done);
    } catch (e: any) {
      setMessage(e.message);
    }
    list.reload();
  };
  return (
    <main>
      <h1>Webhooks</h1>
      <Form
        testId="new-webhook"
        submit="Create webhook"
        action={() =>
          api.post("/api/v1/webhooks", {
            name,
            url,
            webhookType: type,
            triggers:
              trigger === "TASK_LOG"
                ? [{ triggerType: "TRIGGER_TYPE_TASK_LOG", condition: { regex } }]
                : trigger === "CUSTOM"
                  ? [{ triggerType: "TRIGGER_TYPE_CUSTOM", condition: {} }]
                  : [{ triggerType: "TRIGGER_TYPE_EXPERIMENT_STATE_CHANGE", condition: { state: "STATE_" + trigger } }],
          })
        }
        onDone={() => (setName(""), setUrl(""), list.reload())}
      >
        <Field label="Name" name="webhook-name" value={name} onInput={setName} required />
        <Field label="URL" name="webhook-url" value={url} onInput={setUrl} required />
        <label class="field">
          <span>Type</span>
          <select name="webhook-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            <option value="WEBHOOK_TYPE_DEFAULT">default (JSON)</option>
            <option value="WEBHOOK_TYPE_SLACK">Slack</option>
          </select>
        </label>
        <label class="field">
          <span>Trigger</span>
          <select name="webhook-trigger" value={trigger} onChange={(e) => setTrigger((e.target as HTMLSelectElement).value)}>
            {states.map((s) => (
              <option value={s}>experiment {s.toLowerCase()}</option>
            ))}
            <option value="TASK_LOG">a log line matches</option>
            <option value="CUSTOM">custom (core_context.alert)</option>
          </select>
        </label>
        {trigger === "TASK_LOG" && <Field label="Regex" name="webhook-regex" value={regex} onInput={setRegex} />}
      </Form>
      {message && <p class="note">{message}</p>}
      {list.error && <p class="error">{list.error}</p>}
      <div class="scroll">
        <table class="grid" data-testid="webhooks">
          <thead>
            <tr>
              <th>Name</th>
              <th>URL</th>
              <th>Type</th>
              <th>Triggers</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.webhooks ?? []).map((w) => (
              <tr data-id={w.id} data-name={w.name}>
                <td>{w.name}</td>
                <td class="mono">
                  <UrlEdit w={w} onDone={list.reload} />
                </td>
                <td>{w.webhookType.replace(/^WEBHOOK_TYPE_/, "").toLowerCase()}</td>
                <td>
                  {(w.triggers ?? []).map((t) => (
                    <span class="tag">
                      {t.triggerType.replace(/^TRIGGER_TYPE_/, "").toLowerCase()} {Object.values(t.condition ?? {}).join(" ")}
                    </span>
                  ))}
                </td>
                <td class="actions-cell">
                  <button data-testid={"webhook-test-" + w.id} onClick={() => act(() => api.post(`/api/v1/webhooks/${w.id}/test`), `test sent to ${w.name}`)}>
                    Test
                  </button>
                  <Confirm label="Delete" testId={"webhook-delete-" + w.id} onConfirm={() => act(() => api.del(`/api/v1/webhooks/${w.id}`), `deleted ${w.name}`)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.data && (list.data.webhooks ?? []).length === 0 && <p class="muted">No webhooks.</p>}
    </main>
  );
}

/** A webhook's URL, changed in place (PATCH /api/v1/webhooks/{id}). */
function UrlEdit(props: { w: Webhook; onDone: () => void }) {
  const [url, setUrl] = useState<string>();
  const [error, setError] = useState<string>();
  if (url === undefined)
    return (
      <>
        {props.w.url}{" "}
        <button class="link" data-testid={"webhook-url-edit-" + props.w.id} onClick={() => setUrl(props.w.url)}>
          change
        </button>
      </>
    );
  return (
    <form
      class="inline"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          await api.patch(`/api/v1/webhooks/${props.w.id}`, { url });
          setUrl(undefined);
          props.onDone();
        } catch (err: any) {
          setError(err.message);
        }
      }}
    >
      <input aria-label="webhook URL" name="webhook-url-new" value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
      <button type="submit" data-testid={"webhook-url-save-" + props.w.id}>
        Save
      </button>
      <button type="button" onClick={() => setUrl(undefined)}>
        Cancel
      </button>
      {error && <span class="error">{error}</span>}
    </form>
  );
}
