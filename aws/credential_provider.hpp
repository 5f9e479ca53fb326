#pragma once

// Where signing keys come from. Implementations: fixed keys (tests, config
// files), and the default chain in credential_chain.hpp (environment, shared
// files, instance role).

#include "aws/credentials.hpp"

#include <caf/expected.hpp>

#include <memory>

namespace det::aws {

class credential_provider {
public:
  virtual ~credential_provider() = default;

  /// Current credentials, refreshed when they are about to expire.
  /// Thread-safe. Fails with errc::not_found naming every source tried when
  /// none has credentials, or with the error of the source that failed.
  [[nodiscard]] virtual caf::expected<credentials> get() = 0;
};

/// Always the same keys.
std::shared_ptr<credential_provider> make_static_credentials(credentials creds);

} // namespace det::aws
