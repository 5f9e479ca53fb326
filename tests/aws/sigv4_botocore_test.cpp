// Cross-check: many randomized requests signed by sign_v4() and by botocore
// (tests/aws/botocore_sign.py) must carry identical Authorization headers.
// The seed is fixed so a failure reproduces; DET_SIGV4_SEED overrides it.

#include "aws/crypto.hpp"
#include "aws/sigv4.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <unistd.h>

using namespace det::aws;
using namespace std::chrono;

namespace {

struct random_request {
  sigv4_request req;
  std::string raw_path;
  sigv4_scope scope;
  credentials creds;
  int64_t epoch = 0;
  bool add_content_sha256 = false;
};

class generator {
public:
  explicit generator(uint32_t seed) : rng_(seed) {}

  random_request next() {
    random_request r;
    static const char* methods[] = {"GET", "POST", "PUT", "DELETE", "HEAD"};
    static const char* hosts[] = {
        "ec2.us-east-1.amazonaws.com", "127.0.0.1:5000", "localhost:38421",
        "example.amazonaws.com", "monitoring.eu-west-1.amazonaws.com"};
    static const char* regions[] = {"us-east-1", "us-west-2", "eu-central-1",
                                    "ap-southeast-2"};
    static const char* services[] = {"ec2", "monitoring", "sts", "service"};
    r.req.method = pick(methods);
    r.req.host = pick(hosts);
    r.raw_path = random_path();
    r.req.path = encode_path(r.raw_path);
    for (int i = 0, n = below(7); i < n; ++i) {
      // Repeated names with different values exercise the value sort.
      if (!r.req.query.empty() && below(4) == 0)
        r.req.query.emplace_back(r.req.query.back().first, text(0, 6));
      else
        r.req.query.emplace_back(text(1, 8), text(0, 10));
    }
    for (int i = 0, n = below(5); i < n; ++i)
      r.req.headers.emplace_back(header_name(), header_value());
    if (below(3) == 0)
      r.req.headers.emplace_back(
          "Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
    if (below(5) == 0)
      r.req.headers.emplace_back("User-Agent", "det-master/0.1 test");
    if (below(6) == 0 && !r.req.headers.empty()) // repeated header name
      r.req.headers.emplace_back(r.req.headers.front().first, header_value());
    for (int i = 0, n = below(3) == 0 ? 0 : below(300); i < n; ++i)
      r.req.body += static_cast<char>(below(256));
    r.scope = {pick(regions), pick(services)};
    r.creds.access_key_id = "AKIA" + alnum(16);
    r.creds.secret_access_key = alnum(40);
    if (below(2) == 0)
      r.creds.session_token = alnum(20) + "/+=" + alnum(100);
    r.epoch = 1420070400 + below(600'000'000); // 2015 .. 2034
    r.add_content_sha256 = below(5) == 0;
    return r;
  }

private:
  int below(int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng_);
  }

  template <size_t N> const char* pick(const char* (&xs)[N]) {
    return xs[below(static_cast<int>(N))];
  }

  std::string alnum(int n) {
    static const std::string cs =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string s;
    for (int i = 0; i < n; ++i)
      s += cs[below(static_cast<int>(cs.size()))];
    return s;
  }

  // Unreserved, reserved and UTF-8 characters, as names and values may hold.
  std::string text(int min_len, int max_len) {
    static const char* atoms[] = {"a",
                                  "Z",
                                  "0",
                                  "-",
                                  "_",
                                  ".",
                                  "~",
                                  " ",
                                  "+",
                                  "=",
                                  "&",
                                  "?",
                                  "/",
                                  "%",
                                  "#",
                                  ":",
                                  "@",
                                  "!",
                                  "$",
                                  "'",
                                  "(",
                                  ")",
                                  "*",
                                  ",",
                                  ";",
                                  "[",
                                  "]",
                                  "\"",
                                  "<",
                                  "\xc3\xa9",
                                  "\xe1\x88\xb4",
                                  "\xf0\x9f\x98\x80",
                                  "Action",
                                  "Filter.1.Value.2",
                                  "tag:det"};
    std::string s;
    for (int i = 0, n = min_len + below(max_len - min_len + 1); i < n; ++i)
      s += pick(atoms);
    return s;
  }

  std::string random_path() {
    if (below(4) == 0)
      return "/";
    std::string p;
    for (int i = 0, n = 1 + below(4); i < n; ++i) {
      int kind = below(10);
      p += '/';
      if (kind == 0)
        p += ".";
      else if (kind == 1)
        p += "..";
      else if (kind == 2)
        p += ""; // an empty segment: "//"
      else
        p += text(1, 6);
    }
    // '?' and '#' are encoded by both sides; keep one path without them too.
    if (below(3) == 0)
      p += '/';
    return p;
  }

  std::string header_name() {
    static const std::string cs = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-";
    std::string s = "X-Det-";
    for (int i = 0, n = 1 + below(8); i < n; ++i)
      s += cs[below(static_cast<int>(cs.size()))];
    return s;
  }

  std::string header_value() {
    std::string s;
    for (int i = 0, n = below(20); i < n; ++i) {
      int k = below(8);
      if (k == 0)
        s += "   ";
      else if (k == 1)
        s += '\t';
      else
        s += static_cast<char>(0x21 + below(0x7e - 0x21 + 1));
    }
    return s;
  }

  std::mt19937 rng_;
};

nlohmann::json to_json(const random_request& r) {
  nlohmann::json j;
  j["method"] = r.req.method;
  j["host"] = r.req.host;
  j["raw_path"] = r.raw_path;
  j["query"] = nlohmann::json::array();
  for (const auto& [k, v] : r.req.query)
    j["query"].push_back({k, v});
  j["headers"] = nlohmann::json::array();
  for (const auto& [k, v] : r.req.headers)
    j["headers"].push_back({k, v});
  j["body_hex"] = to_hex(r.req.body);
  j["access_key_id"] = r.creds.access_key_id;
  j["secret_access_key"] = r.creds.secret_access_key;
  j["session_token"] = r.creds.session_token;
  j["region"] = r.scope.region;
  j["service"] = r.scope.service;
  j["epoch"] = r.epoch;
  j["add_content_sha256"] = r.add_content_sha256;
  return j;
}

std::string run_botocore(const std::string& input_file) {
  std::string cmd = "python3 " + std::string(DET_TEST_AWS_DIR)
                    + "/botocore_sign.py " + input_file;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr)
    return {};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
    out.append(buf, n);
  if (pclose(p) != 0)
    return {};
  return out;
}

} // namespace

TEST(sigv4_botocore,
     randomized_requests_are_signed_exactly_as_botocore_signs_them) {
  uint32_t seed = 20240611;
  if (const char* s = std::getenv("DET_SIGV4_SEED"))
    seed = static_cast<uint32_t>(std::strtoul(s, nullptr, 10));
  constexpr int count = 600;
  generator gen(seed);
  std::vector<random_request> reqs;
  nlohmann::json input = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    reqs.push_back(gen.next());
    input.push_back(to_json(reqs.back()));
  }
  char path[] = "/tmp/det-sigv4-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << input.dump();
  auto out = run_botocore(path);
  std::remove(path);
  ASSERT_FALSE(out.empty())
      << "botocore_sign.py failed (is botocore installed?)";
  auto expected = nlohmann::json::parse(out);
  ASSERT_EQ(expected.size(), reqs.size());
  int mismatches = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const auto& r = reqs[i];
    sigv4_options opts;
    opts.add_content_sha256 = r.add_content_sha256;
    auto res = sign_v4(r.req, r.scope, r.creds,
                       system_clock::time_point{seconds{r.epoch}}, opts);
    EXPECT_EQ(amz_date(system_clock::time_point{seconds{r.epoch}}),
              expected[i]["x_amz_date"]);
    if (res.authorization != expected[i]["authorization"]) {
      ++mismatches;
      ADD_FAILURE() << "seed " << seed << " request " << i
                    << "\nours:     " << res.authorization << "\nbotocore: "
                    << expected[i]["authorization"].get<std::string>()
                    << "\nrequest: " << input[i].dump()
                    << "\nour canonical request:\n"
                    << res.canonical_request;
      if (mismatches >= 5)
        break;
    }
  }
  EXPECT_EQ(mismatches, 0);
}
