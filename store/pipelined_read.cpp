#include "store/pipelined_read.hpp"

namespace det {

caf::error pipelined_read(const event_producer& produce,
                          const event_visitor& visit,
                          const std::function<void()>& on_stop) {
  return pipelined_read_items<recorded_event>(produce, visit, on_stop);
}

} // namespace det
