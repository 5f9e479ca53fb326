// The PostgreSQL model_def_store (table model_definitions, migration 002;
// task_contexts, migration 004).
// Like pg_event_store, libpqxx stays inside this file; its exceptions are
// converted here.

#include "messages/errc.hpp"
#include "store/model_def_store.hpp"

#include <pqxx/pqxx>

#include <optional>

namespace det {

namespace {

class pg_model_def_store : public model_def_store {
public:
  explicit pg_model_def_store(std::string url) : url_(std::move(url)) {}

  caf::error connect() {
    try {
      conn_ = std::make_unique<pqxx::connection>(url_);
      return {};
    } catch (const std::exception& e) {
      conn_.reset();
      return make_error(errc::store_unavailable,
                        std::string{"model definitions: "} + e.what());
    }
  }

  caf::error put(int64_t experiment_id, const std::string& tgz_b64) override {
    return put_once(
        get(experiment_id), tgz_b64,
        "experiment " + std::to_string(experiment_id)
            + " already has another model definition",
        [&](pqxx::work& tx) {
          tx.exec_params(
              "INSERT INTO model_definitions (experiment_id, tgz_b64) "
              "VALUES ($1, $2) ON CONFLICT DO NOTHING",
              experiment_id, tgz_b64);
        });
  }

  caf::expected<std::string> get(int64_t experiment_id) override {
    std::optional<std::string> out;
    auto err = run([&](pqxx::work& tx) {
      auto r = tx.exec_params(
          "SELECT tgz_b64 FROM model_definitions WHERE experiment_id = $1",
          experiment_id);
      if (!r.empty())
        out = r[0][0].as<std::string>();
    });
    if (err)
      return err;
    if (!out)
      return make_error(errc::not_found, "experiment "
                                             + std::to_string(experiment_id)
                                             + " has no model definition");
    return *out;
  }

  caf::error put_context(const std::string& task_id,
                         const std::string& tgz_b64) override {
    return put_once(get_context(task_id), tgz_b64,
                    "task " + task_id + " already has another context",
                    [&](pqxx::work& tx) {
                      tx.exec_params("INSERT INTO task_contexts (task_id, "
                                     "tgz_b64) VALUES ($1, $2) ON CONFLICT "
                                     "DO NOTHING",
                                     task_id, tgz_b64);
                    });
  }

  caf::expected<std::string> get_context(const std::string& task_id) override {
    std::optional<std::string> out;
    auto err = run([&](pqxx::work& tx) {
      auto r = tx.exec_params(
          "SELECT tgz_b64 FROM task_contexts WHERE task_id = $1", task_id);
      if (!r.empty())
        out = r[0][0].as<std::string>();
    });
    if (err)
      return err;
    if (!out)
      return make_error(errc::not_found, "task " + task_id + " has no context");
    return *out;
  }

private:
  /// Inserts with `insert` unless `existing` holds the same bytes (a
  /// retried call) or other bytes (errc::conflict, `conflict`).
  template <class F>
  caf::error put_once(caf::expected<std::string> existing,
                      const std::string& tgz_b64, const std::string& conflict,
                      F&& insert) {
    if (existing)
      return *existing == tgz_b64 ? caf::error{}
                                  : make_error(errc::conflict, conflict);
    if (existing.error() != errc::not_found)
      return std::move(existing.error());
    return run(std::forward<F>(insert));
  }

  template <class F> caf::error run(F&& f) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!conn_ || !conn_->is_open())
        if (auto err = connect())
          return err;
      try {
        pqxx::work tx{*conn_};
        f(tx);
        tx.commit();
        return {};
      } catch (const pqxx::broken_connection&) {
        conn_.reset(); // retry once on a fresh connection
      } catch (const std::exception& e) {
        return make_error(errc::store_unavailable,
                          std::string{"model definitions: "} + e.what());
      }
    }
    return make_error(errc::store_unavailable,
                      "model definitions: connection lost");
  }

  std::string url_;
  std::unique_ptr<pqxx::connection> conn_;
};

} // namespace

caf::expected<std::unique_ptr<model_def_store>>
open_pg_model_def_store(const std::string& url) {
  auto s = std::make_unique<pg_model_def_store>(url);
  if (auto err = s->connect())
    return err;
  return std::unique_ptr<model_def_store>{std::move(s)};
}

} // namespace det
