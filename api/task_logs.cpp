#include "api/task_logs.hpp"

#include "api/trial_logs.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace det::api {

namespace {

constexpr size_t max_tasks_kept = 10000;

} // namespace

void task_logs::add(const std::string& task_id, const std::string& agent_id,
                    const std::vector<std::string>& lines, int64_t at_us,
                    const std::string& source) {
  std::lock_guard<std::mutex> guard{mu_};
  if (tasks_.count(task_id) == 0 && tasks_.size() >= max_tasks_kept) {
    auto oldest = std::min_element(
        tasks_.begin(), tasks_.end(), [](const auto& a, const auto& b) {
          return a.second.first_at_us < b.second.first_at_us;
        });
    tasks_.erase(oldest);
  }
  auto& t = tasks_[task_id];
  if (t.next_id == 1)
    t.first_at_us = at_us;
  for (const auto& text : lines) {
    // A task prints what it likes; what we keep and serve is text.
    t.lines.push_back({t.next_id++, agent_id,
                       util::valid_utf8(text, trial_logs::max_line_bytes),
                       at_us, source});
    if (t.lines.size() > keep_)
      t.lines.pop_front();
  }
}

std::vector<task_log_line> task_logs::since(const std::string& task_id,
                                            int64_t after_id) const {
  std::lock_guard<std::mutex> guard{mu_};
  std::vector<task_log_line> out;
  auto i = tasks_.find(task_id);
  if (i == tasks_.end())
    return out;
  for (const auto& l : i->second.lines)
    if (l.id > after_id)
      out.push_back(l);
  return out;
}

} // namespace det::api
