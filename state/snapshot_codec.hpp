#pragma once

// The snapshot codec's two visitors over fields() (state/model_fields.hpp):
// record_writer puts every member under its key, record_reader takes them
// back, checking each one's type and naming the path of the first bad one
// (field_error). How a member is stored follows from its type:
//   strings, numbers, booleans, JSON, lists of those: as themselves;
//   statuses: to_string's name;      std::optional: the value or null;
//   records and lists of records:    objects and lists of objects;
//   maps of records:                 lists of records, each carrying its key
//                                    (key_of), a duplicate key refused;
//   pool_configured:                 its event payload form.
// Private to state/snapshot.cpp and its tests.

#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "messages/json_fields.hpp"
#include "state/model_fields.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace det::state::codec {

using nlohmann::json;

template <class T> json write(const T& x);
template <class T> void read(const json& j, T& x);

/// Whether T is an enum with to_string/from_string (the statuses).
template <class T> constexpr bool is_status = std::is_enum_v<T>;

/// Whether fields(f, T&) exists: T is a record.
template <class T, class = void> struct is_record : std::false_type {};
template <class T>
struct is_record<
    T, std::void_t<decltype(fields(std::declval<json&>(), std::declval<T&>()))>>
    : std::true_type {};

/// Runs f, prefixing a field_error (or JSON error) with `where`.
template <class F> void named(const std::string& where, F f) {
  try {
    f();
  } catch (const field_error& e) {
    throw field_error(where + ": " + e.what());
  } catch (const json::exception& e) {
    throw field_error(where + ": " + e.what());
  }
}

class record_writer {
public:
  explicit record_writer(json& out) : out_(out) {}

  template <class V> void req(const char* key, const V& x) {
    out_[key] = encode(x);
  }
  template <class V> void opt(const char* key, const V& x) {
    out_[key] = encode(x);
  }
  template <class M>
  void pairs(const char* key, const M& xs, const char* first,
             const char* second) {
    json list = json::array();
    for (const auto& [k, v] : xs)
      list.push_back({{first, k}, {second, v}});
    out_[key] = std::move(list);
  }
  template <class V> void derived(const V&) {}

  static json encode(const pool_configured& x) {
    return json::parse(to_envelope(x).payload);
  }
  template <class V> static json encode(const std::vector<V>& xs) {
    if constexpr (std::is_same_v<V, std::string> || std::is_arithmetic_v<V>) {
      return json(xs);
    } else {
      json list = json::array();
      for (const auto& x : xs)
        list.push_back(encode(x));
      return list;
    }
  }
  template <class V> static json encode(const std::optional<V>& x) {
    return x ? encode(*x) : json(nullptr);
  }
  template <class K, class V> static json encode(const std::map<K, V>& xs) {
    if constexpr (std::is_arithmetic_v<V>) {
      return json(xs);
    } else {
      json list = json::array();
      for (const auto& kv : xs)
        list.push_back(encode(kv.second));
      return list;
    }
  }
  template <class V> static json encode(const V& x) {
    if constexpr (is_status<V>)
      return to_string(x);
    else if constexpr (std::is_same_v<V, json> || !is_record<V>::value)
      return json(x);
    else
      return write(x);
  }

private:
  json& out_;
};

class record_reader {
public:
  explicit record_reader(const json& in) : in_(in) {}

  template <class V> void req(const char* key, V& x) {
    auto i = in_.find(key);
    if (i == in_.end())
      throw field_error(std::string{"field '"} + key + "' is missing");
    decode(key, *i, x);
  }
  template <class V> void opt(const char* key, V& x) {
    auto i = in_.find(key);
    if (i != in_.end() && !i->is_null())
      decode(key, *i, x);
  }
  template <class M>
  void pairs(const char* key, M& xs, const char* first, const char* second) {
    auto i = in_.find(key);
    if (i == in_.end())
      return;
    each(key, *i, [&](const json& x) {
      file(xs, get_field<std::string>(x, first),
           get_field<std::string>(x, second));
    });
  }
  template <class V> void derived(V&) {}

private:
  /// Files `x` under `key`, refusing a duplicate.
  template <class M, class K, class V> static void file(M& m, K&& key, V x) {
    if (!m.emplace(std::forward<K>(key), std::move(x)).second)
      throw field_error("duplicate entry");
  }

  /// Calls f(element) for each element of list `list` (field `key`),
  /// naming the element in any error.
  template <class F> static void each(const char* key, const json& list, F f) {
    if (!list.is_array())
      throw field_error(std::string{"field '"} + key + "': expected a list");
    for (size_t n = 0; n < list.size(); ++n)
      named(std::string{key} + "[" + std::to_string(n) + "]", [&] {
        require_object(list[n], "element");
        f(list[n]);
      });
  }

  static void decode(const char* key, const json& j, pool_configured& x) {
    auto ev = det::decode(event_envelope{pool_configured::type_name,
                                         pool_configured::version, j.dump()},
                          "pool config");
    if (!ev)
      throw field_error(std::string{"field '"} + key
                        + "': " + render(ev.error()));
    x = std::get<pool_configured>(*ev);
  }
  template <class V>
  static void decode(const char* key, const json& j, std::vector<V>& xs) {
    if constexpr (std::is_same_v<V, std::string> || std::is_arithmetic_v<V>) {
      xs = get_value<std::vector<V>>(j, key);
    } else {
      xs.clear();
      each(key, j, [&](const json& x) { xs.push_back(read_as<V>(x)); });
    }
  }
  template <class V>
  static void decode(const char* key, const json& j, std::optional<V>& x) {
    if (j.is_null()) {
      x.reset();
      return;
    }
    V v{};
    decode(key, j, v);
    x = std::move(v);
  }
  template <class K, class V>
  static void decode(const char* key, const json& j, std::map<K, V>& xs) {
    if constexpr (std::is_arithmetic_v<V>) {
      if (!j.is_object())
        throw field_error(std::string{"field '"} + key
                          + "': expected an object, got " + j.type_name());
      for (const auto& [k, n] : j.items())
        xs[k] = get_value<V>(n, (std::string{key} + "." + k).c_str());
    } else {
      each(key, j, [&](const json& x) {
        auto v = read_as<V>(x);
        auto k = key_of(v);
        file(xs, std::move(k), std::move(v));
      });
    }
  }
  template <class V> static void decode(const char* key, const json& j, V& x) {
    if constexpr (is_status<V>) {
      auto name = get_value<std::string>(j, key);
      if (!from_string(name, x))
        throw field_error(std::string{"field '"} + key + "': unknown status '"
                          + name + "'");
    } else if constexpr (std::is_same_v<V, json> || !is_record<V>::value) {
      x = get_value<V>(j, key);
    } else {
      require_object(j, (std::string{"field '"} + key + "'").c_str());
      named(key, [&] { read(j, x); });
    }
  }

  template <class V> static V read_as(const json& j) {
    V v{};
    read(j, v);
    return v;
  }

  const json& in_;
};

/// What older snapshots left out and fields() cannot default on its own.
inline void upgrade(const json& j, trial_info& t) {
  if (!j.contains("checkpoints") && t.latest_checkpoint)
    t.checkpoints.push_back(*t.latest_checkpoint);
}

/// The allocation index is not stored: rebuilt from the trials.
inline void upgrade(const json&, cluster_state& s) {
  for (const auto& [id, t] : s.trials)
    if (t.allocation && !s.allocations.emplace(t.allocation->id, id).second)
      throw field_error("trials: duplicate entry: allocation '"
                        + t.allocation->id + "'");
}

template <class T> void upgrade(const json&, T&) {}

template <class T> json write(const T& x) {
  json out = json::object();
  record_writer w{out};
  fields(w, const_cast<T&>(x));
  return out;
}

template <class T> void read(const json& j, T& x) {
  record_reader r{j};
  fields(r, x);
  upgrade(j, x);
}

} // namespace det::state::codec
