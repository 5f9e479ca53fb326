#pragma once

// The arguments of record commands, checked as the API spells them: each
// failure throws `refused` naming the field, which parsed() (the parse
// functions: core/records_parse.cpp, core/trials_parse.cpp,
// core/webhooks.cpp) and decided() (the deciders) turn into the refusal.
// Private to core/.

#include "core/records.hpp"
#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "util/text.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <exception>
#include <optional>

#include <string>
#include <vector>

namespace det::record_args {

using nlohmann::json;

/// A refusal; decide_record turns it into record_outcome::refusal.
struct refused {
  errc code;
  std::string why;
};

[[noreturn]] inline void refuse(errc code, std::string why) {
  throw refused{code, std::move(why)};
}

inline const util::text_rules name_rules{255, false, false};
inline const util::text_rules prose_rules{16 * 1024, true, true};
inline const util::text_rules notes_rules{64 * 1024, true, true};

/// `v` as checked text, refused as field `name` otherwise.
inline std::string text_value(const std::string& name, const json& v,
                              const util::text_rules& rules) {
  if (!v.is_string())
    refuse(errc::invalid_argument, name + ": expected a string");
  auto s = v.get<std::string>();
  if (auto why = util::text_problem(s, rules); !why.empty())
    refuse(errc::invalid_argument, name + " " + why);
  return s;
}

/// Argument `key` of `a` as checked text; `fallback` when absent or null.
inline std::string text(const json& a, const char* key,
                        const std::string& fallback,
                        const util::text_rules& rules) {
  auto i = a.find(key);
  if (i == a.end() || i->is_null())
    return fallback;
  return text_value(key, *i, rules);
}

inline bool has(const json& a, const char* key) {
  auto i = a.find(key);
  return i != a.end() && !i->is_null();
}

inline int64_t id_arg(const json& a, const char* key, int64_t fallback = 0) {
  auto i = a.find(key);
  if (i == a.end() || i->is_null()) {
    if (fallback > 0)
      return fallback;
    refuse(errc::invalid_argument, std::string{key} + ": is required");
  }
  if (!i->is_number_integer() || i->get<int64_t>() < 1)
    refuse(errc::invalid_argument,
           std::string{key} + ": expected a positive integer");
  return i->get<int64_t>();
}

inline bool flag(const json& a, const char* key) {
  auto i = a.find(key);
  if (i == a.end() || !i->is_boolean())
    refuse(errc::invalid_argument, std::string{key} + ": expected a boolean");
  return i->get<bool>();
}

/// A JSON object argument (at most 64 KiB rendered), `fallback` if absent.
inline json object(const json& a, const char* key, const json& fallback) {
  auto i = a.find(key);
  if (i == a.end() || i->is_null())
    return fallback;
  if (!i->is_object())
    refuse(errc::invalid_argument, std::string{key} + ": expected an object");
  if (auto why = json_problem(*i, key); !why.empty())
    refuse(errc::invalid_argument, why);
  if (i->dump().size() > 256 * 1024)
    refuse(errc::invalid_argument, std::string{key} + ": more than 256 KiB");
  return *i;
}

inline std::vector<std::string>
labels(const json& a, const char* key, const std::vector<std::string>& fallback,
       const util::text_rules& rules = name_rules) {
  auto i = a.find(key);
  if (i == a.end() || i->is_null())
    return fallback;
  if (!i->is_array() || i->size() > 1000)
    refuse(errc::invalid_argument,
           std::string{key} + ": expected a list of at most 1000 labels");
  std::vector<std::string> out;
  for (const auto& x : *i) {
    if (!x.is_string())
      refuse(errc::invalid_argument,
             std::string{key} + "[]: expected a string");
    auto v = x.get<std::string>();
    if (auto why = util::text_problem(v, rules); !why.empty())
      refuse(errc::invalid_argument, std::string{key} + "[] " + why);
    out.push_back(std::move(v));
  }
  return out;
}

/// `member` becomes `v`'s value when a command gives one (an edit's
/// absent field keeps the record's).
template <class T> void set_if(T& member, const std::optional<T>& v) {
  if (v)
    member = *v;
}

/// Stamps the user and time on a *_saved / *_deleted event.
template <class E, class C> E stamped(E ev, const C& c, int64_t now_us) {
  ev.username = c.username;
  ev.at_us = now_us;
  return ev;
}

/// A refusal or JSON type error `f` threw, as an error.
inline caf::error refusal_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const refused& r) {
    return make_error(r.code, r.why);
  } catch (const nlohmann::json::exception& x) {
    return make_error(errc::invalid_argument, x.what());
  }
}

/// What `f()` returns, or the refusal it threw.
template <class T, class F> caf::expected<T> caught(F f) {
  try {
    return f();
  } catch (const refused&) {
    return refusal_of(std::current_exception());
  } catch (const nlohmann::json::exception&) {
    return refusal_of(std::current_exception());
  }
}

/// What `f(body)` parses from a request's body, or the refusal it threw;
/// a body that is not an object is refused.
template <class T, class F> caf::expected<T> parsed(const json& body, F f) {
  if (!body.is_object())
    return make_error(errc::invalid_argument,
                      "the request must be a JSON object");
  return caught<T>([&] { return f(body); });
}

/// The outcome `f` fills, or (no events) the refusal it threw.
template <class F> record_outcome decided(F f) {
  record_outcome o;
  try {
    f(o);
  } catch (const refused&) {
    o = record_outcome{};
    o.refusal = refusal_of(std::current_exception());
  } catch (const nlohmann::json::exception&) {
    o = record_outcome{};
    o.refusal = refusal_of(std::current_exception());
  }
  return o;
}

} // namespace det::record_args
