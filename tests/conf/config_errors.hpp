#pragma once

// What the configuration tests share: a refused document's message, and the
// shape of a table-driven case (a document and a substring its error must
// hold).

#include "conf/master_config.hpp"
#include "conf/reader.hpp"

#include <string>
#include <string_view>

namespace det::test {

/// One document and the substring its error must contain.
struct error_case {
  const char* name;
  std::string yaml;
  const char* want;
};

/// The message of a refused parse, or "<no error>" when it was accepted.
template <class Expected> std::string error_text(const Expected& parsed) {
  return parsed ? "<no error>" : conf::message_of(parsed.error());
}

/// The error of `yaml` as a master configuration.
inline std::string master_error_of(std::string_view yaml) {
  return error_text(conf::parse_master_config(yaml));
}

} // namespace det::test
