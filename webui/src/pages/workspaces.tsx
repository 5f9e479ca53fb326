// Workspaces and projects, as upstream's WebUI has them: the workspaces
// (create, pin for oneself, archive), a workspace's projects (create,
// archive), and a project's experiments (the experiments list, scoped to
// it, with moving experiments to another project).
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { href, linkHandler } from "../router";
import { Field, Form } from "../ui";
import { ExperimentList } from "./experiments";

export function WorkspaceList() {
  const [archived, setArchived] = useState(false);
  const [name, setName] = useState("");
  const list = usePoll(
    (signal) => api.get<{ workspaces: api.Workspace[] }>("/api/v1/workspaces?limit=200" + (archived ? "" : "&archived=false"), signal),
    [archived],
  );
  const [error, setError] = useState<string>();
  const act = async (w: api.Workspace, what: string) => {
    setError(undefined);
    try {
      await api.post(`/api/v1/workspaces/${w.id}/${what}`);
    } catch (e: any) {
      setError(`${what} ${w.name}: ${e.message}`);
    }
    list.reload();
  };
  const ws = [...(list.data?.workspaces ?? [])].sort((a, b) => Number(b.pinned) - Number(a.pinned) || a.id - b.id);
  return (
    <main>
      <h1>Workspaces</h1>
      <Form testId="new-workspace" submit="Create workspace" action={() => api.post("/api/v1/workspaces", { name })} onDone={() => (setName(""), list.reload())}>
        <Field label="New workspace" name="workspace-name" value={name} onInput={setName} required />
      </Form>
      <div class="toolbar">
        <label>
          <input type="checkbox" data-testid="show-archived-workspaces" checked={archived} onChange={() => setArchived(!archived)} /> archived too
        </label>
      </div>
      {(error || list.error) && <p class="error">{error || list.error}</p>}
      <div class="scroll">
        <table class="grid" data-testid="workspaces">
          <thead>
            <tr>
              <th>Name</th>
              <th>Projects</th>
              <th>Experiments</th>
              <th>Owner</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {ws.map((w) => (
              <tr data-id={w.id} data-pinned={w.pinned ? "1" : "0"} data-archived={w.archived ? "1" : "0"}>
                <td>
                  <a href={href("/workspaces/" + w.id)} onClick={linkHandler}>
                    {w.name}
                  </a>
                  {w.pinned && <span class="tag">pinned</span>}
                  {w.archived && <span class="tag">archived</span>}
                </td>
                <td>{w.numProjects}</td>
                <td>{w.numExperiments}</td>
                <td>{w.username}</td>
                <td class="actions-cell">
                  <button data-testid={"pin-" + w.id} onClick={() => act(w, w.pinned ? "unpin" : "pin")}>
                    {w.pinned ? "Unpin" : "Pin"}
                  </button>
                  {!w.immutable && (
                    <button data-testid={"archive-" + w.id} onClick={() => act(w, w.archived ? "unarchive" : "archive")}>
                      {w.archived ? "Unarchive" : "Archive"}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </main>
  );
}

export function WorkspacePage(props: { id: number }) {
  const { id } = props;
  const [archived, setArchived] = useState(false);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [error, setError] = useState<string>();
  const w = usePoll((signal) => api.get<{ workspace: api.Workspace }>(`/api/v1/workspaces/${id}`, signal), [id], 5000);
  const projects = usePoll(
    (signal) => api.get<{ projects: api.Project[] }>(`/api/v1/workspaces/${id}/projects?limit=200` + (archived ? "" : "&archived=false"), signal),
    [id, archived],
  );
  const ws = w.data?.workspace;
  if (w.error && !ws) return <main class="error">{w.error}</main>;
  if (!ws) return <main class="muted">Loading…</main>;
  const act = async (p: api.Project, what: string) => {
    setError(undefined);
    try {
      await api.post(`/api/v1/projects/${p.id}/${what}`);
    } catch (e: any) {
      setError(`${what} ${p.name}: ${e.message}`);
    }
    projects.reload();
  };
  return (
    <main>
      <p class="crumbs">
        <a href={href("/workspaces")} onClick={linkHandler}>
          Workspaces
        </a>{" "}
        / {ws.name}
      </p>
      <h1 data-testid="workspace-name">
        {ws.name} {ws.archived && <span class="badge">archived</span>}
      </h1>
      <div class="summary">
        <span>owner {ws.username}</span>
        <span>{ws.numProjects} projects</span>
        <span>{ws.numExperiments} experiments</span>
      </div>
      {!ws.immutable && !ws.archived && (
        <Form
          testId="new-project"
          submit="Create project"
          action={() => api.post(`/api/v1/workspaces/${id}/projects`, { name, description, workspaceId: id })}
          onDone={() => (setName(""), setDescription(""), projects.reload(), w.reload())}
        >
          <Field label="New project" name="project-name" value={name} onInput={setName} required />
          <Field label="Description" name="project-description" value={description} onInput={setDescription} />
        </Form>
      )}
      <div class="toolbar">
        <label>
          <input type="checkbox" checked={archived} onChange={() => setArchived(!archived)} /> archived too
        </label>
      </div>
      {(error || projects.error) && <p class="error">{error || projects.error}</p>}
      <div class="scroll">
        <table class="grid" data-testid="projects">
          <thead>
            <tr>
              <th>Project</th>
              <th>Description</th>
              <th>Experiments</th>
              <th>Active</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {(projects.data?.projects ?? []).map((p) => (
              <tr data-id={p.id} data-archived={p.archived ? "1" : "0"}>
                <td>
                  <a href={href("/projects/" + p.id)} onClick={linkHandler}>
                    {p.name}
                  </a>
                  {p.archived && <span class="tag">archived</span>}
                </td>
                <td>{p.description}</td>
                <td>{p.numExperiments}</td>
                <td>{p.numActiveExperiments ?? ""}</td>
                <td class="actions-cell">
                  {!p.immutable && (
                    <button data-testid={"archive-project-" + p.id} onClick={() => act(p, p.archived ? "unarchive" : "archive")}>
                      {p.archived ? "Unarchive" : "Archive"}
                    </button>
                  )}
                  {!p.immutable && !p.archived && <MoveProject project={p} onDone={() => (projects.reload(), w.reload())} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </main>
  );
}

export function ProjectPage(props: { id: number }) {
  const p = usePoll((signal) => api.get<{ project: api.Project }>(`/api/v1/projects/${props.id}`, signal), [props.id], 5000);
  const pr = p.data?.project;
  if (p.error && !pr) return <main class="error">{p.error}</main>;
  if (!pr) return <main class="muted">Loading…</main>;
  return (
    <ExperimentList
      projectId={pr.id}
      title={
        <>
          <p class="crumbs">
            <a href={href("/workspaces")} onClick={linkHandler}>
              Workspaces
            </a>{" "}
            /{" "}
            <a href={href("/workspaces/" + pr.workspaceId)} onClick={linkHandler}>
              {pr.workspaceName ?? "workspace " + pr.workspaceId}
            </a>{" "}
            / {pr.name}
          </p>
          <h1 data-testid="project-name">
            {pr.name} {pr.archived && <span class="badge">archived</span>}
          </h1>
          {pr.description && <p>{pr.description}</p>}
          <ProjectNotes project={pr} onDone={p.reload} />
        </>
      }
    />
  );
}

/** Every project the user may move an experiment into (not archived),
 * named "workspace / project"; asked for only once `wanted` (the list
 * does not spend requests on it before something is selected). */
export function useProjects(wanted = true): { id: number; label: string }[] {
  const all = usePoll(
    async (signal) => {
      if (!wanted) return undefined;
      const ws = await api.get<{ workspaces: api.Workspace[] }>("/api/v1/workspaces?limit=200&archived=false", signal);
      const lists = await Promise.all(
        ws.workspaces.map((w) =>
          api
            .get<{ projects: api.Project[] }>(`/api/v1/workspaces/${w.id}/projects?limit=200&archived=false`, signal)
            .then((r) => r.projects.map((p) => ({ id: p.id, label: w.name + " / " + p.name }))),
        ),
      );
      return lists.flat();
    },
    [wanted],
    0,
  );
  return all.data ?? [];
}

/** Moves a project (with its experiments) to another workspace. */
function MoveProject(props: { project: api.Project; onDone: () => void }) {
  const [dest, setDest] = useState("");
  const [error, setError] = useState<string>();
  const ws = usePoll((signal) => api.get<{ workspaces: api.Workspace[] }>("/api/v1/workspaces?limit=200&archived=false", signal), [], 0);
  const choices = (ws.data?.workspaces ?? []).filter((w) => w.id !== props.project.workspaceId && !w.immutable);
  return (
    <form
      class="inline"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          await api.post(`/api/v1/projects/${props.project.id}/move`, { destinationWorkspaceId: Number(dest), projectId: props.project.id });
          props.onDone();
        } catch (err: any) {
          setError(err.message);
        }
      }}
    >
      <select aria-label={"move " + props.project.name + " to workspace"} data-testid={"move-project-" + props.project.id} value={dest} onChange={(e) => setDest((e.target as HTMLSelectElement).value)}>
        <option value="">move to…</option>
        {choices.map((w) => (
          <option value={String(w.id)}>{w.name}</option>
        ))}
      </select>
      <button type="submit" disabled={!dest} data-testid={"move-project-submit-" + props.project.id}>
        Move
      </button>
      {error && <span class="error">{error}</span>}
    </form>
  );
}

/** A project's notes (upstream's Notes tab): each shown folded, one added
 * (POST /api/v1/projects/{id}/notes), one removed (PUT of the rest). */
function ProjectNotes(props: { project: api.Project; onDone: () => void }) {
  const notes = props.project.notes ?? [];
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [contents, setContents] = useState("");
  const [error, setError] = useState<string>();
  return (
    <section class="notes-section" data-testid="project-notes" data-count={notes.length}>
      <h2>
        Notes{" "}
        <button class="link" data-testid="note-add-open" onClick={() => setOpen(!open)}>
          {open ? "close" : "add a note"}
        </button>
      </h2>
      {notes.map((n, i) => (
        <details data-name={n.name}>
          <summary>{n.name}</summary>
          <pre class="notes" tabIndex={0}>{n.contents}</pre>
          <button
            class="link"
            data-testid={"note-remove-" + i}
            onClick={() => {
              setError(undefined);
              api
                .put(`/api/v1/projects/${props.project.id}/notes`, { notes: notes.filter((_, j) => j !== i) })
                .then(props.onDone)
                .catch((err) => setError(err.message));
            }}
          >
            remove this note
          </button>
        </details>
      ))}
      {error && <p class="error">{error}</p>}
      {open && (
        <Form
          testId="note-add"
          submit="Add note"
          action={() => api.post(`/api/v1/projects/${props.project.id}/notes`, { name, contents })}
          onDone={() => (setName(""), setContents(""), setOpen(false), props.onDone())}
        >
          <Field label="Title" name="note-name" value={name} onInput={setName} required />
          <Field label="Text" name="note-contents" value={contents} onInput={setContents} multiline />
        </Form>
      )}
    </section>
  );
}
