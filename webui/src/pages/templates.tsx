// Config templates (/api/v1/templates): the list, one's config as YAML-ish
// JSON, create, replace the config, delete. An experiment names one with
// `det experiment create --template NAME`.
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { toYaml } from "../yaml";
import { Confirm, Field, Form, parseObject } from "../ui";

interface Template {
  name: string;
  config: Record<string, unknown>;
  workspaceId: number;
}

function TemplateRow(props: { t: Template; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [error, setError] = useState<string>();
  const enc = encodeURIComponent(props.t.name);
  return (
    <>
      <tr data-name={props.t.name}>
        <td>{props.t.name}</td>
        <td>{props.t.workspaceId}</td>
        <td>
          <pre class="yaml small" tabIndex={0}>{toYaml(props.t.config ?? {})}</pre>
        </td>
        <td class="actions-cell">
          <button data-testid={"template-edit-" + props.t.name} onClick={() => (setText(JSON.stringify(props.t.config ?? {}, null, 2)), setOpen(!open))}>
            {open ? "Close" : "Edit"}
          </button>
          <Confirm
            label="Delete"
            testId={"template-delete-" + props.t.name}
            onConfirm={() =>
              api
                .del(`/api/v1/templates/${enc}`)
                .catch((e) => setError(e.message))
                .then(props.onDone)
            }
          />
          {error && <span class="error">{error}</span>}
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={4}>
            <Form testId={"template-form-" + props.t.name} submit="Save config" action={() => api.patch(`/api/v1/templates/${enc}`, parseObject(text, "config"))} onDone={() => (setOpen(false), props.onDone())}>
              <Field label="Config (JSON)" name="template-config-edit" value={text} onInput={setText} multiline />
            </Form>
          </td>
        </tr>
      )}
    </>
  );
}

export function TemplatesPage() {
  const list = usePoll((signal) => api.get<{ templates: Template[] }>("/api/v1/templates?limit=200", signal), [], 5000);
  const [name, setName] = useState("");
  const [config, setConfig] = useState('{\n  "resources": {"slots_per_trial": 1}\n}');
  return (
    <main>
      <h1>Templates</h1>
      <Form
        testId="new-template"
        submit="Create template"
        action={() => api.post(`/api/v1/templates/${encodeURIComponent(name)}`, { name, config: parseObject(config, "config"), workspaceId: 0 })}
        onDone={() => (setName(""), list.reload())}
      >
        <Field label="Name" name="template-name" value={name} onInput={setName} required />
        <Field label="Config (JSON)" name="template-config" value={config} onInput={setConfig} multiline />
      </Form>
      {list.error && <p class="error">{list.error}</p>}
      <div class="scroll">
        <table class="grid" data-testid="templates">
          <thead>
            <tr>
              <th>Name</th>
              <th>Workspace</th>
              <th>Config</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.templates ?? []).map((t) => (
              <TemplateRow t={t} onDone={list.reload} />
            ))}
          </tbody>
        </table>
      </div>
      {list.data && (list.data.templates ?? []).length === 0 && <p class="muted">No templates.</p>}
    </main>
  );
}
