// The WebUI's interactive tasks, driven through the pages by ui_pages.mjs
// (which signed in, so the browser holds the master's `auth` cookie):
// a JupyterLab notebook launched from the tasks page, followed until its
// service is ready, opened in a new tab through the master's proxy (the
// page that opens is JupyterLab's), seen on the job queue page, killed
// from the tasks page until the API says TERMINATED; a TensorBoard
// launched from the experiment page's button and one from the tasks
// page's form, each seen in the API over the experiment. Every check
// reads the effect back from the REST API or the proxied service.
import { until } from "./browser.mjs";

/** t: {page, errors, url, exp, get, api, visit, attr, nav, step}. */
export async function taskSteps(t) {
  const { page, url, exp, get, api, visit, attr, nav, step } = t;

  step("tasks: launch a JupyterLab notebook from the tasks page");
  await nav("Tasks");
  await page.selectOption("[data-testid=launch-kind]", "notebooks");
  if ((await page.textContent("[data-testid=launch-submit]")).trim() !== "Launch JupyterLab") throw new Error("the launch button does not name JupyterLab");
  if (await page.locator("input[name=entrypoint]").count()) throw new Error("a notebook's form asks for a command line");
  await page.fill("input[name=task-name]", "nb-ui");
  await page.fill("input[name=slots]", "0");
  await page.click("[data-testid=launch-submit]");
  const nb = await until("the notebook in the API", async () => (await get("/api/v1/notebooks")).notebooks.find((x) => x.description === "nb-ui"), 10000);
  await page.waitForSelector(`[data-testid=tasks-message] >> text=launched JupyterLab ${nb.id}`);
  const row = `[data-testid=tasks] tr[data-id="${nb.id}"]`;
  await page.waitForSelector(row);
  if ((await page.textContent(`${row} td:nth-child(2)`)).trim() !== "JupyterLab") throw new Error("the notebook's row does not say JupyterLab");
  // No link to a service that does not answer yet: as soon as the row
  // says running (Jupyter takes seconds more to answer), what the row
  // shows, then the API (readiness only grows while the task runs).
  await until("the row running", async () => (await attr(row, "data-state")) === "STATE_RUNNING", 90000, 100);
  const shownReady = (await attr(row, "data-ready")) === "1" || (await page.locator(`[data-testid="open-${nb.id}"]`).count()) > 0;
  const apiReady = (await get(`/api/v1/tasks/${nb.id}`)).task.allocations.some((a) => a.isReady);
  if (shownReady && !apiReady) throw new Error("the row offers the notebook before the API says it is ready");

  step("tasks: the notebook becomes ready; the row says so and offers Open");
  await until("the notebook ready in the API", async () => (await get(`/api/v1/tasks/${nb.id}`)).task.allocations.some((a) => a.isReady), 120000, 500);
  await until("the row ready", async () => (await attr(row, "data-ready")) === "1", 15000);
  if ((await page.textContent(`[data-testid="ready-${nb.id}"]`)).trim() !== "ready") throw new Error("the service column does not say ready");
  const open = `[data-testid="open-${nb.id}"]`;
  await page.waitForSelector(open);
  const address = await attr(open, "href");
  const token = new URL(address, url).searchParams.get("token");
  if (!address.startsWith(`/proxy/${nb.id}/`) || !token) throw new Error("the Open link is not the notebook's proxied address with its token: " + address);
  if ((await attr(open, "target")) !== "_blank") throw new Error("Open does not open a new tab");
  await visit("tasks-notebook");

  step("tasks: Open shows JupyterLab through the master's proxy, in a new tab");
  const proxied = [];
  const seen = (r) => r.request().isNavigationRequest() && new URL(r.url()).pathname.startsWith(`/proxy/${nb.id}/`) && proxied.push(r.status());
  page.context().on("response", seen);
  const [tab] = await Promise.all([page.context().waitForEvent("page", { timeout: 15000 }), page.click(open)]);
  await tab.waitForLoadState("domcontentloaded", { timeout: 60000 });
  const html = await until("JupyterLab's page in the new tab", async () => {
    const h = await tab.content();
    return new URL(tab.url()).pathname.startsWith(`/proxy/${nb.id}/`) && h.includes("jupyter-config-data") && h;
  }, 30000);
  page.context().off("response", seen);
  if (!/<title>[^<]*JupyterLab[^<]*<\/title>/i.test(html)) throw new Error("the new tab's title is not JupyterLab's: " + html.slice(0, 300));
  if (proxied.length === 0 || proxied.some((s) => s >= 400)) throw new Error("the proxied navigation answered " + JSON.stringify(proxied));
  await tab.close();
  // JupyterLab's own console (its extensions, its sockets) is not the
  // WebUI's: only errors logged on the app's pages count.
  for (let i = t.errors.length - 1; i >= 0; i--) if (t.errors[i].includes(`/proxy/${nb.id}/`)) t.errors.splice(i, 1);
  // The same server answers its API with the notebook's own token alone.
  const status = await fetch(`${url}/proxy/${nb.id}/api/status?token=${encodeURIComponent(token)}`);
  if (status.status !== 200 || !("started" in (await status.json()))) throw new Error("Jupyter's /api/status through the proxy: " + status.status);

  step("job queue: the running notebook is there with its type and name; its priority set there");
  await nav("Job queue");
  const job = `[data-testid=jobs] tr[data-id="${nb.id}"]`;
  await page.waitForSelector(job);
  if ((await attr(job, "data-type")) !== "TYPE_NOTEBOOK") throw new Error("the notebook's job type: " + (await attr(job, "data-type")));
  const jobText = await page.textContent(job);
  if (!jobText.includes("JupyterLab") || !jobText.includes("nb-ui") || !jobText.includes("scheduled")) throw new Error("the notebook's job row: " + jobText);
  await visit("job-queue-tasks");
  // Its priority changes from the page, through the queue's route.
  await page.fill(`[data-testid="priority-${nb.id}"]`, "7");
  await page.click(`[data-testid="priority-set-${nb.id}"]`);
  await until("the notebook's priority is 7", async () => (await get("/api/v1/job-queues")).jobs.find((j) => j.jobId === nb.id)?.priority === 7, 15000, 300);
  // Its link leads to the task on the tasks page.
  await page.click(`${job} a`);
  await page.waitForSelector(`[data-testid=tasks] tr[data-id="${nb.id}"][aria-current=true]`);

  step("tasks: kill the notebook from the page; the API sees it TERMINATED");
  await page.click(`[data-testid="kill-${nb.id}"]`);
  await page.click(`[data-testid="kill-${nb.id}-confirm"]`);
  await until("the notebook terminated", async () => (await get(`/api/v1/notebooks/${nb.id}`)).notebook.state === "STATE_TERMINATED", 90000, 500);
  await until("its row terminated, without Open", async () => (await attr(row, "data-state")) === "STATE_TERMINATED" && (await page.locator(open).count()) === 0, 15000);
  const gone = await fetch(`${url}/proxy/${nb.id}/api/status?token=${encodeURIComponent(token)}`);
  if (gone.status === 200) throw new Error("the killed notebook still answers through the proxy");

  step("experiment page: the TensorBoard button launches one over the experiment");
  const before = new Set((await get("/api/v1/tensorboards")).tensorboards.map((x) => x.id));
  await page.goto(`${url}/det/experiments/${exp}`);
  await page.click("[data-testid=tensorboard]");
  const tbId = await until("the TensorBoard's status", async () => attr("[data-testid=tensorboard-status]", "data-id"), 15000);
  const tb = (await get("/api/v1/tensorboards")).tensorboards.find((x) => x.id === tbId);
  if (!tb || before.has(tbId) || JSON.stringify(tb.experimentIds) !== JSON.stringify([exp]))
    throw new Error(`no new TensorBoard over experiment ${exp} in the API: ${JSON.stringify(tb)}`);
  if ((await get(`/api/v1/tensorboards/${tbId}`)).tensorboard.serviceAddress !== `/proxy/${tbId}/`) throw new Error("the TensorBoard's service address");
  await visit("experiment-tensorboard");
  // A second click opens the same one, no second launch.
  await page.click("[data-testid=tensorboard]");
  await until("the same TensorBoard shown", async () => (await attr("[data-testid=tensorboard-status]", "data-id")) === tbId, 5000);
  const over = (await get("/api/v1/tensorboards")).tensorboards.filter((x) => x.state !== "STATE_TERMINATED" && x.experimentIds.includes(exp));
  if (over.length !== 1) throw new Error(`${over.length} live TensorBoards over the experiment after two clicks`);
  await page.click("[data-testid=tensorboard-task]");
  await page.waitForSelector(`[data-testid=tasks] tr[data-id="${tbId}"][aria-current=true][data-kind=tensorboards]`);

  step("tasks: a TensorBoard from the form, its experiment ids checked first");
  await page.selectOption("[data-testid=launch-kind]", "tensorboards");
  await page.fill("input[name=experiment-ids]", "x7");
  await page.click("[data-testid=launch-submit]");
  await page.waitForSelector("[data-testid=launch-error] >> text=experiment ids: not an id: x7");
  await page.fill("input[name=experiment-ids]", String(exp));
  await page.fill("input[name=task-name]", "tb-ui");
  await page.click("[data-testid=launch-submit]");
  const tb2 = await until("the form's TensorBoard in the API", async () => (await get("/api/v1/tensorboards")).tensorboards.find((x) => x.description === "tb-ui"), 10000);
  if (JSON.stringify(tb2.experimentIds) !== JSON.stringify([exp])) throw new Error("the form's TensorBoard shows " + JSON.stringify(tb2.experimentIds));
  await page.waitForSelector(`[data-testid=tasks] tr[data-id="${tb2.id}"]`);
  await visit("tasks-tensorboards");
  // Neither will find event files (the test's trials write none): end them.
  for (const id of [tbId, tb2.id]) await api("POST", `/api/v1/tensorboards/${id}/kill`);
}
