#pragma once

// Standard base64 (RFC 4648), the one implementation: model definitions
// travel as base64 in JSON between the det CLI, the master and det-agent.

#include <optional>
#include <string>
#include <string_view>

namespace det {

/// Padded standard base64 of `bytes`.
std::string base64_encode(std::string_view bytes);

/// Decodes standard or URL-safe base64; padding optional, line breaks
/// ignored. nullopt on another character or a bad length.
std::optional<std::string> base64_decode(std::string_view text);

/// Whether base64_decode would accept `text`, without decoding it.
bool is_base64(std::string_view text);

} // namespace det
