// SigV4 against AWS's published test-suite vectors, plus the encoders.

#include "aws/crypto.hpp"
#include "aws/sigv4.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace det::aws;
using namespace std::chrono;

namespace {

nlohmann::json load_vectors() {
  std::ifstream in(std::string(DET_TEST_DATA_DIR) + "/aws/sigv4_vectors.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str())["vectors"];
}

system_clock::time_point vector_time() {
  // 2015-08-30T12:36:00Z
  return system_clock::time_point{seconds{1440938160}};
}

} // namespace

TEST(sigv4, published_test_suite_vectors_produce_the_published_signatures) {
  auto vectors = load_vectors();
  ASSERT_GE(vectors.size(), 8u);
  for (const auto& v : vectors) {
    SCOPED_TRACE(v["name"].get<std::string>());
    ASSERT_EQ(v["time"], "2015-08-30T12:36:00Z");
    sigv4_request req;
    req.method = v["method"];
    req.host = v["host"];
    req.path = v["path"];
    for (const auto& q : v["query"])
      req.query.emplace_back(q[0], q[1]);
    for (const auto& h : v["headers"])
      req.headers.emplace_back(h[0], h[1]);
    req.body = v["body"];
    credentials creds;
    creds.access_key_id = v["access_key_id"];
    creds.secret_access_key = v["secret_access_key"];
    creds.session_token = v["session_token"];
    sigv4_options opts;
    opts.add_content_sha256 = v["add_content_sha256"];
    auto res =
        sign_v4(req, {v["region"], v["service"]}, creds, vector_time(), opts);
    if (!v["canonical_request"].is_null()) {
      EXPECT_EQ(res.canonical_request, v["canonical_request"]);
    }
    EXPECT_EQ(res.signature, v["signature"]);
    EXPECT_NE(res.authorization.find("Signature="
                                     + v["signature"].get<std::string>()),
              std::string::npos);
  }
}

TEST(sigv4, get_vanilla_adds_date_and_authorization_headers_in_order) {
  sigv4_request req{"GET", "example.amazonaws.com", "/", {}, {}, ""};
  credentials creds{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                    "", std::nullopt, "test"};
  auto res = sign_v4(req, {"us-east-1", "service"}, creds, vector_time());
  ASSERT_EQ(res.headers.size(), 2u);
  EXPECT_EQ(res.headers[0], (std::pair<std::string, std::string>{
                                "X-Amz-Date", "20150830T123600Z"}));
  EXPECT_EQ(res.headers[1].first, "Authorization");
  EXPECT_EQ(res.headers[1].second,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/"
            "service/aws4_request, SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aa"
            "e1d763fbf31");
}

TEST(sigv4, session_token_is_sent_and_signed) {
  sigv4_request req{"POST", "ec2.us-east-1.amazonaws.com", "/", {}, {}, "x"};
  credentials creds{"AKID", "secret", "token-1", std::nullopt, "test"};
  auto res = sign_v4(req, {"us-east-1", "ec2"}, creds, vector_time());
  EXPECT_EQ(res.headers[1], (std::pair<std::string, std::string>{
                                "X-Amz-Security-Token", "token-1"}));
  EXPECT_NE(res.authorization.find("host;x-amz-date;x-amz-security-token"),
            std::string::npos);
}

TEST(sigv4, user_agent_is_not_signed) {
  sigv4_request req{"GET", "h", "/", {}, {{"User-Agent", "det/1"}}, ""};
  credentials creds{"AKID", "secret", "", std::nullopt, "test"};
  auto res = sign_v4(req, {"r", "s"}, creds, vector_time());
  EXPECT_NE(res.authorization.find("SignedHeaders=host;x-amz-date,"),
            std::string::npos);
}

TEST(sigv4, path_is_normalized_and_encoded_twice) {
  sigv4_request req{"GET", "h", encode_path("/a b/./c//d/../e%"), {}, {}, ""};
  EXPECT_EQ(req.path, "/a%20b/./c//d/../e%25");
  credentials creds{"AKID", "secret", "", std::nullopt, "test"};
  auto res = sign_v4(req, {"r", "s"}, creds, vector_time());
  EXPECT_EQ(
      res.canonical_request.substr(0, res.canonical_request.find('\n', 4)),
      "GET\n/a%2520b/c/e%2525");
}

TEST(sigv4, query_encoding_keeps_only_unreserved_characters) {
  EXPECT_EQ(uri_encode("a b+c/d=e&f~g_h.i-j"), "a%20b%2Bc%2Fd%3De%26f~g_h.i-j");
  EXPECT_EQ(uri_encode("/x y", true), "/x%20y");
  EXPECT_EQ(uri_encode("\xe1\x88\xb4"), "%E1%88%B4");
}

TEST(sigv4, canonical_query_sorts_by_encoded_name_then_value) {
  param_list q{{"b", "2"}, {"a", "z"}, {"a", "y"}, {"A", "1"}, {"a b", ""}};
  EXPECT_EQ(canonical_query(q), "A=1&a=y&a=z&a%20b=&b=2");
}

TEST(sigv4, amz_date_is_utc_basic_format) {
  EXPECT_EQ(amz_date(vector_time()), "20150830T123600Z");
}

TEST(crypto, sha256_and_hmac_match_known_values) {
  EXPECT_EQ(to_hex(sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // RFC 4231 test case 2.
  EXPECT_EQ(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(crypto, base64_pads_every_remainder) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("#!/bin/bash\n"), "IyEvYmluL2Jhc2gK");
}

TEST(credentials, describe_never_shows_the_secret_or_the_token) {
  credentials creds{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG",
                    "FwoGZXIvYXdzEXAMPLETOKEN", std::nullopt, "environment"};
  auto text = describe(creds);
  EXPECT_EQ(text, "AKIA...MPLE from environment (temporary)");
  EXPECT_EQ(text.find("wJalr"), std::string::npos);
  EXPECT_EQ(text.find("FwoG"), std::string::npos);
}
