// What the Kubernetes API server sends det-master's kubernetes resource
// manager: a watch stream (chunks of newline-delimited events, cut at an
// input-chosen point) read by k8s::line_splitter and parse_watch_line, each
// event's object read as a Pod, a Node, a scheduler Event and a Job, the
// cursor moved, leftovers chosen; and the same bytes as a kubeconfig. Any
// input must give values or errors, never a crash, a hang or an exception.

#include "k8s/access.hpp"
#include "k8s/cluster_view.hpp"
#include "k8s/watch.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text{reinterpret_cast<const char*>(data), size};
  size_t cut = size > 0 ? data[0] % (size + 1) : 0;
  det::k8s::line_splitter lines{4096};
  det::k8s::watch_cursor cursor;
  std::vector<nlohmann::json> objects;
  auto on_line = [&](std::string_view line) {
    auto ev = det::k8s::parse_watch_line(line);
    if (!ev)
      return;
    (void)cursor.on_event(*ev);
    (void)det::k8s::read_pod(ev->object);
    (void)det::k8s::node_as_agent(ev->object, "gpu", 1.0);
    (void)det::k8s::node_as_agent(ev->object, "cpu", 0.5);
    (void)det::k8s::tolerates(ev->object.value("tolerations", nlohmann::json()),
                              ev->object);
    (void)det::k8s::read_event(ev->object);
    (void)det::k8s::job_outcome(ev->object);
    objects.push_back(ev->object);
  };
  lines.feed(std::string_view(text).substr(0, cut), on_line);
  lines.feed(std::string_view(text).substr(cut), on_line);
  (void)det::k8s::leftovers(objects, "c1", {"1.1"});
  (void)det::k8s::parse_kubeconfig(text, "/nonexistent");
  return 0;
}
