#pragma once

// Where the log shipper keeps the journald cursor of the last event
// CloudWatch has accepted, so a restarted det-master or det-agent resumes
// right after it: nothing sent twice, nothing skipped. save() replaces the
// file atomically (write a temporary file, fsync, rename), so a crash
// leaves the old cursor or the new one, never half of one. Used by the
// shipper's thread only.

#include <caf/error.hpp>

#include <string>

namespace det::telemetry {

class cursor_store {
public:
  virtual ~cursor_store() = default;
  /// The saved cursor; "" when none was saved.
  virtual std::string load() = 0;
  [[nodiscard]] virtual caf::error save(const std::string& cursor) = 0;
};

class cursor_file final : public cursor_store {
public:
  explicit cursor_file(std::string path) : path_(std::move(path)) {}
  std::string load() override;
  caf::error save(const std::string& cursor) override;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

} // namespace det::telemetry
