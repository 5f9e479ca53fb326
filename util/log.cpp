#include "util/log.hpp"

#include "util/text.hpp"

#include <algorithm>

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

namespace det::log {

namespace {

// The level is ours (one atomic, read before a message is built); the
// spdlog logger passes everything it is given.
std::atomic<level> min_level{level::info};

spdlog::level::level_enum to_spdlog(level l) {
  switch (l) {
  case level::trace:
    return spdlog::level::trace;
  case level::debug:
    return spdlog::level::debug;
  case level::info:
    return spdlog::level::info;
  case level::warn:
    return spdlog::level::warn;
  case level::error:
    return spdlog::level::err;
  case level::critical:
    return spdlog::level::critical;
  }
  return spdlog::level::info;
}

std::shared_ptr<spdlog::logger> make_logger(const std::string& program,
                                            spdlog::sink_ptr sink) {
  sink->set_formatter(std::make_unique<spdlog::pattern_formatter>(
      "%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %n: %v", spdlog::pattern_time_type::utc));
  auto logger = std::make_shared<spdlog::logger>(program, std::move(sink));
  logger->set_level(spdlog::level::trace);
  // stderr is unbuffered, the ostream of a test is read after the fact:
  // flush every record so a crash right after a line keeps it.
  logger->flush_on(spdlog::level::trace);
  return logger;
}

// Replaced by init()/write_to() while other threads may log: the pointer
// is read and written with the atomic shared_ptr functions. Never
// destroyed, so a thread still running after main returns may log.
std::shared_ptr<spdlog::logger>& current() {
  static auto* logger = new std::shared_ptr<spdlog::logger>(
      make_logger("det", std::make_shared<spdlog::sinks::stderr_sink_mt>()));
  return *logger;
}

void replace(std::shared_ptr<spdlog::logger> logger) {
  std::atomic_store(&current(), std::move(logger));
}

// A record is one line whatever its text: a multi-line error (libpq's) or
// a name from a request cannot start a line that looks like a record of
// its own. Line breaks are written as \n and \r, other control characters
// as \xNN; trailing line breaks are dropped. A record longer than
// max_record_bytes is cut there, saying how much was left out, so a
// megabyte-long name from a client costs one short line.
std::string one_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.remove_suffix(1);
  size_t dropped = 0;
  if (text.size() > max_record_bytes) {
    dropped = text.size() - max_record_bytes;
    text = text.substr(0, max_record_bytes);
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    auto u = static_cast<unsigned char>(c);
    size_t n = u < 0x80 ? 1 : util::utf8_char_length(text, i);
    auto b1 = n > 1 ? static_cast<unsigned char>(text[i + 1]) : 0;
    auto b2 = n > 2 ? static_cast<unsigned char>(text[i + 2]) : 0;
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (u < 0x20 || u == 0x7f || n == 0) {
      // Control characters, and bytes that are not part of a character.
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 0xf];
    } else if (n == 2 && u == 0xC2 && b1 < 0xA0) {
      // C1 controls (U+0080..U+009F; U+0085 is a line break to some).
      out += "\\u00";
      out += hex[b1 >> 4];
      out += hex[b1 & 0xf];
    } else if (n == 3 && u == 0xE2 && b1 == 0x80
               && (b2 == 0xA8 || b2 == 0xA9)) {
      out += b2 == 0xA8 ? "\\u2028" : "\\u2029"; // line, paragraph separator
    } else
      out.append(text.substr(i, n));
    i += n == 0 ? 1 : n;
  }
  if (dropped > 0)
    out += " ... (" + std::to_string(dropped) + " more bytes)";
  return out;
}

} // namespace

std::optional<level> parse_level(std::string_view name) {
  if (name == "trace")
    return level::trace;
  if (name == "debug")
    return level::debug;
  if (name == "info")
    return level::info;
  if (name == "warn" || name == "warning")
    return level::warn;
  if (name == "error")
    return level::error;
  if (name == "critical" || name == "fatal" || name == "panic")
    return level::critical;
  return std::nullopt;
}

std::optional<std::string> set_level(std::string_view name) {
  auto l = parse_level(name);
  if (!l)
    return "unknown log level '" + std::string{name}
           + "' (expected trace, debug, info, warn, error or critical)";
  set_level(*l);
  return std::nullopt;
}

void set_level(level min) {
  min_level.store(min);
}

level current_level() {
  return min_level.load();
}

bool enabled(level l) {
  return static_cast<int>(l) >= static_cast<int>(min_level.load());
}

void init(const std::string& program, bool color) {
  if (color)
    replace(make_logger(program,
                        std::make_shared<spdlog::sinks::stderr_color_sink_mt>(
                            spdlog::color_mode::automatic)));
  else
    replace(make_logger(program,
                        std::make_shared<spdlog::sinks::stderr_sink_mt>()));
}

void write_to(std::ostream& out, const std::string& program) {
  replace(make_logger(
      program, std::make_shared<spdlog::sinks::ostream_sink_mt>(out, true)));
}

namespace {

struct history {
  std::mutex mu;
  std::deque<kept_record> records;
  int64_t next_id = 1;
};

history& kept() {
  static history h;
  return h;
}

void keep(level l, std::string text) {
  auto now = std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  auto& h = kept();
  std::lock_guard<std::mutex> g{h.mu};
  if (h.records.size() >= kept_records)
    h.records.pop_front();
  h.records.push_back({h.next_id++, now, l, std::move(text)});
}

std::atomic<tap_fn> the_tap{nullptr};
} // namespace

void set_tap(tap_fn tap) {
  the_tap.store(tap);
}

void write(level l, std::string_view message) {
  if (!enabled(l))
    return;
  struct tap_after {
    level l;
    std::string_view m;
    ~tap_after() {
      if (auto t = the_tap.load())
        t(l, m);
    }
  } tap{l, message};
  auto logger = std::atomic_load(&current());
  // The common case: short, plain ASCII, written as it is.
  bool clean = message.size() <= max_record_bytes
               && std::none_of(message.begin(), message.end(), [](char c) {
                    auto u = static_cast<unsigned char>(c);
                    return u < 0x20 || u >= 0x7f;
                  });
  std::string text = clean ? std::string{message} : one_line(message);
  logger->log(to_spdlog(l), "{}", text);
  keep(l, std::move(text));
}

std::vector<kept_record> recent(int64_t after_id, size_t limit) {
  auto& h = kept();
  std::lock_guard<std::mutex> g{h.mu};
  std::vector<kept_record> out;
  auto i = std::lower_bound(
      h.records.begin(), h.records.end(), after_id + 1,
      [](const kept_record& r, int64_t id) { return r.id < id; });
  for (; i != h.records.end() && (limit == 0 || out.size() < limit); ++i)
    out.push_back(*i);
  return out;
}

int64_t newest_id() {
  auto& h = kept();
  std::lock_guard<std::mutex> g{h.mu};
  return h.next_id - 1;
}

const char* name_of(level l) {
  switch (l) {
  case level::trace:
    return "trace";
  case level::debug:
    return "debug";
  case level::info:
    return "info";
  case level::warn:
    return "warn";
  case level::error:
    return "error";
  case level::critical:
    return "critical";
  }
  return "info";
}

} // namespace det::log
