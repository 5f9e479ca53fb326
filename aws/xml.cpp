#include "aws/xml.hpp"

#include "messages/errc.hpp"

#include <cctype>
#include <cstdlib>

namespace det::aws {

namespace {

constexpr int max_depth = 200;

std::string_view trim(std::string_view s) {
  auto is_ws = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  };
  while (!s.empty() && is_ws(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_ws(s.back()))
    s.remove_suffix(1);
  return s;
}

void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x110000) {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Decodes entities; an unknown entity is kept verbatim (tolerance).
void append_decoded(std::string& out, std::string_view raw) {
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '&') {
      out += raw[i];
      continue;
    }
    auto semi = raw.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += raw[i];
      continue;
    }
    auto ent = raw.substr(i + 1, semi - i - 1);
    if (ent == "lt")
      out += '<';
    else if (ent == "gt")
      out += '>';
    else if (ent == "amp")
      out += '&';
    else if (ent == "quot")
      out += '"';
    else if (ent == "apos")
      out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      std::string digits(ent.substr(ent[1] == 'x' || ent[1] == 'X' ? 2 : 1));
      int base = ent[1] == 'x' || ent[1] == 'X' ? 16 : 10;
      char* end = nullptr;
      auto cp = std::strtoul(digits.c_str(), &end, base);
      if (digits.empty() || *end != '\0') {
        out.append(raw.substr(i, semi - i + 1));
      } else {
        append_utf8(out, cp);
      }
    } else {
      out.append(raw.substr(i, semi - i + 1));
    }
    i = semi;
  }
}

class parser {
public:
  explicit parser(std::string_view doc) : doc_(doc) {}

  caf::expected<xml_element> parse_document() {
    skip_prolog();
    if (pos_ >= doc_.size() || doc_[pos_] != '<')
      return fail("expected a root element");
    xml_element root;
    if (auto err = parse_element(root, 0))
      return err;
    return root;
  }

private:
  caf::error fail(const std::string& what) const {
    return make_error(errc::invalid_argument,
                      "xml: " + what + " at byte " + std::to_string(pos_));
  }

  bool starts_with(std::string_view s) const {
    return doc_.substr(pos_, s.size()) == s;
  }

  // Skips "<?...?>", "<!--...-->", "<!DOCTYPE ...>" and whitespace.
  void skip_prolog() {
    for (;;) {
      while (pos_ < doc_.size()
             && std::isspace(static_cast<unsigned char>(doc_[pos_])))
        ++pos_;
      if (starts_with("<?"))
        skip_past("?>");
      else if (starts_with("<!--"))
        skip_past("-->");
      else if (starts_with("<!"))
        skip_past(">");
      else
        return;
    }
  }

  void skip_past(std::string_view end) {
    auto at = doc_.find(end, pos_);
    pos_ = at == std::string_view::npos ? doc_.size() : at + end.size();
  }

  static std::string local_name(std::string_view qname) {
    auto colon = qname.rfind(':');
    return std::string(
        colon == std::string_view::npos ? qname : qname.substr(colon + 1));
  }

  // At '<' of a start tag. Reads through the matching end tag.
  caf::error parse_element(xml_element& el, int depth) {
    if (depth > max_depth)
      return fail("nesting deeper than " + std::to_string(max_depth));
    ++pos_; // '<'
    auto name_start = pos_;
    while (pos_ < doc_.size()
           && !std::isspace(static_cast<unsigned char>(doc_[pos_]))
           && doc_[pos_] != '>' && doc_[pos_] != '/')
      ++pos_;
    auto qname = doc_.substr(name_start, pos_ - name_start);
    if (qname.empty())
      return fail("empty element name");
    el.name = local_name(qname);
    // Attributes: skipped, but quoted values may contain '>' or '/'.
    for (;;) {
      if (pos_ >= doc_.size())
        return fail("unterminated start tag <" + el.name);
      char c = doc_[pos_];
      if (c == '"' || c == '\'') {
        auto close = doc_.find(c, pos_ + 1);
        if (close == std::string_view::npos)
          return fail("unterminated attribute value in <" + el.name);
        pos_ = close + 1;
      } else if (c == '/' && pos_ + 1 < doc_.size() && doc_[pos_ + 1] == '>') {
        pos_ += 2;
        return {};
      } else if (c == '>') {
        ++pos_;
        break;
      } else {
        ++pos_;
      }
    }
    // Content.
    for (;;) {
      auto lt = doc_.find('<', pos_);
      if (lt == std::string_view::npos)
        return fail("missing </" + el.name + ">");
      append_decoded(el.text, doc_.substr(pos_, lt - pos_));
      pos_ = lt;
      if (starts_with("</")) {
        auto gt = doc_.find('>', pos_);
        if (gt == std::string_view::npos)
          return fail("unterminated end tag");
        auto end_name = local_name(trim(doc_.substr(pos_ + 2, gt - pos_ - 2)));
        if (end_name != el.name)
          return fail("</" + end_name + "> closes <" + el.name + ">");
        pos_ = gt + 1;
        return {};
      }
      if (starts_with("<![CDATA[")) {
        auto end = doc_.find("]]>", pos_);
        if (end == std::string_view::npos)
          return fail("unterminated CDATA");
        el.text.append(doc_.substr(pos_ + 9, end - pos_ - 9));
        pos_ = end + 3;
      } else if (starts_with("<!--")) {
        skip_past("-->");
      } else if (starts_with("<?") || starts_with("<!")) {
        skip_past(">");
      } else {
        el.children.emplace_back();
        if (auto err = parse_element(el.children.back(), depth + 1))
          return err;
      }
    }
  }

  std::string_view doc_;
  size_t pos_ = 0;
};

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
  return c ? std::string(trim(c->text)) : std::string{};
}

const xml_element* xml_element::find(std::string_view descendant_name) const {
  if (name == descendant_name)
    return this;
  for (const auto& c : children)
    if (auto hit = c.find(descendant_name))
      return hit;
  return nullptr;
}

std::vector<const xml_element*>
xml_element::items(std::string_view set_name) const {
  auto set = child(set_name);
  return set ? set->children_named("item") : std::vector<const xml_element*>{};
}

caf::expected<xml_element> parse_xml(std::string_view doc) {
  return parser{doc}.parse_document();
}

} // namespace det::aws
