#include "api/trial_logs.hpp"

#include "util/text.hpp"

namespace det::api {

void trial_logs::add(int64_t trial_id, const std::string& agent_id,
                     const std::vector<std::string>& lines, int64_t at_us) {
  std::vector<std::string> kept;
  observer watch;
  {
    std::lock_guard<std::mutex> guard{mu_};
    auto& t = trials_[trial_id];
    watch = observer_;
    for (const auto& text : lines) {
      // A trial prints what it likes; what we keep and serve is text,
      // NULs kept (served as JSON only). What the observers see may reach
      // the event log, which holds no NUL.
      t.lines.push_back({t.next_id++, trial_id, agent_id,
                         util::utf8_with_nul(text, max_line_bytes), at_us});
      if (watch)
        kept.push_back(util::valid_utf8(text, max_line_bytes));
      if (t.lines.size() > keep_)
        t.lines.pop_front();
    }
  }
  if (watch)
    watch(trial_id, agent_id, kept);
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
  for (auto id : trial_ids)
    if (auto t = trials_.find(id); t != trials_.end()) {
      removed += t->second.lines.size();
      trials_.erase(t);
    }
  return removed;
}

} // namespace det::api
