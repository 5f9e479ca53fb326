// The job queue (GET /api/v1/job-queues): order, type, priority, slots,
// why a job waits; a job's priority changed in place (an experiment's by
// POST /api/v1/job-queues, as `det job update --priority`; a task's by
// its kind's set_priority route). Commands, notebooks, TensorBoards and
// shells the master's queue does not list are shown after it, from their
// own lists, so every live job is on the page.
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { pct, shortState, when } from "../format";
import { href, linkHandler } from "../router";
import { Kind, kindOfJobType, listTasks, live } from "../tasks";

interface Job {
  jobId: string;
  type: string;
  entityId: string;
  name: string;
  resourcePool: string;
  priority?: number;
  username: string;
  submissionTime: string;
  progress?: number;
  allocatedSlots?: number;
  requestedSlots?: number;
  waitReason?: string;
  summary?: { state?: string; jobsAhead?: number };
  /** Not from the queue: a live task from its kind's list. */
  fromTasks?: boolean;
  taskState?: string;
}

async function loadJobs(signal: AbortSignal): Promise<Job[]> {
  const [queue, tasks] = await Promise.all([api.get<{ jobs: Job[] }>("/api/v1/job-queues", signal), listTasks(signal)]);
  const jobs = queue.jobs ?? [];
  const listed = new Set(jobs.flatMap((j) => [j.entityId, j.jobId]));
  const extra: Job[] = tasks
    .filter((t) => live(t) && !listed.has(t.id) && !(t.jobId && listed.has(t.jobId)))
    .reverse() // oldest first, as the queue orders a priority's jobs
    .map((t) => ({
      jobId: t.jobId ?? t.id,
      type: t.kind.jobType,
      entityId: t.id,
      name: t.description,
      resourcePool: t.resourcePool,
      username: t.username,
      submissionTime: t.startTime,
      fromTasks: true,
      taskState: t.state,
    }));
  return jobs.concat(extra);
}

const typeLabel = (j: Job) => (j.type === "TYPE_EXPERIMENT" ? "Experiment" : kindOfJobType(j.type)?.label ?? j.type.replace(/^TYPE_/, "").toLowerCase());

export function JobsPage() {
  const jobs = usePoll(loadJobs, []);
  const list = jobs.data ?? [];
  return (
    <main>
      <h1>Job queue</h1>
      <p class="muted">
        Jobs in the order the scheduler considers them in each pool: lower priority numbers first (1-99), then by submission.
      </p>
      {list.some((j) => j.fromTasks) && (
        <p class="muted" data-testid="tasks-note">
          Rows without a position are tasks (commands, notebooks, TensorBoards, shells) that this master's queue does not list; they are
          shown from their own lists with their state.
        </p>
      )}
      {jobs.error && <p class="error">{jobs.error}</p>}
      <div class="scroll">
        <table class="grid" data-testid="jobs">
          <thead>
            <tr>
              <th>#</th>
              <th>Type</th>
              <th>Job</th>
              <th>Pool</th>
              <th>Priority</th>
              <th>State</th>
              <th>Slots held / asked</th>
              <th>Progress</th>
              <th>User</th>
              <th>Submitted</th>
              <th>Waiting because</th>
            </tr>
          </thead>
          <tbody>
            {list.map((j) => {
              const kind = kindOfJobType(j.type);
              return (
                <tr data-id={j.entityId} data-type={j.type} data-source={j.fromTasks ? "tasks" : "queue"}>
                  <td>{j.summary?.jobsAhead}</td>
                  <td>{typeLabel(j)}</td>
                  <td>
                    <a href={href(kind ? "/tasks?task=" + encodeURIComponent(j.entityId) : "/experiments/" + j.entityId)} onClick={linkHandler}>
                      {j.name} ({j.entityId})
                    </a>
                  </td>
                  <td>{j.resourcePool}</td>
                  <td>
                    <Priority job={j} kind={kind} onDone={jobs.reload} />
                  </td>
                  <td>{shortState(j.fromTasks ? j.taskState : j.summary?.state)}</td>
                  <td>{j.fromTasks ? "" : `${j.allocatedSlots ?? 0} / ${j.requestedSlots ?? 0}`}</td>
                  <td>{j.progress === undefined ? "" : pct(j.progress)}</td>
                  <td>{j.username}</td>
                  <td>{when(j.submissionTime)}</td>
                  <td>{j.waitReason}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {jobs.data && list.length === 0 && <p class="muted">The queue is empty.</p>}
    </main>
  );
}

/** A job's priority, set in place: an experiment through the queue's
 * route, a task (command, notebook, ...) through its kind's
 * set_priority. */
function Priority(props: { job: Job; kind?: Kind; onDone: () => void }) {
  const [v, setV] = useState<string>();
  const [error, setError] = useState<string>();
  const { job, kind } = props;
  const id = job.entityId;
  const shown = job.priority === undefined ? "" : String(job.priority);
  return (
    <form
      class="inline"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          const priority = Number(v ?? shown);
          if (kind) await api.post(`/api/v1/${kind.route}/${encodeURIComponent(id)}/set_priority`, { priority });
          else await api.post("/api/v1/job-queues", { updates: [{ jobId: job.jobId, priority }] });
          setV(undefined);
          props.onDone();
        } catch (err: any) {
          setError(err.message);
        }
      }}
    >
      <input
        type="number"
        min={1}
        max={99}
        aria-label={"priority of job " + id}
        data-testid={"priority-" + id}
        value={v ?? shown}
        onInput={(e) => setV((e.target as HTMLInputElement).value)}
      />
      <button type="submit" data-testid={"priority-set-" + id} disabled={v === undefined || v === ""}>
        Set
      </button>
      {error && <span class="error">{error}</span>}
    </form>
  );
}
