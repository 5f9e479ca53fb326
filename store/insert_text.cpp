#include "store/insert_text.hpp"

namespace det {

void append_sql_literal(std::string& sql, const std::string& text) {
  sql.reserve(sql.size() + text.size() + 3);
  sql += "E'";
  size_t from = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\\' && c != '\'')
      continue;
    sql.append(text, from, i - from);
    sql += c;
    sql += c;
    from = i + 1;
  }
  sql.append(text, from, std::string::npos);
  sql += '\'';
}

} // namespace det
