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
  std::vector<archived_line> saved;
  std::shared_ptr<log_archive> archive;
  std::unique_lock<std::mutex> guard{mu_};
  archive = archive_;
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
    if (archive)
      saved.push_back({"task:" + task_id, t.lines.back().id, agent_id, at_us,
                       source, t.lines.back().text});
    if (t.lines.size() > keep_)
      t.lines.pop_front();
  }
  guard.unlock();
  if (archive)
    archive->save(std::move(saved));
}

void task_logs::set_archive(std::shared_ptr<log_archive> a) {
  std::lock_guard<std::mutex> guard{mu_};
  archive_ = std::move(a);
}

void task_logs::restore(const std::vector<archived_line>& lines) {
  std::lock_guard<std::mutex> guard{mu_};
  for (const auto& l : lines) {
    if (l.key.rfind("task:", 0) != 0)
      continue;
    auto& t = tasks_[l.key.substr(5)];
    if (t.lines.empty() && t.next_id == 1)
      t.first_at_us = l.at_us;
    t.lines.push_back({l.id, l.agent_id, l.text, l.at_us, l.source});
    t.next_id = std::max(t.next_id, l.id + 1);
    if (t.lines.size() > keep_)
      t.lines.pop_front();
  }
}

void task_logs::forget(const std::string& task_id) {
  std::shared_ptr<log_archive> archive;
  {
    std::lock_guard<std::mutex> guard{mu_};
    tasks_.erase(task_id);
    archive = archive_;
  }
  if (archive)
    archive->forget({"task:" + task_id});
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
