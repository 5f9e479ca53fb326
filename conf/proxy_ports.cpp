#include "conf/proxy_ports.hpp"

#include <set>

namespace det::conf {

using nlohmann::json;

std::optional<std::vector<proxy_port>> read_proxy_ports(const json& environment,
                                                        std::string& why) {
  std::vector<proxy_port> out;
  if (!environment.is_object())
    return out;
  auto list = environment.find("proxy_ports");
  if (list == environment.end() || list->is_null())
    return out;
  const std::string field = "environment.proxy_ports";
  if (!list->is_array() || list->size() > max_proxy_ports) {
    why = field + ": expected a list of at most "
          + std::to_string(max_proxy_ports) + " ports";
    return std::nullopt;
  }
  std::set<int32_t> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const auto& e = (*list)[i];
    auto at = field + "[" + std::to_string(i) + "]";
    if (!e.is_object()) {
      why = at + ": expected {proxy_port, proxy_tcp, unauthenticated}";
      return std::nullopt;
    }
    for (const auto& [k, v] : e.items())
      if (k != "proxy_port" && k != "proxy_tcp" && k != "unauthenticated"
          && k != "default_service_port") {
        why = at
              + ": unknown field; known: proxy_port, proxy_tcp, "
                "unauthenticated, default_service_port";
        return std::nullopt;
      }
    auto p = e.find("proxy_port");
    if (p == e.end() || !(p->is_number_integer() || p->is_number_unsigned())
        || p->get<int64_t>() < 1 || p->get<int64_t>() > 65535) {
      why = at + ".proxy_port: expected a whole number from 1 to 65535";
      return std::nullopt;
    }
    proxy_port pp;
    pp.port = static_cast<int32_t>(p->get<int64_t>());
    for (auto [key, flag] :
         {std::pair{"proxy_tcp", &pp.tcp},
          std::pair{"unauthenticated", &pp.unauthenticated},
          std::pair<const char*, bool*>{"default_service_port", nullptr}}) {
      auto f = e.find(key);
      if (f == e.end() || f->is_null())
        continue;
      if (!f->is_boolean()) {
        why = at + "." + key + ": expected true or false";
        return std::nullopt;
      }
      if (flag != nullptr)
        *flag = f->get<bool>();
    }
    if (!seen.insert(pp.port).second) {
      why = at + ".proxy_port: " + std::to_string(pp.port) + " is listed twice";
      return std::nullopt;
    }
    out.push_back(pp);
  }
  return out;
}

std::optional<proxy_port> declared_proxy_port(const json& environment,
                                              int32_t port) {
  std::string why;
  auto ports = read_proxy_ports(environment, why);
  if (!ports)
    return std::nullopt;
  for (const auto& p : *ports)
    if (p.port == port)
      return p;
  return std::nullopt;
}

} // namespace det::conf
