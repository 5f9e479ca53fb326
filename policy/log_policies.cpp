#include "policy/log_policies.hpp"

#include "util/text.hpp"

#include <re2/re2.h>

#include <optional>
#include <set>

namespace det::policy {

using nlohmann::json;

namespace {

const std::vector<log_policy>& default_policies() {
  static const std::vector<log_policy> xs{
      {"CUDA OOM", ".*CUDA out of memory.*", ""},
      {"ECC Error", ".*uncorrectable ECC error encountered.*", ""}};
  return xs;
}

/// The action of an item: "cancel_retries", "exclude_node" (either as
/// text or as the legacy {"type": ...}), "" when absent, or nullopt.
std::optional<std::string> action_of(const json& item) {
  auto a = item.find("action");
  if (a == item.end() || a->is_null())
    return std::string{};
  const json* v = &*a;
  if (a->is_object()) {
    if (a->size() != 1 || !a->contains("type"))
      return std::nullopt;
    v = &(*a)["type"];
  }
  if (!v->is_string())
    return std::nullopt;
  auto s = v->get<std::string>();
  if (s != "cancel_retries" && s != "exclude_node")
    return std::nullopt;
  return s;
}

std::string text_of(const json& item, const char* key) {
  auto v = item.find(key);
  return v != item.end() && v->is_string() ? v->get<std::string>()
                                           : std::string{};
}

} // namespace

std::string log_policies_problem(const json& value) {
  if (value.is_null())
    return {};
  if (!value.is_array())
    return "log_policies: expected a list of policies";
  std::set<std::string> names;
  for (size_t i = 0; i < value.size(); ++i) {
    const auto& item = value[i];
    auto at = "log_policies[" + std::to_string(i) + "]";
    if (!item.is_object())
      return at + ": expected a policy (name, pattern, action)";
    for (const auto& [key, v] : item.items())
      if (key != "name" && key != "pattern" && key != "action")
        return at + ": unknown field '" + util::fit_text(key, {64, false, true})
               + "' (expected name, pattern, action)";
    auto name = item.find("name");
    bool named = name != item.end() && !name->is_null();
    if (named) {
      if (!name->is_string() || name->get<std::string>().empty())
        return at + ".name: expected a non-empty name";
      auto why =
          util::text_problem(name->get<std::string>(), {255, false, true});
      if (!why.empty())
        return at + ".name: " + why;
      if (!names.insert(name->get<std::string>()).second)
        return "log_policies have duplicated names \""
               + name->get<std::string>() + "\"";
    }
    auto pattern = item.find("pattern");
    bool has_pattern = pattern != item.end() && !pattern->is_null();
    if (has_pattern) {
      if (!pattern->is_string())
        return at + ".pattern: expected a regular expression (RE2 syntax)";
      const auto& p = pattern->get<std::string>();
      if (p.size() > max_log_policy_pattern)
        return at + ".pattern: longer than "
               + std::to_string(max_log_policy_pattern) + " bytes";
      if (auto why =
              util::text_problem(p, {max_log_policy_pattern, false, true});
          !why.empty())
        return at + ".pattern: " + why;
      RE2::Options o;
      o.set_log_errors(false);
      o.set_max_mem(1 << 20);
      RE2 re{p, o};
      if (!re.ok())
        return at + ".pattern: not a valid regular expression (RE2 syntax): "
               + util::fit_text(re.error(), {200, false, true});
    }
    auto action = action_of(item);
    if (!action)
      return at + ".action: expected cancel_retries or exclude_node";
    if (!named && (!has_pattern || action->empty()))
      return at + ": a policy without a name needs a pattern and an action";
  }
  return {};
}

std::vector<log_policy> effective_log_policies(const json& config) {
  std::vector<log_policy> out;
  std::set<std::string> names;
  auto list = config.find("log_policies");
  if (list != config.end() && list->is_array())
    for (const auto& item : *list) {
      if (!item.is_object())
        continue;
      log_policy p{text_of(item, "name"), text_of(item, "pattern"),
                   action_of(item).value_or("")};
      if (!p.name.empty())
        names.insert(p.name);
      out.push_back(std::move(p));
    }
  for (const auto& d : default_policies())
    if (names.count(d.name) == 0)
      out.push_back(d);
  return out;
}

bool echoes_log_policies(const std::string& line) {
  return line.find("\"log_policies\":") != std::string::npos
         || line.find("'log_policies':") != std::string::npos;
}

} // namespace det::policy
