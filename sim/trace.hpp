#pragma once

// Job traces for det-sim: one job is a gang of `gpus` GPUs that runs for
// `duration_s` once placed, submitted at `submit_s` (seconds from the start
// of the trace), in fair-share group `group` ("" = none). Readers for the
// three public formats the simulator accepts and for a generic CSV:
//
//   generic  submit, duration, gpus[, group]        (a header line optional)
//   itp      job_id, submission_time, duration, num_gpu   (ElasticFlow ITP)
//   philly   timestamp, duration, num_gpus, gpu_time, cluster  (Pollux's
//            Philly; timestamp "YYYY-MM-DD hh:mm:ss" UTC, cluster = group)
//
// Pure text in, jobs out; files are read by load_trace (plain, .gz, or one
// member of a .tar.gz as "archive.tar.gz:member.csv"). A malformed line
// fails the whole read with an error naming the line; jobs with no GPUs or
// no duration are skipped and counted, since they cost nothing.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace det::sim {

struct job {
  int64_t submit_s = 0;
  int64_t duration_s = 0;
  int gpus = 1;
  std::string group;
};

enum class trace_format { generic, itp, philly };

struct trace {
  std::vector<job> jobs; ///< sorted by submit_s (stable)
  size_t skipped = 0;    ///< lines without GPUs or duration
  /// philly: epoch seconds of submit_s == 0; others 0.
  int64_t origin_epoch_s = 0;
};

/// Parses `text` in `format`. On a malformed line returns false with
/// `error` naming the line number.
[[nodiscard]] bool parse_trace(std::string_view text, trace_format format,
                               trace& out, std::string& error);

/// Reads `spec` (a path, a .gz path, or "x.tar.gz:member") and parses it.
[[nodiscard]] bool load_trace(const std::string& spec, trace_format format,
                              trace& out, std::string& error);

/// The jobs submitted in [from_s, to_s), shifted so from_s becomes 0.
[[nodiscard]] trace slice(const trace& t, int64_t from_s, int64_t to_s);

/// Seconds since 1970 of a UTC "YYYY-MM-DD hh:mm:ss"; -1 when malformed.
[[nodiscard]] int64_t parse_utc(std::string_view text);

} // namespace det::sim
