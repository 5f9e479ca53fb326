// The S3 client against the real moto emulator (fixture moto_server), with
// boto3 (tests/aws/boto3_check.py) as the independent witness of what the
// bucket holds afterwards.

#include "aws/aws_error.hpp"
#include "aws/crypto.hpp"
#include "aws/s3_client.hpp"
#include "messages/errc.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <fstream>
#include <unistd.h>

using namespace det::aws;
using namespace std::chrono_literals;
using det::aws::test::helper;
using det::aws::test::run_command;

namespace {

class s3_against_moto : public ::testing::Test {
protected:
  void SetUp() override {
    url_ = det::aws::test::moto_url();
    ASSERT_FALSE(url_.empty())
        << "no moto server: run through ctest (fixture moto_server) or set "
           "DET_TEST_MOTO_URL";
    static std::atomic<int> counter{0};
    bucket_ = "det-s3-test-" + std::to_string(getpid()) + "-"
              + std::to_string(counter++);
    s3_client_config cfg;
    cfg.region = "eu-west-1";
    cfg.endpoint_url = url_;
    cfg.timeout = 20s;
    cfg.retry.max_attempts = 2;
    cfg.retry.base_delay = 10ms;
    cfg.multipart_threshold = 6u << 20;
    cfg.part_size = 5u << 20;
    s3_ = make_curl_s3_client(cfg,
                              make_static_credentials({"testing", "testing", "",
                                                       std::nullopt, "test"}));
  }

  nlohmann::json boto3(std::vector<std::string> args) {
    std::vector<std::string> argv{"python3", helper("boto3_check.py"), url_,
                                  "eu-west-1"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_command(argv);
    EXPECT_EQ(r.status, 0) << r.out;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  std::string url_;
  std::string bucket_;
  std::shared_ptr<s3_client> s3_;
};

std::string render(const caf::error& e) {
  return det::render(e);
}

} // namespace

TEST_F(s3_against_moto,
       a_bucket_is_created_in_its_region_tagged_and_versioned) {
  auto exists = s3_->bucket_exists(bucket_);
  ASSERT_TRUE(exists) << render(exists.error());
  EXPECT_FALSE(*exists);
  ASSERT_FALSE(s3_->create_bucket(bucket_));
  ASSERT_FALSE(s3_->create_bucket(bucket_)) << "ours already: not an error";
  ASSERT_FALSE(s3_->put_bucket_tagging(
      bucket_, {{"managed-by", "det-deploy"}, {"det:cluster", "a&b"}}));
  ASSERT_FALSE(s3_->put_bucket_versioning(bucket_, true));
  auto tags = s3_->get_bucket_tagging(bucket_);
  ASSERT_TRUE(tags) << render(tags.error());
  EXPECT_EQ(tags->at("managed-by"), "det-deploy");
  auto seen = boto3({"s3-bucket", bucket_});
  EXPECT_EQ(seen["exists"], true);
  EXPECT_EQ(seen["location"], "eu-west-1");
  EXPECT_EQ(seen["versioning"], "Enabled");
  EXPECT_EQ(seen["tags"]["det:cluster"], "a&b");
  exists = s3_->bucket_exists(bucket_);
  ASSERT_TRUE(exists);
  EXPECT_TRUE(*exists);
  ASSERT_FALSE(s3_->delete_bucket(bucket_));
  EXPECT_EQ(boto3({"s3-bucket", bucket_})["exists"], false);
}

TEST_F(s3_against_moto, objects_go_up_small_and_multipart_and_come_back_equal) {
  ASSERT_FALSE(s3_->create_bucket(bucket_));
  const std::string odd_key = "ckpt/a b+c~(1)/é&x.txt";
  ASSERT_TRUE(s3_->put_object(bucket_, odd_key, "hello", {{"sha256", "abc"}}));
  // 11 MiB + 7 bytes: three parts of 5, 5 and 1 MiB + 7.
  char path[] = "/tmp/det-s3-moto-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string big((11u << 20) + 7, '\0');
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<char>((i * 2654435761u) >> 13);
  std::ofstream(path, std::ios::binary) << big;
  std::vector<uint64_t> progress;
  auto etag =
      s3_->put_file(bucket_, "pkg/big.deb", path,
                    [&](uint64_t sent, uint64_t) { progress.push_back(sent); });
  std::remove(path);
  ASSERT_TRUE(etag) << render(etag.error());
  EXPECT_EQ(progress.size(), 3u);
  EXPECT_EQ(progress.back(), big.size());
  auto head = s3_->head_object(bucket_, odd_key);
  ASSERT_TRUE(head) << render(head.error());
  EXPECT_EQ(head->size, 5u);
  EXPECT_EQ(head->metadata.at("sha256"), "abc");
  auto got = s3_->get_object(bucket_, "pkg/big.deb");
  ASSERT_TRUE(got) << render(got.error());
  EXPECT_TRUE(*got == big);
  auto seen = boto3({"s3-objects", bucket_, ""});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen["pkg/big.deb"]["sha256"], to_hex(sha256(big)));
  EXPECT_EQ(seen[odd_key]["size"], 5);
  auto missing = s3_->head_object(bucket_, "nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(aws_error_of(missing.error()).kind, aws_error_kind::not_found);
  auto missing_get = s3_->get_object(bucket_, "nope");
  ASSERT_FALSE(missing_get);
  EXPECT_EQ(aws_error_of(missing_get.error()).code, "NoSuchKey");
}

TEST_F(s3_against_moto, listing_pages_and_batched_deletes_cover_every_key) {
  ASSERT_FALSE(s3_->create_bucket(bucket_));
  std::vector<std::string> keys;
  for (int i = 0; i < 1205; ++i)
    keys.push_back("trial/" + std::to_string(i % 7) + "/f" + std::to_string(i));
  for (const auto& k : keys)
    ASSERT_TRUE(s3_->put_object(bucket_, k, "x"));
  ASSERT_TRUE(s3_->put_object(bucket_, "other/keep", "y"));
  auto page = s3_->list_objects(bucket_, "trial/", "", 500);
  ASSERT_TRUE(page) << render(page.error());
  EXPECT_EQ(page->objects.size(), 500u);
  EXPECT_FALSE(page->next_continuation_token.empty());
  auto all = s3_->list_all(bucket_, "trial/");
  ASSERT_TRUE(all) << render(all.error());
  EXPECT_EQ(all->size(), keys.size());
  keys.push_back("trial/never-existed");
  auto failed = s3_->delete_objects(bucket_, keys);
  ASSERT_TRUE(failed) << render(failed.error());
  EXPECT_TRUE(failed->empty());
  auto left = boto3({"s3-objects", bucket_, ""});
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(left.contains("other/keep"));
}
