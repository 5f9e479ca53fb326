// Upstream's everyday pages in a real browser against a real master
// (started by tests/webui/test_webui_pages.py with one completed
// experiment of two trials): workspaces and projects, moving an
// experiment, comparing two trials, the trial page on the searcher's
// metric, the model registry (a checkpoint registered as a version, notes
// and metadata), users (create, deactivate), one's own settings, webhooks
// and templates; commands, a JupyterLab notebook and TensorBoards
// (ui_tasks.mjs); historical usage and "what would it cost". Each action goes through the UI and its effect is read
// back from the REST API. Every page visited is screenshot into SHOTS and
// checked with axe-core (no serious or critical violation), in light and
// dark mode and at phone width; any console error fails the run.
import { readFileSync } from "node:fs";
import path from "node:path";
import { axeViolations, openBrowser, until } from "./browser.mjs";
import { taskSteps } from "./ui_tasks.mjs";

const URL_ = process.env.DET_WEBUI_URL;
const APP = URL_ + "/det";
const EXP = Number(process.env.DET_WEBUI_EXP);
const SHOTS = process.env.DET_WEBUI_SHOTS;
const TRAIN_PY = readFileSync(path.join(process.env.DET_WEBUI_MODEL_DIR, "train.py"), "utf8");

const b = await openBrowser();
const page = b.page;
let token = "";
let shot = 0;
const a11y = [];
const step = (what) => console.log(`step: ${what}`);

/** Screenshot the page as it is and run axe-core on it. */
async function visit(name) {
  shot += 1;
  await page.screenshot({ path: path.join(SHOTS, `${String(shot).padStart(2, "0")}-${name}.png`), fullPage: true });
  for (const v of await axeViolations(page)) a11y.push(`${name}: ${v}`);
}

async function api(method, p, body) {
  const r = await fetch(URL_ + p, {
    method,
    headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : {};
}
const get = (p) => api("GET", p);
const attr = async (sel, name) => page.locator(sel).first().getAttribute(name, { timeout: 2000 }).catch(() => null);
/** A refusal the test provoked on purpose: Chromium logs the failed
 * request as a console error; take exactly that one off the list. */
function expectRefused(status) {
  const i = b.errors.findIndex((e) => e.includes("Failed to load resource") && e.includes(`status of ${status}`));
  if (i < 0) throw new Error(`no refused request (${status}) was logged`);
  b.errors.splice(i, 1);
}
const nav = async (label) => {
  await page.click(`nav[aria-label=main] >> text="${label}"`);
};

try {
  step("sign in");
  await page.goto(APP + "/login");
  await page.waitForSelector("[data-testid=login-form]");
  await visit("sign-in");
  await page.fill("input[name=username]", "admin");
  await page.click("[data-testid=sign-in]");
  await page.waitForSelector("[data-testid=who]");
  token = await page.evaluate(() => localStorage.getItem("det.token"));

  step("keyboard: the first Tab reaches the skip link, which moves focus to the content");
  await page.keyboard.press("Tab");
  if ((await page.evaluate(() => document.activeElement?.className)) !== "skip") throw new Error("the first Tab is not the skip link");
  await page.keyboard.press("Enter");
  await until("focus in the content", async () => page.evaluate(() => document.activeElement?.id === "content"), 5000);

  step("workspaces: create one (pinned for its creator), unpin and pin it");
  await nav("Workspaces");
  await page.waitForSelector("[data-testid=workspaces] tbody tr");
  await page.fill("input[name=workspace-name]", "ws-ui");
  await page.click("[data-testid=new-workspace-submit]");
  const ws = await until("ws-ui in the API", async () => (await get("/api/v1/workspaces?name=ws-ui")).workspaces.find((w) => w.name === "ws-ui"), 10000);
  const row = `[data-testid=workspaces] tr[data-id="${ws.id}"]`;
  await page.waitForSelector(row);
  if (!ws.pinned) throw new Error("a new workspace is not pinned for its creator");
  await page.click(`[data-testid=pin-${ws.id}]`);
  await until("ws-ui unpinned", async () => (await get(`/api/v1/workspaces/${ws.id}`)).workspace.pinned === false, 10000);
  await until("the row unpinned", async () => (await attr(row, "data-pinned")) === "0", 10000);
  await page.click(`[data-testid=pin-${ws.id}]`);
  await until("ws-ui pinned", async () => (await get(`/api/v1/workspaces/${ws.id}`)).workspace.pinned === true, 10000);

  step("workspaces: archive another one; it leaves the list");
  await page.fill("input[name=workspace-name]", "ws-old");
  await page.click("[data-testid=new-workspace-submit]");
  const old = await until("ws-old", async () => (await get("/api/v1/workspaces?name=ws-old")).workspaces[0], 10000);
  await page.waitForSelector(`[data-testid=workspaces] tr[data-id="${old.id}"]`);
  await page.click(`[data-testid=archive-${old.id}]`);
  await until("ws-old archived", async () => (await get(`/api/v1/workspaces/${old.id}`)).workspace.archived === true, 10000);
  await until("ws-old off the list", async () => (await page.locator(`[data-testid=workspaces] tr[data-id="${old.id}"]`).count()) === 0, 10000);
  step("a taken name is refused with the API's reason");
  await page.fill("input[name=workspace-name]", "ws-ui");
  await page.click("[data-testid=new-workspace-submit]");
  await page.waitForSelector("[data-testid=new-workspace-error]");
  expectRefused(409);
  await visit("workspaces");

  step("a workspace's projects: create two, archive one");
  await page.click(`${row} a`);
  await page.waitForSelector("[data-testid=workspace-name]");
  for (const name of ["proj-ui", "proj-old", "proj-move"]) {
    await page.fill("input[name=project-name]", name);
    await page.fill("input[name=project-description]", "made in the browser");
    await page.click("[data-testid=new-project-submit]");
    await until(`${name} in the API`, async () => (await get(`/api/v1/workspaces/${ws.id}/projects`)).projects.some((p) => p.name === name), 10000);
  }
  const projects = (await get(`/api/v1/workspaces/${ws.id}/projects`)).projects;
  const proj = projects.find((p) => p.name === "proj-ui");
  const projOld = projects.find((p) => p.name === "proj-old");
  await page.waitForSelector(`[data-testid=projects] tr[data-id="${projOld.id}"]`);
  await page.click(`[data-testid=archive-project-${projOld.id}]`);
  await until("proj-old archived", async () => (await get(`/api/v1/projects/${projOld.id}`)).project.archived === true, 10000);
  step("move a project to another workspace");
  const two = (await api("POST", "/api/v1/workspaces", { name: "ws-two" })).workspace;
  const projMove = projects.find((p) => p.name === "proj-move");
  await page.reload();
  await until("ws-two offered", async () => (await page.locator(`[data-testid=move-project-${projMove.id}] option[value="${two.id}"]`).count()) === 1, 10000);
  await page.selectOption(`[data-testid=move-project-${projMove.id}]`, String(two.id));
  await page.click(`[data-testid=move-project-submit-${projMove.id}]`);
  await until("proj-move in ws-two", async () => (await get(`/api/v1/projects/${projMove.id}`)).project.workspaceId === two.id, 10000);
  await until("proj-move off this workspace's list", async () => (await page.locator(`[data-testid=projects] tr[data-id="${projMove.id}"]`).count()) === 0, 10000);
  await visit("workspace-projects");

  step("move the experiment into proj-ui from the experiments list");
  await nav("Experiments");
  await page.waitForSelector(`[data-testid=experiments] tr[data-id="${EXP}"]`);
  await page.check(`[aria-label="select ${EXP}"]`);
  await until("proj-ui among the destinations", async () => (await page.locator(`[data-testid=move-dest] option[value="${proj.id}"]`).count()) === 1, 10000);
  await page.selectOption("[data-testid=move-dest]", String(proj.id));
  await page.click("[data-testid=bulk-move]");
  await until("the experiment in proj-ui", async () => (await get(`/api/v1/experiments/${EXP}`)).experiment.projectId === proj.id, 10000);
  await visit("experiments");
  step("keyboard: / puts the cursor in the list's name filter");
  await page.locator("h1").first().click();
  await page.keyboard.press("/");
  if ((await page.evaluate(() => document.activeElement?.dataset?.testid)) !== "filter-name") throw new Error("/ did not focus the filter");

  step("the project's page lists it");
  await page.goto(APP + `/projects/${proj.id}`);
  await page.waitForSelector("[data-testid=project-name]");
  await page.waitForSelector(`[data-testid=experiments] tr[data-id="${EXP}"]`);
  if ((await attr("[data-testid=experiments]", "data-total")) !== "1") throw new Error("the project lists other experiments");
  step("the project's notes: add two, remove one");
  for (const [name, text] of [["Plan", "try lr 0.3"], ["Scratch", "to be removed"]]) {
    await page.click("[data-testid=note-add-open]");
    await page.fill("input[name=note-name]", name);
    await page.fill("textarea[name=note-contents]", text);
    await page.click("[data-testid=note-add-submit]");
    await until(`note ${name} in the API`, async () => (await get(`/api/v1/projects/${proj.id}`)).project.notes.some((n) => n.name === name), 10000);
    await page.waitForSelector(`[data-testid=project-notes] details[data-name="${name}"]`);
  }
  await page.click('[data-testid=project-notes] details[data-name="Scratch"] summary');
  await page.click("[data-testid=note-remove-1]");
  await until("one note left", async () => {
    const n = (await get(`/api/v1/projects/${proj.id}`)).project.notes;
    return n.length === 1 && n[0].name === "Plan" && n[0].contents === "try lr 0.3";
  }, 10000);
  await visit("project-experiments");

  step("compare the experiment's two trials");
  const trials = (await get(`/api/v1/experiments/${EXP}/trials`)).trials;
  if (trials.length !== 2) throw new Error("expected 2 trials, got " + trials.length);
  await page.click(`[data-testid=experiments] tr[data-id="${EXP}"] a`);
  await page.waitForSelector("[data-testid=exp-state]");
  await page.click("[data-testid=tab-trials]");
  for (const t of trials) await page.check(`[aria-label="select trial ${t.id}"]`);
  await page.click("[data-testid=compare-trials]");
  await until("the compare page", async () => new URL(page.url()).pathname === "/det/compare", 10000);
  await until("two curves", async () => (await attr("[data-testid=compare-chart]", "data-drawn")) === "1" && (await attr("[data-testid=compare-chart]", "data-series")) === "2", 30000);
  if ((await page.inputValue("[data-testid=metric-name]")) !== "validation_loss") throw new Error("compare does not open on the searcher's metric");
  const heads = await page.$$eval("[data-testid=compare-hparams] thead th[data-trial]", (ths) => ths.map((t) => Number(t.dataset.trial)));
  if (JSON.stringify(heads) !== JSON.stringify(trials.map((t) => t.id).sort((x, y) => x - y))) throw new Error("compare columns " + heads);
  if ((await attr('[data-testid=compare-hparams] tr[data-hp="learning_rate"]', "class")) !== "differs") throw new Error("learning_rate not marked as differing");
  await page.waitForSelector('[data-testid=compare-metrics] tr[data-metric="validation_loss"]');
  await visit("compare-trials");

  step("compare by experiment: every trial of the chosen experiments, side by side");
  await page.goto(APP + `/compare?experiments=${EXP}`);
  await until("the experiment's curves", async () => (await attr("[data-testid=compare-chart]", "data-drawn")) === "1" && (await attr("[data-testid=compare-chart]", "data-series")) === "2", 30000);
  const expHeads = await page.$$eval("[data-testid=compare-hparams] thead th[data-trial]", (ths) => ths.map((t) => Number(t.dataset.trial)));
  if (JSON.stringify(expHeads) !== JSON.stringify(heads)) throw new Error("compare by experiment shows trials " + expHeads);
  await visit("compare-experiments");

  step("the trial page opens on the searcher's metric");
  await page.goto(APP + `/trials/${trials[0].id}`);
  await until("the chart on validation_loss", async () => (await page.inputValue("[data-testid=metric-name]").catch(() => "")) === "validation_loss", 15000);
  await until("the trial chart drawn", async () => (await attr("[data-testid=trial-chart]", "data-drawn")) === "1", 15000);
  await visit("trial");

  step("the trial's logs: all of them, then filtered by search and agent");
  const logText = await (await fetch(URL_ + `/api/v1/trials/${trials[0].id}/logs`, { headers: { Authorization: "Bearer " + token } })).text();
  const logLines = logText.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l).result);
  const checkpointLines = logLines.filter((l) => l.log.toLowerCase().includes("checkpoint ")).length;
  if (!checkpointLines) throw new Error("no checkpoint line in the trial's log");
  await page.click("[data-testid=tab-logs]");
  await until("every log line", async () => Number(await attr("[data-testid=logs]", "data-lines")) === logLines.length, 15000);
  await page.fill("[data-testid=log-search]", "checkpoint ");
  await until("only the checkpoint lines", async () => Number(await attr("[data-testid=logs]", "data-shown")) === checkpointLines, 5000);
  await page.fill("[data-testid=log-search]", "");
  await page.selectOption("[data-testid=log-agent]", logLines[0].agentId);
  await until("the agent's lines", async () => Number(await attr("[data-testid=logs]", "data-shown")) === logLines.filter((l) => l.agentId === logLines[0].agentId).length, 5000);
  await visit("trial-logs");

  step("the experiment's code: the model directory's files, unpacked in the browser");
  await page.goto(APP + `/experiments/${EXP}`);
  await page.click("[data-testid=tab-code]");
  await page.waitForSelector("[data-testid=code]");
  await page.click('[data-testid=code] button[data-path="train.py"]');
  const code = await page.textContent('[data-testid=code-file][data-path="train.py"]');
  if (code !== TRAIN_PY) throw new Error(`train.py shown (${code.length} chars) differs from the example's (${TRAIN_PY.length})`);
  await visit("experiment-code");
  await page.click("[data-testid=tab-notes]");
  await page.fill("[data-testid=notes] textarea[name=notes]", "lr 0.2 wins\nnext: try 0.3");
  await page.click("[data-testid=notes-submit]");
  await until("the notes in the API", async () => (await get(`/api/v1/experiments/${EXP}`)).experiment.notes === "lr 0.2 wins\nnext: try 0.3", 10000);

  step("time travel: the experiment as it was when its first trial ran, as the master replays it");
  const running = (await get("/api/v1/inspect/events?type=trial_running&limit=200")).events;
  const P = Math.min(...running.map((e) => e.position));
  const then = await get(`/api/v1/inspect/state?at=${P}`);
  const expThen = then.experiments.find((e) => e.id === EXP);
  const trialsThen = then.trials.filter((t) => t.experiment_id === EXP);
  await page.click("[data-testid=through-time]");
  await page.waitForSelector("[data-testid=history]");
  await page.fill("[data-testid=position]", String(P));
  await page.press("[data-testid=position]", "Enter");
  await until("the state at P", async () => (await attr("[data-testid=history]", "data-at")) === String(P), 15000);
  const cells = async (sel) => page.$$eval(sel, (rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
  const expRow = (await cells("[data-testid=history-experiments] tbody tr"))[0];
  if (expRow[2] !== expThen.status || expRow[2] === "COMPLETED") throw new Error(`experiment at ${P}: shown ${expRow[2]}, replayed ${expThen.status}`);
  const shownTrials = (await cells("[data-testid=history-trials] tbody tr")).map((r) => r[0] + ":" + r[2]).sort();
  const replayed = trialsThen.map((t) => t.id + ":" + t.status).sort();
  if (JSON.stringify(shownTrials) !== JSON.stringify(replayed)) throw new Error(`trials at ${P}: shown ${shownTrials}, replayed ${replayed}`);
  if (!replayed.some((x) => x.endsWith(":running"))) throw new Error("no trial running at " + P);
  await page.waitForSelector(`[data-testid=event-at][data-position="${P}"] >> text=trial_running`);
  await visit("time-travel-experiment");
  await page.click("[data-testid=forward]");
  await until("one event later", async () => (await attr("[data-testid=history]", "data-at")) === String(P + 1), 15000);
  const last = (await get("/api/v1/inspect/events?limit=1")).last_position;
  // The slider's end is the log's last position as the page last polled
  // it (every 5 s): what the master appended since (an idle agent's
  // instance stopped, a checkpoint collected) is reached by pressing End
  // again once the poll has caught up.
  await until("the last position", async () => {
    await page.focus("[data-testid=position-slider]");
    await page.keyboard.press("End");
    return Number(await attr("[data-testid=history]", "data-at")) >= last;
  }, 15000);
  if ((await cells("[data-testid=history-experiments] tbody tr"))[0][2] !== "COMPLETED") throw new Error("the experiment is not completed at the end");

  step("the model registry: register a model, edit its notes and metadata");
  await nav("Models");
  await page.fill("input[name=model-name]", "mnist-ui");
  await page.fill("input[name=model-description]", "from the browser");
  await page.click("[data-testid=new-model-submit]");
  await page.waitForSelector("[data-testid=model-name]");
  await get("/api/v1/models/mnist-ui");
  await page.click("[data-testid=model-edit-open]");
  await page.fill("[data-testid=model-edit] textarea[name=notes]", "# Notes\ntrained on MNIST");
  await page.fill("[data-testid=model-edit] input[name=labels]", "vision, small");
  await page.fill("[data-testid=model-edit] textarea[name=metadata]", "not json");
  await page.click("[data-testid=model-edit-submit]");
  await page.waitForSelector("[data-testid=model-edit-error] >> text=metadata");
  await page.fill("[data-testid=model-edit] textarea[name=metadata]", '{"owner": "vision-team", "ok": true}');
  await page.click("[data-testid=model-edit-submit]");
  await until("the notes and metadata in the API", async () => {
    const m = (await get("/api/v1/models/mnist-ui")).model;
    return m.notes === "# Notes\ntrained on MNIST" && m.metadata.owner === "vision-team" && JSON.stringify(m.labels) === '["vision","small"]';
  }, 10000);
  await page.waitForSelector("[data-testid=model-metadata]");

  step("register a checkpoint of the experiment as a version");
  const cps = (await get(`/api/v1/experiments/${EXP}/checkpoints`)).checkpoints.filter((c) => c.state === "STATE_COMPLETED");
  if (!cps.length) throw new Error("no completed checkpoint");
  const uuid = cps[0].uuid;
  await page.goto(APP + `/experiments/${EXP}`);
  await page.click("[data-testid=tab-checkpoints]");
  await page.click(`[data-testid="register-${uuid}"]`);
  await until("mnist-ui offered", async () => (await page.locator('[data-testid=register-model] option[value="mnist-ui"]').count()) === 1, 10000);
  await page.selectOption("[data-testid=register-model]", "mnist-ui");
  await page.fill("input[name=version-name]", "first");
  await page.fill("input[name=version-comment]", "best so far");
  await page.click("[data-testid=register-version-submit]");
  await until("version 1 in the API", async () => {
    const v = (await get("/api/v1/models/mnist-ui/versions")).modelVersions;
    return v.length === 1 && v[0].checkpoint.uuid === uuid && v[0].version === 1 && v[0].comment === "best so far";
  }, 10000);
  await visit("experiment-checkpoints");
  await page.goto(APP + "/models/mnist-ui");
  await page.waitForSelector(`[data-testid=versions] tr[data-uuid="${uuid}"] a[href$="/trials/${cps[0].training?.trialId ?? cps[0].trialId}"]`);
  await page.click("[data-testid=version-open-1]");
  await page.fill("[data-testid=version-edit-1] textarea[name=version-notes]", "promoted");
  await page.click("[data-testid=version-edit-1-submit]");
  await until("the version's notes", async () => (await get("/api/v1/models/mnist-ui/versions/1")).modelVersion.notes === "promoted", 10000);
  if (cps.length < 2) throw new Error("expected a checkpoint of each trial");
  await page.fill("input[name=checkpoint-uuid]", cps[1].uuid);
  await page.click("[data-testid=register-uuid-submit]");
  await until("version 2 by UUID", async () => (await get("/api/v1/models/mnist-ui/versions/2")).modelVersion.checkpoint.uuid === cps[1].uuid, 10000);
  await page.waitForSelector('[data-testid=versions] tr[data-version="2"]');
  await visit("model");
  await nav("Models");
  await page.waitForSelector('[data-testid=models] tr[data-name="mnist-ui"]');
  await visit("models");

  step("users: create one, deactivate it");
  await nav("Users");
  await page.fill("input[name=new-username]", "ui-user");
  await page.fill("input[name=new-display-name]", "UI User");
  await page.fill("input[name=new-password]", "s3cret-pass");
  await page.click("[data-testid=new-user-submit]");
  await page.waitForSelector('[data-testid=users] tr[data-username="ui-user"]');
  const made = (await get("/api/v1/users/ui-user/by-username")).user;
  if (!made.active || made.displayName !== "UI User") throw new Error("created user " + JSON.stringify(made));
  const login = await fetch(URL_ + "/api/v1/auth/login", { method: "POST", body: JSON.stringify({ username: "ui-user", password: "s3cret-pass", isHashed: false }) });
  if (!login.ok) throw new Error("the new user cannot sign in: " + login.status);
  await page.click("[data-testid=user-edit-ui-user]");
  await page.fill('[data-testid=user-form-ui-user] input[name=user-password]', "changed-by-admin");
  await page.click("[data-testid=user-form-ui-user-submit]");
  await until("the new password opens a session", async () =>
    (await fetch(URL_ + "/api/v1/auth/login", { method: "POST", body: JSON.stringify({ username: "ui-user", password: "changed-by-admin", isHashed: false }) })).ok, 30000);
  await page.click("[data-testid=deactivate-ui-user]");
  await until("ui-user deactivated", async () => (await get("/api/v1/users/ui-user/by-username")).user.active === false, 10000);
  await until("the row deactivated", async () => (await attr('[data-testid=users] tr[data-username="ui-user"]', "data-active")) === "0", 10000);
  await visit("users");

  step("settings: one's display name");
  await page.click("[data-testid=who]");
  await page.waitForSelector("[data-testid=settings-username]");
  await page.fill("[data-testid=display-name] input[name=display-name]", "The Admin");
  await page.click("[data-testid=display-name-submit]");
  await until("the display name in the API", async () => (await get("/api/v1/me")).user.displayName === "The Admin", 10000);
  step("a password typed differently twice is refused before asking the master");
  await page.fill("input[name=new-password]", "one");
  await page.fill("input[name=new-password-again]", "two");
  await page.click("[data-testid=password-submit]");
  await page.waitForSelector("[data-testid=password-error]");
  await visit("settings");

  step("webhooks: create two, delete one");
  await nav("Webhooks");
  for (const [name, trig] of [["hook-ui", "COMPLETED"], ["hook-gone", "ERROR"]]) {
    await page.fill("input[name=webhook-name]", name);
    await page.fill("input[name=webhook-url]", "http://127.0.0.1:9/" + name);
    await page.selectOption("select[name=webhook-trigger]", trig);
    await page.click("[data-testid=new-webhook-submit]");
    await page.waitForSelector(`[data-testid=webhooks] tr[data-name="${name}"]`);
  }
  let hooks = (await get("/api/v1/webhooks")).webhooks;
  const hook = hooks.find((h) => h.name === "hook-ui");
  if (!hook || hook.url !== "http://127.0.0.1:9/hook-ui" || hook.triggers[0].triggerType !== "TRIGGER_TYPE_EXPERIMENT_STATE_CHANGE")
    throw new Error("webhook " + JSON.stringify(hook));
  await page.click(`[data-testid=webhook-url-edit-${hook.id}]`);
  await page.fill("input[name=webhook-url-new]", "http://127.0.0.1:9/moved");
  await page.click(`[data-testid=webhook-url-save-${hook.id}]`);
  await until("the new URL", async () => (await get("/api/v1/webhooks")).webhooks.find((h) => h.id === hook.id)?.url === "http://127.0.0.1:9/moved", 10000);
  const gone = hooks.find((h) => h.name === "hook-gone");
  await page.click(`[data-testid=webhook-delete-${gone.id}]`);
  await page.click(`[data-testid=webhook-delete-${gone.id}-confirm]`);
  await until("hook-gone deleted", async () => !(await get("/api/v1/webhooks")).webhooks.some((h) => h.id === gone.id), 10000);
  step("a URL without http is refused naming the field");
  await page.fill("input[name=webhook-name]", "bad");
  await page.fill("input[name=webhook-url]", "ftp://x");
  await page.click("[data-testid=new-webhook-submit]");
  await page.waitForSelector("[data-testid=new-webhook-error] >> text=url");
  expectRefused(400);
  await visit("webhooks");

  step("templates: create one, replace its config");
  await nav("Templates");
  await page.fill("input[name=template-name]", "tmpl-ui");
  await page.fill("textarea[name=template-config]", '{"resources": {"slots_per_trial": 1}, "max_restarts": 3}');
  await page.click("[data-testid=new-template-submit]");
  await page.waitForSelector('[data-testid=templates] tr[data-name="tmpl-ui"]');
  if ((await get("/api/v1/templates/tmpl-ui")).template.config.max_restarts !== 3) throw new Error("template config");
  await page.click("[data-testid=template-edit-tmpl-ui]");
  await page.fill("[data-testid=template-form-tmpl-ui] textarea", '{"max_restarts": 5}');
  await page.click("[data-testid=template-form-tmpl-ui-submit]");
  await until("the new config", async () => (await get("/api/v1/templates/tmpl-ui")).template.config.max_restarts === 5, 10000);
  await visit("templates");

  step("tasks: launch a command, read its output, kill it");
  await nav("Tasks");
  await page.fill("input[name=entrypoint]", "echo hello-from-the-ui && sleep 600");
  await page.fill("input[name=slots]", "1");
  await page.click("[data-testid=launch-submit]");
  const cmd = await until("the command in the API", async () => (await get("/api/v1/commands")).commands.find((x) => x.description.includes("hello-from-the-ui") || x.state), 10000);
  await page.waitForSelector(`[data-testid=tasks] tr[data-id="${cmd.id}"]`);
  await until("the command running", async () => (await get(`/api/v1/commands/${cmd.id}`)).command.state === "STATE_RUNNING", 90000);
  await visit("tasks");
  await page.click(`[data-testid="logs-${cmd.id}"]`);
  await page.waitForSelector("[data-testid=task-logs] >> text=hello-from-the-ui", { timeout: 60000 });
  await visit("task-logs");
  await nav("Tasks");
  await page.click(`[data-testid="kill-${cmd.id}"]`);
  await page.click(`[data-testid="kill-${cmd.id}-confirm"]`);
  await until("the command ended", async () => ["STATE_TERMINATING", "STATE_TERMINATED"].includes((await get(`/api/v1/commands/${cmd.id}`)).command.state), 30000);
  await until("the row terminated", async () => (await attr(`[data-testid=tasks] tr[data-id="${cmd.id}"]`, "data-state")) === "STATE_TERMINATED", 60000);

  await taskSteps({ page, errors: b.errors, url: URL_, exp: EXP, get, api, visit, attr, nav, step });

  step("historical usage: the experiment's slot-hours by user and pool, as the API aggregates them");
  await nav("Cluster");
  await page.click("[data-testid=usage-link]");
  await page.waitForSelector('[data-testid=usage-users] tr[data-key="admin"]');
  await page.waitForSelector('[data-testid=usage-pools] tr[data-key="default"]');
  const shown = Number(await attr("[data-testid=usage-total]", "data-seconds"));
  const today = new Date().toISOString().slice(0, 10);
  const agg = await get(`/api/v1/resources/allocation/aggregated?start_date=${today}&end_date=${today}&period=RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY`);
  const todays = agg.resourceEntries.reduce((x, e) => x + e.seconds, 0);
  if (!(shown > 0) || shown < todays) throw new Error(`usage shows ${shown} s, the API ${todays} s today`);
  await visit("cluster-usage");

  step("what would it cost: the pool's trials simulated again, as the route answers; a bad field named");
  await nav("Cluster");
  await page.click("[data-testid=pool-default] [data-testid=cost-link]");
  await page.waitForSelector("[data-testid=cost-form]");
  await page.fill("[data-testid=cost-gpusPerInstance]", "0");
  await page.click("[data-testid=cost-run]");
  await page.waitForSelector("[data-testid=cost-error]");
  if (!(await page.textContent("[data-testid=cost-error]")).includes("gpusPerInstance")) throw new Error("the refusal does not name gpusPerInstance");
  expectRefused(400);
  await page.fill("[data-testid=cost-gpusPerInstance]", "1");
  await page.fill("[data-testid=cost-pricePerHour]", "3.06");
  await page.fill("[data-testid=cost-idleSeconds]", "60");
  await page.click("[data-testid=cost-run]");
  await page.waitForSelector("[data-testid=cost-runs] tbody tr");
  const sim = await api("POST", "/api/v1/resource-pools/default/simulate", { gpusPerInstance: 1, pricePerHour: 3.06, idleSeconds: 60 });
  if (Number(await attr("[data-testid=cost-result]", "data-jobs")) !== sim.bounds.jobs || sim.bounds.jobs < 2)
    throw new Error(`the page simulates ${await attr("[data-testid=cost-result]", "data-jobs")} jobs, the route ${sim.bounds.jobs}`);
  for (const r of sim.runs) {
    const row = `[data-testid=cost-runs] tr[data-policy="${r.policy}"]`;
    if (Number(await attr(row, "data-instance-hours")) !== r.instance_hours || Number(await attr(row, "data-cost")) !== r.cost)
      throw new Error(`${r.policy}: the page and the route disagree`);
  }
  await until("the picture drawn", async () => (await page.evaluate(() => document.querySelector("[data-testid=cost-svg]")?.naturalWidth ?? 0)) > 0, 10000);
  await visit("cluster-cost");

  step("the other pages, for their screenshots and the accessibility check");
  for (const [p, sel, name] of [
    ["/cluster", "[data-testid=pool-default]", "cluster"],
    ["/jobs", "h1", "job-queue"],
    ["/events", "[data-testid=events] tbody tr", "event-log"],
    [`/experiments/${EXP}`, "[data-testid=exp-chart][data-drawn]", "experiment"],
  ]) {
    await page.goto(APP + p);
    await page.waitForSelector(sel);
    await visit(name);
  }
  await page.goto(APP + `/experiments/${EXP}`);
  await page.click("[data-testid=tab-hyperparameters]");
  await page.waitForSelector("[data-testid=parallel]");
  await until("the curves coloured by learning_rate", async () => (await attr("[data-testid=hp-curves]", "data-drawn")) === "1" && (await attr("[data-testid=hp-curves]", "data-series")) === "2", 15000);
  if ((await page.inputValue("[data-testid=colour-by]")) !== "learning_rate") throw new Error("the curves are not coloured by the varying hyperparameter");
  const legend = await page.textContent("[data-testid=hp-curves] .u-legend");
  if (!legend.includes("learning_rate 0.0500") || !legend.includes("learning_rate 0.2000")) throw new Error("legend: " + legend);
  // The searcher's metric against learning_rate: one point per trial, at
  // the trial's own value as the API gives it.
  const points = await page.locator("figure.scatter", { hasText: "learning_rate" }).locator("circle title").allTextContents();
  const scored = (await get(`/api/v1/experiments/${EXP}/trials`)).trials;
  if (points.length !== scored.length) throw new Error(`scatter has ${points.length} points for ${scored.length} trials`);
  for (const t of scored)
    if (!points.some((x) => x.startsWith(`trial ${t.id}: learning_rate `) && x.includes("validation_loss"))) throw new Error(`no point for trial ${t.id}: ${points}`);
  await visit("experiment-hyperparameters");

  step("dark mode, chosen in the settings, kept across pages");
  await page.goto(APP + "/settings");
  await page.selectOption("[data-testid=theme]", "dark");
  if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== "dark") throw new Error("no dark theme");
  await visit("settings-dark");
  for (const [p, sel, name] of [
    ["/workspaces", "[data-testid=workspaces] tbody tr", "workspaces-dark"],
    [`/experiments/${EXP}`, "[data-testid=exp-chart][data-drawn]", "experiment-dark"],
    ["/models/mnist-ui", "[data-testid=versions] tbody tr", "model-dark"],
  ]) {
    await page.goto(APP + p);
    await page.waitForSelector(sel);
    if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== "dark") throw new Error("theme lost on " + p);
    await visit(name);
  }
  await page.goto(APP + "/settings");
  await page.selectOption("[data-testid=theme]", "light");

  step("phone width: no page is wider than the screen");
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [p, sel, name] of [
    ["/workspaces", "[data-testid=workspaces] tbody tr", "phone-workspaces"],
    [`/projects/${proj.id}`, "[data-testid=experiments] tbody tr", "phone-project"],
    [`/experiments/${EXP}`, "[data-testid=exp-chart][data-drawn]", "phone-experiment"],
    ["/models/mnist-ui", "[data-testid=versions] tbody tr", "phone-model"],
    [`/compare?trials=${trials.map((t) => t.id).join(",")}`, "[data-testid=compare-chart][data-drawn]", "phone-compare"],
    // Every other page too: readable on a phone means nothing wider than it.
    ["/experiments", "h1", "phone-experiments"],
    [`/trials/${trials[0].id}`, "h1", "phone-trial"],
    [`/workspaces/${ws.id}`, "h1", "phone-workspace"],
    ["/models", "h1", "phone-models"],
    ["/tasks", "h1", "phone-tasks"],
    ["/cluster", "[data-testid=pool-default]", "phone-cluster"],
    ["/cluster/usage", "h1", "phone-usage"],
    ["/cluster/cost/default", "[data-testid=cost-form]", "phone-cost"],
    ["/jobs", "h1", "phone-jobs"],
    ["/webhooks", "h1", "phone-webhooks"],
    ["/templates", "h1", "phone-templates"],
    ["/users", "h1", "phone-users"],
    ["/settings", "h1", "phone-settings"],
    ["/events", "h1", "phone-events"],
    ["/history", "h1", "phone-history"],
  ]) {
    await page.goto(APP + p);
    await page.waitForSelector(sel);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (wide > 1) {
      const culprits = await page.evaluate(() =>
        [...document.querySelectorAll("main *")]
          .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest(".scroll"))
          .slice(0, 8)
          .map((el) => el.tagName.toLowerCase() + "." + el.className + " " + Math.round(el.getBoundingClientRect().right)),
      );
      throw new Error(`${p} is ${wide}px wider than a 390px screen: ${culprits.join(", ")}`);
    }
    await visit(name);
  }
  await page.setViewportSize({ width: 1366, height: 768 });

  if (b.errors.length) throw new Error("errors in the browser:\n" + b.errors.join("\n"));
  if (a11y.length) throw new Error("accessibility violations (serious or critical):\n" + a11y.join("\n"));
  console.log(`ok: ${shot} screenshots in ${SHOTS}`);
} catch (e) {
  await page.screenshot({ path: path.join(SHOTS, "failure.png"), fullPage: true }).catch(() => {});
  console.error(`FAILED: ${e.stack || e}`);
  if (b.errors.length) console.error("browser errors:\n" + b.errors.join("\n"));
  if (a11y.length) console.error("accessibility:\n" + a11y.join("\n"));
  process.exitCode = 1;
} finally {
  await b.close();
}
