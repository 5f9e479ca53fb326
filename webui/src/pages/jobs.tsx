// The job queue (GET /api/v1/job-queues): order, priority, slots, why a
// job waits.
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
        Jobs in the order the scheduler considers them in each pool: lower priority numbers first, then by submission. Changing a job's priority is not offered by
        this master's API yet.
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
              <td>{j.priority}</td>
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
