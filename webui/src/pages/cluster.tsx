// The cluster: each pool (provider, slots, instances, spot requests, the
// last launch error and the failures in a row, and for admins a link to
// "what would it cost", pages/cost.tsx), its agents and their slots, and
// why waiting jobs wait.
import * as api from "../api";
import { usePoll } from "../hooks";
import { shortState, when } from "../format";
import { href, linkHandler } from "../router";

export function ClusterPage(props: { admin: boolean }) {
  const pools = usePoll((signal) => api.get<{ resourcePools: any[] }>("/api/v1/resource-pools", signal), []);
  const agents = usePoll((signal) => api.get<{ agents: any[] }>("/api/v1/agents", signal), []);
  const jobs = usePoll((signal) => api.get<{ jobs: any[] }>("/api/v1/job-queues", signal), []);
  const waiting = (jobs.data?.jobs ?? []).filter((j) => j.waitReason && j.summary?.state !== "STATE_PAUSED");
  return (
    <main>
      <h1>Cluster</h1>
      <p>
        <a href={href("/cluster/usage")} onClick={linkHandler} data-testid="usage-link">
          Historical usage
        </a>
      </p>
      {(pools.error || agents.error) && <p class="error">{pools.error ?? agents.error}</p>}
      {(pools.data?.resourcePools ?? []).map((p) => (
        <section class="pool" data-testid={"pool-" + p.name}>
          <h2>
            {p.name} <span class="tag">{p.provider}</span>
            {p.defaultComputePool && <span class="tag">default</span>}
          </h2>
          <div class="summary">
            <span data-testid="slots">
              slots {p.slotsUsed} used / {p.slotsAvailable} total ({Math.max(0, p.slotsAvailable - p.slotsUsed)} free)
            </span>
            <span>agents {p.numAgents}</span>
            {p.provider !== "static" && (
              <span>
                instances {p.minAgents}–{p.maxAgents} {p.instanceType ? "of " + p.instanceType : ""} {p.spot ? "(spot)" : ""}
              </span>
            )}
            <span>pending trials {p.pendingTrials ?? 0}</span>
            <span>idle after {p.maxIdleAgentPeriod}s</span>
            {props.admin && p.provider !== "static" && (
              <a href={href("/cluster/cost/" + encodeURIComponent(p.name))} onClick={linkHandler} data-testid="cost-link">
                What would it cost?
              </a>
            )}
          </div>
          {p.launchError?.consecutiveFailures > 0 && (
            <p class="error" data-testid="launch-error">
              Last launch failed {when(p.launchError.at)} ({p.launchError.kind}): {p.launchError.message} — {p.launchError.consecutiveFailures} failure(s) in a
              row; launches back off until one succeeds.
            </p>
          )}
          {(p.instances ?? []).length > 0 && (
            <table class="grid" data-testid="instances">
              <thead>
                <tr>
                  <th>Instance</th>
                  <th>State</th>
                  <th>Agent</th>
                  <th>Launched</th>
                  <th>Idle since</th>
                  <th>Spot request</th>
                  <th>Note</th>
                </tr>
              </thead>
              <tbody>
                {p.instances.map((i: any) => (
                  <tr>
                    <td class="mono">{i.id}</td>
                    <td>{i.state}</td>
                    <td>
                      {i.agentId} {i.agentId && !i.agentConnected ? "(not connected)" : ""}
                    </td>
                    <td>{when(i.launchedAt)}</td>
                    <td>{when(i.idleSince)}</td>
                    <td class="mono">{i.spotRequestId}</td>
                    <td>{i.terminateReason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {(p.spotRequests ?? []).length > 0 && (
            <p>
              Open spot requests: {p.spotRequests.map((r: any) => r.id + " (since " + when(r.openedAt) + ")").join(", ")}
            </p>
          )}
          {(p.outstandingLaunches ?? []).length > 0 && (
            <p>
              Launches in flight: {p.outstandingLaunches.map((l: any) => `#${l.launchSeq} ×${l.count}${l.spot ? " spot" : ""}`).join(", ")}
            </p>
          )}
        </section>
      ))}
      <h2>Agents</h2>
      <table class="grid" data-testid="agents" data-count={(agents.data?.agents ?? []).length}>
        <thead>
          <tr>
            <th>Agent</th>
            <th>Pool</th>
            <th>Connected</th>
            <th>Status</th>
            <th>Slots</th>
          </tr>
        </thead>
        <tbody>
          {(agents.data?.agents ?? []).map((a) => {
            const slots = Object.values(a.slots ?? {}) as any[];
            return (
              <tr data-id={a.id}>
                <td class="mono">{a.id}</td>
                <td>{(a.resourcePools ?? []).join(", ")}</td>
                <td>{when(a.registeredTime)}</td>
                <td>{!a.enabled ? (a.draining ? "draining" : "disabled") : "enabled"}</td>
                <td>
                  {slots.map((s) => (
                    <span class={"slot " + (s.container ? "busy" : "free")} title={s.container ? "running " + s.container.id : "free"}>
                      {s.device?.type?.replace("TYPE_", "").toLowerCase()} {s.id}
                      {s.container ? " · " + shortState(s.container.state) : ""}
                    </span>
                  ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {agents.data && agents.data.agents.length === 0 && <p class="muted">No agents connected.</p>}
      <h2>Why jobs wait</h2>
      {waiting.length === 0 ? (
        <p class="muted">No job is waiting.</p>
      ) : (
        <ul data-testid="waiting">
          {waiting.map((j) => (
            <li>
              <a href={href("/experiments/" + j.entityId)} onClick={linkHandler}>
                {j.name} ({j.entityId})
              </a>
              : {j.waitReason}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
