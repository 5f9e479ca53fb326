#include "http/url.hpp"

#include "util/text.hpp"

namespace det::http {

std::string percent_decode(std::string_view in, bool plus_as_space) {
  return util::percent_decode(in, plus_as_space);
}

query_params parse_query(std::string_view query) {
  query_params out;
  while (!query.empty()) {
    auto amp = query.find('&');
    auto piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{}
                                          : query.substr(amp + 1);
    if (piece.empty())
      continue;
    auto eq = piece.find('=');
    if (eq == std::string_view::npos)
      out.add(percent_decode(piece, true), {});
    else
      out.add(percent_decode(piece.substr(0, eq), true),
              percent_decode(piece.substr(eq + 1), true));
  }
  return out;
}

std::string normalize_path(std::string_view path) {
  while (path.size() > 1 && path.back() == '/')
    path.remove_suffix(1);
  if (path.empty())
    return "/";
  return std::string{path};
}

void split_target(std::string_view target, std::string& path,
                  query_params& query) {
  auto q = target.find('?');
  auto raw_path = target.substr(0, q);
  // A fragment never reaches a server, but be lenient if one does.
  if (auto h = raw_path.find('#'); h != std::string_view::npos)
    raw_path = raw_path.substr(0, h);
  path = normalize_path(raw_path);
  query = q == std::string_view::npos ? query_params{}
                                      : parse_query(target.substr(q + 1));
}

std::vector<std::string_view> path_segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    auto next = path.find('/', i);
    if (next == std::string_view::npos)
      next = path.size();
    out.push_back(path.substr(i, next - i));
    i = next;
  }
  return out;
}

} // namespace det::http
