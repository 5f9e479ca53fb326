#pragma once

// A path-aware reader over a JSON tree: the one validator behind
// master.yaml, agent.yaml and the experiment config. Every error it records
// names the field by its path from the document root, e.g.
//   resource_pools[1].provider.max_instances: expected an integer, got "ten"
//   searcher: unknown field 'metrc' (did you mean 'metric'?)
//
// Errors are collected, not thrown, so one run reports every problem in a
// file; a reader returns the fallback for a field it rejected so validation
// can go on. Readers also normalise the tree they read: aliases are renamed
// to the canonical key and, with fill_defaults, an absent field gets its
// default written in, so the tree afterwards is "the config with defaults
// filled in" that the master stores and shows.
//
// Not thread-safe; a reader lives for one parse call.

#include "messages/errc.hpp"

#include <caf/error.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace det::conf {

/// The errors of one parse, in the order they were found.
class diagnostics {
public:
  void error(const std::string& path, const std::string& message);
  bool empty() const noexcept { return messages_.empty(); }
  const std::vector<std::string>& messages() const noexcept {
    return messages_;
  }
  /// errc::invalid_argument with every message joined by "\n"; `prefix`
  /// (e.g. "master.yaml") goes in front of the first line when not empty.
  caf::error to_error(const std::string& prefix = {}) const;

private:
  std::vector<std::string> messages_;
};

/// "a.b" / "b" when `base` is empty.
std::string join_path(const std::string& base, std::string_view key);
/// "a[3]".
std::string index_path(const std::string& base, size_t index);
/// How a value shows in an error: "ten" quoted, numbers and booleans as
/// written, "an object", "a list", "null".
std::string describe(const nlohmann::json& value);
/// The candidate nearest to `word` by edit distance when it is close
/// enough to be a likely typo; empty otherwise.
std::string nearest(std::string_view word,
                    const std::set<std::string>& candidates);

using duration = std::chrono::milliseconds;

/// Reads the fields of one JSON object. Each accessor marks its key as
/// known; finish() then reports every key nobody asked for.
class object_reader {
public:
  /// `node` must outlive the reader. If it is not an object (null counts as
  /// an empty object), an error is recorded and the reader reads nothing.
  object_reader(nlohmann::json& node, std::string path, diagnostics& diag,
                bool fill_defaults = true);

  const std::string& path() const noexcept { return path_; }
  std::string path_of(std::string_view key) const {
    return join_path(path_, key);
  }
  diagnostics& diag() noexcept { return *diag_; }
  nlohmann::json& node() noexcept { return *node_; }
  bool fill_defaults() const noexcept { return fill_; }

  /// Whether `key` is present with a non-null value (does not mark it).
  bool has(std::string_view key) const;
  /// Records an error against field `key`.
  void fail(std::string_view key, const std::string& message);
  /// Records an error against this object itself.
  void fail_here(const std::string& message);

  /// Renames `alias` to `canonical`. Both present is an error unless the
  /// values are equal.
  void alias(const char* alias, const char* canonical);

  std::string str(const char* key, std::string fallback);
  std::optional<std::string> opt_str(const char* key);
  /// Required: records "<path>: required" (or `why`) when absent.
  std::string required_str(const char* key, const char* why = nullptr);
  /// One of `choices`.
  std::string choice(const char* key, std::string fallback,
                     std::initializer_list<const char*> choices);

  int64_t integer(const char* key, int64_t fallback,
                  int64_t min = std::numeric_limits<int64_t>::min(),
                  int64_t max = std::numeric_limits<int64_t>::max());
  std::optional<int64_t>
  opt_integer(const char* key,
              int64_t min = std::numeric_limits<int64_t>::min(),
              int64_t max = std::numeric_limits<int64_t>::max());
  double number(const char* key, double fallback);
  std::optional<double> opt_number(const char* key);
  bool boolean(const char* key, bool fallback);

  /// A duration: "1h30m", "90s", "250ms" (units h, m, s, ms, us, ns,
  /// fractions allowed) or a number of seconds. `fallback_text` is what
  /// fill_defaults writes.
  duration dur(const char* key, duration fallback, const char* fallback_text,
               bool must_be_positive = false);
  std::optional<duration> opt_dur(const char* key,
                                  bool must_be_positive = false);

  std::vector<std::string> str_list(const char* key);

  /// The raw value (nullptr when absent), marked known: for free-form
  /// fields kept verbatim.
  nlohmann::json* raw(const char* key);
  /// Marks keys as known without reading them (free-form or deprecated).
  void allow(std::initializer_list<const char*> keys);
  void allow_all() { allow_all_ = true; }

  /// Reader for the object at `key`. When absent, an empty object is
  /// inserted if fill_defaults is on (else a detached empty object is read).
  object_reader child(const char* key);

  /// Reports every key not marked known, with a did-you-mean suggestion.
  void finish();

private:
  nlohmann::json* find(std::string_view key);
  void type_error(std::string_view key, const char* expected,
                  const nlohmann::json& got);
  template <class T> void put_default(const char* key, T value);

  nlohmann::json* node_;
  // Owns the empty object read when the real node is absent or not an
  // object; shared so that a moved reader keeps pointing at it.
  std::shared_ptr<nlohmann::json> owned_;
  std::string path_;
  diagnostics* diag_;
  bool fill_;
  bool allow_all_ = false;
  std::set<std::string> known_;
};

/// The context text of a det error (its message without the code name).
std::string message_of(const caf::error& err);

/// An integer that is a whole-numbered JSON number.
std::optional<int64_t> as_integer(const nlohmann::json& value);

} // namespace det::conf
