// provision/checkpoint_deleter.hpp: the key and folder layout the
// determined harness uses, and deleting checkpoints from a shared_fs folder
// and from moto's S3 (boto3 as the witness), never a neighbour's; removing
// the files of one checkpoint by glob (`det checkpoint rm`) from both.

#include "aws/s3_client.hpp"
#include "messages/errc.hpp"
#include "provision/checkpoint_deleter.hpp"
#include "provision/checkpoint_file_remover.hpp"
#include "test_support.hpp"
#include "util/archive.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace det;
namespace fs = std::filesystem;

namespace {

/// An environment without AWS variables: the storage's own keys count.
std::optional<std::string> no_env(const std::string&) {
  return std::nullopt;
}

/// A bucket of its own on the moto server (fixture moto_server), a client
/// for it, and the checkpoint storage (prefix "p") that names it.
struct moto_bucket {
  explicit moto_bucket(const std::string& name)
      : url{det::aws::test::moto_url()}, bucket{name
                                                + std::to_string(getpid())} {
    aws::s3_client_config cfg;
    cfg.endpoint_url = url;
    s3 = aws::make_curl_s3_client(
        cfg, aws::make_static_credentials(
                 {"testing", "testing", "", std::nullopt, "test"}));
    created = !url.empty() && !s3->create_bucket(bucket);
  }
  bool ready() const { return created; }
  nlohmann::json storage() const {
    return {{"type", "s3"},
            {"bucket", bucket},
            {"prefix", "p"},
            {"endpoint_url", url},
            {"access_key", "testing"},
            {"secret_key", "testing"}};
  }
  std::string url;
  std::string bucket;
  std::shared_ptr<aws::s3_client> s3;
  bool created = false;
};

} // namespace

TEST(checkpoint_deleter, s3_keys_and_folders_follow_the_harness_layout) {
  EXPECT_EQ(s3_checkpoint_prefix("", "u1"), "u1/");
  EXPECT_EQ(s3_checkpoint_prefix("/runs/./a/", "u1"), "runs/a/u1/");
  EXPECT_EQ(s3_checkpoint_prefix("a//b", "u1"), "a/b/u1/");
  nlohmann::json fs_cfg{
      {"type", "shared_fs"}, {"host_path", "/mnt/h"}, {"storage_path", "ck"}};
  EXPECT_EQ(shared_fs_checkpoint_dir(fs_cfg, "u1"), "/mnt/h/ck/u1");
  fs_cfg["storage_path"] = "/mnt/h/abs";
  EXPECT_EQ(shared_fs_checkpoint_dir(fs_cfg, "u1"), "/mnt/h/abs/u1");
  for (const char* bad : {"", ".", "..", "a/b", "../x"})
    EXPECT_EQ(shared_fs_checkpoint_dir(fs_cfg, bad), "") << bad;
}

TEST(checkpoint_deleter, a_checkpoint_packs_for_download_without_its_symlinks) {
  auto root =
      fs::temp_directory_path() / ("det-ckpt-pack-" + std::to_string(getpid()));
  fs::create_directories(root / "ck" / "u1" / "sub");
  std::ofstream(root / "ck" / "u1" / "metadata.json") << "{}";
  std::ofstream(root / "ck" / "u1" / "sub" / "state") << "weights";
  std::ofstream(root / "secret") << "not theirs";
  // A trial's symlink to a file outside its checkpoint is not followed.
  fs::create_symlink(root / "secret", root / "ck" / "u1" / "leak");
  nlohmann::json cfg{{"type", "shared_fs"},
                     {"host_path", root.string()},
                     {"storage_path", "ck"}};
  auto tgz = pack_checkpoint(cfg, "u1");
  ASSERT_TRUE(tgz) << render(tgz.error());
  std::string why;
  auto files = util::read_tgz(*tgz, why);
  ASSERT_EQ(why, "");
  std::map<std::string, std::string> got;
  for (const auto& f : files)
    if (!f.directory)
      got[f.path] = f.content;
  EXPECT_EQ(got, (std::map<std::string, std::string>{
                     {"metadata.json", "{}"}, {"sub/state", "weights"}}));
  // Missing, or not a shared_fs storage: refused naming why.
  auto missing = pack_checkpoint(cfg, "u2");
  ASSERT_FALSE(missing);
  EXPECT_EQ(code_of(missing.error()), errc::not_found);
  auto gcs = pack_checkpoint({{"type", "gcs"}, {"bucket", "b"}}, "u1");
  ASSERT_FALSE(gcs);
  EXPECT_NE(render(gcs.error()).find("shared_fs and s3"), std::string::npos);
  fs::remove_all(root);
}

// The master's download of an s3 checkpoint (the SDK's fallback when the
// reader has no keys of their own): the objects under <prefix>/<uuid>/ at
// the rest of their keys, none of a neighbour's, no folder marker.
TEST(checkpoint_deleter, an_s3_checkpoint_packs_its_own_objects) {
  moto_bucket m{"det-ckpt-pack-"};
  ASSERT_TRUE(m.ready()) << "no moto server (fixture moto_server)";
  auto& s3 = m.s3;
  const auto& bucket = m.bucket;
  ASSERT_TRUE(s3->put_object(bucket, "p/u1/metadata.json", "{}"));
  ASSERT_TRUE(s3->put_object(bucket, "p/u1/sub/state", "weights"));
  ASSERT_TRUE(s3->put_object(bucket, "p/u1/sub/", ""));
  ASSERT_TRUE(s3->put_object(bucket, "p/u10/neighbour", "no"));
  auto storage = m.storage();
  auto tgz = pack_checkpoint(storage, "u1", no_env);
  ASSERT_TRUE(tgz) << render(tgz.error());
  std::string why;
  auto files = util::read_tgz(*tgz, why);
  ASSERT_EQ(why, "");
  std::map<std::string, std::string> got;
  for (const auto& f : files)
    got[f.path] = f.content;
  EXPECT_EQ(got, (std::map<std::string, std::string>{
                     {"metadata.json", "{}"}, {"sub/state", "weights"}}));
  auto missing = pack_checkpoint(storage, "u2", no_env);
  ASSERT_FALSE(missing);
  EXPECT_EQ(code_of(missing.error()), errc::not_found);
}

TEST(checkpoint_deleter, shared_fs_folders_go_and_neighbours_stay) {
  auto root =
      fs::temp_directory_path() / ("det-ckpt-del-" + std::to_string(getpid()));
  fs::create_directories(root / "ck" / "u1" / "sub");
  fs::create_directories(root / "ck" / "u10");
  std::ofstream(root / "ck" / "u1" / "sub" / "f") << "x";
  auto del = make_checkpoint_deleter();
  checkpoint_deletion d{1,
                        {"u1", "gone-already"},
                        {{"type", "shared_fs"},
                         {"host_path", root.string()},
                         {"storage_path", "ck"}}};
  EXPECT_FALSE(del(d));
  EXPECT_FALSE(fs::exists(root / "ck" / "u1"));
  EXPECT_TRUE(fs::exists(root / "ck" / "u10"));
  d.uuids = {"../ck"};
  EXPECT_EQ(code_of(del(d)), errc::invalid_argument);
  EXPECT_TRUE(fs::exists(root / "ck"));
  d.storage = {{"type", "gcs"}, {"bucket", "b"}};
  d.uuids = {"u10"};
  EXPECT_EQ(code_of(del(d)), errc::invalid_argument);
  fs::remove_all(root);
}

TEST(checkpoint_deleter, s3_objects_under_the_uuid_go_in_batches) {
  moto_bucket m{"det-ckpt-del-"};
  ASSERT_TRUE(m.ready()) << "no moto server (fixture moto_server)";
  auto& s3 = m.s3;
  const auto& bucket = m.bucket;
  // 1100 files in one checkpoint: two DeleteObjects batches.
  for (int i = 0; i < 1100; ++i)
    ASSERT_TRUE(s3->put_object(bucket, "p/u1/f" + std::to_string(i), "x"));
  ASSERT_TRUE(s3->put_object(bucket, "p/u10/keep", "x"));
  ASSERT_TRUE(s3->put_object(bucket, "u1/other-prefix", "x"));
  auto del = make_checkpoint_deleter(no_env);
  checkpoint_deletion d{1, {"u1"}, m.storage()};
  auto err = del(d);
  EXPECT_FALSE(err) << render(err);
  auto left = s3->list_all(bucket, "");
  ASSERT_TRUE(left);
  std::vector<std::string> keys;
  for (const auto& o : *left)
    keys.push_back(o.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"p/u10/keep", "u1/other-prefix"}));
}

TEST(checkpoint_file_remover,
     shared_fs_removes_matching_files_and_lists_the_rest) {
  auto root =
      fs::temp_directory_path() / ("det-ckpt-rm-" + std::to_string(getpid()));
  fs::create_directories(root / "ck" / "u1" / "model");
  fs::create_directories(root / "ck" / "u1" / "state_dir");
  fs::create_directories(root / "ck" / "u10");
  fs::create_directories(root / "outside");
  std::ofstream(root / "ck" / "u1" / "state") << "abc";
  std::ofstream(root / "ck" / "u1" / "state_dir" / "x") << "x";
  std::ofstream(root / "ck" / "u1" / "model" / "w.bin") << "12345";
  std::ofstream(root / "ck" / "u1" / "metadata.json") << "{}";
  std::ofstream(root / "ck" / "u10" / "state") << "keep";
  std::ofstream(root / "outside" / "state") << "keep";
  // A link out of the checkpoint is removed as a link, never followed.
  fs::create_directory_symlink(root / "outside", root / "ck" / "u1" / "link");
  auto rm = make_checkpoint_file_remover();
  checkpoint_file_removal r{1,
                            "u1",
                            {"state*", "link"},
                            {{"type", "shared_fs"},
                             {"host_path", root.string()},
                             {"storage_path", "ck"}}};
  auto left = rm(r);
  ASSERT_TRUE(left) << render(left.error());
  EXPECT_EQ(*left, (nlohmann::json{{"model/w.bin", 5}, {"metadata.json", 2}}));
  EXPECT_FALSE(fs::exists(root / "ck" / "u1" / "state"));
  EXPECT_FALSE(fs::exists(root / "ck" / "u1" / "state_dir"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(root / "ck" / "u1" / "link")));
  EXPECT_TRUE(fs::exists(root / "ck" / "u1" / "model" / "w.bin"));
  EXPECT_TRUE(fs::exists(root / "ck" / "u10" / "state"));
  EXPECT_TRUE(fs::exists(root / "outside" / "state"));
  // No globs: only the listing.
  r.globs = {};
  EXPECT_EQ(*rm(r), *left);
  // Everything: nothing left, the folder gone, neighbours kept.
  r.globs = {"**/*"};
  EXPECT_EQ(*rm(r), nlohmann::json::object());
  EXPECT_FALSE(fs::exists(root / "ck" / "u1"));
  EXPECT_TRUE(fs::exists(root / "ck" / "u10" / "state"));
  // A uuid that is not one name never reaches the file system.
  r.uuid = "../outside";
  EXPECT_EQ(code_of(rm(r).error()), errc::invalid_argument);
  EXPECT_TRUE(fs::exists(root / "outside" / "state"));
  r.storage = {{"type", "gcs"}, {"bucket", "b"}};
  r.uuid = "u10";
  EXPECT_EQ(code_of(rm(r).error()), errc::invalid_argument);
  fs::remove_all(root);
}

TEST(checkpoint_file_remover, s3_removes_matching_keys_under_the_uuid_only) {
  moto_bucket m{"det-ckpt-rm-"};
  ASSERT_TRUE(m.ready()) << "no moto server (fixture moto_server)";
  auto& s3 = m.s3;
  const auto& bucket = m.bucket;
  ASSERT_TRUE(s3->put_object(bucket, "p/u1/state", "abc"));
  ASSERT_TRUE(s3->put_object(bucket, "p/u1/model/state", "abcd"));
  ASSERT_TRUE(s3->put_object(bucket, "p/u1/model/w.bin", "12345"));
  ASSERT_TRUE(s3->put_object(bucket, "p/u10/state", "x"));
  auto rm = make_checkpoint_file_remover(no_env);
  checkpoint_file_removal r{1, "u1", {"state*"}, m.storage()};
  auto left = rm(r);
  ASSERT_TRUE(left) << render(left.error());
  EXPECT_EQ(*left, (nlohmann::json{{"model/state", 4}, {"model/w.bin", 5}}));
  r.globs = {"**/*"};
  left = rm(r);
  ASSERT_TRUE(left) << render(left.error());
  EXPECT_EQ(*left, nlohmann::json::object());
  auto keys = s3->list_all(bucket, "");
  ASSERT_TRUE(keys);
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_EQ(keys->front().key, "p/u10/state");
}
