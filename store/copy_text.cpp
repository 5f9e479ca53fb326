#include "store/copy_text.hpp"

#include "messages/errc.hpp"
#include "util/text.hpp"

#include <array>
#include <charconv>

namespace det {

namespace {

// Appends the unescaped form of one field to `out`.
void unescape(std::string_view in, std::string& out) {
  if (in.find('\\') == std::string_view::npos) {
    out.assign(in.data(), in.size());
    return;
  }
  out.clear();
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c != '\\' || i + 1 == in.size()) {
      out.push_back(c);
      continue;
    }
    char n = in[++i];
    switch (n) {
    case 'b':
      out.push_back('\b');
      break;
    case 'f':
      out.push_back('\f');
      break;
    case 'n':
      out.push_back('\n');
      break;
    case 'r':
      out.push_back('\r');
      break;
    case 't':
      out.push_back('\t');
      break;
    case 'v':
      out.push_back('\v');
      break;
    case 'x': {
      int v = 0;
      size_t k = 0;
      while (k < 2 && i + 1 < in.size() && util::hex_value(in[i + 1]) >= 0) {
        v = v * 16 + util::hex_value(in[++i]);
        ++k;
      }
      out.push_back(static_cast<char>(v));
      break;
    }
    default:
      if (n >= '0' && n <= '7') {
        int v = n - '0';
        for (int k = 0;
             k < 2 && i + 1 < in.size() && in[i + 1] >= '0' && in[i + 1] <= '7';
             ++k)
          v = v * 8 + (in[++i] - '0');
        out.push_back(static_cast<char>(v));
      } else {
        out.push_back(n); // \\ and any other escaped character
      }
    }
  }
}

bool to_int(std::string_view s, int64_t& out) {
  auto res = std::from_chars(s.data(), s.data() + s.size(), out);
  return res.ec == std::errc{} && res.ptr == s.data() + s.size();
}

constexpr std::string_view null_field = "\\N";

// One field's unescaped text into `out` (a NULL one as ""), in the storage
// `out` already has, unless that is large (a reader reusing its rows keeps
// no big payload's storage for the rest of the log).
void field_text(std::string_view raw, std::string& out) {
  constexpr size_t kept_capacity = 64 << 10;
  if (out.capacity() > kept_capacity && raw.size() < kept_capacity)
    std::string{}.swap(out);
  if (raw == null_field)
    out.clear();
  else
    unescape(raw, out);
}

// Calls fn(raw text, index) for each tab-separated field of `line` (its
// newline dropped); returns how many there are.
template <class Fn> size_t each_field(std::string_view line, Fn&& fn) {
  if (!line.empty() && line.back() == '\n')
    line.remove_suffix(1);
  size_t n = 0;
  for (size_t start = 0;;) {
    auto tab = line.find('\t', start);
    fn(line.substr(start, tab == std::string_view::npos ? std::string_view::npos
                                                        : tab - start),
       n++);
    if (tab == std::string_view::npos)
      return n;
    start = tab + 1;
  }
}

// One field as an integer; a NULL one is "", not an integer.
bool field_int(std::string_view raw, int64_t& out) {
  if (raw.find('\\') == std::string_view::npos)
    return to_int(raw, out);
  std::string text;
  field_text(raw, text);
  return to_int(text, out);
}

} // namespace

void split_copy_line(std::string_view line, std::vector<std::string>& fields,
                     std::vector<bool>& nulls) {
  auto n = each_field(line, [&](std::string_view raw, size_t k) {
    if (fields.size() <= k) {
      fields.emplace_back();
      nulls.push_back(false);
    }
    nulls[k] = raw == null_field;
    field_text(raw, fields[k]);
  });
  fields.resize(n);
  nulls.resize(n);
}

caf::error parse_event_line(std::string_view line, recorded_event& out) {
  // Split as split_copy_line splits, but each text field is unescaped
  // straight into `out`'s strings: a reader that hands the same
  // recorded_event back row after row allocates nothing for them.
  std::array<std::string_view, 7> f;
  auto n = each_field(line, [&](std::string_view raw, size_t k) {
    if (k < f.size())
      f[k] = raw;
  });
  auto bad = [&](const std::string& why) {
    return make_error(errc::invalid_event, "unreadable event row '"
                                               + std::string{line.substr(0, 80)}
                                               + "': " + why);
  };
  if (n != 7)
    return bad("expected 7 fields, got " + std::to_string(n));
  int64_t schema = 0;
  if (!field_int(f[0], out.position))
    return bad("position is not an integer");
  if (!field_int(f[2], out.stream_version))
    return bad("stream_version is not an integer");
  if (!field_int(f[4], schema))
    return bad("schema_version is not an integer");
  if (!field_int(f[6], out.recorded_at_us))
    out.recorded_at_us = 0;
  field_text(f[1], out.stream);
  field_text(f[3], out.body.type);
  out.body.schema_version = static_cast<int32_t>(schema);
  field_text(f[5], out.body.payload);
  return {};
}

namespace {

// Only these four can break a field or a row; the reader undoes them.
void append_copy_field(std::string& out, const std::string& text) {
  size_t from = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char esc;
    switch (text[i]) {
    case '\\':
      esc = '\\';
      break;
    case '\t':
      esc = 't';
      break;
    case '\n':
      esc = 'n';
      break;
    case '\r':
      esc = 'r';
      break;
    default:
      continue;
    }
    out.append(text, from, i - from);
    out += '\\';
    out += esc;
    from = i + 1;
  }
  out.append(text, from, std::string::npos);
}

void append_copy_int(std::string& out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, res.ptr);
}

} // namespace

void append_copy_row(std::string& out, int64_t position, const new_event& ev,
                     int64_t stream_version) {
  append_copy_int(out, position);
  out += '\t';
  append_copy_field(out, ev.stream);
  out += '\t';
  append_copy_int(out, stream_version);
  out += '\t';
  append_copy_field(out, ev.body.type);
  out += '\t';
  append_copy_int(out, ev.body.schema_version);
  out += '\t';
  append_copy_field(out, ev.body.payload);
}

} // namespace det
