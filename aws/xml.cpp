#include "aws/xml.hpp"

#include "messages/errc.hpp"
#include "util/text.hpp"

#include <pugixml.hpp>

#include <cstddef>
#include <utility>

namespace det::aws {

namespace {

constexpr int max_depth = 200;

// pugixml drops comments, processing instructions, the declaration and
// DOCTYPE unless asked to keep them; we keep character data as written
// (whitespace-only runs too, like the text between tags), CDATA, and
// decode the predefined and numeric entities. An unknown entity stays as
// written.
constexpr unsigned parse_flags = pugi::parse_cdata | pugi::parse_escapes
                                 | pugi::parse_eol | pugi::parse_ws_pcdata;

std::string local_name(std::string_view qname) {
  auto colon = qname.rfind(':');
  return std::string(colon == std::string_view::npos ? qname
                                                     : qname.substr(colon + 1));
}

caf::error fail(const std::string& what, std::ptrdiff_t offset) {
  return make_error(errc::invalid_argument,
                    "xml: " + what + " at byte " + std::to_string(offset));
}

// One element of the pugixml tree still to be copied into `into`, whose
// depth below the root is `depth`.
struct pending {
  pugi::xml_node node;
  xml_element* into;
  int depth;
};

// Copies the pugixml tree below `root` into `out` with an explicit stack:
// a 10,000-deep document never recurses. Every element's children are
// created before any of them is visited, so the pointers on the stack stay
// valid (no vector grows after its elements are pushed).
caf::error copy_tree(pugi::xml_node root, xml_element& out) {
  out.name = local_name(root.name());
  std::vector<pending> todo{{root, &out, 0}};
  while (!todo.empty()) {
    auto [node, into, depth] = todo.back();
    todo.pop_back();
    size_t elements = 0;
    for (auto c = node.first_child(); c; c = c.next_sibling()) {
      if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata)
        into->text += c.value();
      else if (c.type() == pugi::node_element)
        ++elements;
    }
    if (elements == 0)
      continue;
    if (depth + 1 > max_depth) {
      auto first = node.find_child(
          [](pugi::xml_node c) { return c.type() == pugi::node_element; });
      // offset_debug() is where the name starts, one byte after its '<'.
      auto at = first.offset_debug();
      return fail("nesting deeper than " + std::to_string(max_depth)
                      + " levels",
                  at > 0 ? at - 1 : at);
    }
    into->children.resize(elements);
    size_t i = 0;
    for (auto c = node.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) {
        into->children[i].name = local_name(c.name());
        todo.push_back({c, &into->children[i], depth + 1});
        ++i;
      }
  }
  return {};
}

} // namespace

const xml_element* xml_element::child(std::string_view child_name) const {
  for (const auto& c : children)
    if (c.name == child_name)
      return &c;
  return nullptr;
}

std::vector<const xml_element*>
xml_element::children_named(std::string_view child_name) const {
  std::vector<const xml_element*> out;
  for (const auto& c : children)
    if (c.name == child_name)
      out.push_back(&c);
  return out;
}

std::string xml_element::child_text(std::string_view child_name) const {
  auto c = child(child_name);
  return c ? std::string(util::trim(c->text)) : std::string{};
}

const xml_element* xml_element::find(std::string_view descendant_name) const {
  // Depth-first, document order, without recursion.
  std::vector<const xml_element*> todo{this};
  while (!todo.empty()) {
    auto el = todo.back();
    todo.pop_back();
    if (el->name == descendant_name)
      return el;
    for (auto c = el->children.rbegin(); c != el->children.rend(); ++c)
      todo.push_back(&*c);
  }
  return nullptr;
}

std::vector<const xml_element*>
xml_element::items(std::string_view set_name) const {
  auto set = child(set_name);
  return set ? set->children_named("item") : std::vector<const xml_element*>{};
}

caf::expected<xml_element> parse_xml(std::string_view doc) {
  pugi::xml_document tree;
  auto parsed = tree.load_buffer(doc.data(), doc.size(), parse_flags,
                                 pugi::encoding_utf8);
  if (!parsed)
    return fail(parsed.description(), parsed.offset);
  auto root = tree.document_element();
  if (!root)
    return fail("expected a root element", 0);
  xml_element out;
  if (auto err = copy_tree(root, out))
    return err;
  return out;
}

} // namespace det::aws
