#pragma once

// journald as a log source: runs
//   journalctl -o json --no-tail -f --after-cursor CURSOR   (resuming)
//   journalctl -o json --no-tail -f -b                      (first start)
// and turns each JSON line into a log event for the shipper, waiting while
// the shipper's queue is full (the journal keeps what we have not read).
// If journalctl ends (it was killed, the journal rotated under it), it is
// started again after `restart_delay` from the cursor of the last entry
// read.
//
// Why journalctl and not libsystemd's sd-journal: the output format
// (`-o json`) is a documented, stable interface, we need no new library to
// link into det-master (the .deb depends on systemd already), and a test
// can put a fake journalctl on PATH where journald does not run, as in
// this container.

#include "policy/log_batch.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace det::telemetry {

/// One line of `journalctl -o json` as a log event: timestamp from
/// __REALTIME_TIMESTAMP (microseconds), cursor from __CURSOR, message
/// "IDENT[PID]: MESSAGE" (IDENT is SYSLOG_IDENTIFIER, else _COMM, else
/// _SYSTEMD_UNIT; MESSAGE given as a byte array is decoded). nullopt for a
/// line that is not such an entry (no cursor or no timestamp).
[[nodiscard]] std::optional<policy::queued_log_event>
parse_journal_entry(std::string_view line);

/// The journalctl command line for `cursor` ("" = from this boot).
std::vector<std::string> journalctl_argv(const std::string& journalctl,
                                         const std::string& cursor);

struct journald_options {
  std::string journalctl = "journalctl";
  std::chrono::milliseconds restart_delay{5'000};
};

class journald_source {
public:
  /// `push` hands an event to the shipper, waiting while its queue is full;
  /// it returns false when told to stop (see log_shipper::push_wait).
  using push_fn = std::function<bool(policy::queued_log_event,
                                     const std::atomic<bool>& cancel)>;

  journald_source(journald_options opts, std::string start_cursor,
                  push_fn push);
  ~journald_source();
  journald_source(const journald_source&) = delete;
  journald_source& operator=(const journald_source&) = delete;

  void start();
  void stop();

  /// Entries handed to the shipper so far.
  int64_t entries() const { return entries_.load(); }

private:
  void run();

  journald_options opts_;
  std::string cursor_;
  push_fn push_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> entries_{0};
  std::thread thread_;
};

} // namespace det::telemetry
