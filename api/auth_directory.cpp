#include "api/auth_directory.hpp"

#include "api/auth_crypto.hpp"

#include <algorithm>

namespace det::api {

namespace {

/// Bound on remembered allocation tokens; the map is cleared when full
/// (entries are cheap to find again).
constexpr size_t max_allocation_tokens = 4096;

} // namespace

void auth_directory::load(const state::cluster_state& s) {
  std::lock_guard<std::mutex> guard{mu_};
  users_.clear();
  for (const auto& [name, u] : s.users)
    users_[name] = user_record{u.id,     u.username,      u.admin,
                               u.active, u.password_hash, u.modified_at_us};
  sessions_ = s.sessions;
}

void auth_directory::apply(const domain_event& ev) {
  std::lock_guard<std::mutex> guard{mu_};
  if (auto* c = std::get_if<user_created>(&ev)) {
    user_record r{static_cast<int64_t>(users_.size()) + 1,
                  c->username,
                  c->admin,
                  true,
                  c->password_hash,
                  c->at_us};
    users_.emplace(c->username, std::move(r));
  } else if (auto* p = std::get_if<user_password_changed>(&ev)) {
    auto i = users_.find(p->username);
    if (i != users_.end()) {
      i->second.password_hash = p->password_hash;
      i->second.modified_at_us = p->at_us;
    }
  } else if (auto* b = std::get_if<session_started>(&ev)) {
    sessions_[b->token_hash] = b->username;
  } else if (auto* e = std::get_if<session_ended>(&ev)) {
    sessions_.erase(e->token_hash);
  }
}

std::optional<user_record>
auth_directory::user_of_token(const std::string& token) const {
  if (token.empty())
    return std::nullopt;
  auto h = token_hash(token);
  std::lock_guard<std::mutex> guard{mu_};
  auto s = sessions_.find(h);
  if (s == sessions_.end())
    return std::nullopt;
  auto u = users_.find(s->second);
  if (u == users_.end())
    return std::nullopt;
  return u->second;
}

std::optional<user_record>
auth_directory::find(const std::string& username) const {
  std::lock_guard<std::mutex> guard{mu_};
  auto u = users_.find(username);
  if (u == users_.end())
    return std::nullopt;
  return u->second;
}

std::optional<user_record> auth_directory::find_id(int64_t id) const {
  std::lock_guard<std::mutex> guard{mu_};
  for (const auto& [name, u] : users_)
    if (u.id == id)
      return u;
  return std::nullopt;
}

std::vector<user_record> auth_directory::list() const {
  std::vector<user_record> out;
  {
    std::lock_guard<std::mutex> guard{mu_};
    for (const auto& [name, u] : users_)
      out.push_back(u);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

std::vector<std::string>
auth_directory::sessions_of(const std::string& username) const {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> guard{mu_};
  for (const auto& [hash, name] : sessions_)
    if (name == username)
      out.push_back(hash);
  return out;
}

std::optional<allocation_identity>
auth_directory::cached_allocation(const std::string& token) const {
  std::lock_guard<std::mutex> guard{mu_};
  auto i = allocation_tokens_.find(token_hash(token));
  if (i == allocation_tokens_.end())
    return std::nullopt;
  return i->second;
}

void auth_directory::remember_allocation(const std::string& token,
                                         allocation_identity id) {
  auto h = token_hash(token);
  std::lock_guard<std::mutex> guard{mu_};
  if (allocation_tokens_.size() >= max_allocation_tokens)
    allocation_tokens_.clear();
  allocation_tokens_[h] = std::move(id);
}

void auth_directory::forget_allocation(const std::string& token) {
  auto h = token_hash(token);
  std::lock_guard<std::mutex> guard{mu_};
  allocation_tokens_.erase(h);
}

} // namespace det::api
