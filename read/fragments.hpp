#pragma once

// Rendered JSON fragments of one read replica's records (an experiment's
// row in GET /api/v1/experiments, an agent's in GET /api/v1/agents), so a
// page is a concatenation of texts instead of a render of every row. The
// replica drops a record's fragment when an event touches that record
// (touched_records below), before any read sees the new state. Owned by one
// replica and used only on its thread: no locks.

#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>

namespace det::read {

/// The records whose rendered rows an event may change.
struct touched {
  std::set<int64_t> experiments;
  std::set<std::string> agents;
  /// The event may change any row (it names no record we can follow).
  bool everything = false;
};

/// Adds to `out` what `ev` touches in `s`. Call it with the state before
/// the event and again after it (a trial's allocation moves agents).
void touched_records(const state::cluster_state& s, const domain_event& ev,
                     touched& out);

class fragments {
public:
  /// The text of experiment `id`'s row, rendered by `render` when absent.
  const std::string& experiment(int64_t id,
                                const std::function<std::string()>& render);
  /// The text of agent `id`'s row, rendered by `render` when absent.
  const std::string& agent(const std::string& id,
                           const std::function<std::string()>& render);

  /// Forgets what `t` names.
  void drop(const touched& t);

  [[nodiscard]] size_t size() const {
    return experiments_.size() + agents_.size();
  }

private:
  std::unordered_map<int64_t, std::string> experiments_;
  std::unordered_map<std::string, std::string> agents_;
};

} // namespace det::read
