#pragma once

// environment.proxy_ports of an experiment's or a task's config: the other
// ports of its process that the master's proxy reaches, as upstream's
// `/proxy/<task id>:<port>/` services. Each entry is
// {proxy_port: 1..65535, proxy_tcp: bool (raw TCP over a WebSocket, as a
// shell's), unauthenticated: bool (no session asked), default_service_port:
// bool (accepted; the task's own service stays its default)}. Pure.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det::conf {

struct proxy_port {
  int32_t port = 0;
  bool tcp = false;
  bool unauthenticated = false;
};

/// At most this many entries.
inline constexpr size_t max_proxy_ports = 16;

/// The entries of `environment` (an environment object; absent or null
/// proxy_ports: none), or nothing and `why` naming the field
/// ("environment.proxy_ports[1].proxy_port: expected a whole number from 1
/// to 65535"). A port listed twice is refused.
[[nodiscard]] std::optional<std::vector<proxy_port>>
read_proxy_ports(const nlohmann::json& environment, std::string& why);

/// The declared entry of `port` in `environment`, if any (entries that do
/// not read are none).
[[nodiscard]] std::optional<proxy_port>
declared_proxy_port(const nlohmann::json& environment, int32_t port);

} // namespace det::conf
