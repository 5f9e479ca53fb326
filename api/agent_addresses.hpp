#pragma once

// Where each connected det-agent is: the peer address of its WebSocket
// (/agents/ws), kept in memory only (a restarted master learns them again
// as its agents reconnect). The proxy reaches a task's other ports
// (environment.proxy_ports, `/proxy/<task id>:<port>/`) on its agent's
// address. Thread-safe: the agent channel writes on I/O threads, the proxy
// reads on the bridge's.

#include <map>
#include <mutex>
#include <string>

namespace det::api {

class agent_address_book {
public:
  void set(const std::string& agent_id, const std::string& address) {
    std::lock_guard<std::mutex> g{mu_};
    if (by_agent_.size() < max_agents || by_agent_.count(agent_id) != 0)
      by_agent_[agent_id] = address;
  }

  /// The address of `agent_id`, or "" when none is known.
  std::string get(const std::string& agent_id) const {
    std::lock_guard<std::mutex> g{mu_};
    auto i = by_agent_.find(agent_id);
    return i == by_agent_.end() ? std::string{} : i->second;
  }

  /// Bounded: agents beyond it are not reachable by their other ports.
  static constexpr size_t max_agents = 100000;

private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> by_agent_;
};

} // namespace det::api
