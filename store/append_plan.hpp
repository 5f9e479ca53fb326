#pragma once

// The part of an append that every event_store shares: checking a request
// (well-formed events, expected versions) and assigning stream versions.
// Pure: the caller supplies the current stream versions and owns writing.

#include "messages/event.hpp"

#include <caf/error.hpp>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace det {

/// Current version of a stream as the store knows it (0 when new).
using version_lookup = std::function<int64_t(const std::string& stream)>;

/// Stream versions assigned to a batch so far, not yet durable.
using tentative_versions = std::unordered_map<std::string, int64_t>;

/// Checks `req` and, when it may be written, fills `versions_out` with the
/// stream version of each of its events and records them in `tentative`.
/// Errors: errc::invalid_argument (no events, empty stream or type, payload
/// not a JSON object), errc::conflict (an expectation does not hold). On
/// error `tentative` is unchanged.
[[nodiscard]] caf::error plan_append(const append_request& req,
                                     const version_lookup& current,
                                     tentative_versions& tentative,
                                     std::vector<int64_t>& versions_out);

/// 64-bit FNV-1a of `bytes`, as 16 hex digits: the snapshot checksum.
std::string checksum(const std::string& bytes);

} // namespace det
