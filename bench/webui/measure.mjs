// The WebUI bench's browser half (bench/webui/run.py starts the master):
// Debian's Chromium through playwright-core, signed in once, then for each
// figure a fresh navigation timed from page.goto until the page shows what
// a person waits for. Prints one JSON object with every sample (ms).
import { openBrowser, until } from "../../tests/webui/browser.mjs";

// The app lives under /det/, as upstream's WebUI does.
const URL_ = process.env.DET_WEBUI_URL + "/det";
const RUNS = Number(process.env.DET_WEBUI_RUNS || 5);
const EXPERIMENTS = Number(process.env.DET_WEBUI_EXPERIMENTS);
const POINTS = Number(process.env.DET_WEBUI_POINTS);
const EXP = Number(process.env.DET_WEBUI_EXP);
// "compare": only the compare view of trials 1..COMPARE_TRIALS, each with
// POINTS training reports (a master seeded for it by run.py).
const MODE = process.env.DET_WEBUI_MODE || "list-and-curve";
const COMPARE_TRIALS = Number(process.env.DET_WEBUI_COMPARE_TRIALS || 10);

const b = await openBrowser({ viewport: { width: 1366, height: 800 } });
const page = b.page;
try {
  await page.goto(URL_ + "/login");
  await page.fill("input[name=username]", "admin");
  await page.click("[data-testid=sign-in]");
  await page.waitForSelector("[data-testid=who]");

  const time = async (path, ready, arg) => {
    const samples = [];
    for (let i = 0; i < RUNS; i++) {
      await page.goto("about:blank");
      const t0 = performance.now();
      await page.goto(URL_ + path, { waitUntil: "commit" });
      await page.waitForFunction(ready, arg, { timeout: 60000, polling: "raf" });
      samples.push(Math.round(performance.now() - t0));
    }
    return samples;
  };
  if (MODE === "compare") {
    const ids = Array.from({ length: COMPARE_TRIALS }, (_, i) => i + 1).join(",");
    // The compare view: one curve per trial, every point of each drawn.
    const compare = await time(
      `/compare?trials=${ids}`,
      ([n, k]) => {
        const c = document.querySelector('[data-testid=compare-chart][data-drawn="1"]');
        return !!c && Number(c.dataset.points) === n && Number(c.dataset.series) === k;
      },
      [POINTS * COMPARE_TRIALS, COMPARE_TRIALS],
    );
    if (b.errors.length) throw new Error(b.errors.join("\n"));
    console.log(JSON.stringify({ compare }));
  } else {
  // The list: its first page of rows drawn, the total from the master.
  const list = await time(
    "/experiments",
    (n) => {
      const t = document.querySelector('[data-testid=experiments][data-loaded="1"]');
      return !!t && Number(t.dataset.total) === n && t.querySelectorAll("tbody tr").length > 0;
    },
    EXPERIMENTS,
  );
  // The experiment page: the curve drawn with every point.
  const curve = await time(
    `/experiments/${EXP}`,
    (n) => {
      const c = document.querySelector('[data-testid=exp-chart][data-drawn="1"]');
      return !!c && Number(c.dataset.points) === n;
    },
    POINTS,
  );
  if (b.errors.length) throw new Error(b.errors.join("\n"));
  console.log(JSON.stringify({ list, curve }));
  }
} finally {
  await b.close();
}
