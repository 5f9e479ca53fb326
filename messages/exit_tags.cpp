#include "messages/exit_tags.hpp"

#include "messages/errc.hpp"

#include <cstring>

namespace det::agent {

namespace {

constexpr int max_tag_exit_code = 255;
constexpr size_t max_tag_time_digits = 19;

caf::error tag_error(const std::string& what) {
  return make_error(errc::invalid_argument, "exit tag: " + what);
}

bool tag_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
         || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool tag_id_ok(const std::string& id) {
  if (id.empty() || id.size() > max_exit_tag_allocation_id)
    return false;
  for (char c : id)
    if (!tag_id_char(c))
      return false;
  return true;
}

bool tag_digits(const std::string& s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (c < '0' || c > '9')
      return false;
  return true;
}

} // namespace

bool is_exit_tag_key(const std::string& key) {
  return key.rfind(exit_tag_prefix, 0) == 0;
}

caf::expected<tag_pair> encode_exit_tag(const exit_report& e) {
  if (!tag_id_ok(e.allocation_id))
    return tag_error("allocation_id: must be 1 to "
                     + std::to_string(max_exit_tag_allocation_id)
                     + " characters of A-Z a-z 0-9 . _ -");
  if (e.exit_code < -max_tag_exit_code || e.exit_code > max_tag_exit_code)
    return tag_error("exit_code: must be within [-255, 255], got "
                     + std::to_string(e.exit_code));
  if (e.exited_at_us < 0)
    return tag_error("exited_at_us: must not be negative");
  return tag_pair{exit_tag_prefix + e.allocation_id,
                  std::to_string(e.exit_code) + "@"
                      + std::to_string(e.exited_at_us)};
}

caf::expected<exit_report> decode_exit_tag(const std::string& key,
                                           const std::string& value) {
  if (!is_exit_tag_key(key))
    return tag_error("key: does not start with "
                     + std::string{exit_tag_prefix});
  exit_report e;
  e.allocation_id = key.substr(std::strlen(exit_tag_prefix));
  if (!tag_id_ok(e.allocation_id))
    return tag_error("key: the allocation id is not 1 to "
                     + std::to_string(max_exit_tag_allocation_id)
                     + " characters of A-Z a-z 0-9 . _ -");
  auto at = value.find('@');
  if (value.size() > 64 || at == std::string::npos)
    return tag_error("value of " + key + ": not <exit code>@<time>");
  auto code = value.substr(0, at);
  auto time = value.substr(at + 1);
  bool negative = !code.empty() && code[0] == '-';
  auto code_digits = negative ? code.substr(1) : code;
  if (!tag_digits(code_digits) || code_digits.size() > 3)
    return tag_error("value of " + key + ": the exit code is not a number");
  int c = std::stoi(code_digits);
  if (c > max_tag_exit_code)
    return tag_error("value of " + key
                     + ": the exit code is outside [-255, 255]");
  if (!tag_digits(time) || time.size() > max_tag_time_digits
      || (time.size() == max_tag_time_digits && time > "9223372036854775807"))
    return tag_error("value of " + key
                     + ": the time is not a number of microseconds");
  e.exit_code = negative ? -c : c;
  e.exited_at_us = std::stoll(time);
  return e;
}

exit_claims exit_claims_of(const std::vector<tag_pair>& tags) {
  exit_claims out;
  for (const auto& [key, value] : tags) {
    if (!is_exit_tag_key(key))
      continue;
    if (out.exits.size() >= max_exit_tags) {
      out.refused.push_back("exit tag: more than "
                            + std::to_string(max_exit_tags)
                            + " on one instance");
      continue;
    }
    auto e = decode_exit_tag(key, value);
    if (e)
      out.exits.push_back(std::move(*e));
    else
      out.refused.push_back(render(e.error()));
  }
  return out;
}

} // namespace det::agent
