#pragma once

// The Prometheus text exposition format (version 0.0.4) as plain data and
// one encoder. A family is a metric name with its HELP, TYPE and samples;
// the encoder writes "# HELP", "# TYPE" and one line per sample, escaping
// label values (\\, \", \n) and HELP text (\\, \n). Pure code: no clock, no
// I/O, no locks.

#include <string>
#include <utility>
#include <vector>

namespace det::metrics {

enum class metric_type { counter, gauge, histogram };

const char* to_string(metric_type t);

using labels = std::vector<std::pair<std::string, std::string>>;

struct sample {
  /// Appended to the family name ("_bucket", "_sum", "_count"), or "".
  std::string suffix;
  labels label_pairs;
  double value = 0;
};

struct family {
  std::string name;
  std::string help;
  metric_type type = metric_type::gauge;
  std::vector<sample> samples;
};

/// A label value as it appears between the quotes.
std::string escape_label_value(const std::string& v);

/// HELP text as it appears after the name.
std::string escape_help(const std::string& v);

/// A sample value: integers without a fraction, "+Inf", "-Inf", "NaN".
std::string format_value(double v);

/// True when `name` matches [a-zA-Z_:][a-zA-Z0-9_:]* (labels: no ':').
bool valid_metric_name(const std::string& name);
bool valid_label_name(const std::string& name);

/// The families in order, each with its HELP and TYPE lines; every line
/// ends with '\n'.
std::string encode(const std::vector<family>& families);

} // namespace det::metrics
