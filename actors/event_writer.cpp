#include "actors/event_writer.hpp"

#include "metrics/master_metrics.hpp"
#include "store/group_appender.hpp"

#include <caf/actor_cast.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <chrono>
#include <memory>
#include <unordered_map>

namespace det {

namespace {

struct event_writer_state {
  static inline const char* name = "event_writer";
  event_store* store = nullptr;
  std::unique_ptr<group_appender> appender;
  uint64_t next_id = 0;
  std::unordered_map<uint64_t, caf::typed_response_promise<append_result>>
      pending;
};

event_writer_actor::behavior_type
event_writer(event_writer_actor::stateful_pointer<event_writer_state> self,
             event_store* store, writer_mode mode) {
  self->state.store = store;
  if (mode == writer_mode::group_commit)
    self->state.appender = std::make_unique<group_appender>(*store);
  return {
      [self](append_atom, append_request& req) -> caf::result<append_result> {
        auto& st = self->state;
        auto started = std::chrono::steady_clock::now();
        auto seconds_since = [](std::chrono::steady_clock::time_point t) {
          return std::chrono::duration<double>(std::chrono::steady_clock::now()
                                               - t)
              .count();
        };
        if (!st.appender) {
          auto res = st.store->append(req);
          metrics::observe_append_latency(seconds_since(started));
          if (!res)
            return std::move(res.error());
          return *res;
        }
        auto id = st.next_id++;
        auto rp = self->make_response_promise<append_result>();
        st.pending.emplace(id, rp);
        auto me = caf::actor_cast<event_writer_actor>(self);
        st.appender->submit(
            std::move(req),
            [me, id, started, seconds_since](caf::expected<append_result> res) {
              // Runs on the appender's thread: hand the
              // result back as a message.
              metrics::observe_append_latency(seconds_since(started));
              if (res)
                caf::anon_send(me, committed_atom::value, id, *res);
              else
                caf::anon_send(me, committed_atom::value, id,
                               std::move(res.error()));
            });
        return rp;
      },
      [self](committed_atom, uint64_t id, append_result res) {
        auto i = self->state.pending.find(id);
        if (i == self->state.pending.end())
          return;
        i->second.deliver(res);
        self->state.pending.erase(i);
      },
      [self](snapshot_atom, std::string& text, int64_t position,
             int32_t version) {
        auto save = [text = std::move(text), position,
                     version](event_store& log) {
          // A failed snapshot costs only start-up time: the log is the truth.
          std::ignore = log.save_snapshot({position, version, text, 0});
          std::ignore = log.prune_snapshots(snapshots_kept);
        };
        if (self->state.appender)
          self->state.appender->post(std::move(save));
        else
          save(*self->state.store);
      },
      [self](committed_atom, uint64_t id, caf::error& err) {
        auto i = self->state.pending.find(id);
        if (i == self->state.pending.end())
          return;
        i->second.deliver(std::move(err));
        self->state.pending.erase(i);
      },
  };
}

} // namespace

event_writer_actor spawn_event_writer(caf::actor_system& sys,
                                      event_store& store, writer_mode mode) {
  return sys.spawn(event_writer, &store, mode);
}

} // namespace det
