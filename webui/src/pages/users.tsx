// Users: the list (admins create users, deactivate or activate them, edit
// their display name and admin flag) and one's own settings (display
// name, password), over GET/POST/PATCH /api/v1/users.
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { when } from "../format";
import { Field, Form } from "../ui";

function UserRow(props: { u: api.User; admin: boolean; me: string; onDone: () => void }) {
  const { u } = props;
  const [editing, setEditing] = useState(false);
  const [display, setDisplay] = useState(u.displayName ?? "");
  const [isAdmin, setIsAdmin] = useState(u.admin);
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const patch = async (body: Record<string, unknown>) => {
    setError(undefined);
    try {
      await api.patch(`/api/v1/users/${u.id}`, body);
    } catch (e: any) {
      setError(e.message);
    }
    props.onDone();
  };
  return (
    <>
      <tr data-username={u.username} data-active={u.active ? "1" : "0"}>
        <td>{u.username}</td>
        <td>{u.displayName}</td>
        <td>{u.admin ? "admin" : ""}</td>
        <td>{u.active ? "active" : "deactivated"}</td>
        <td>{when(u.modifiedAt)}</td>
        {props.admin && (
          <td class="actions-cell">
            <button data-testid={"user-edit-" + u.username} onClick={() => setEditing(!editing)}>
              {editing ? "Close" : "Edit"}
            </button>
            {u.username !== props.me && (
              <button data-testid={(u.active ? "deactivate-" : "activate-") + u.username} onClick={() => patch({ active: !u.active })}>
                {u.active ? "Deactivate" : "Activate"}
              </button>
            )}
            {error && <span class="error">{error}</span>}
          </td>
        )}
      </tr>
      {editing && (
        <tr>
          <td colSpan={6}>
            <Form testId={"user-form-" + u.username} submit="Save" action={() =>
                api.patch(`/api/v1/users/${u.id}`, password ? { displayName: display, admin: isAdmin, password, isHashed: false } : { displayName: display, admin: isAdmin })
              } onDone={() => (setEditing(false), props.onDone())}>
              <Field label="Display name" name="display-name" value={display} onInput={setDisplay} />
              <Field label="New password (blank: unchanged)" name="user-password" type="password" value={password} onInput={setPassword} />
              <label>
                <input type="checkbox" checked={isAdmin} disabled={u.username === props.me} onChange={() => setIsAdmin(!isAdmin)} /> admin
              </label>
            </Form>
          </td>
        </tr>
      )}
    </>
  );
}

export function UsersPage(props: { admin: boolean; me: string }) {
  const [all, setAll] = useState(true);
  const [username, setUsername] = useState("");
  const [display, setDisplay] = useState("");
  const [password, setPassword] = useState("");
  const [admin, setAdmin] = useState(false);
  const list = usePoll((signal) => api.get<{ users: api.User[] }>("/api/v1/users" + (all ? "" : "?active=true"), signal), [all], 5000);
  return (
    <main>
      <h1>Users</h1>
      {props.admin && (
        <Form
          testId="new-user"
          submit="Create user"
          action={() => api.post("/api/v1/users", { user: { username, displayName: display, admin, active: true }, password, isHashed: false })}
          onDone={() => (setUsername(""), setDisplay(""), setPassword(""), setAdmin(false), list.reload())}
        >
          <Field label="Username" name="new-username" value={username} onInput={setUsername} required />
          <Field label="Display name" name="new-display-name" value={display} onInput={setDisplay} />
          <Field label="Password" name="new-password" type="password" value={password} onInput={setPassword} />
          <label>
            <input type="checkbox" name="new-admin" checked={admin} onChange={() => setAdmin(!admin)} /> admin
          </label>
        </Form>
      )}
      <div class="toolbar">
        <label>
          <input type="checkbox" checked={!all} onChange={() => setAll(!all)} /> active only
        </label>
      </div>
      {list.error && <p class="error">{list.error}</p>}
      <div class="scroll">
        <table class="grid" data-testid="users">
          <thead>
            <tr>
              <th>Username</th>
              <th>Display name</th>
              <th>Role</th>
              <th>Status</th>
              <th>Modified</th>
              {props.admin && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {(list.data?.users ?? []).map((u) => (
              <UserRow u={u} admin={props.admin} me={props.me} onDone={list.reload} />
            ))}
          </tbody>
        </table>
      </div>
    </main>
  );
}

export function SettingsPage() {
  const me = usePoll((signal) => api.get<{ user: api.User }>("/api/v1/me", signal), [], 0);
  const u = me.data?.user;
  const [display, setDisplay] = useState<string>();
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const [saved, setSaved] = useState<string>();
  if (me.error && !u) return <main class="error">{me.error}</main>;
  if (!u) return <main class="muted">Loading…</main>;
  return (
    <main>
      <h1>Settings</h1>
      <p>
        Signed in as <b data-testid="settings-username">{u.username}</b>
        {u.admin ? " (admin)" : ""}
      </p>
      {saved && (
        <p class="note" role="status" data-testid="settings-saved">
          {saved}
        </p>
      )}
      <h2>Display name</h2>
      <Form
        testId="display-name"
        submit="Save display name"
        action={() => api.patch(`/api/v1/users/${u.id}`, { displayName: display ?? u.displayName ?? "" })}
        onDone={() => (setSaved("display name saved"), me.reload())}
      >
        <Field label="Display name" name="display-name" value={display ?? u.displayName ?? ""} onInput={setDisplay} />
      </Form>
      <h2>Password</h2>
      <Form
        testId="password"
        submit="Change password"
        action={async () => {
          if (password !== again) throw new Error("password: the two entries differ");
          await api.patch(`/api/v1/users/${u.id}`, { password, isHashed: false });
        }}
        onDone={() => (setPassword(""), setAgain(""), setSaved("password changed"))}
      >
        <Field label="New password" name="new-password" type="password" value={password} onInput={setPassword} />
        <Field label="Again" name="new-password-again" type="password" value={again} onInput={setAgain} />
      </Form>
      <h2>Appearance</h2>
      <ThemeChoice />
    </main>
  );
}

export type Theme = "system" | "light" | "dark";

export function applyTheme(t?: Theme) {
  const theme = t ?? ((localStorage.getItem("det.theme") as Theme) || "system");
  if (theme === "system") document.documentElement.removeAttribute("data-theme");
  else document.documentElement.setAttribute("data-theme", theme);
}

function ThemeChoice() {
  const [t, setT] = useState<Theme>(((localStorage.getItem("det.theme") as Theme) || "system"));
  return (
    <label>
      Theme
      <select
        data-testid="theme"
        value={t}
        onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value as Theme;
          localStorage.setItem("det.theme", v);
          setT(v);
          applyTheme(v);
        }}
      >
        <option value="system">as the system</option>
        <option value="light">light</option>
        <option value="dark">dark</option>
      </select>
    </label>
  );
}
