#pragma once

// The INI dialect of ~/.aws/credentials and ~/.aws/config: [section]
// headers, "key = value" lines, '#' and ';' comment lines. Keys are
// lowercased (AWS tools treat them case-insensitively); section names are
// kept as written. Indented continuation lines (nested s3 settings) are
// ignored. Pure.

#include <map>
#include <string>
#include <string_view>

namespace det::aws {

using ini_section = std::map<std::string, std::string>;
using ini_document = std::map<std::string, ini_section>;

ini_document parse_ini(std::string_view text);

} // namespace det::aws
