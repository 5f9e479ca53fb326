// The job queue (GET /api/v1/job-queues): order, priority, slots, why a
// job waits; a job's priority changed in place (POST /api/v1/job-queues,
// as `det job update --priority`).
import { useState } from "preact/hooks";
import * as api from "../api";
import { usePoll } from "../hooks";
import { pct, shortState, when } from "../format";
import { href, linkHandler } from "../router";

export function JobsPage() {
  const jobs = usePoll((signal) => api.get<{ jobs: any[] }>("/api/v1/job-queues", signal), []);
  const list = jobs.data?.jobs ?? [];
  return (
    <main>
      <h1>Job queue</h1>
      <p class="muted">
        Jobs in the order the scheduler considers them in each pool: lower priority numbers first (1-99), then by submission.
      </p>
      {jobs.error && <p class="error">{jobs.error}</p>}
      <table class="grid" data-testid="jobs">
        <thead>
          <tr>
            <th>#</th>
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
          {list.map((j) => (
            <tr data-id={j.entityId}>
              <td>{j.summary?.jobsAhead}</td>
              <td>
                <a href={href("/experiments/" + j.entityId)} onClick={linkHandler}>
                  {j.name} ({j.entityId})
                </a>
              </td>
              <td>{j.resourcePool}</td>
              <td>
                <Priority job={j} onDone={jobs.reload} />
              </td>
              <td>{shortState(j.summary?.state)}</td>
              <td>
                {j.allocatedSlots} / {j.requestedSlots}
              </td>
              <td>{pct(j.progress)}</td>
              <td>{j.username}</td>
              <td>{when(j.submissionTime)}</td>
              <td>{j.waitReason}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {jobs.data && list.length === 0 && <p class="muted">The queue is empty.</p>}
    </main>
  );
}

function Priority(props: { job: any; onDone: () => void }) {
  const [v, setV] = useState<string>();
  const [error, setError] = useState<string>();
  const id = props.job.entityId;
  return (
    <form
      class="inline"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        try {
          await api.post("/api/v1/job-queues", { updates: [{ jobId: props.job.jobId, priority: Number(v ?? props.job.priority) }] });
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
        value={v ?? String(props.job.priority ?? "")}
        onInput={(e) => setV((e.target as HTMLInputElement).value)}
      />
      <button type="submit" data-testid={"priority-set-" + id} disabled={v === undefined}>
        Set
      </button>
      {error && <span class="error">{error}</span>}
    </form>
  );
}
