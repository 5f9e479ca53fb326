#include "inspect/table.hpp"

#include <cstdio>

namespace det::inspection {

namespace {

/// Display width of UTF-8 text: code points, not bytes.
size_t width_of(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80)
      ++n;
  return n;
}

} // namespace

std::string cell_text(const nlohmann::json& v) {
  std::string out;
  if (v.is_null())
    out = "-";
  else if (v.is_string())
    out = v.get<std::string>();
  else if (v.is_boolean())
    out = v.get<bool>() ? "yes" : "no";
  else if (v.is_number_integer())
    out = std::to_string(v.get<int64_t>());
  else if (v.is_number_unsigned())
    out = std::to_string(v.get<uint64_t>());
  else if (v.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    out = buf;
  } else
    out = v.dump();
  for (auto& c : out)
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
  return out.empty() ? "-" : out;
}

std::string format_table(const std::vector<std::string>& headers,
                         const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right) {
  std::vector<size_t> widths(headers.size(), 0);
  for (size_t i = 0; i < headers.size(); ++i)
    widths[i] = width_of(headers[i]);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < widths.size(); ++i)
      widths[i] = std::max(widths[i], width_of(r[i]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string empty;
      const auto& c = i < cells.size() ? cells[i] : empty;
      std::string pad(widths[i] - std::min(widths[i], width_of(c)), ' ');
      bool last = i + 1 == widths.size();
      if (i > 0)
        out += "  ";
      if (i < right.size() && right[i])
        out += pad + c;
      else
        out += last ? c : c + pad;
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers);
  for (const auto& r : rows)
    out += line(r);
  return out;
}

std::string format_rows(const nlohmann::json& rows,
                        const std::vector<column>& columns) {
  if (!rows.is_array() || rows.empty())
    return "(none)\n";
  std::vector<std::string> headers;
  std::vector<bool> right(columns.size(), true);
  for (const auto& c : columns)
    headers.push_back(c.header);
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows) {
    std::vector<std::string> line;
    for (size_t i = 0; i < columns.size(); ++i) {
      auto it = r.find(columns[i].key);
      nlohmann::json v = it == r.end() ? nlohmann::json{} : *it;
      if (!v.is_number() && !v.is_null())
        right[i] = false;
      line.push_back(cell_text(v));
    }
    cells.push_back(std::move(line));
  }
  return format_table(headers, cells, right);
}

std::string truncate(const std::string& s, size_t width) {
  if (width_of(s) <= width)
    return s;
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++n > width - std::min<size_t>(width, 3))
      break;
    out += s[i];
  }
  return out + "...";
}

} // namespace det::inspection
