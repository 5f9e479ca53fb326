#include "conf/yaml_tree.hpp"

#include "util/text.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

namespace det::conf {

namespace {

using nlohmann::json;

bool is_null_word(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// A plain (unquoted) scalar as the YAML 1.2 core schema types it.
json plain_scalar(const std::string& s) {
  if (is_null_word(s))
    return nullptr;
  if (s == "true" || s == "True" || s == "TRUE")
    return true;
  if (s == "false" || s == "False" || s == "FALSE")
    return false;
  // Integers: decimal with optional sign, 0x hex, 0o octal.
  {
    const char* b = s.c_str();
    char* e = nullptr;
    errno = 0;
    int base = 10;
    std::string digits = s;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
      base = s[1] == 'x' ? 16 : 8;
      digits = s.substr(2);
      b = digits.c_str();
    }
    long long v = std::strtoll(b, &e, base);
    if (*b != '\0' && *e == '\0' && errno == 0
        && (base != 10 || s.find_first_of("0123456789") != std::string::npos))
      return static_cast<int64_t>(v);
  }
  if (s == ".inf" || s == "+.inf" || s == ".Inf" || s == "+.Inf")
    return std::numeric_limits<double>::infinity();
  if (s == "-.inf" || s == "-.Inf")
    return -std::numeric_limits<double>::infinity();
  if (s == ".nan" || s == ".NaN" || s == ".NAN")
    return std::numeric_limits<double>::quiet_NaN();
  {
    char* e = nullptr;
    errno = 0;
    double d = std::strtod(s.c_str(), &e);
    // strtod also accepts "inf", "nan" and hex floats: not YAML numbers.
    bool numeric_chars =
        s.find_first_not_of("0123456789+-.eE") == std::string::npos
        && s.find_first_of("0123456789") != std::string::npos;
    if (*e == '\0' && errno == 0 && numeric_chars)
      return d;
  }
  return s;
}

/// Text that nlohmann-json cannot serialise (and the event log cannot
/// hold) is refused where it is read, with its position.
const std::string& checked(const YAML::Node& n) {
  if (util::utf8_error_at(n.Scalar()) != std::string_view::npos)
    throw YAML::ParserException(n.Mark(), "text is not valid UTF-8");
  return n.Scalar();
}

json to_json(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Undefined:
  case YAML::NodeType::Null:
    return nullptr;
  case YAML::NodeType::Scalar:
    // yaml-cpp tags plain scalars "?" and quoted ones "!"; an explicit tag
    // such as !!str also keeps the text.
    if (n.Tag() == "?")
      return plain_scalar(checked(n));
    if (n.Tag() == "tag:yaml.org,2002:int"
        || n.Tag() == "tag:yaml.org,2002:float"
        || n.Tag() == "tag:yaml.org,2002:bool")
      return plain_scalar(checked(n));
    return checked(n);
  case YAML::NodeType::Sequence: {
    json out = json::array();
    for (const auto& x : n)
      out.push_back(to_json(x));
    return out;
  }
  case YAML::NodeType::Map: {
    json out = json::object();
    for (const auto& kv : n) {
      if (!kv.first.IsScalar())
        throw YAML::ParserException(kv.first.Mark(),
                                    "mapping keys must be scalars");
      out[checked(kv.first)] = to_json(kv.second);
    }
    return out;
  }
  }
  return nullptr;
}

void emit(YAML::Emitter& out, const json& v) {
  switch (v.type()) {
  case json::value_t::object:
    if (v.empty())
      out << YAML::Flow;
    out << YAML::BeginMap;
    for (const auto& kv : v.items()) {
      out << YAML::Key;
      emit(out, kv.key());
      out << YAML::Value;
      emit(out, kv.value());
    }
    out << YAML::EndMap;
    return;
  case json::value_t::array:
    if (v.empty())
      out << YAML::Flow;
    out << YAML::BeginSeq;
    for (const auto& x : v)
      emit(out, x);
    out << YAML::EndSeq;
    return;
  case json::value_t::string: {
    const auto& s = v.get_ref<const std::string&>();
    // Quoted when a plain scalar would read as something else.
    if (plain_scalar(s) != json(s))
      out << YAML::DoubleQuoted;
    out << s;
    return;
  }
  case json::value_t::null:
    out << YAML::Null;
    return;
  default: // numbers and booleans as JSON writes them are YAML too
    out << v.dump();
    return;
  }
}

} // namespace

std::string to_yaml(const nlohmann::json& tree) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, tree);
  return std::string{out.c_str()} + "\n";
}

caf::expected<nlohmann::json> parse_tree(std::string_view text) {
  try {
    auto root = YAML::Load(std::string{text});
    auto out = to_json(root);
    if (out.is_null())
      return json::object();
    return out;
  } catch (const YAML::Exception& e) {
    std::string msg = "not valid yaml: " + e.msg;
    if (!e.mark.is_null())
      msg += " at line " + std::to_string(e.mark.line + 1) + ", column "
             + std::to_string(e.mark.column + 1);
    return make_error(errc::invalid_argument, std::move(msg));
  }
}

caf::expected<std::string> read_text_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return make_error(errc::not_found, "cannot read config file " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace det::conf
