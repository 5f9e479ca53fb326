#pragma once

// Gzipped tar archives in memory, through libarchive: the master packs a
// submitted model directory into one, det-agent unpacks it into a trial's
// working directory. Both run wherever blocking is allowed (a detached
// actor, a worker thread); neither starts a process.
//
// unpack_tgz() refuses what a hostile archive could do to the machine: an
// absolute path, a path through "..", an entry through a symlink, device
// files, and set-user-id bits (libarchive's ARCHIVE_EXTRACT_SECURE_* flags).

#include <cstdint>
#include <string>
#include <vector>

namespace det::util {

struct archive_file {
  /// Relative path inside the archive ("model/train.py").
  std::string path;
  bool directory = false;
  /// File contents (ignored for directories).
  std::string content;
  /// Permission bits (0777 mask applied).
  int mode = 0644;
};

/// The gzipped tar of `files`, or "" with `error` set (never throws).
[[nodiscard]] std::string make_tgz(const std::vector<archive_file>& files,
                                   std::string& error);

/// Unpacks gzipped tar bytes into `dir` (created if missing). Returns ""
/// on success, otherwise why it stopped (the entry it refused, or
/// libarchive's message).
[[nodiscard]] std::string unpack_tgz(const std::string& tgz,
                                     const std::string& dir);

/// The entries of gzipped tar bytes, contents included (tests, and the
/// master's model-definition reply). "" error on success.
[[nodiscard]] std::vector<archive_file> read_tgz(const std::string& tgz,
                                                 std::string& error);

} // namespace det::util
