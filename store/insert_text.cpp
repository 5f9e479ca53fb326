#include "store/insert_text.hpp"

#include <charconv>

namespace det {

namespace {

constexpr const char insert_prefix[] =
    "INSERT INTO events (position, stream_id, stream_version, type, "
    "schema_version, payload) VALUES ";

void append_int(std::string& sql, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  sql.append(buf, res.ptr);
}

} // namespace

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

void append_insert_prefix(std::string& sql) {
  sql += insert_prefix;
}

void append_insert_row(std::string& sql, int64_t position, const new_event& ev,
                       int64_t stream_version) {
  if (sql.back() == ')')
    sql += ',';
  sql += '(';
  append_int(sql, position);
  sql += ',';
  append_sql_literal(sql, ev.stream);
  sql += ',';
  append_int(sql, stream_version);
  sql += ',';
  append_sql_literal(sql, ev.body.type);
  sql += ',';
  append_int(sql, ev.body.schema_version);
  sql += ',';
  append_sql_literal(sql, ev.body.payload);
  sql += ')';
}

} // namespace det
