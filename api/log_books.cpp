#include "api/log_books.hpp"

#include "api/durable_feed.hpp"
#include "messages/errc.hpp"
#include "util/log.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace det::api {

namespace {

/// What the archive kept under `prefix`; nothing (said in the master's
/// log) when it cannot be read: the master starts anyway.
std::optional<std::vector<archived_line>>
load_kept(log_archive& a, const std::string& prefix, size_t per_key) {
  auto kept = a.load(prefix, per_key);
  if (!kept) {
    log::error() << "log lines under '" << prefix
                 << "': " << render(kept.error())
                 << " (lines from before this start are not shown)";
    return std::nullopt;
  }
  return std::move(*kept);
}

} // namespace

std::shared_ptr<trial_logs>
follow_trial_logs(master_options& mo, std::shared_ptr<log_archive> archive) {
  auto logs = std::make_shared<trial_logs>(1000);
  if (archive) {
    if (auto kept = load_kept(*archive, "trial:", 1000))
      logs->restore(*kept);
    logs->set_archive(archive);
  }
  follow_durable(mo, [logs](const std::vector<domain_event>& events, int64_t) {
    for (const auto& ev : events)
      if (const auto* e = std::get_if<trial_errored>(&ev);
          e != nullptr && !e->reason.empty())
        logs->add(e->trial_id, "master", {e->reason}, e->at_us);
  });
  return logs;
}

std::shared_ptr<task_logs>
follow_task_events(master_options& mo, const state::cluster_state& from,
                   std::shared_ptr<log_archive> archive) {
  auto logs = std::make_shared<task_logs>();
  // Descriptions by task id, kept from the launch until the exit line
  // (those of tasks that live at start from the recovered state).
  auto names = std::make_shared<std::map<std::string, std::string>>();
  for (const auto& [id, t] : from.tasks)
    if (t.state != state::task_state::terminated || state::is_paused(t))
      (*names)[id] = t.description;
  if (archive) {
    if (auto kept = load_kept(*archive, "task:", 5000))
      logs->restore(*kept);
    logs->set_archive(archive);
  }
  follow_durable(mo, [logs, names](const std::vector<domain_event>& events,
                                   int64_t) {
    auto line = [&logs](const std::string& id, std::string text,
                        int64_t at_us) {
      logs->add(id, "master", {std::move(text)}, at_us, "master");
    };
    for (const auto& ev : events) {
      if (const auto* l = std::get_if<task_launched>(&ev)) {
        (*names)[l->task_id] = l->description;
        line(l->task_id,
             "Scheduling " + l->description + " (id: " + l->task_id + ".1)",
             l->at_us);
      } else if (const auto* p = std::get_if<task_placed>(&ev)) {
        line(p->task_id, (*names)[p->task_id] + " was assigned to an agent",
             p->at_us);
      } else if (const auto* r = std::get_if<task_ready>(&ev)) {
        line(r->task_id, "Service of " + (*names)[r->task_id] + " is available",
             r->at_us);
      } else if (const auto* x = std::get_if<task_exited>(&ev)) {
        std::string what =
            x->reason == "completed" ? "resources exited successfully with a "
                                       "zero exit code"
            : x->reason == "failed"
                ? "crashed: resources failed with non-zero exit code: "
                      + std::to_string(x->exit_code)
                : x->message;
        line(x->task_id, what, x->at_us);
        line(x->task_id,
             (*names)[x->task_id] + " was terminated: "
                 + (x->reason == "completed" ? std::string{"allocation exited "
                                                           "successfully"}
                                             : x->message),
             x->at_us);
        names->erase(x->task_id);
      } else if (const auto* f = std::get_if<task_forgotten>(&ev)) {
        logs->forget(f->task_id);
      }
    }
  });
  return logs;
}

} // namespace det::api
