#include "aws/ini_file.hpp"

#include "util/text.hpp"

namespace det::aws {

ini_document parse_ini(std::string_view text) {
  ini_document doc;
  ini_section* current = nullptr;
  size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    auto raw = text.substr(pos, end - pos);
    pos = end + 1;
    bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    auto line = util::trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';')
      continue;
    if (line.front() == '[') {
      auto close = line.find(']');
      auto name = util::trim(line.substr(1, close == std::string_view::npos
                                                ? std::string_view::npos
                                                : close - 1));
      current = &doc[std::string(name)];
      continue;
    }
    if (current == nullptr || indented)
      continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos)
      continue;
    std::string key(util::trim(line.substr(0, eq)));
    for (auto& c : key)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    (*current)[key] = std::string(util::trim(line.substr(eq + 1)));
  }
  return doc;
}

} // namespace det::aws
