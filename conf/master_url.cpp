#include "conf/master_url.hpp"

#include <cctype>

namespace det::conf {

const char* to_string(host_alias x) {
  switch (x) {
  case host_alias::none:
    return "";
  case host_alias::local_ipv4:
    return "local-ipv4";
  case host_alias::public_ipv4:
    return "public-ipv4";
  case host_alias::local_hostname:
    return "local-hostname";
  case host_alias::public_hostname:
    return "public-hostname";
  }
  return "";
}

std::string master_address::to_url() const {
  return scheme + "://" + host + ":" + std::to_string(port);
}

caf::expected<master_address> parse_master_url(std::string_view text,
                                               std::string default_scheme,
                                               uint16_t default_port) {
  auto bad = [&](const std::string& why) {
    return make_error(errc::invalid_argument,
                      why + " in master URL \"" + std::string{text} + "\"");
  };
  master_address out;
  out.scheme = std::move(default_scheme);
  out.port = default_port;
  std::string_view s = text;
  if (auto p = s.find("://"); p != std::string_view::npos) {
    out.scheme = std::string{s.substr(0, p)};
    for (auto& c : out.scheme)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (out.scheme != "http" && out.scheme != "https")
      return bad("scheme must be http or https");
    s.remove_prefix(p + 3);
  }
  if (auto p = s.find('/'); p != std::string_view::npos) {
    if (s.substr(p) != "/")
      return bad("a path is not allowed");
    s = s.substr(0, p);
  }
  std::string_view host = s;
  if (auto p = s.rfind(':');
      p != std::string_view::npos && s.find(']') == std::string_view::npos) {
    host = s.substr(0, p);
    auto port = s.substr(p + 1);
    if (port.empty() || port.size() > 5)
      return bad("bad port");
    unsigned v = 0;
    for (char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return bad("bad port");
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v == 0 || v > 65535)
      return bad("port out of range");
    out.port = static_cast<uint16_t>(v);
  }
  if (host.empty())
    return bad("empty host");
  out.host = std::string{host};
  for (auto a : {host_alias::local_ipv4, host_alias::public_ipv4,
                 host_alias::local_hostname, host_alias::public_hostname}) {
    if (out.host == to_string(a)
        || out.host == std::string{"ec2."} + to_string(a)) {
      out.alias = a;
      out.host = to_string(a);
    }
  }
  return out;
}

} // namespace det::conf
