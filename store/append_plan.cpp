#include "store/append_plan.hpp"

#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace det {

namespace {

bool is_json_object(const std::string& text) {
  auto i = text.find_first_not_of(" \t\r\n");
  return i != std::string::npos && text[i] == '{'
         && nlohmann::json::accept(text);
}

} // namespace

caf::error plan_append(const append_request& req, const version_lookup& current,
                       tentative_versions& tentative,
                       std::vector<int64_t>& versions_out) {
  if (req.events.empty())
    return make_error(errc::invalid_argument, "append of no events");
  auto version_of = [&](const std::string& stream) {
    auto i = tentative.find(stream);
    return i != tentative.end() ? i->second : current(stream);
  };
  for (const auto& exp : req.expected) {
    if (!exp.version)
      continue;
    auto have = version_of(exp.stream);
    if (have != *exp.version)
      return make_error(errc::conflict,
                        "stream " + exp.stream + " is at version "
                            + std::to_string(have) + ", expected "
                            + std::to_string(*exp.version));
  }
  for (size_t i = 0; i < req.events.size(); ++i) {
    const auto& ev = req.events[i];
    auto where = [&] { return "event " + std::to_string(i) + " of append"; };
    if (ev.stream.empty())
      return make_error(errc::invalid_argument, where() + ": empty stream id");
    if (ev.body.type.empty())
      return make_error(errc::invalid_argument,
                        where() + " (stream " + ev.stream + "): empty type");
    if (ev.body.schema_version < 1)
      return make_error(errc::invalid_argument,
                        where() + " (" + ev.body.type
                            + "): schema version must be at least 1");
    if (!is_json_object(ev.body.payload))
      return make_error(errc::invalid_argument,
                        where() + " (" + ev.body.type
                            + "): payload is not a JSON object");
  }
  // All checks passed: assign versions.
  versions_out.clear();
  versions_out.reserve(req.events.size());
  for (const auto& ev : req.events) {
    auto v = version_of(ev.stream) + 1;
    tentative[ev.stream] = v;
    versions_out.push_back(v);
  }
  return {};
}

std::string checksum(const std::string& bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx",
                static_cast<unsigned long long>(h));
  return buf;
}

} // namespace det
