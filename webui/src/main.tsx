import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import * as api from "./api";
import { href, linkHandler, navigate, useLocation } from "./router";
import { Login } from "./pages/login";
import { ExperimentList } from "./pages/experiments";
import { ExperimentPage } from "./pages/experiment";
import { TrialPage } from "./pages/trial";
import { ClusterPage } from "./pages/cluster";
import { CostPage } from "./pages/cost";
import { JobsPage } from "./pages/jobs";
import { EventsPage } from "./pages/events";
import { ProjectPage, WorkspaceList, WorkspacePage } from "./pages/workspaces";
import { ModelList, ModelPage } from "./pages/models";
import { ComparePage } from "./pages/compare";
import { applyTheme, SettingsPage, UsersPage } from "./pages/users";
import { WebhooksPage } from "./pages/webhooks";
import { TemplatesPage } from "./pages/templates";
import { UsagePage } from "./pages/usage";
import { TaskLogsPage, TasksPage } from "./pages/tasks";
import { HistoryPage } from "./pages/history";
import "./style.css";

interface User {
  username: string;
  admin: boolean;
}

function Nav(props: { user: User; path: string; onSignOut: () => void }) {
  const item = (to: string, label: string) => (
    <a href={href(to)} onClick={linkHandler} class={props.path === to || (to !== "/" && props.path.startsWith(to)) ? "active" : ""}>
      {label}
    </a>
  );
  return (
    <header class="nav">
      <a class="skip" href="#content">
        Skip to content
      </a>
      <span class="brand">Determined</span>
      <nav aria-label="main">
        {item("/workspaces", "Workspaces")}
        {item("/experiments", "Experiments")}
        {item("/models", "Models")}
        {item("/tasks", "Tasks")}
        {item("/cluster", "Cluster")}
        {item("/jobs", "Job queue")}
        {item("/webhooks", "Webhooks")}
        {item("/templates", "Templates")}
        {item("/users", "Users")}
        {props.user.admin && item("/events", "Event log")}
      </nav>
      <a class="who" data-testid="who" href={href("/settings")} onClick={linkHandler} title="your settings">
        {props.user.username}
        {props.user.admin ? " (admin)" : ""}
      </a>
      <button class="link" data-testid="sign-out" onClick={props.onSignOut}>
        Sign out
      </button>
    </header>
  );
}

function Page(props: { path: string; user: User }) {
  const { path } = props;
  let m: RegExpMatchArray | null;
  if (path === "/" || path === "/experiments") return <ExperimentList />;
  if ((m = path.match(/^\/experiments\/(\d+)$/))) return <ExperimentPage id={Number(m[1])} />;
  if ((m = path.match(/^\/trials\/(\d+)$/))) return <TrialPage id={Number(m[1])} />;
  if (path === "/cluster") return <ClusterPage admin={props.user.admin} />;
  if (path === "/jobs") return <JobsPage />;
  if (path === "/events") return <EventsPage admin={props.user.admin} />;
  if (path === "/workspaces") return <WorkspaceList />;
  if ((m = path.match(/^\/workspaces\/(\d+)$/))) return <WorkspacePage id={Number(m[1])} />;
  if ((m = path.match(/^\/projects\/(\d+)$/))) return <ProjectPage id={Number(m[1])} />;
  if (path === "/models") return <ModelList />;
  if ((m = path.match(/^\/models\/([^/]+)$/))) return <ModelPage name={decodeURIComponent(m[1])} />;
  if (path === "/compare") return <ComparePage />;
  if (path === "/users") return <UsersPage admin={props.user.admin} me={props.user.username} />;
  if (path === "/settings") return <SettingsPage />;
  if (path === "/webhooks") return <WebhooksPage />;
  if (path === "/templates") return <TemplatesPage />;
  if (path === "/cluster/usage") return <UsagePage />;
  if ((m = path.match(/^\/cluster\/cost(?:\/([^/]+))?$/))) return <CostPage admin={props.user.admin} pool={decodeURIComponent(m[1] ?? "")} />;
  if (path === "/tasks") return <TasksPage />;
  if (path === "/history") return <HistoryPage admin={props.user.admin} />;
  if ((m = path.match(/^\/tasks\/([\w-]+)\/logs$/))) return <TaskLogsPage id={m[1]} />;
  return (
    <main>
      <h1>Not found</h1>
      <p>
        No page at {path}. <a href={href("/experiments")} onClick={linkHandler}>Experiments</a>
      </p>
    </main>
  );
}

function App() {
  const { path } = useLocation();
  const [user, setUser] = useState<User | null | undefined>(undefined);
  useEffect(() => {
    api.setSignedOutHandler(() => setUser(null));
    if (!api.token()) {
      setUser(null);
      return;
    }
    api
      .get("/api/v1/me")
      .then((r) => setUser({ username: r.user.username, admin: !!r.user.admin }))
      .catch(() => setUser(null));
  }, []);
  useEffect(() => {
    if (user === null && path !== "/login") navigate("/login?next=" + encodeURIComponent(path), true);
  }, [user, path]);
  if (user === undefined) return <p class="muted">Loading…</p>;
  if (user === null || path === "/login")
    return (
      <Login
        onSignedIn={(u) => {
          setUser(u);
          const next = new URLSearchParams(location.search).get("next");
          navigate(next && next.startsWith("/") && next !== "/login" ? next : "/experiments", true);
        }}
      />
    );
  return (
    <>
      <Nav
        user={user}
        path={path}
        onSignOut={async () => {
          await api.logout().catch(() => {});
          setUser(null);
          navigate("/login", true);
        }}
      />
      <div id="content" tabIndex={-1}>
        <Page path={path} user={user} />
      </div>
    </>
  );
}

// Keyboard: "/" puts the cursor in the page's search or filter field (as
// upstream's and most web apps' lists do), unless one is typing already.
window.addEventListener("keydown", (e) => {
  if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target as HTMLElement | null;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
  const field = document.querySelector<HTMLInputElement>("[data-search], [data-testid=filter-name], [data-testid=log-search]");
  if (!field) return;
  e.preventDefault();
  field.focus();
});

// A table that scrolls inside itself (narrow screens: style.css) can be
// focused, so the keyboard scrolls it too; one that fits is no tab stop.
let tablesQueued = false;
function markScrollingTables() {
  tablesQueued = false;
  for (const t of document.querySelectorAll<HTMLTableElement>("table.grid")) {
    if (t.scrollWidth > t.clientWidth + 1) {
      if (!t.hasAttribute("tabindex")) t.setAttribute("tabindex", "0");
    } else if (t.getAttribute("tabindex") === "0") {
      t.removeAttribute("tabindex");
    }
  }
}
function queueTables() {
  if (tablesQueued) return;
  tablesQueued = true;
  requestAnimationFrame(markScrollingTables);
}
new MutationObserver(queueTables).observe(document.body, { childList: true, subtree: true });
window.addEventListener("resize", queueTables);

applyTheme();
render(<App />, document.getElementById("app")!);
