#pragma once

// Rendered JSON fragments of one read replica's records (an experiment's
// row in GET /api/v1/experiments, an agent's in GET /api/v1/agents), so a
// page is a concatenation of texts instead of a render of every row, and a
// gzip answer one of rows compressed once. The replica drops a record's
// fragment when an event touches that record (touched_records below),
// before any read sees the new state. Owned by one replica and used only on
// its thread: no locks.

#include "messages/events.hpp"
#include "state/cluster_state.hpp"
#include "util/gzip.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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

/// One rendered row: its JSON text, and that text deflated once the first
/// gzip answer needs it (util/gzip.hpp).
struct row {
  std::string text;
  std::optional<gzip::piece> deflated;

  const gzip::piece& compressed() {
    if (!deflated)
      deflated = gzip::compress(text);
    return *deflated;
  }
};

class fragments {
public:
  /// Experiment `id`'s row, rendered by `render` when absent.
  row& experiment(int64_t id, const std::function<std::string()>& render);
  /// Agent `id`'s row, rendered by `render` when absent.
  row& agent(const std::string& id, const std::function<std::string()>& render);

  /// Which rows a whole answer is made of.
  enum class rows_of { experiments, agents };

  /// The answer kept under `key`, or the one `build` makes (and is kept)
  /// when no row of its kind changed since it was kept. A list read again
  /// while nothing in it changed costs no copy: the text is shared with
  /// the responses that carry it (http_response::shared_body), and lives
  /// on in them after it is dropped here.
  std::shared_ptr<const std::string>
  answer(rows_of kind, const std::string& key,
         const std::function<std::string()>& build);

  /// Forgets what `t` names, and the answers made of such rows.
  void drop(const touched& t);

  [[nodiscard]] size_t size() const {
    return experiments_.size() + agents_.size();
  }

private:
  std::unordered_map<int64_t, row> experiments_;
  std::unordered_map<std::string, row> agents_;
  /// Whole answers by key, per kind, and the bytes they hold (bounded).
  std::unordered_map<std::string, std::shared_ptr<const std::string>>
      answers_[2];
  size_t answer_bytes_[2] = {0, 0};
};

} // namespace det::read
