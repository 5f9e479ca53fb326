// The model registry: models (register, archive), a model's page (its
// description, notes, labels and metadata edited; its versions), and the
// "register as a version" action of a checkpoint.
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { when } from "../format";
import { href, linkHandler, navigate } from "../router";
import { Confirm, Field, Form, labelsOf, parseObject } from "../ui";

export function ModelList() {
  const [archived, setArchived] = useState(false);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const list = usePoll(
    (signal) => api.get<{ models: api.Model[] }>("/api/v1/models?limit=200&sortBy=SORT_BY_LAST_UPDATED_TIME&orderBy=ORDER_BY_DESC" + (archived ? "" : "&archived=false"), signal),
    [archived],
  );
  return (
    <main>
      <h1>Model registry</h1>
      <Form
        testId="new-model"
        submit="Register model"
        action={() => api.post("/api/v1/models", { name, description })}
        onDone={() => navigate("/models/" + encodeURIComponent(name))}
      >
        <Field label="New model" name="model-name" value={name} onInput={setName} required />
        <Field label="Description" name="model-description" value={description} onInput={setDescription} />
      </Form>
      <div class="toolbar">
        <label>
          <input type="checkbox" checked={archived} onChange={() => setArchived(!archived)} /> archived too
        </label>
      </div>
      {list.error && <p class="error">{list.error}</p>}
      <div class="scroll">
        <table class="grid" data-testid="models">
          <thead>
            <tr>
              <th>Name</th>
              <th>Description</th>
              <th>Versions</th>
              <th>Labels</th>
              <th>Owner</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.models ?? []).map((m) => (
              <tr data-id={m.id} data-name={m.name}>
                <td>
                  <a href={href("/models/" + encodeURIComponent(m.name))} onClick={linkHandler}>
                    {m.name}
                  </a>
                  {m.archived && <span class="tag">archived</span>}
                </td>
                <td>{m.description}</td>
                <td>{m.numVersions}</td>
                <td>
                  {(m.labels ?? []).map((l) => (
                    <span class="tag">{l}</span>
                  ))}
                </td>
                <td>{m.username}</td>
                <td>{when(m.lastUpdatedTime)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.data && (list.data.models ?? []).length === 0 && <p class="muted">No models registered.</p>}
    </main>
  );
}

function ModelEdit(props: { model: api.Model; onDone: () => void }) {
  const m = props.model;
  const [description, setDescription] = useState(m.description ?? "");
  const [notes, setNotes] = useState(m.notes ?? "");
  const [labels, setLabels] = useState((m.labels ?? []).join(", "));
  const [metadata, setMetadata] = useState(JSON.stringify(m.metadata ?? {}, null, 2));
  return (
    <Form
      testId="model-edit"
      submit="Save"
      action={() =>
        api.patch(`/api/v1/models/${encodeURIComponent(m.name)}`, {
          description,
          notes,
          labels: labelsOf(labels),
          metadata: parseObject(metadata, "metadata"),
        })
      }
      onDone={props.onDone}
    >
      <Field label="Description" name="description" value={description} onInput={setDescription} />
      <Field label="Labels (comma separated)" name="labels" value={labels} onInput={setLabels} />
      <Field label="Notes" name="notes" value={notes} onInput={setNotes} multiline />
      <Field label="Metadata (JSON)" name="metadata" value={metadata} onInput={setMetadata} multiline />
    </Form>
  );
}

function VersionEdit(props: { model: string; v: api.ModelVersion; onDone: () => void }) {
  const [comment, setComment] = useState(props.v.comment ?? "");
  const [notes, setNotes] = useState(props.v.notes ?? "");
  const [metadata, setMetadata] = useState(JSON.stringify(props.v.metadata ?? {}, null, 2));
  return (
    <Form
      testId={"version-edit-" + props.v.version}
      submit="Save version"
      action={() =>
        api.patch(`/api/v1/models/${encodeURIComponent(props.model)}/versions/${props.v.version}`, {
          comment,
          notes,
          metadata: parseObject(metadata, "metadata"),
        })
      }
      onDone={props.onDone}
    >
      <Field label="Comment" name="comment" value={comment} onInput={setComment} />
      <Field label="Notes" name="version-notes" value={notes} onInput={setNotes} multiline />
      <Field label="Metadata (JSON)" name="version-metadata" value={metadata} onInput={setMetadata} multiline />
    </Form>
  );
}

function trialOf(v: api.ModelVersion): number | undefined {
  return v.checkpoint?.training?.trialId ?? v.checkpoint?.trialId;
}

export function ModelPage(props: { name: string }) {
  const enc = encodeURIComponent(props.name);
  const [editing, setEditing] = useState(false);
  const [open, setOpen] = useState<number>();
  const [error, setError] = useState<string>();
  const model = usePoll((signal) => api.get<{ model: api.Model }>(`/api/v1/models/${enc}`, signal), [enc], 5000);
  const versions = usePoll((signal) => api.get<{ modelVersions: api.ModelVersion[] }>(`/api/v1/models/${enc}/versions?limit=200`, signal), [enc], 5000);
  const m = model.data?.model;
  if (model.error && !m) return <main class="error">{model.error}</main>;
  if (!m) return <main class="muted">Loading…</main>;
  const act = async (f: () => Promise<unknown>, then?: () => void) => {
    setError(undefined);
    try {
      await f();
      then?.();
    } catch (e: any) {
      setError(e.message);
    }
    model.reload();
    versions.reload();
  };
  return (
    <main>
      <p class="crumbs">
        <a href={href("/models")} onClick={linkHandler}>
          Model registry
        </a>{" "}
        / {m.name}
      </p>
      <h1 data-testid="model-name">
        {m.name} {m.archived && <span class="badge">archived</span>}
      </h1>
      <div class="summary">
        <span>owner {m.username}</span>
        <span>{m.numVersions} versions</span>
        <span>created {when(m.creationTime)}</span>
        <span>updated {when(m.lastUpdatedTime)}</span>
        {(m.labels ?? []).map((l) => (
          <span class="tag">{l}</span>
        ))}
      </div>
      {m.description && <p data-testid="model-description">{m.description}</p>}
      <div class="actions">
        <button data-testid="model-edit-open" onClick={() => setEditing(!editing)}>
          {editing ? "Close" : "Edit"}
        </button>
        <button data-testid="model-archive" onClick={() => act(() => api.post(`/api/v1/models/${enc}/${m.archived ? "unarchive" : "archive"}`))}>
          {m.archived ? "Unarchive" : "Archive"}
        </button>
        <Confirm label="Delete" testId="model-delete" onConfirm={() => act(() => api.del(`/api/v1/models/${enc}`), () => navigate("/models"))} />
        {error && <span class="error">{error}</span>}
      </div>
      {editing && <ModelEdit model={m} onDone={() => (setEditing(false), model.reload())} />}
      {m.notes && (
        <>
          <h2>Notes</h2>
          <pre class="notes" tabIndex={0} data-testid="model-notes">{m.notes}</pre>
        </>
      )}
      {Object.keys(m.metadata ?? {}).length > 0 && (
        <>
          <h2>Metadata</h2>
          <pre class="yaml" tabIndex={0} data-testid="model-metadata">{JSON.stringify(m.metadata, null, 2)}</pre>
        </>
      )}
      <h2>Versions</h2>
      <p class="muted">Register a version from a checkpoint of an experiment or trial (its checkpoints tab), or by the checkpoint's UUID:</p>
      {!m.archived && <RegisterByUuid model={m.name} onDone={() => (versions.reload(), model.reload())} />}
      <div class="scroll">
        <table class="grid" data-testid="versions">
          <thead>
            <tr>
              <th>Version</th>
              <th>Name</th>
              <th>Checkpoint</th>
              <th>Trial</th>
              <th>Comment</th>
              <th>Registered</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {(versions.data?.modelVersions ?? []).map((v) => (
              <>
                <tr data-version={v.version} data-uuid={v.checkpoint?.uuid}>
                  <td>{v.version}</td>
                  <td>{v.name}</td>
                  <td class="mono">{v.checkpoint?.uuid}</td>
                  <td>
                    {trialOf(v) ? (
                      <a href={href("/trials/" + trialOf(v))} onClick={linkHandler}>
                        {trialOf(v)}
                      </a>
                    ) : (
                      ""
                    )}
                  </td>
                  <td>{v.comment}</td>
                  <td>{when(v.creationTime)}</td>
                  <td class="actions-cell">
                    <button data-testid={"version-open-" + v.version} onClick={() => setOpen(open === v.version ? undefined : v.version)}>
                      {open === v.version ? "Close" : "Details"}
                    </button>
                    <Confirm label="Delete" testId={"version-delete-" + v.version} onConfirm={() => act(() => api.del(`/api/v1/models/${enc}/versions/${v.version}`))} />
                  </td>
                </tr>
                {open === v.version && (
                  <tr>
                    <td colSpan={7}>
                      <VersionEdit model={m.name} v={v} onDone={() => versions.reload()} />
                    </td>
                  </tr>
                )}
              </>
            ))}
          </tbody>
        </table>
      </div>
    </main>
  );
}

function RegisterByUuid(props: { model: string; onDone: () => void }) {
  const [uuid, setUuid] = useState("");
  return (
    <Form
      testId="register-uuid"
      submit="Register checkpoint"
      action={() => api.post(`/api/v1/models/${encodeURIComponent(props.model)}/versions`, { checkpointUuid: uuid.trim() })}
      onDone={() => (setUuid(""), props.onDone())}
    >
      <Field label="Checkpoint UUID" name="checkpoint-uuid" value={uuid} onInput={setUuid} required />
    </Form>
  );
}

/** "Register as a model version" for one checkpoint: pick a model (or name
 * a new one), optionally a version name and comment. */
export function RegisterVersion(props: { uuid: string; onDone?: (model: string, version: number) => void }) {
  const [open, setOpen] = useState(false);
  const [model, setModel] = useState("");
  const [name, setName] = useState("");
  const [comment, setComment] = useState("");
  const [done, setDone] = useState<string>();
  const models = usePoll(
    (signal) => (open ? api.get<{ models: api.Model[] }>("/api/v1/models?limit=200&archived=false", signal) : Promise.resolve({ models: [] })),
    [open],
    0,
  );
  if (!open)
    return (
      <>
        <button data-testid={"register-" + props.uuid} onClick={() => setOpen(true)}>
          Register as model version
        </button>
        {done && <span class="note"> {done}</span>}
      </>
    );
  return (
    <Form
      testId="register-version"
      submit="Register"
      action={async () => {
        if (!model) throw new Error("model: choose one");
        const r = await api.post<{ modelVersion: api.ModelVersion }>(`/api/v1/models/${encodeURIComponent(model)}/versions`, {
          checkpointUuid: props.uuid,
          name,
          comment,
        });
        const v = r.modelVersion?.version ?? 0;
        setDone(`registered as ${model} v${v}`);
        setOpen(false);
        props.onDone?.(model, v);
      }}
    >
      <label class="field">
        <span>Model</span>
        <select name="model" data-testid="register-model" value={model} onChange={(e) => setModel((e.target as HTMLSelectElement).value)}>
          <option value="">choose…</option>
          {(models.data?.models ?? []).map((m) => (
            <option value={m.name}>{m.name}</option>
          ))}
        </select>
      </label>
      <Field label="Version name" name="version-name" value={name} onInput={setName} />
      <Field label="Comment" name="version-comment" value={comment} onInput={setComment} />
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </Form>
  );
}
