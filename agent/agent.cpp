#include "agent/agent.hpp"

#include "agent/work_dirs.hpp"

#include "util/text.hpp"

#include "agent/harness_files.hpp"
#include "agent/model_fetch.hpp"
#include "agent/trial_process.hpp"
#include "agent/warm_launch.hpp"
#include "agent/ws_client.hpp"
#include "messages/agent_protocol.hpp"
#include "util/log.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>

namespace det::agent {

namespace {

/// Frames of log lines held while disconnected, beyond which new ones are
/// dropped (the trial keeps running; the master misses that output).
constexpr size_t max_pending_logs = 1000;
/// How long a trial's start waits for a warm launcher that is still
/// importing the harness (about a second; a few on a loaded machine)
/// before it starts cold. A launcher that cannot import it exits at once.
constexpr std::chrono::milliseconds warm_launch_wait{5000};

} // namespace

agent::agent(agent_settings s) : s_(std::move(s)) {
  if (!s_.uniform) {
    auto gen = std::make_shared<std::mt19937_64>(std::random_device{}());
    s_.uniform = [gen] {
      return std::uniform_real_distribution<double>{0.0, 1.0}(*gen);
    };
  }
  // Started now, so it has imported the harness by the first trial.
  if (!s_.warm_launch_client.empty())
    warm_ = warm_launcher::start(trial_base_environment());
}

void agent::await_warm_launcher() {
  std::shared_ptr<warm_launcher> warm;
  {
    std::lock_guard<std::mutex> guard{mu_};
    warm = warm_;
  }
  if (warm)
    (void)warm->wait_ready(warm_launch_wait);
}

std::string agent::warm_command_locked() {
  if (!warm_)
    return "";
  if (!warm_->alive()) {
    log::info() << "the warm launcher exited (no importable harness, or it "
                   "failed); trials start their launch layer cold";
    warm_.reset();
    return "";
  }
  if (!warm_->wait_ready(std::chrono::milliseconds{0}))
    return "";
  return warm_trial_command(s_.warm_launch_client, warm_->socket());
}

agent::~agent() {
  stop();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> guard{mu_};
    workers.swap(workers_);
  }
  for (auto& w : workers)
    w.join();
  std::vector<std::unique_ptr<trial_process>> procs;
  {
    std::lock_guard<std::mutex> guard{mu_};
    for (auto& [id, a] : allocs_)
      if (a.proc)
        procs.push_back(std::move(a.proc));
    for (auto& p : graveyard_)
      procs.push_back(std::move(p));
    graveyard_.clear();
  }
  procs.clear(); // kills and joins, without mu_ (callbacks take it)
}

void agent::stop() {
  std::lock_guard<std::mutex> guard{mu_};
  stopping_ = true;
  cv_.notify_all();
}

std::vector<exit_report> agent::unacknowledged_exits() const {
  std::lock_guard<std::mutex> guard{mu_};
  std::vector<exit_report> out;
  for (auto& [id, a] : allocs_)
    if (a.exit)
      out.push_back(*a.exit);
  return out;
}

bool agent::welcomed() const {
  std::lock_guard<std::mutex> guard{mu_};
  return welcomed_;
}

std::vector<std::string> agent::allocations() const {
  std::lock_guard<std::mutex> guard{mu_};
  std::vector<std::string> out;
  for (auto& [id, a] : allocs_)
    out.push_back(id);
  return out;
}

void agent::wait_backoff(std::chrono::milliseconds delay) {
  log::write(log::level::info, "reconnecting to the master in "
                                   + std::to_string(delay.count()) + " ms");
  std::unique_lock<std::mutex> lock{mu_};
  cv_.wait_for(lock, delay, [this] { return stopping_; });
}

void agent::run() {
  reconnect_backoff backoff{s_.uniform, s_.backoff};
  const auto& m = s_.cfg.master;
  ws_target target;
  target.tls = m.scheme == "https" || s_.cfg.tls.enabled;
  target.host = m.host;
  target.port = m.port;
  target.path = "/agents/ws?id=" + util::percent_encode(s_.agent_id);
  ws_client_options opts;
  opts.bearer_token = s_.cfg.token;
  opts.ca_cert = s_.cfg.tls.master_cert;
  opts.skip_verify = s_.cfg.tls.skip_verify;
  opts.server_name = s_.cfg.tls.master_cert_name;
  opts.connect_timeout = std::chrono::seconds{5};
  const auto where = std::string{target.tls ? "wss://" : "ws://"} + m.host + ":"
                     + std::to_string(m.port) + "/agents/ws";
  for (;;) {
    uint64_t gen;
    {
      std::vector<std::unique_ptr<trial_process>> dead;
      {
        std::lock_guard<std::mutex> guard{mu_};
        if (stopping_)
          break;
        dead.swap(graveyard_);
        gen = ++generation_;
      }
    }
    auto client = std::make_shared<ws_client>();
    auto err = client->connect(
        target, opts, [this, gen](std::string text) { on_text(gen, text); },
        [this, gen](std::string reason) { on_closed(gen, reason); });
    if (err) {
      log::write(log::level::warn,
                 "cannot connect to " + where + ": " + render(err));
      wait_backoff(backoff.next_delay());
      continue;
    }
    {
      std::unique_lock<std::mutex> lock{mu_};
      log::write(log::level::info,
                 "connected to " + where + " as " + s_.agent_id);
      client_ = client;
      hello_info h;
      h.agent_id = s_.agent_id;
      h.resource_pool = s_.cfg.resource_pool;
      h.slots = s_.slots;
      h.slot_type = s_.slot_type;
      for (auto& [id, a] : allocs_) {
        h.running.push_back(id);
        if (a.exit)
          h.exited.push_back(*a.exit);
      }
      client->send(hello_frame(h));
      using clock = policy::heartbeat_monitor::clock;
      master_alive_ = policy::heartbeat_monitor{
          heartbeat_interval_, static_cast<int>(s_.cfg.missed_heartbeats),
          clock::now()};
      auto last_beat = clock::now();
      auto done = [&] { return stopping_ || closed_gen_ >= gen; };
      while (!done()) {
        // Any notify ends the wait (no predicate): the welcome may have
        // shortened the interval, so the deadline is computed afresh.
        cv_.wait_until(lock, std::min(last_beat + heartbeat_interval_,
                                      master_alive_.deadline()));
        if (done())
          break;
        auto now = clock::now();
        if (master_alive_.expired(now)) {
          log::write(log::level::warn,
                     "no frame from the master for "
                         + std::to_string(master_alive_.missed_count(now))
                         + " heartbeat intervals; dropping the connection");
          break;
        }
        if (now >= last_beat + heartbeat_interval_) {
          if (welcomed_)
            client->send(heartbeat_frame());
          last_beat = now;
        }
        if (welcomed_)
          backoff.reset();
        if (!graveyard_.empty()) {
          auto dead = std::move(graveyard_);
          graveyard_.clear();
          lock.unlock();
          dead.clear();
          lock.lock();
        }
      }
      client_.reset();
      welcomed_ = false;
    }
    client->close();
    client.reset();
    {
      std::lock_guard<std::mutex> guard{mu_};
      if (stopping_)
        break;
    }
    wait_backoff(backoff.next_delay());
  }
  log::write(log::level::info, "det-agent stopping");
}

void agent::on_closed(uint64_t gen, const std::string& reason) {
  std::lock_guard<std::mutex> guard{mu_};
  if (gen > closed_gen_)
    closed_gen_ = gen;
  if (!stopping_)
    log::write(log::level::warn, "connection to the master lost: " + reason);
  cv_.notify_all();
}

void agent::on_text(uint64_t gen, const std::string& text) {
  {
    std::lock_guard<std::mutex> guard{mu_};
    if (gen != generation_ || closed_gen_ >= gen)
      return;
    master_alive_.seen(policy::heartbeat_monitor::clock::now());
  }
  auto f = parse_master_frame(text);
  if (!f) {
    log::write(log::level::warn,
               "bad frame from the master: " + render(f.error()));
    std::lock_guard<std::mutex> guard{mu_};
    if (client_)
      client_->send(error_frame(render(f.error())));
    return;
  }
  handle(*f);
}

void agent::handle(const master_frame& f) {
  if (f.type == "welcome") {
    std::lock_guard<std::mutex> guard{mu_};
    welcomed_ = true;
    if (f.heartbeat_interval_ms > 0)
      heartbeat_interval_ = std::chrono::milliseconds{f.heartbeat_interval_ms};
    else if (f.heartbeat_interval_s > 0)
      heartbeat_interval_ = std::chrono::seconds{f.heartbeat_interval_s};
    master_alive_.set_interval(heartbeat_interval_);
    log::write(log::level::info, "welcomed by the master");
    std::deque<pending_frame> held;
    held.swap(pending_);
    pending_logs_ = 0;
    for (auto& p : held)
      send_locked(std::move(p));
    // Every exit not acknowledged yet, again: the master acknowledges each
    // once its log holds it (a repeat it already holds writes nothing).
    if (client_)
      for (auto& [id, a] : allocs_)
        if (a.exit)
          client_->send(
              exited_frame(id, a.exit->exit_code, a.exit->exited_at_us));
    cv_.notify_all();
  } else if (f.type == "start") {
    handle_start(f.start);
  } else if (f.type == "exit_ack") {
    std::lock_guard<std::mutex> guard{mu_};
    for (const auto& id : f.allocation_ids) {
      auto i = allocs_.find(id);
      if (i == allocs_.end() || !i->second.exit)
        continue; // not ended here: nothing to forget
      log::write(log::level::info,
                 "the master recorded the exit of allocation " + id);
      forget_locked(id);
    }
  } else if (f.type == "kill") {
    std::lock_guard<std::mutex> guard{mu_};
    auto i = allocs_.find(f.allocation_id);
    if (i == allocs_.end() || i->second.exit) {
      log::write(log::level::warn,
                 "kill for unknown or ended allocation " + f.allocation_id);
      return;
    }
    log::write(log::level::info, "killing allocation " + f.allocation_id);
    i->second.kill_requested = true;
    if (i->second.proc)
      i->second.proc->kill();
  } else if (f.type == "preempt") {
    // The trial learns of it by polling the master; nothing to relay.
    log::write(log::level::info, "allocation " + f.allocation_id
                                     + " is being preempted: " + f.reason);
  } else if (f.type == "heartbeat") {
    // Receiving it is all the liveness we need.
  } else if (f.type == "error") {
    log::write(log::level::error, "the master reports an error: " + f.message);
  } else {
    std::lock_guard<std::mutex> guard{mu_};
    if (client_)
      client_->send(error_frame("unknown frame type '" + f.type + "'"));
  }
}

void agent::handle_start(const start_request& s) {
  std::lock_guard<std::mutex> guard{mu_};
  if (allocs_.count(s.allocation_id) != 0) {
    log::write(log::level::warn,
               "start for known allocation " + s.allocation_id + " ignored");
    return;
  }
  log::write(log::level::info,
             "starting allocation " + s.allocation_id
                 + (s.task_id.empty()
                        ? " (trial " + std::to_string(s.trial_id) + ")"
                        : " (task " + s.task_id + ")"));
  allocs_[s.allocation_id].trial_id = s.trial_id;
  workers_.emplace_back([this, s] { prepare_and_spawn(s); });
}

void agent::prepare_and_spawn(start_request s) {
  if (!s.task_id.empty())
    return spawn_task(std::move(s));
  auto master_url = s_.cfg.master.to_url();
  auto cluster = s.env.find("DET_CLUSTER_ID");
  auto made = prepare_allocation_dir(
      s_.cfg.work_dir, cluster != s.env.end() ? cluster->second : "",
      master_url, s.allocation_id);
  auto dir = made ? *made : std::string{};
  http_options http;
  fetch_retry retry;
  fetch_setup(s, http, retry);
  auto err =
      made ? fetch_model_def(master_url, s.experiment_id, http, dir, retry)
           : made.error();
  // The first trials of an agent that has just started (one a provisioner
  // launched for them) would find its launcher still importing the
  // harness; a cold start costs more than waiting, on the same cores.
  await_warm_launcher();
  std::lock_guard<std::mutex> guard{mu_};
  auto& a = allocs_[s.allocation_id];
  auto fail = [&](const std::string& why, int code) {
    log::write(log::level::error, "allocation " + s.allocation_id + ": " + why);
    send_locked({log_frame(s.allocation_id, s.trial_id, {"det-agent: " + why}),
                 frame_kind::log});
    exit_locked(s.allocation_id, code);
  };
  if (a.kill_requested)
    return fail("killed before it started", 128 + 9);
  if (!made)
    return fail("cannot prepare the allocation's folder: " + render(err), 1);
  if (err)
    return fail("cannot fetch the model definition: " + render(err), 1);
  process_spec spec;
  spec.work_dir = dir;
  spec.env = trial_environment(s, master_url, s_.checkpoint_dir, s_.agent_id);
  // The trial's REST calls trust the master's certificate as we do
  // (upstream's variable: a CA file path, or "noverify").
  if (s_.cfg.tls.skip_verify)
    spec.env.emplace("DET_MASTER_CERT_FILE", "noverify");
  else if (!s_.cfg.tls.master_cert.empty())
    spec.env.emplace("DET_MASTER_CERT_FILE", s_.cfg.tls.master_cert);
  const char* pythonpath = std::getenv("PYTHONPATH");
  if (auto werr = write_harness_files(dir + ".run", spec.env,
                                      pythonpath ? pythonpath : ""))
    return fail("cannot prepare the trial's harness files: " + render(werr), 1);
  spec.command = trial_command(s.entrypoint, spec.env);
  if (auto warm = warm_command_locked(); !warm.empty())
    spec.command = std::move(warm);
  std::string why;
  // A trial's group goes when its entrypoint does.
  if (!start_process_locked(a, s.allocation_id, spec, "trial",
                            std::chrono::milliseconds{0}, why))
    return fail(why, 1);
}

void agent::fetch_setup(const start_request& s, http_options& http,
                        fetch_retry& retry) {
  auto token = s.env.find("DET_SESSION_TOKEN");
  http.bearer_token = token != s.env.end() ? token->second : s_.cfg.token;
  http.ca_cert = s_.cfg.tls.master_cert;
  http.skip_verify = s_.cfg.tls.skip_verify;
  retry.stop = [this, id = s.allocation_id] {
    std::lock_guard<std::mutex> guard{mu_};
    auto i = allocs_.find(id);
    return stopping_ || i == allocs_.end() || i->second.kill_requested;
  };
  retry.sleep = [this](std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> lock{mu_};
    cv_.wait_for(lock, d, [this] { return stopping_; });
  };
}

bool agent::start_process_locked(allocation& a, const std::string& id,
                                 const process_spec& spec, const char* what,
                                 std::chrono::milliseconds log_wait,
                                 std::string& why) {
  process_options popts;
  popts.kill_grace = s_.kill_grace;
  popts.log_wait = log_wait;
  auto proc =
      trial_process::start(spec,
                           {[this, id](std::vector<std::string> lines) {
                              on_lines(id, std::move(lines));
                            },
                            [this, id](int code) { on_exit(id, code); }},
                           popts);
  if (!proc) {
    why = std::string{"cannot start the "} + what
          + " process: " + render(proc.error());
    return false;
  }
  a.proc = std::move(*proc);
  log::write(log::level::info, std::string{what} + " allocation " + id
                                   + " running as process group "
                                   + std::to_string(a.proc->pid()));
  send_locked({running_frame(id), frame_kind::control});
  return true;
}

void agent::spawn_task(start_request s) {
  auto master_url = s_.cfg.master.to_url();
  auto cluster = s.env.find("DET_CLUSTER_ID");
  auto made = prepare_allocation_dir(
      s_.cfg.work_dir, cluster != s.env.end() ? cluster->second : "",
      master_url, s.allocation_id);
  caf::error err;
  if (made) {
    http_options http;
    fetch_retry retry;
    fetch_setup(s, http, retry);
    err = fetch_task_context(master_url, s.task_id, http, *made, retry);
  }
  std::lock_guard<std::mutex> guard{mu_};
  auto& a = allocs_[s.allocation_id];
  auto fail = [&](const std::string& why, int code) {
    log::write(log::level::error, "allocation " + s.allocation_id + ": " + why);
    send_locked({log_frame(s.allocation_id, 0, {"det-agent: " + why}),
                 frame_kind::log});
    exit_locked(s.allocation_id, code);
  };
  if (a.kill_requested)
    return fail("killed before it started", 128 + 9);
  if (!made)
    return fail("cannot prepare the task's folder: " + render(made.error()), 1);
  if (err)
    return fail("cannot fetch the task's context: " + render(err), 1);
  process_spec spec;
  spec.work_dir = *made;
  spec.env = task_environment(s, master_url, s_.agent_id);
  if (s_.cfg.tls.skip_verify)
    spec.env.emplace("DET_MASTER_CERT_FILE", "noverify");
  else if (!s_.cfg.tls.master_cert.empty())
    spec.env.emplace("DET_MASTER_CERT_FILE", s_.cfg.tls.master_cert);
  spec.command = s.entrypoint;
  std::string why;
  // A task's background output is kept a while (DET_LOG_WAIT_TIME).
  if (!start_process_locked(a, s.allocation_id, spec, "task",
                            log_wait_of(spec.env), why))
    return fail(why, 1);
}

void agent::on_lines(const std::string& alloc, std::vector<std::string> lines) {
  std::lock_guard<std::mutex> guard{mu_};
  auto i = allocs_.find(alloc);
  auto trial = i != allocs_.end() ? i->second.trial_id : 0;
  send_locked({log_frame(alloc, trial, lines), frame_kind::log});
}

void agent::on_exit(const std::string& alloc, int code) {
  std::lock_guard<std::mutex> guard{mu_};
  log::write(log::level::info,
             "allocation " + alloc + " exited with " + std::to_string(code));
  exit_locked(alloc, code);
}

void agent::exit_locked(const std::string& alloc, int code) {
  auto& a = allocs_[alloc];
  if (a.exit)
    return; // one exit per allocation
  a.exit = exit_report{alloc, code,
                       std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count()};
  // Not held in pending_: every welcome sends all kept exits again.
  if (welcomed_ && client_)
    client_->send(exited_frame(alloc, code, a.exit->exited_at_us));
}

void agent::send_locked(pending_frame f) {
  if (welcomed_ && client_ && client_->send(f.text))
    return;
  if (f.kind == frame_kind::log) {
    if (pending_logs_ >= max_pending_logs)
      return;
    ++pending_logs_;
  }
  pending_.push_back(std::move(f));
}

void agent::forget_locked(const std::string& alloc) {
  auto i = allocs_.find(alloc);
  if (i == allocs_.end())
    return;
  // Its threads may be the caller: destroyed later, outside the lock.
  if (i->second.proc)
    graveyard_.push_back(std::move(i->second.proc));
  allocs_.erase(i);
}

void agent::notify(std::string frame_text) {
  std::lock_guard<std::mutex> lock{mu_};
  send_locked({std::move(frame_text), frame_kind::control});
}

} // namespace det::agent
