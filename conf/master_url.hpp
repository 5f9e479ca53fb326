#pragma once

// The master's address as agents are told it: provider.master_url in
// master.yaml, master_url in agent.yaml, DET_MASTER. The host may be an EC2
// metadata alias (local-ipv4, public-ipv4, local-hostname, public-hostname;
// seeds also write them as ec2.local-ipv4) that the master resolves through
// IMDS at start-up: conf/ only recognises the alias, it does no I/O.

#include "messages/errc.hpp"

#include <caf/expected.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace det::conf {

enum class host_alias {
  none,
  local_ipv4,
  public_ipv4,
  local_hostname,
  public_hostname,
};

/// "local-ipv4", ... ("" for none).
const char* to_string(host_alias x);

struct master_address {
  std::string scheme = "http";
  std::string host;
  uint16_t port = 8080;
  host_alias alias = host_alias::none;

  /// "http://host:port", with the alias name as host when there is one.
  std::string to_url() const;
};

/// Parses "[scheme://]host[:port]". A missing scheme or port takes the
/// defaults given; "ec2.<alias>" is normalised to "<alias>". Fails with
/// errc::invalid_argument (without the field name; the caller adds it) on a
/// scheme other than http/https, a path, an empty host or a bad port.
[[nodiscard]] caf::expected<master_address>
parse_master_url(std::string_view text, std::string default_scheme = "http",
                 uint16_t default_port = 8080);

} // namespace det::conf
