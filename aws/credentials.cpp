#include "aws/credentials.hpp"

namespace det::aws {

std::string describe(const credentials& creds) {
  const auto& id = creds.access_key_id;
  std::string shown = id.size() > 8
                          ? id.substr(0, 4) + "..." + id.substr(id.size() - 4)
                          : std::string(id.empty() ? "(empty key id)" : "****");
  shown += " from ";
  shown += creds.source.empty() ? "unknown source" : creds.source;
  if (!creds.session_token.empty())
    shown += " (temporary)";
  return shown;
}

} // namespace det::aws
