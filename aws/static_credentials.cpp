#include "aws/credential_provider.hpp"

namespace det::aws {

namespace {

class static_credentials final : public credential_provider {
public:
  explicit static_credentials(credentials creds) : creds_(std::move(creds)) {}

  caf::expected<credentials> get() override { return creds_; }

private:
  credentials creds_;
};

} // namespace

std::shared_ptr<credential_provider>
make_static_credentials(credentials creds) {
  if (creds.source.empty())
    creds.source = "static configuration";
  return std::make_shared<static_credentials>(std::move(creds));
}

} // namespace det::aws
