#include "api/trial_logs.hpp"

#include "util/text.hpp"

#include <algorithm>

namespace det::api {

void trial_logs::add(int64_t trial_id, const std::string& agent_id,
                     const std::vector<std::string>& lines, int64_t at_us) {
  std::vector<std::string> kept;
  std::vector<archived_line> saved;
  observer watch;
  std::shared_ptr<log_archive> archive;
  {
    std::lock_guard<std::mutex> guard{mu_};
    auto& t = trials_[trial_id];
    watch = observer_;
    archive = archive_;
    for (const auto& text : lines) {
      // A trial prints what it likes; what we keep and serve is text,
      // NULs kept (served as JSON only). What the observers see may reach
      // the event log, which holds no NUL.
      t.lines.push_back({t.next_id++, trial_id, agent_id,
                         util::utf8_with_nul(text, max_line_bytes), at_us});
      if (watch)
        kept.push_back(util::valid_utf8(text, max_line_bytes));
      if (archive)
        saved.push_back({"trial:" + std::to_string(trial_id), t.lines.back().id,
                         agent_id, at_us, "", t.lines.back().text});
      if (t.lines.size() > keep_)
        t.lines.pop_front();
    }
  }
  if (archive)
    archive->save(std::move(saved));
  if (watch)
    watch(trial_id, agent_id, kept);
}

void trial_logs::set_archive(std::shared_ptr<log_archive> a) {
  std::lock_guard<std::mutex> guard{mu_};
  archive_ = std::move(a);
}

void trial_logs::restore(const std::vector<archived_line>& lines) {
  std::lock_guard<std::mutex> guard{mu_};
  for (const auto& l : lines) {
    if (l.key.rfind("trial:", 0) != 0)
      continue;
    int64_t id = 0;
    try {
      id = std::stoll(l.key.substr(6));
    } catch (const std::exception&) {
      continue;
    }
    auto& t = trials_[id];
    t.lines.push_back({l.id, id, l.agent_id, l.text, l.at_us});
    t.next_id = std::max(t.next_id, l.id + 1);
    if (t.lines.size() > keep_)
      t.lines.pop_front();
  }
}

void trial_logs::set_observer(observer o) {
  std::lock_guard<std::mutex> guard{mu_};
  observer_ = std::move(o);
}

std::vector<log_line> trial_logs::since(int64_t trial_id,
                                        int64_t after_id) const {
  std::lock_guard<std::mutex> guard{mu_};
  std::vector<log_line> out;
  auto i = trials_.find(trial_id);
  if (i == trials_.end())
    return out;
  for (const auto& l : i->second.lines)
    if (l.id > after_id)
      out.push_back(l);
  return out;
}

size_t trial_logs::erase(const std::vector<int64_t>& trial_ids) {
  std::lock_guard<std::mutex> lock{mu_};
  size_t removed = 0;
  std::vector<std::string> keys;
  for (auto id : trial_ids) {
    if (auto t = trials_.find(id); t != trials_.end()) {
      removed += t->second.lines.size();
      trials_.erase(t);
    }
    keys.push_back("trial:" + std::to_string(id));
  }
  if (archive_)
    archive_->forget(std::move(keys));
  return removed;
}

} // namespace det::api
