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
  accounts_ = {};
  accounts_.users = s.users;
  accounts_.sessions = s.sessions;
  accounts_.access_tokens = s.access_tokens;
  access_token_ids_.clear();
  for (const auto& [id, t] : s.access_tokens)
    access_token_ids_[t.token_hash] = id;
}

void auth_directory::apply(const domain_event& ev) {
  std::lock_guard<std::mutex> guard{mu_};
  state::apply_account(accounts_, ev);
  if (auto* t = std::get_if<access_token_created>(&ev))
    access_token_ids_[t->token_hash] = t->token_id;
}

std::optional<user_record>
auth_directory::user_of_token(const std::string& token, int64_t now_us) const {
  if (token.empty())
    return std::nullopt;
  auto h = token_hash(token);
  std::lock_guard<std::mutex> guard{mu_};
  std::string name;
  if (auto s = accounts_.sessions.find(h); s != accounts_.sessions.end()) {
    name = s->second;
  } else if (auto i = access_token_ids_.find(h); i != access_token_ids_.end()) {
    auto t = accounts_.access_tokens.find(i->second);
    if (t == accounts_.access_tokens.end() || t->second.revoked
        || (t->second.expires_at_us != 0 && now_us >= t->second.expires_at_us))
      return std::nullopt;
    name = t->second.username;
  } else {
    return std::nullopt;
  }
  auto u = accounts_.users.find(name);
  if (u == accounts_.users.end())
    return std::nullopt;
  return u->second;
}

std::vector<state::access_token_info> auth_directory::access_tokens() const {
  std::vector<state::access_token_info> out;
  std::lock_guard<std::mutex> guard{mu_};
  for (const auto& [id, t] : accounts_.access_tokens)
    out.push_back(t);
  return out;
}

std::optional<state::access_token_info>
auth_directory::access_token(int64_t id) const {
  std::lock_guard<std::mutex> guard{mu_};
  auto t = accounts_.access_tokens.find(id);
  if (t == accounts_.access_tokens.end())
    return std::nullopt;
  return t->second;
}

std::optional<user_record>
auth_directory::find(const std::string& username) const {
  std::lock_guard<std::mutex> guard{mu_};
  auto u = accounts_.users.find(username);
  if (u == accounts_.users.end())
    return std::nullopt;
  return u->second;
}

std::optional<user_record> auth_directory::find_id(int64_t id) const {
  std::lock_guard<std::mutex> guard{mu_};
  for (const auto& [name, u] : accounts_.users)
    if (u.id == id)
      return u;
  return std::nullopt;
}

std::vector<user_record> auth_directory::list() const {
  std::vector<user_record> out;
  {
    std::lock_guard<std::mutex> guard{mu_};
    for (const auto& [name, u] : accounts_.users)
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
  for (const auto& [hash, name] : accounts_.sessions)
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

void auth_directory::forget_allocation_id(const std::string& allocation_id) {
  std::lock_guard<std::mutex> guard{mu_};
  for (auto i = allocation_tokens_.begin(); i != allocation_tokens_.end();)
    i = i->second.allocation_id == allocation_id ? allocation_tokens_.erase(i)
                                                 : std::next(i);
}

void auth_directory::forget_allocation(const std::string& token) {
  auto h = token_hash(token);
  std::lock_guard<std::mutex> guard{mu_};
  allocation_tokens_.erase(h);
}

} // namespace det::api
