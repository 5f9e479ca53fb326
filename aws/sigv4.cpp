#include "aws/sigv4.hpp"

#include "util/text.hpp"

#include "aws/crypto.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

namespace det::aws {

namespace {

// Sent but never signed: they may be changed by proxies or the HTTP library.
bool unsigned_header(const std::string& lname) {
  static const char* names[] = {"connection",
                                "expect",
                                "keep-alive",
                                "proxy-authenticate",
                                "proxy-authorization",
                                "te",
                                "trailer",
                                "transfer-encoding",
                                "upgrade",
                                "user-agent",
                                "x-amzn-trace-id"};
  return std::any_of(std::begin(names), std::end(names),
                     [&](const char* n) { return lname == n; });
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v'
         || c == '\f';
}

// Trims and collapses each run of whitespace to one space.
std::string trim_all(std::string_view value) {
  std::string out;
  bool pending_space = false;
  for (char c : value) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space)
      out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// RFC 3986 remove_dot_segments, also dropping empty segments ("//").
std::string normalized_path(std::string_view path) {
  if (path.empty())
    return "/";
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= path.size()) {
    auto next = path.find('/', pos);
    if (next == std::string_view::npos)
      next = path.size();
    auto seg = path.substr(pos, next - pos);
    if (seg == "..") {
      if (!out.empty())
        out.pop_back();
    } else if (!seg.empty() && seg != ".") {
      out.push_back(seg);
    }
    pos = next + 1;
  }
  std::string result = path.front() == '/' ? "/" : "";
  for (size_t i = 0; i < out.size(); ++i) {
    if (i > 0)
      result += '/';
    result += out[i];
  }
  if (path.back() == '/' && !out.empty())
    result += '/';
  return result;
}

} // namespace

std::string uri_encode(std::string_view text, bool keep_slash) {
  return util::percent_encode(text, keep_slash);
}

std::string encode_path(std::string_view raw_path) {
  if (raw_path.empty())
    return "/";
  return uri_encode(raw_path, true);
}

std::string canonical_query(const param_list& params) {
  std::vector<std::pair<std::string, std::string>> enc;
  enc.reserve(params.size());
  for (const auto& [k, v] : params)
    enc.emplace_back(uri_encode(k), uri_encode(v));
  std::sort(enc.begin(), enc.end());
  std::string out;
  for (const auto& [k, v] : enc) {
    if (!out.empty())
      out += '&';
    out += k;
    out += '=';
    out += v;
  }
  return out;
}

std::string amz_date(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

sigv4_result sign_v4(const sigv4_request& req, const sigv4_scope& scope,
                     const credentials& creds,
                     std::chrono::system_clock::time_point now,
                     const sigv4_options& opts) {
  sigv4_result res;
  const auto date_time = amz_date(now);
  const auto date = date_time.substr(0, 8);
  const auto payload_hash = to_hex(sha256(req.body));

  res.headers.emplace_back("X-Amz-Date", date_time);
  if (!creds.session_token.empty())
    res.headers.emplace_back("X-Amz-Security-Token", creds.session_token);
  if (opts.add_content_sha256)
    res.headers.emplace_back("X-Amz-Content-Sha256", payload_hash);

  // Lowercase name -> values in the order given; std::map sorts the names.
  std::map<std::string, std::vector<std::string>> signed_values;
  bool has_host = false;
  auto add = [&](const std::string& name, const std::string& value) {
    auto lname = lower(name);
    if (unsigned_header(lname))
      return;
    has_host = has_host || lname == "host";
    signed_values[lname].push_back(trim_all(value));
  };
  for (const auto& [name, value] : req.headers)
    add(name, value);
  for (const auto& [name, value] : res.headers)
    add(name, value);
  if (!has_host)
    signed_values["host"].push_back(req.host);

  std::string canonical_headers;
  std::string signed_headers;
  for (const auto& [name, values] : signed_values) {
    canonical_headers += name;
    canonical_headers += ':';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0)
        canonical_headers += ',';
      canonical_headers += values[i];
    }
    canonical_headers += '\n';
    if (!signed_headers.empty())
      signed_headers += ';';
    signed_headers += name;
  }

  std::string path = req.path.empty() ? "/" : req.path;
  if (opts.normalize_path)
    path = uri_encode(normalized_path(path), true);

  res.canonical_request =
      req.method + '\n' + path + '\n' + canonical_query(req.query) + '\n'
      + canonical_headers + '\n' + signed_headers + '\n' + payload_hash;

  const auto credential_scope =
      date + '/' + scope.region + '/' + scope.service + "/aws4_request";
  res.string_to_sign = "AWS4-HMAC-SHA256\n" + date_time + '\n'
                       + credential_scope + '\n'
                       + to_hex(sha256(res.canonical_request));

  auto k_date = hmac_sha256("AWS4" + creds.secret_access_key, date);
  auto k_region = hmac_sha256(k_date, scope.region);
  auto k_service = hmac_sha256(k_region, scope.service);
  auto k_signing = hmac_sha256(k_service, "aws4_request");
  res.signature = to_hex(hmac_sha256(k_signing, res.string_to_sign));

  res.authorization = "AWS4-HMAC-SHA256 Credential=" + creds.access_key_id + '/'
                      + credential_scope + ", SignedHeaders=" + signed_headers
                      + ", Signature=" + res.signature;
  res.headers.emplace_back("Authorization", res.authorization);
  return res;
}

} // namespace det::aws
