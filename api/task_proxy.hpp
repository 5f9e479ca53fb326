#pragma once

// The master's proxy to tasks' services, `/proxy/{task id}/...`: who may
// pass and where to (the bytes are moved by http/proxy.hpp).
//
// Credentials, in order: the master's session ("Authorization: Bearer
// <token>" or the `auth` cookie the WebUI's login sets), else the task's
// notebook token (`?token=` or "Authorization: token <t>", valid for its
// own notebook only). Neither: 303 to the login page for a plain GET
// (browsers), 401 otherwise. Closed where upstream is open: only the
// task's owner and admins pass; anyone else, like a task that does not
// exist, is not ready or has no service, gets 404 "service not found",
// so nothing tells them the task exists. The backend is where the task's
// ready call said its service listens (task_ready's proxy_host and
// proxy_port).
//
// Shells are upstream's exception: their sshd is reached by TCP over
// WebSocket (`python -m determined.cli.tunnel`, which sends no
// credentials) and authenticates by the shell's key itself, so a
// WebSocket upgrade to a ready shell passes without credentials; an
// anonymous request to anything else, existing or not, is answered 401
// (303 for a browser's GET) alike.
//
// A task's other ports (environment.proxy_ports) are services
// "/proxy/<id>:<port>/...": only a port the task declared, while it runs,
// for its owner and admins (anyone, if declared `unauthenticated`), raw TCP
// if declared `proxy_tcp`; reached where the task reported itself ready
// from, else on its agent's address (api/agent_addresses.hpp). The
// notebook token opens the notebook's own service only.

#include "api/api_context.hpp"
#include "api/task_views.hpp"
#include "http/proxy.hpp"
#include "http/router.hpp"

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace det::api {

/// The resolver to install with http_server::add_proxy("/proxy/", ...).
http::proxy_resolver
task_proxy_resolver(std::shared_ptr<const api_context> ctx);

/// The service of a proxy path: "/proxy/<id>[/...]" is the task's own
/// (port 0), "/proxy/<id>:<port>[/...]" one of its environment.proxy_ports
/// (1..65535); nullopt for anything else.
std::optional<std::pair<std::string, int32_t>>
proxy_service(const std::string& path);

/// The task id of a proxy path "/proxy/<id>[:<port>][/...]", or nullopt.
std::optional<std::string> proxy_task_id(const std::string& path);

/// Task `task_id`'s notebook token: Jupyter's token, and a credential for
/// /proxy/<task_id>/ alone. Derived from the master's secret, so it
/// survives a restart and is stored nowhere.
std::string notebook_token(const session_tokens& tokens,
                           const std::string& task_id);

/// What task allocation `o`'s process is given (api/task_views.hpp): its
/// allocation's token, its owner's, a notebook's token and a shell's
/// public key. The same for a det-agent's start frame and a Kubernetes
/// Job's.
task_secrets task_secrets_for(const session_tokens& tokens,
                              const task_start_order& o);

/// The value of cookie `name` in a Cookie header, or "".
std::string cookie_value(const std::string& header, const std::string& name);

} // namespace det::api
