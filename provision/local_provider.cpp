#include "provision/local_provider.hpp"

#include "messages/errc.hpp"
#include "provision/process.hpp"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace det::provision {

namespace fs = std::filesystem;

namespace {

/// True if `pid` runs and its command line names `id`.
bool runs_as(pid_t pid, const std::string& id) {
  if (pid <= 0 || kill(pid, 0) != 0)
    return false;
  std::ifstream in{"/proc/" + std::to_string(pid) + "/cmdline",
                   std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str().find(id) != std::string::npos;
}

} // namespace

local_provider::local_provider(local_provider_options opts)
    : opts_(std::move(opts)) {
  std::error_code ec;
  auto prefix = "local-" + opts_.pool + "-";
  for (const auto& d : fs::directory_iterator(opts_.local.work_dir, ec)) {
    auto id = d.path().filename().string();
    if (id.compare(0, prefix.size(), prefix) != 0)
      continue;
    std::ifstream in{d.path() / "pid"};
    long pid = 0;
    if (in >> pid && runs_as(static_cast<pid_t>(pid), id))
      procs_[id] = {static_cast<pid_t>(pid), false};
  }
}

std::string local_provider::dir_of(const std::string& id) const {
  return (fs::path{opts_.local.work_dir} / id).string();
}

std::string local_provider::agent_binary() const {
  const auto& b = opts_.local.agent_binary;
  if (b.find('/') != std::string::npos || opts_.bin_dir.empty())
    return b;
  auto beside = fs::path{opts_.bin_dir} / b;
  std::error_code ec;
  return fs::exists(beside, ec) ? beside.string() : b;
}

void local_provider::launch(const launch_spec& spec,
                            provider_done<caf::expected<launch_result>> done) {
  launch_result out;
  for (int k = 0; k < spec.count; ++k) {
    auto id = local_instance_id(spec.pool, spec.launch_seq);
    if (k > 0)
      id += "-" + std::to_string(k);
    if (auto err = start(id, spec.slots, spec.client_token)) {
      if (out.instance_ids.empty()) {
        done(std::move(err));
        return;
      }
      break;
    }
    out.instance_ids.push_back(id);
  }
  done(std::move(out));
}

void local_provider::terminate(std::vector<std::string> ids,
                               provider_done<caf::error> done) {
  for (const auto& id : ids) {
    auto i = procs_.find(id);
    if (i != procs_.end())
      kill(i->second.pid, SIGTERM);
  }
  done(caf::error{});
}

void local_provider::list(
    provider_done<caf::expected<provider_inventory>> done) {
  provider_inventory inv;
  inv.taken_at_us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  for (const auto& id : alive()) {
    provider_instance x;
    x.id = id;
    std::ifstream in{dir_of(id) + "/launch_token"};
    std::getline(in, x.launch_token);
    inv.instances.push_back(std::move(x));
  }
  done(std::move(inv));
}

int64_t local_provider::orphan_grace_us() const {
  return 30'000'000;
}

caf::error local_provider::start(const std::string& id, int64_t slots,
                                 const std::string& token) {
  std::error_code ec;
  fs::create_directories(dir_of(id), ec);
  if (ec)
    return make_error(errc::remote_error,
                      "cannot create " + dir_of(id) + ": " + ec.message());
  process_spec spec;
  spec.argv = {agent_binary(),        "--master-url", opts_.master_url,
               "--resource-pool",     opts_.pool,     "--slots",
               std::to_string(slots), "--agent-id",   id};
  for (const auto& a : opts_.local.agent_args)
    spec.argv.push_back(a);
  spec.cwd = dir_of(id);
  spec.output_file = dir_of(id) + "/agent.log";
  if (!opts_.agent_token.empty())
    spec.env.push_back("DET_AGENT_TOKEN=" + opts_.agent_token);
  auto pid = start_process(spec);
  if (!pid)
    return std::move(pid.error());
  std::ofstream{dir_of(id) + "/pid"} << *pid << "\n";
  std::ofstream{dir_of(id) + "/launch_token"} << token << "\n";
  procs_[id] = {*pid, true};
  return {};
}

std::set<std::string> local_provider::alive() {
  std::set<std::string> out;
  for (auto i = procs_.begin(); i != procs_.end();) {
    bool running = i->second.child ? try_reap(i->second.pid) == -1
                                   : runs_as(i->second.pid, i->first);
    if (running) {
      out.insert(i->first);
      ++i;
    } else {
      std::error_code ec;
      fs::remove(dir_of(i->first) + "/pid", ec);
      i = procs_.erase(i);
    }
  }
  return out;
}

} // namespace det::provision
