#pragma once

// List-then-watch of one kind of object, as informers do it: list (the
// snapshot and its resourceVersion), then GET ...?watch=1&resourceVersion=
// RV&allowWatchBookmarks=true&timeoutSeconds=N and read the chunked stream
// of newline-delimited events {"type": ADDED|MODIFIED|DELETED|BOOKMARK|
// ERROR, "object": {...}}. Every event (bookmarks too) moves the cursor's
// resourceVersion; a stream that ends is resumed from it; an ERROR event
// with code 410 (Expired, "too old resource version") or a 410 answer means
// the history is gone: list again. The decisions (line splitting, cursor,
// what to do after an event) are pure and tested alone; watch_loop is the
// blocking driver, run on a thread of its own.

#include "k8s/resources.hpp"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace det::k8s {

/// Cuts a byte stream into lines (the chunks need not end at one). Lines
/// longer than `max_line` bytes are dropped whole (a hostile or broken
/// server cannot grow the buffer without bound) and counted.
class line_splitter {
public:
  explicit line_splitter(size_t max_line = 16u << 20) : max_(max_line) {}
  /// Calls `on_line` (without the '\n', '\r' trimmed) for each whole line.
  void feed(std::string_view chunk,
            const std::function<void(std::string_view)>& on_line);
  size_t dropped() const noexcept { return dropped_; }

private:
  std::string buf_;
  size_t max_;
  size_t dropped_ = 0;
  bool skipping_ = false;
};

struct watch_event {
  std::string type; ///< ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  nlohmann::json object;
};

/// The event on one line, or nullopt for a line that is not an event
/// (not JSON, no "type" string, no "object" object).
std::optional<watch_event> parse_watch_line(std::string_view line);

/// Where a watch is, and what an event means for it.
class watch_cursor {
public:
  enum class next { deliver, skip, relist };

  /// After a list: watch from its resourceVersion.
  void listed(std::string rv) { rv_ = std::move(rv); }
  /// ADDED/MODIFIED/DELETED: deliver (cursor moved); BOOKMARK: skip
  /// (cursor moved); ERROR 410 / Expired / Gone, or an ERROR without a
  /// code, or an unknown type: relist; other ERRORs: relist as well (the
  /// watch cannot go on from a cursor it no longer trusts).
  next on_event(const watch_event& ev);
  const std::string& resource_version() const noexcept { return rv_; }

private:
  std::string rv_;
};

/// The watch path for `k` in `ns` from `rv`.
std::string watch_path(const kind_path& k, const std::string& ns,
                       const std::string& label_selector, const std::string& rv,
                       int timeout_seconds);

struct watch_handlers {
  /// A full snapshot (after the first list and every re-list): the
  /// receiver replaces what it knew of this kind.
  std::function<void(const std::vector<nlohmann::json>&)> on_sync;
  std::function<void(const watch_event&)> on_event;
  /// Optional: "relist: 410 Expired", "stream error: ..." (for logs and
  /// counters).
  std::function<void(const std::string&)> on_note;
};

struct watch_options {
  std::string label_selector;
  int timeout_seconds = 300;
  /// Waits between failed attempts (util/backoff, capped).
  std::chrono::milliseconds base_delay{500};
  std::chrono::milliseconds max_delay{10'000};
  /// For tests: stop after this many list calls (0 = never).
  int max_lists = 0;
};

/// Lists and watches `k` in `ns` until `stop`; never throws. Each wait
/// between failures sleeps in steps of at most 100 ms so `stop` ends it
/// promptly.
void watch_loop(resources& res, const kind_path& k, const std::string& ns,
                const watch_options& opts, const watch_handlers& h,
                const std::atomic<bool>& stop);

/// Follows a pod's log (GET pods/NAME/log?follow=true&container=C), one
/// call per line, until the pod's container ends, `stop`, or an error
/// (returned). `since_seconds` > 0 resumes without repeating much.
[[nodiscard]] caf::error
follow_pod_log(api_client& client, const std::string& ns,
               const std::string& pod, const std::string& container,
               const std::function<void(std::string_view)>& on_line,
               const std::atomic<bool>& stop, int since_seconds = 0);

} // namespace det::k8s
