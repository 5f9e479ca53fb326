#pragma once

// Experiments' model definitions (the .tar.gz of the model directory, kept
// as base64 text). Not part of the event log: an experiment_submitted event
// names its experiment, and the model definition is stored under that id
// once, right after. put() of an id that already has one is accepted when
// the bytes are equal (a retried submit) and refused with errc::conflict
// otherwise. get() of an unknown id fails with errc::not_found.
// A task's context directory is kept the same way under its task id
// (put_context, get_context), stored before its task_launched event.
//
// Not thread-safe: one owner (the master's model_def actor, a detached
// thread, because the PostgreSQL store blocks).

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace det {

class model_def_store {
public:
  virtual ~model_def_store();
  [[nodiscard]] virtual caf::error put(int64_t experiment_id,
                                       const std::string& tgz_b64) = 0;
  [[nodiscard]] virtual caf::expected<std::string>
  get(int64_t experiment_id) = 0;
  [[nodiscard]] virtual caf::error put_context(const std::string& task_id,
                                               const std::string& tgz_b64) = 0;
  [[nodiscard]] virtual caf::expected<std::string>
  get_context(const std::string& task_id) = 0;
};

/// For tests and for a master without a database.
class memory_model_def_store : public model_def_store {
public:
  caf::error put(int64_t experiment_id, const std::string& tgz_b64) override;
  caf::expected<std::string> get(int64_t experiment_id) override;
  caf::error put_context(const std::string& task_id,
                         const std::string& tgz_b64) override;
  caf::expected<std::string> get_context(const std::string& task_id) override;

private:
  std::map<int64_t, std::string> defs_;
  std::map<std::string, std::string> contexts_;
};

/// Opens its own connection to `url` (the schema must already be migrated:
/// pg_event_store::open does that). Fails with errc::store_unavailable.
/// A lost connection is reopened on the next call.
[[nodiscard]] caf::expected<std::unique_ptr<model_def_store>>
open_pg_model_def_store(const std::string& url);

} // namespace det
