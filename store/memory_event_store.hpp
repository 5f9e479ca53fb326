#pragma once

// An event_store in memory, with the same semantics as pg_event_store
// (contiguous positions, per-stream optimistic concurrency, atomic requests,
// snapshot checksums). For unit tests of the code above the store; nothing
// survives the object.

#include "store/event_store.hpp"

#include <map>
#include <unordered_map>

namespace det {

class memory_event_store : public event_store {
public:
  std::vector<caf::expected<append_result>>
  append_many(const std::vector<append_request>& requests) override;
  caf::error read(const read_options& opts,
                  const event_visitor& visit) override;
  caf::error read_fields(const field_query& q,
                         const fields_visitor& visit) override;
  caf::expected<int64_t> last_position() override;
  caf::expected<int64_t> stream_version(const std::string& stream) override;
  caf::error save_snapshot(const snapshot& snap) override;
  caf::expected<std::optional<snapshot>>
  latest_snapshot(int64_t at_most) override;
  caf::expected<std::vector<int64_t>> snapshot_positions() override;
  caf::error prune_snapshots(size_t keep) override;

  /// Test hook: makes the next append_many fail as an unreachable store.
  void fail_next_append() { fail_next_ = true; }

  /// Test hook: flips a byte of the snapshot at `position`, as a disk would.
  void corrupt_snapshot(int64_t position);

private:
  std::vector<recorded_event> events_;
  std::unordered_map<std::string, int64_t> versions_;
  std::map<int64_t, std::pair<snapshot, std::string>> snapshots_;
  bool fail_next_ = false;
};

} // namespace det
