// The agent protocol (docs/agent_protocol.md) in both directions, with the
// decoders the two ends run on every WebSocket text frame:
//   - the master's: agent::parse_agent_frame (hello, running, exited, log,
//     heartbeat, spot_interruption), what api/agent_ws.cpp acts on;
//   - det-agent's: agent::parse_master_frame (welcome, start, preempt,
//     kill, error), then trial_environment() for a start.
// Each input is one frame, given to both. A frame the master decodes that
// the agent's own builders can express must come back unchanged when
// rebuilt and decoded again.

#include "messages/agent_protocol.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void fail(const char* what, const std::string& frame) {
  std::fprintf(stderr, "%s: %s\n", what, frame.c_str());
  std::abort();
}

void check_agent_side(const std::string& text) {
  using namespace det::agent;
  agent_frame f;
  if (parse_agent_frame(text, f))
    return;
  std::string rebuilt;
  if (f.type == "hello")
    rebuilt = hello_frame(f.hello);
  else if (f.type == "exited")
    rebuilt = exited_frame(f.allocation_id, f.exit_code);
  else if (f.type == "running")
    rebuilt = running_frame(f.allocation_id);
  else
    return;
  agent_frame g;
  if (parse_agent_frame(rebuilt, g))
    fail("a rebuilt frame does not decode", rebuilt);
  if (g.type != f.type || g.hello.agent_id != f.hello.agent_id
      || g.hello.resource_pool != f.hello.resource_pool
      || g.hello.slots != f.hello.slots
      || g.hello.slot_type != f.hello.slot_type
      || g.hello.instance_id != f.hello.instance_id
      || g.hello.running != f.hello.running
      || g.allocation_id != f.allocation_id || g.exit_code != f.exit_code)
    fail("a rebuilt frame decodes differently", rebuilt);
}

void check_master_side(const std::string& text) {
  using namespace det::agent;
  auto f = parse_master_frame(text);
  if (!f || f->type != "start")
    return;
  auto env = trial_environment(f->start, "http://127.0.0.1:8080", "/tmp/ckpt",
                               "agent-1");
  (void)env;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text{reinterpret_cast<const char*>(data), size};
  check_agent_side(text);
  check_master_side(text);
  return 0;
}
