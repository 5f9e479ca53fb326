#pragma once

// XML of AWS Query API responses as a small tree, read with pugixml. It
// keeps element names (namespace prefixes dropped) and character data,
// skips attributes, comments, processing instructions and DOCTYPE, decodes
// the predefined and numeric entities and CDATA (an unknown entity stays as
// written). Callers look elements up by name, never by position: moto and
// AWS order elements differently. Nothing here recurses with the depth of
// the input. Pure; any thread.

#include <caf/expected.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace det::aws {

struct xml_element {
  std::string name;
  /// All character data directly inside this element, concatenated.
  std::string text;
  std::vector<xml_element> children;

  /// The first child named `child_name`, or nullptr.
  const xml_element* child(std::string_view child_name) const;

  /// Every child named `child_name`, in document order.
  std::vector<const xml_element*>
  children_named(std::string_view child_name) const;

  /// The text of the first child named `child_name`, trimmed; "" if absent.
  std::string child_text(std::string_view child_name) const;

  /// The first element named `descendant_name` in depth-first order,
  /// including this one; nullptr if none.
  const xml_element* find(std::string_view descendant_name) const;

  /// The `item` children of the child named `set_name` ("instancesSet",
  /// "tagSet", ...): how EC2 spells lists. Empty if the set is absent.
  std::vector<const xml_element*> items(std::string_view set_name) const;
};

/// Parses a document into its root element. Fails with
/// errc::invalid_argument, "xml: <reason> at byte <offset>", for input that
/// is not well-formed (unbalanced tags, no root element, ...) and for
/// elements nested more than 200 levels below the root ("nesting deeper
/// than 200 levels"), which no AWS response needs.
[[nodiscard]] caf::expected<xml_element> parse_xml(std::string_view doc);

} // namespace det::aws
