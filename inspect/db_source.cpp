#include "inspect/source.hpp"
#include "store/pg_event_store.hpp"
#include "store/recovery.hpp"

namespace det::inspect_cli {

namespace {

/// Rebuilds the current state once (newest snapshot + the events after
/// it, as the master does at start-up) and answers views from it.
class db_source : public source {
public:
  explicit db_source(std::unique_ptr<pg_event_store> log)
      : log_(std::move(log)) {}

  caf::expected<nlohmann::json> view(inspection::view_kind k) override {
    if (!current_) {
      auto st = recover(*log_, true);
      if (!st)
        return std::move(st.error());
      current_ = std::move(*st);
    }
    return inspection::view(*current_, k);
  }

  caf::expected<nlohmann::json>
  events(const inspection::event_filter& f) override {
    return inspection::query_events(*log_, f);
  }

  caf::expected<state::cluster_state>
  state(std::optional<int64_t> at) override {
    if (!at)
      return recover(*log_, true);
    return inspection::state_at(*log_, *at);
  }

private:
  std::unique_ptr<pg_event_store> log_;
  std::optional<state::cluster_state> current_;
};

} // namespace

caf::expected<std::unique_ptr<source>> make_db_source(const std::string& url) {
  pg_store_options o;
  o.url = url;
  o.lock = lock_policy::reader;
  o.migrate = false;
  auto log = pg_event_store::open(o);
  if (!log)
    return std::move(log.error());
  return std::unique_ptr<source>{std::make_unique<db_source>(std::move(*log))};
}

} // namespace det::inspect_cli
