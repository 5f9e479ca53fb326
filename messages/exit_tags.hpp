#pragma once

// A trial's exit written into its EC2 instance's own tags, for a master
// that was unreachable when the trial ended (docs/agent_protocol.md, "Exits
// kept in instance tags"). det-agent on a provisioned instance, idle and
// cut off from the master for the self-stop period, writes each exit the
// master has not acknowledged as one tag, then stops its instance; the
// returning master reads the tags of the instances it finds terminated
// (DescribeInstances lists them for about an hour) and records the exits
// it can verify.
//
// One tag per exit:
//   key   "det:exit:<allocation id>"   allocation id: 1-119 characters of
//                                       [A-Za-z0-9._-] (key <= 128)
//   value "<exit code>@<exited at, microseconds since the epoch>"
//                                       code: decimal in [-255, 255];
//                                       time: 1-19 digits
// e.g. det:exit:17.2 = 0@1732978123456789. Both are within EC2's tag
// limits (key 128, value 256 characters) and its tag charset. At most
// max_exit_tags exits go on one instance (EC2 allows 50 tags; the launch
// sets the cluster's own).
//
// A tag is a claim made by a machine that runs other people's code: the
// decoder refuses anything not in exactly this form (control characters,
// NUL, bytes that are not ASCII, over-long fields, signs and spaces where
// digits belong) and says why; that the allocation really ran on that
// instance is for the master to check (core/provisioning.hpp). Pure.

#include "messages/agent_protocol.hpp"

#include <caf/expected.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace det::agent {

/// The key prefix of an exit tag.
inline constexpr const char* exit_tag_prefix = "det:exit:";
/// The most exit tags one instance carries.
inline constexpr size_t max_exit_tags = 40;
/// An allocation id's longest form in a tag key.
inline constexpr size_t max_exit_tag_allocation_id = 119;

using tag_pair = std::pair<std::string, std::string>;

/// The tag for `e`; errc::invalid_argument naming the field when the
/// allocation id, code or time cannot be written in the form above.
[[nodiscard]] caf::expected<tag_pair> encode_exit_tag(const exit_report& e);

/// Whether `key` is an exit tag's key (starts with exit_tag_prefix).
[[nodiscard]] bool is_exit_tag_key(const std::string& key);

/// The exit a tag claims; errc::invalid_argument saying what is wrong
/// (the bad value is never echoed: it may be anything).
[[nodiscard]] caf::expected<exit_report>
decode_exit_tag(const std::string& key, const std::string& value);

/// The exit claims among an instance's `tags`, and one line per exit tag
/// refused (other tags are ignored). At most max_exit_tags claims are
/// taken; more are refused.
struct exit_claims {
  std::vector<exit_report> exits;
  std::vector<std::string> refused;
};
[[nodiscard]] exit_claims exit_claims_of(const std::vector<tag_pair>& tags);

} // namespace det::agent
