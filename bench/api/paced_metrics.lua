-- wrk script: trials posting training metrics at a fixed mean rate each,
-- as running trials do, instead of back to back. Used by bench/api/run.py:
--
--   wrk -tT -cN -dS --script paced_metrics.lua URL -- TRIALS_FILE MEAN_GAP_MS T
--
-- TRIALS_FILE has one "trial_id token" line per trial; wrk's threads share
-- them out (thread k takes every k-th line) and each request goes to the
-- thread's next trial, with that trial's allocation token (the master
-- refuses a token used for another trial). After each answer a connection
-- waits a uniform random gap in [0, 2 * MEAN_GAP_MS], so connections do not
-- fire in step. At the end one line "paced_metrics {json}" carries the
-- counts and the latency percentiles in microseconds.

local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

local trials = {}
local steps = {}
local turn = 0
local gap_ms = 1000

function init(args)
  local file = args[1]
  gap_ms = tonumber(args[2]) or 1000
  local nthreads = tonumber(args[3]) or 1
  local i = 0
  for line in io.lines(file) do
    local trial, token = line:match("^(%d+) (%S+)$")
    if trial and i % nthreads == id then
      table.insert(trials, {trial = trial, token = token})
      steps[#trials] = 0
    end
    if trial then
      i = i + 1
    end
  end
  math.randomseed(1000 + id)
end

function request()
  turn = turn % #trials + 1
  local t = trials[turn]
  steps[turn] = steps[turn] + 1
  local body = string.format(
    '{"metrics":{"trialId":%s,"stepsCompleted":%d,'
      .. '"metrics":{"avgMetrics":{"loss":%.6f}}},"group":"training"}',
    t.trial, steps[turn], 1.0 / steps[turn])
  return wrk.format("POST", "/api/v1/trials/" .. t.trial .. "/metrics",
                    {["Authorization"] = "Bearer " .. t.token,
                     ["Content-Type"] = "application/json"}, body)
end

function delay()
  return math.random(0, 2 * gap_ms)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'paced_metrics {"requests":%d,"duration_us":%d,"non_2xx":%d,'
      .. '"socket_errors":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,'
      .. '"p999_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.status,
    e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max))
end
