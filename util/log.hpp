#pragma once

// The log of a long-running program (det-master, det-agent): one line per
// record on stderr,
//
//   2025-01-02T03:04:05.678Z info det-master: agent a1 connected (pool x)
//
// the UTC time with milliseconds, the level (trace, debug, info, warning,
// error, critical), the program's name and the message (line breaks in it
// escaped as \n, other control characters as \xNN, cut after
// max_record_bytes). Records below the
// minimum level (info until set_level) are dropped. Any thread may log at
// any time: each line is written whole (spdlog's locked stderr sink), so
// lines of different threads never interleave. Before init() records go to
// stderr under the name "det".
//
// Callers never pass secrets (tokens, passwords, AWS keys) in a message.
//
//   det::log::info() << "agent " << id << " connected";
//
// The message is built only when its level is enabled.

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace det::log {

enum class level { trace, debug, info, warn, error, critical };

/// The longest message a record keeps; the rest is dropped, with a note of
/// how many bytes.
inline constexpr size_t max_record_bytes = 4096;

/// The level named `name`: "trace", "debug", "info", "warn", "error",
/// "critical", and Determined's spellings "warning" (warn), "fatal" and
/// "panic" (critical). nullopt for anything else (case matters).
[[nodiscard]] std::optional<level> parse_level(std::string_view name);

/// Sets the minimum level by name. An unknown name leaves the level as it
/// is and returns the reason, naming the value: "unknown log level 'loud'
/// (expected trace, debug, info, warn, error or critical)".
[[nodiscard]] std::optional<std::string> set_level(std::string_view name);
void set_level(level min);
[[nodiscard]] level current_level();
[[nodiscard]] bool enabled(level l);

/// Logs program `program` to stderr from now on, keeping the level; with
/// `color`, levels are colored when stderr is a terminal. Called by main
/// before it starts threads.
void init(const std::string& program, bool color = false);

/// Logs to `out` instead (for tests), same format and level; `out` must
/// outlive the log or the next init()/write_to().
void write_to(std::ostream& out, const std::string& program);

/// A copy of every record written from now on (the CloudWatch log shipper
/// takes the program's own lines this way): called on the logging thread
/// after the line is written, with the level and the message as given
/// (not yet escaped or cut). It must not block or log; nullptr removes it.
using tap_fn = void (*)(level l, std::string_view line);
void set_tap(tap_fn tap);

/// One record (no trailing newline needed). Line breaks inside `message`
/// are written as the two characters \n (\r) and other control characters
/// as \xNN, so a record stays one line; past max_record_bytes it is cut.
void write(level l, std::string_view message);

/// A record as the program's recent history keeps it (det master logs).
struct kept_record {
  int64_t id = 0; ///< 1, 2, ... in the order written; never reused
  int64_t at_us = 0;
  level lvl = level::info;
  std::string message; ///< one line, as written
};

/// The most records the recent history keeps (older ones are dropped).
inline constexpr size_t kept_records = 2000;

/// Records written since the program started with id > `after_id`, oldest
/// first, at most `limit` (0 = all kept); only those at or above the level
/// set when they were written are there.
[[nodiscard]] std::vector<kept_record> recent(int64_t after_id,
                                              size_t limit = 0);

/// The id of the newest kept record (0 before the first).
[[nodiscard]] int64_t newest_id();

/// "info", "warn", ...
[[nodiscard]] const char* name_of(level l);

/// A record built with <<, written when the full expression ends.
class record {
public:
  explicit record(level l) : level_(l) {
    if (enabled(l))
      text_.emplace();
  }
  record(const record&) = delete;
  record& operator=(const record&) = delete;
  ~record() {
    if (text_)
      write(level_, text_->str());
  }

  template <class T> record& operator<<(const T& value) {
    if (text_)
      *text_ << value;
    return *this;
  }

private:
  level level_;
  std::optional<std::ostringstream> text_;
};

inline record trace() {
  return record{level::trace};
}
inline record debug() {
  return record{level::debug};
}
inline record info() {
  return record{level::info};
}
inline record warn() {
  return record{level::warn};
}
inline record error() {
  return record{level::error};
}
inline record critical() {
  return record{level::critical};
}

} // namespace det::log
