#pragma once

// Secrets a cluster generates once and keeps (table cluster_secrets,
// migration 003): the agent token when master.yaml sets none, the key of
// trials' session tokens; and one value that is not secret but must be
// this cluster's alone, its identity on shared hosts (`host_owner`, the
// owner of its local pools' folders). The first master to ask for a name stores
// `generate()`; every later ask, by it or by any master on the same
// database, gets that stored value. Never written to the event log.

#include <caf/expected.hpp>

#include <functional>
#include <string>

namespace det {

/// The secret `name` of the cluster whose database is `url` (the schema
/// must already be migrated: pg_event_store::open does that), creating it
/// with `generate()` if it has none. Fails with errc::store_unavailable.
[[nodiscard]] caf::expected<std::string>
pg_cluster_secret(const std::string& url, const std::string& name,
                  const std::function<std::string()>& generate);

} // namespace det
