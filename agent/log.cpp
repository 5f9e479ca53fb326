#include "agent/log.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace det::agent {

namespace {

std::atomic<int> min_level{static_cast<int>(log_level::info)};
std::mutex out_mu;

const char* name(log_level l) {
  switch (l) {
  case log_level::debug:
    return "DEBUG";
  case log_level::info:
    return "INFO";
  case log_level::warn:
    return "WARN";
  case log_level::error:
    return "ERROR";
  }
  return "INFO";
}

} // namespace

void set_log_level(std::string_view min) {
  auto l = log_level::info;
  if (min == "debug")
    l = log_level::debug;
  else if (min == "warn" || min == "warning")
    l = log_level::warn;
  else if (min == "error")
    l = log_level::error;
  min_level = static_cast<int>(l);
}

void log(log_level level, const std::string& message) {
  if (static_cast<int>(level) < min_level)
    return;
  auto now =
      std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::lock_guard<std::mutex> guard{out_mu};
  std::fprintf(stderr, "%s %s %s\n", stamp, name(level), message.c_str());
}

} // namespace det::agent
