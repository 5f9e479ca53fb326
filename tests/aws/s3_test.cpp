// The S3 client without a server: the XML it writes and reads, its
// addressing, multipart splitting and DeleteObjects batching through a
// recording http_client, and every request it signs re-signed by botocore's
// S3SigV4Auth (tests/aws/botocore_sign.py), which must agree byte for byte.

#include "aws/aws_error.hpp"
#include "aws/crypto.hpp"
#include "aws/s3_client.hpp"
#include "aws/s3_codec.hpp"
#include "aws/sigv4.hpp"
#include "aws/xml.hpp"
#include "messages/errc.hpp"
#include "test_support.hpp"
#include "util/text.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <mutex>
#include <unistd.h>

using namespace det::aws;
using namespace std::chrono;

namespace {

constexpr int64_t fixed_epoch = 1767225600; // 2026-01-01T00:00:00Z

// Answers each request with what S3 would, minimally; keeps every request.
class recording_http final : public det::net::http_client {
public:
  caf::expected<det::net::http_response>
  send(const det::net::http_request& req) override {
    std::lock_guard<std::mutex> guard{mtx_};
    sent.push_back(req);
    det::net::http_response resp;
    resp.status = 200;
    if (req.url.find("?uploads") != std::string::npos)
      resp.body = "<InitiateMultipartUploadResult><UploadId>up-1</UploadId>"
                  "</InitiateMultipartUploadResult>";
    else if (req.url.find("?tagging") != std::string::npos)
      resp.body = "<Tagging><TagSet/></Tagging>";
    else if (req.url.find("?delete") != std::string::npos)
      resp.body = delete_answer;
    else if (req.url.find("list-type=2") != std::string::npos)
      resp.body = list_answers.empty()
                      ? "<ListBucketResult/>"
                      : list_answers[list_calls++ % list_answers.size()];
    resp.headers.emplace_back("ETag",
                              "\"etag-" + std::to_string(sent.size()) + "\"");
    if (fail_status != 0) {
      resp.status = fail_status;
      resp.body = fail_body;
    }
    return resp;
  }

  std::vector<det::net::http_request> sent;
  std::string delete_answer = "<DeleteResult/>";
  std::vector<std::string> list_answers;
  size_t list_calls = 0;
  long fail_status = 0;
  std::string fail_body;

private:
  std::mutex mtx_;
};

retry_clock no_sleep() {
  auto c = retry_clock::real();
  c.sleep = [](milliseconds) {};
  return c;
}

std::shared_ptr<s3_client> client_for(const std::string& endpoint,
                                      std::shared_ptr<recording_http> http,
                                      s3_addressing addressing,
                                      const std::string& region = "us-west-2") {
  s3_client_config cfg;
  cfg.region = region;
  cfg.endpoint_url = endpoint;
  cfg.addressing = addressing;
  cfg.multipart_threshold = 64;
  cfg.part_size = 25;
  cfg.retry.max_attempts = 3;
  return std::make_shared<s3_client>(
      cfg, http,
      make_static_credentials({"AKIDEXAMPLE",
                               "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                               "session/token+=", std::nullopt, "test"}),
      no_sleep(),
      [] { return system_clock::time_point{seconds{fixed_epoch}}; });
}

std::string temp_file(const std::string& content) {
  char path[] = "/tmp/det-s3-test-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// The request as botocore_sign.py wants it, with our Authorization.
nlohmann::json for_botocore(const det::net::http_request& req,
                            const std::string& region) {
  nlohmann::json j;
  auto scheme_end = req.url.find("://");
  auto rest = req.url.substr(scheme_end + 3);
  auto slash = rest.find('/');
  auto qpos = rest.find('?');
  j["method"] = req.method;
  j["scheme"] = req.url.substr(0, scheme_end);
  j["host"] = rest.substr(0, slash);
  j["raw_path"] = det::util::percent_decode(
      rest.substr(slash,
                  qpos == std::string::npos ? std::string::npos : qpos - slash),
      false);
  j["query"] = nlohmann::json::array();
  if (qpos != std::string::npos) {
    std::vector<std::string> parts;
    std::string q = rest.substr(qpos + 1);
    for (size_t at = 0; at <= q.size();) {
      auto amp = q.find('&', at);
      if (amp == std::string::npos)
        amp = q.size();
      parts.push_back(q.substr(at, amp - at));
      at = amp + 1;
    }
    for (const auto& part : parts) {
      auto eq = part.find('=');
      j["query"].push_back(
          {det::util::percent_decode(part.substr(0, eq), false),
           eq == std::string::npos
               ? ""
               : det::util::percent_decode(part.substr(eq + 1), false)});
    }
  }
  j["headers"] = nlohmann::json::array();
  std::string ours;
  for (const auto& [k, v] : req.headers) {
    using det::util::iequals;
    if (iequals(k, "authorization"))
      ours = v;
    else if (!iequals(k, "x-amz-date") && !iequals(k, "x-amz-content-sha256")
             && !iequals(k, "x-amz-security-token") && !iequals(k, "host"))
      j["headers"].push_back({k, v});
  }
  j["ours"] = ours;
  j["body_hex"] = to_hex(req.body);
  j["access_key_id"] = "AKIDEXAMPLE";
  j["secret_access_key"] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  j["session_token"] = "session/token+=";
  j["region"] = region;
  j["service"] = "s3";
  j["s3"] = true;
  j["epoch"] = fixed_epoch;
  j["add_content_sha256"] = true;
  return j;
}

void exercise(s3_client& s3, const std::string& file) {
  const std::string b = "det-bucket-1";
  ASSERT_TRUE(
      s3.put_object(b, "dir/a b+c~d%e/ü.txt", "hello", {{"sha256", "x"}}));
  ASSERT_TRUE(s3.put_file(b, "big/pkg.deb", file));
  ASSERT_TRUE(s3.head_object(b, "dir/x"));
  ASSERT_TRUE(s3.get_object(b, "dir/x"));
  ASSERT_TRUE(s3.list_objects(b, "dir/", "tok/en=", 10));
  ASSERT_TRUE(s3.delete_objects(b, {"k1", "k&<2>"}));
  ASSERT_FALSE(s3.create_bucket(b));
  ASSERT_FALSE(s3.put_bucket_tagging(b, {{"managed-by", "det-deploy"}}));
  ASSERT_TRUE(s3.get_bucket_tagging(b));
  ASSERT_FALSE(s3.put_bucket_versioning(b, true));
  ASSERT_TRUE(s3.bucket_exists(b));
  ASSERT_FALSE(s3.delete_bucket(b));
}

} // namespace

TEST(s3_addressing, aws_endpoints_use_virtual_hosts_and_others_use_paths) {
  auto http = std::make_shared<recording_http>();
  auto aws = client_for("https://s3.us-west-2.amazonaws.com/", http,
                        s3_addressing::automatic);
  auto u = aws->url_of("my-bucket", "a b/c");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->url, "https://my-bucket.s3.us-west-2.amazonaws.com/a%20b/c");
  EXPECT_EQ(u->host, "my-bucket.s3.us-west-2.amazonaws.com");
  // A dotted bucket would not match AWS's wildcard certificate.
  u = aws->url_of("my.bucket", "k");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->url, "https://s3.us-west-2.amazonaws.com/my.bucket/k");
  auto moto =
      client_for("http://127.0.0.1:5000", http, s3_addressing::automatic);
  u = moto->url_of("my-bucket", "");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->url, "http://127.0.0.1:5000/my-bucket");
  EXPECT_EQ(u->host, "127.0.0.1:5000");
  auto forced =
      client_for("http://127.0.0.1:5000", http, s3_addressing::virtual_host);
  u = forced->url_of("my-bucket", "k");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->url, "http://my-bucket.127.0.0.1:5000/k");
}

TEST(s3_addressing, bad_bucket_names_and_long_keys_are_refused_before_sending) {
  auto http = std::make_shared<recording_http>();
  auto s3 = client_for("http://127.0.0.1:5000", http, s3_addressing::path);
  for (const char* bad : {"", "ab", "Upper", "-dash", "dot.", "a/b", "a b"}) {
    auto r = s3->get_object(bad, "k");
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(det::render(r.error()).find("bucket name"), std::string::npos);
  }
  EXPECT_FALSE(s3->get_object("okay", std::string(1025, 'k')));
  EXPECT_TRUE(http->sent.empty());
}

TEST(s3_client, large_files_go_up_in_parts_with_progress_and_small_in_one_put) {
  auto http = std::make_shared<recording_http>();
  auto s3 = client_for("http://127.0.0.1:5000", http, s3_addressing::path);
  std::string content(70, 'x');
  content[30] = 'y';
  auto file = temp_file(content);
  std::vector<std::pair<uint64_t, uint64_t>> seen;
  auto etag =
      s3->put_file("bkt", "k", file, [&](uint64_t sent, uint64_t total) {
        seen.emplace_back(sent, total);
      });
  ASSERT_TRUE(etag) << det::render(etag.error());
  // 70 bytes in parts of 25: create, 3 parts, complete.
  ASSERT_EQ(http->sent.size(), 5u);
  EXPECT_EQ(http->sent[0].method, "POST");
  EXPECT_EQ(http->sent[0].url, "http://127.0.0.1:5000/bkt/k?uploads");
  EXPECT_EQ(http->sent[1].url,
            "http://127.0.0.1:5000/bkt/k?partNumber=1&uploadId=up-1");
  EXPECT_EQ(http->sent[1].body + http->sent[2].body + http->sent[3].body,
            content);
  EXPECT_EQ(http->sent[3].body.size(), 20u);
  EXPECT_NE(
      http->sent[4].body.find("<PartNumber>3</PartNumber><ETag>\"etag-4\""),
      std::string::npos);
  EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, uint64_t>>{
                      {25, 70}, {50, 70}, {70, 70}}));
  http->sent.clear();
  seen.clear();
  auto small = temp_file("tiny");
  ASSERT_TRUE(s3->put_file("bkt", "s", small, [&](uint64_t a, uint64_t b) {
    seen.emplace_back(a, b);
  }));
  ASSERT_EQ(http->sent.size(), 1u);
  EXPECT_EQ(http->sent[0].method, "PUT");
  EXPECT_EQ(http->sent[0].body, "tiny");
  EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, uint64_t>>{{4, 4}}));
  std::remove(file.c_str());
  std::remove(small.c_str());
}

TEST(s3_client, a_failed_part_aborts_the_multipart_upload) {
  auto http = std::make_shared<recording_http>();
  auto s3 = client_for("http://127.0.0.1:5000", http, s3_addressing::path);
  auto file = temp_file(std::string(70, 'z'));
  struct failing final : det::net::http_client {
    std::shared_ptr<recording_http> inner;
    caf::expected<det::net::http_response>
    send(const det::net::http_request& req) override {
      auto r = inner->send(req);
      if (req.url.find("partNumber=2") != std::string::npos) {
        r->status = 400;
        r->body =
            "<Error><Code>InvalidPart</Code><Message>no</Message></Error>";
      }
      return r;
    }
  };
  auto f = std::make_shared<failing>();
  f->inner = http;
  s3_client_config cfg = s3->config();
  s3_client c(cfg, f,
              make_static_credentials({"a", "b", "", std::nullopt, "t"}),
              no_sleep());
  auto etag = c.put_file("bkt", "k", file);
  ASSERT_FALSE(etag);
  EXPECT_EQ(aws_error_of(etag.error()).code, "InvalidPart");
  EXPECT_EQ(http->sent.back().method, "DELETE");
  EXPECT_EQ(http->sent.back().url, "http://127.0.0.1:5000/bkt/k?uploadId=up-1");
  std::remove(file.c_str());
}

TEST(s3_client, delete_objects_sends_batches_of_at_most_1000_keys_with_md5) {
  auto http = std::make_shared<recording_http>();
  http->delete_answer =
      "<DeleteResult><Deleted><Key>k0</Key></Deleted><Error><Key>k7</Key>"
      "<Code>AccessDenied</Code><Message>no</Message></Error></DeleteResult>";
  auto s3 = client_for("http://127.0.0.1:5000", http, s3_addressing::path);
  std::vector<std::string> keys;
  for (int i = 0; i < 2345; ++i)
    keys.push_back("k" + std::to_string(i));
  auto failed = s3->delete_objects("bkt", keys);
  ASSERT_TRUE(failed);
  ASSERT_EQ(http->sent.size(), 3u);
  size_t total = 0;
  for (const auto& req : http->sent) {
    auto doc = parse_xml(req.body);
    ASSERT_TRUE(doc);
    auto n = doc->children_named("Object").size();
    EXPECT_LE(n, 1000u);
    total += n;
    EXPECT_EQ(req.url, "http://127.0.0.1:5000/bkt?delete");
    bool has_md5 = false;
    for (const auto& [k, v] : req.headers)
      has_md5 =
          has_md5 || (k == "Content-MD5" && v == base64_encode(md5(req.body)));
    EXPECT_TRUE(has_md5);
  }
  EXPECT_EQ(total, keys.size());
  ASSERT_EQ(failed->size(), 3u); // one refusal reported per batch answer
  EXPECT_EQ((*failed)[0].key, "k7");
  EXPECT_EQ((*failed)[0].code, "AccessDenied");
}

TEST(s3_client, list_all_follows_continuation_tokens_and_stops_on_a_loop) {
  auto http = std::make_shared<recording_http>();
  http->list_answers = {
      "<ListBucketResult><Contents><Key>a</Key><Size>3</Size><ETag>\"e\"</ETag>"
      "</Contents><IsTruncated>true</IsTruncated><NextContinuationToken>t1"
      "</NextContinuationToken></ListBucketResult>",
      "<ListBucketResult><Contents><Key>b</Key><Size>4</Size></Contents>"
      "<IsTruncated>false</IsTruncated></ListBucketResult>"};
  auto s3 = client_for("http://127.0.0.1:5000", http, s3_addressing::path);
  auto all = s3->list_all("bkt", "p/");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].etag, "e");
  EXPECT_EQ((*all)[1].size, 4u);
  EXPECT_NE(http->sent[1].url.find("continuation-token=t1"), std::string::npos);
  // A server that repeats its token forever is cut off, not followed.
  http->list_answers = {http->list_answers[0]};
  http->list_calls = 0;
  auto looped = s3->list_all("bkt", "p/");
  ASSERT_FALSE(looped);
  EXPECT_LE(http->list_calls, 3u);
}

TEST(s3_client, errors_are_typed_and_not_found_is_its_own_kind) {
  auto http = std::make_shared<recording_http>();
  auto s3 = client_for("http://127.0.0.1:5000", http, s3_addressing::path);
  http->fail_status = 404;
  http->fail_body =
      "<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>";
  auto r = s3->get_object("bkt", "k");
  ASSERT_FALSE(r);
  EXPECT_EQ(aws_error_of(r.error()).kind, aws_error_kind::not_found);
  EXPECT_EQ(aws_error_of(r.error()).code, "NoSuchKey");
  http->fail_body.clear(); // HEAD answers have no body
  auto exists = s3->bucket_exists("bkt");
  ASSERT_TRUE(exists);
  EXPECT_FALSE(*exists);
  // 503 SlowDown is retried within the budget (3 attempts here).
  http->sent.clear();
  http->fail_status = 503;
  http->fail_body = "<Error><Code>SlowDown</Code></Error>";
  EXPECT_FALSE(s3->get_object("bkt", "k"));
  EXPECT_EQ(http->sent.size(), 3u);
  // A 200 carrying an <Error> (CompleteMultipartUpload does that) fails.
  http->sent.clear();
  http->fail_status = 200;
  http->fail_body = "<Error><Code>InternalError</Code></Error>";
  EXPECT_FALSE(s3->put_object("bkt", "k", "x"));
}

TEST(s3_codec, bodies_escape_keys_and_tags_and_parse_back) {
  auto body = s3_codec::delete_body({"a&b", "<c>", "d"}, 0, 2);
  auto doc = parse_xml(body);
  ASSERT_TRUE(doc);
  auto objects = doc->children_named("Object");
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0]->child_text("Key"), "a&b");
  EXPECT_EQ(objects[1]->child_text("Key"), "<c>");
  auto tags = s3_codec::parse_tagging(
      s3_codec::tagging_body({{"managed-by", "det-deploy"}, {"k", "\"v'"}}));
  ASSERT_TRUE(tags);
  EXPECT_EQ(tags->at("managed-by"), "det-deploy");
  EXPECT_EQ(tags->at("k"), "\"v'");
  EXPECT_EQ(s3_codec::create_bucket_body("us-east-1"), "");
  EXPECT_NE(s3_codec::create_bucket_body("eu-west-1")
                .find("<LocationConstraint>eu-west-1</LocationConstraint>"),
            std::string::npos);
  EXPECT_FALSE(s3_codec::parse_list("<ListBucketResult><IsTruncated>true"
                                    "</IsTruncated></ListBucketResult>"));
  EXPECT_FALSE(
      s3_codec::parse_list("<ListBucketResult><Contents><Key>a</Key>"
                           "<Size>x</Size></Contents></ListBucketResult>"));
  EXPECT_EQ(parse_s3_uri("s3://bkt/a/b.deb"),
            std::make_optional(
                std::make_pair(std::string("bkt"), std::string("a/b.deb"))));
  EXPECT_FALSE(parse_s3_uri("https://bkt/a"));
  EXPECT_FALSE(parse_s3_uri("s3://B/a"));
}

TEST(s3_botocore,
     every_request_the_client_signs_is_signed_as_botocore_signs_it) {
  auto http = std::make_shared<recording_http>();
  auto file = temp_file(std::string(70, 'q'));
  auto virt = client_for("https://s3.eu-central-1.amazonaws.com/", http,
                         s3_addressing::automatic, "eu-central-1");
  exercise(*virt, file);
  size_t virtual_count = http->sent.size();
  auto path = client_for("http://127.0.0.1:5000", http, s3_addressing::path,
                         "us-east-1");
  exercise(*path, file);
  std::remove(file.c_str());
  ASSERT_GT(virtual_count, 10u);
  nlohmann::json input = nlohmann::json::array();
  for (size_t i = 0; i < http->sent.size(); ++i)
    input.push_back(for_botocore(
        http->sent[i], i < virtual_count ? "eu-central-1" : "us-east-1"));
  auto json_file = temp_file(input.dump());
  auto out = det::aws::test::run_command(
      {"python3", det::aws::test::helper("botocore_sign.py"), json_file});
  std::remove(json_file.c_str());
  ASSERT_EQ(out.status, 0) << "botocore_sign.py failed";
  auto expected = nlohmann::json::parse(out.out);
  ASSERT_EQ(expected.size(), input.size());
  for (size_t i = 0; i < input.size(); ++i)
    EXPECT_EQ(input[i]["ours"], expected[i]["authorization"])
        << "request " << i << ": " << http->sent[i].method << " "
        << http->sent[i].url;
}
