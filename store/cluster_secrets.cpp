// libpqxx stays inside this file; its exceptions are converted here.

#include "store/cluster_secrets.hpp"

#include "messages/errc.hpp"

#include <pqxx/pqxx>

namespace det {

caf::expected<std::string>
pg_cluster_secret(const std::string& url, const std::string& name,
                  const std::function<std::string()>& generate) {
  try {
    pqxx::connection conn{url};
    pqxx::work tx{conn};
    // Two masters starting at once: one INSERT wins, both read its value.
    tx.exec_params("INSERT INTO cluster_secrets (name, value) VALUES ($1, $2) "
                   "ON CONFLICT (name) DO NOTHING",
                   name, generate());
    auto r = tx.exec_params("SELECT value FROM cluster_secrets WHERE name = $1",
                            name);
    tx.commit();
    if (r.empty())
      return make_error(errc::store_unavailable,
                        "cluster secret '" + name + "' was not stored");
    return r[0][0].as<std::string>();
  } catch (const std::exception& e) {
    return make_error(errc::store_unavailable,
                      "cluster secret '" + name + "': " + e.what());
  }
}

} // namespace det
