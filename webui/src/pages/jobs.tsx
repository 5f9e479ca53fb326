// The job queue (GET /api/v1/job-queues): experiments and tasks
// (commands, notebooks, TensorBoards, shells, generic tasks) in the order
// the scheduler considers them, with type, priority, slots and why a job
// waits; a job's priority changed in place (POST /api/v1/job-queues, as
// `det job update --priority`).
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { pct, shortState, when } from "../format";
import { href, linkHandler } from "../router";
import { kindOfJobType } from "../tasks";

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
}

async function loadJobs(signal: AbortSignal): Promise<Job[]> {
  return (await api.get<{ jobs: Job[] }>("/api/v1/job-queues", signal)).jobs ?? [];
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
              const task = j.type !== "TYPE_EXPERIMENT";
              return (
                <tr data-id={j.entityId} data-type={j.type}>
                  <td>{j.summary?.jobsAhead}</td>
                  <td>{typeLabel(j)}</td>
                  <td>
                    <a href={href(task ? "/tasks?task=" + encodeURIComponent(j.entityId) : "/experiments/" + j.entityId)} onClick={linkHandler}>
                      {j.name} ({j.entityId})
                    </a>
                  </td>
                  <td>{j.resourcePool}</td>
                  <td>
                    <Priority job={j} onDone={jobs.reload} />
                  </td>
                  <td>{shortState(j.summary?.state)}</td>
                  <td>{`${j.allocatedSlots ?? 0} / ${j.requestedSlots ?? 0}`}</td>
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

/** A job's priority, set in place through the queue's route. */
function Priority(props: { job: Job; onDone: () => void }) {
  const [v, setV] = useState<string>();
  const [error, setError] = useState<string>();
  const { job } = props;
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
          await api.post("/api/v1/job-queues", { updates: [{ jobId: job.jobId, priority }] });
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
