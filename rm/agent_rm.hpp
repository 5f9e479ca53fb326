#pragma once

// resource_manager: {type: agent}: det-agents connect to the API's
// WebSocket (api/agent_ws.hpp) and run the trials; this manager starts the
// provisioners that bring them: for each local pool, det-agent processes
// on this host (provision/local_provider.hpp); for each aws pool, EC2
// instances (provision/aws_provider.hpp) on a shared executor of four
// threads. A static pool (no provider) needs nothing started. An aws pool
// whose provider cannot be made is logged and skipped, as before; the
// cluster's host-owner id that local pools need is the one failure of
// start. stop() sends the provisioners an exit and joins the executor.

#include "rm/resource_manager.hpp"

#include <memory>

namespace det::rm {

std::unique_ptr<resource_manager> make_agent_rm(const conf::master_config& cfg,
                                                conf::provisioner_env env);

} // namespace det::rm
