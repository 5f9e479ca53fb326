// The event decoder as replay runs it on every stored event: decode(env,
// where) parses the payload, upgrades it from its schema version and checks
// every field. The input is the envelope as text:
//
//   <type name>\n<schema version>\n<payload JSON>
//
// (a missing line is empty; a version that is not a number is 0). An event
// that decodes must also survive what the master does next with it:
// encode -> decode -> encode gives the same envelope, and validate()
// accepts it (state::apply calls validate). A payload the reader without
// a JSON tree takes must decode as the tree decodes it.

#include "messages/events.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

std::string_view next_line(std::string_view& rest) {
  auto nl = rest.find('\n');
  auto line = rest.substr(0, nl);
  rest =
      nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  return line;
}

[[noreturn]] void fail(const char* what, const det::event_envelope& env) {
  std::fprintf(stderr, "%s: type=%s v=%d payload=%s\n", what, env.type.c_str(),
               env.schema_version, env.payload.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest{reinterpret_cast<const char*>(data), size};
  det::event_envelope env;
  env.type = std::string{next_line(rest)};
  auto version = next_line(rest);
  int64_t v = 0;
  for (char c : version.substr(0, 9))
    if (c >= '0' && c <= '9')
      v = v * 10 + (c - '0');
  env.schema_version =
      static_cast<int32_t>(version.substr(0, 1) == "-" ? -v : v);
  env.payload = std::string{rest};
  // The reader without a tree (messages/payload_scan) takes a payload only
  // to give the tree's event.
  if (auto fast = det::decode_without_tree(env)) {
    det::recorded_event rec;
    rec.body = env;
    auto tree = det::decode_with_tree(rec);
    if (!tree)
      fail("the reader without a tree took what the tree refuses", env);
    if (det::to_envelope(*fast).payload != det::to_envelope(*tree).payload)
      fail("the reader without a tree and the tree disagree", env);
  }
  auto ev = det::decode(env, "fuzz");
  if (!ev)
    return 0;
  if (auto err = det::validate(*ev))
    fail("a decoded event does not validate", env);
  auto first = det::to_envelope(*ev);
  auto again = det::decode(first, "fuzz (re-encoded)");
  if (!again)
    fail("a decoded event does not decode once re-encoded", first);
  auto second = det::to_envelope(*again);
  if (second.type != first.type || second.schema_version != first.schema_version
      || second.payload != first.payload)
    fail("encode -> decode -> encode changed the envelope", first);
  (void)det::stream_of(*ev);
  return 0;
}
