#include "provision/local_provider.hpp"

#include "messages/errc.hpp"
#include "provision/process.hpp"
#include "util/log.hpp"
#include "util/private_dirs.hpp"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

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
  // The id as one whole argument: "local-default-15" is not
  // "local-default-15-1".
  auto cmd = text.str();
  auto key = std::string{"\0"} + id + '\0';
  return ("\0" + cmd).find(key) != std::string::npos;
}

/// The process working in `dir` that runs as `id`, if any: an agent
/// started by a master that died before it wrote the pid file.
pid_t process_in(const fs::path& dir, const std::string& id) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    auto name = e.path().filename().string();
    if (name.empty()
        || name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::error_code link_ec;
    auto cwd = fs::read_symlink(e.path() / "cwd", link_ec);
    if (link_ec || cwd != dir)
      continue;
    auto pid = static_cast<pid_t>(std::stol(name));
    if (runs_as(pid, id))
      return pid;
  }
  return 0;
}

/// `dir` is a directory (not a symlink) of this user, private, whose
/// owner file names `owner`.
bool owned_by(const fs::path& dir, const std::string& owner) {
  struct stat st = {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)
      || st.st_uid != geteuid() || (st.st_mode & 077) != 0)
    return false;
  std::ifstream in{dir / "owner"};
  std::string text;
  std::getline(in, text);
  return !owner.empty() && text == owner;
}

} // namespace

local_provider::local_provider(local_provider_options opts)
    : opts_(std::move(opts)) {
  // This cluster's folder: the one its owner file names, else the first
  // free name, claimed by an exclusive mkdir (two masters starting at once
  // never take one folder). Anything else under work_dir is another's.
  std::error_code ec;
  auto base = fs::path{opts_.local.work_dir};
  auto name = util::safe_dir_name(opts_.cluster_id);
  auto nth = [&](int n) {
    return base / (n == 1 ? name : name + "." + std::to_string(n));
  };
  constexpr int max_folders = 100;
  for (int n = 1; n <= max_folders && dir_.empty(); ++n)
    if (owned_by(nth(n), opts_.owner))
      dir_ = nth(n).string();
  if (dir_.empty() && opts_.owner.empty())
    dir_error_ = "no owner id for this cluster's folder";
  else if (dir_.empty() && !util::make_private_dirs(base, ec))
    dir_error_ = "cannot create " + base.string() + ": " + ec.message();
  for (int n = 1; n <= max_folders && dir_.empty() && dir_error_.empty(); ++n) {
    auto d = nth(n);
    if (mkdir(d.c_str(), 0700) != 0) {
      if (errno == EEXIST)
        continue; // another cluster's (or being made by one)
      dir_error_ = "cannot create " + d.string() + ": " + std::strerror(errno);
      break;
    }
    std::ofstream out{d / "owner", std::ios::trunc};
    out << opts_.owner << "\n";
    out.close();
    if (!out)
      dir_error_ = "cannot write " + (d / "owner").string();
    else
      dir_ = d.string();
  }
  if (dir_.empty() && dir_error_.empty())
    dir_error_ = "every folder for cluster " + opts_.cluster_id + " under "
                 + base.string() + " belongs to another cluster";
  if (!dir_error_.empty())
    log::error() << "local provider of pool " << opts_.pool << ": "
                 << dir_error_;
  if (dir_.empty())
    return;
  auto prefix = "local-" + opts_.pool + "-";
  for (const auto& d : fs::directory_iterator(dir_, ec)) {
    auto id = d.path().filename().string();
    if (id.compare(0, prefix.size(), prefix) != 0)
      continue;
    std::ifstream in{d.path() / "pid"};
    long pid = 0;
    if (in >> pid && runs_as(static_cast<pid_t>(pid), id)) {
      procs_[id] = {static_cast<pid_t>(pid), false};
    } else if (auto found = process_in(d.path(), id); found > 0) {
      // Started, but its master died before writing the pid file: it is
      // ours (it works in our folder, as this id), not an unknown process
      // to be left running.
      procs_[id] = {found, false};
      std::ofstream{d.path() / "pid"} << found << "\n";
    }
  }
}

std::string local_provider::dir_of(const std::string& id) const {
  return (fs::path{dir_} / id).string();
}

std::string local_provider::agent_binary() const {
  // Absolute, from the master's working folder: the agent starts in a
  // folder of its own, where a relative path (a master started as
  // ./build/bin/det-master) names nothing. A bare name is searched in
  // PATH, after the master's own folder.
  std::error_code ec;
  const auto& b = opts_.local.agent_binary;
  if (b.find('/') != std::string::npos) {
    auto abs = fs::absolute(b, ec);
    return ec ? b : abs.lexically_normal().string();
  }
  if (opts_.bin_dir.empty())
    return b;
  auto beside = fs::absolute(fs::path{opts_.bin_dir} / b, ec);
  if (ec || !fs::exists(beside, ec))
    return b;
  return beside.lexically_normal().string();
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
  if (dir_.empty())
    return make_error(errc::remote_error, dir_error_);
  std::error_code ec;
  util::make_private_dirs(dir_of(id), ec);
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
  // The token first: an agent whose master dies right after starting it
  // is found by a next master with the launch it belongs to.
  std::ofstream{dir_of(id) + "/launch_token"} << token << "\n";
  auto pid = start_process(spec);
  if (!pid)
    return std::move(pid.error());
  std::ofstream{dir_of(id) + "/pid"} << *pid << "\n";
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
