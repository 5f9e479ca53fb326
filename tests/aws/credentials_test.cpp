// The credential chain's environment and shared-file sources, region
// lookup, and the error that names every source tried. IMDS is disabled or
// pointed at a closed loopback port here; imds_test.cpp covers it.

#include "aws/credential_chain.hpp"
#include "aws/ini_file.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

using namespace det::aws;
namespace fs = std::filesystem;

namespace {

class credential_sources : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/det-aws-creds-XXXXXX";
    home_ = mkdtemp(tmpl);
    fs::create_directories(home_ + "/.aws");
    opts_.env = [this](const std::string& k) -> std::optional<std::string> {
      auto it = env_.find(k);
      return it == env_.end() ? std::nullopt
                              : std::optional<std::string>(it->second);
    };
    opts_.home = home_;
    opts_.use_imds = false;
  }

  void TearDown() override { fs::remove_all(home_); }

  void write(const std::string& rel, const std::string& text) {
    std::ofstream(home_ + "/" + rel) << text;
  }

  std::string home_;
  std::map<std::string, std::string> env_;
  credential_chain_options opts_;
};

} // namespace

TEST(ini, sections_keys_and_comments_are_read_like_the_aws_cli_does) {
  auto doc = parse_ini("# top\n[default]\nAWS_Access_Key_ID = AKIA1 \n"
                       "; comment\n[profile dev]\nregion=eu-west-1\n"
                       "s3 =\n  max_concurrent_requests = 20\nbroken line\n");
  EXPECT_EQ(doc["default"]["aws_access_key_id"], "AKIA1");
  EXPECT_EQ(doc["profile dev"]["region"], "eu-west-1");
  EXPECT_EQ(doc["profile dev"].count("max_concurrent_requests"), 0u);
}

TEST_F(credential_sources, environment_comes_first) {
  env_["AWS_ACCESS_KEY_ID"] = "AKIAENV";
  env_["AWS_SECRET_ACCESS_KEY"] = "envsecret";
  env_["AWS_SESSION_TOKEN"] = "envtoken";
  write(".aws/credentials", "[default]\naws_access_key_id=AKIAFILE\n"
                            "aws_secret_access_key=filesecret\n");
  auto creds = make_default_credential_chain(opts_)->get();
  ASSERT_TRUE(creds) << det::render(creds.error());
  EXPECT_EQ(creds->access_key_id, "AKIAENV");
  EXPECT_EQ(creds->session_token, "envtoken");
  EXPECT_EQ(creds->source, "environment");
}

TEST_F(credential_sources, half_set_environment_is_an_error_naming_the_gap) {
  env_["AWS_ACCESS_KEY_ID"] = "AKIAENV";
  auto creds = make_default_credential_chain(opts_)->get();
  ASSERT_FALSE(creds);
  EXPECT_EQ(det::code_of(creds.error()), det::errc::invalid_argument);
  EXPECT_NE(det::render(creds.error()).find("AWS_SECRET_ACCESS_KEY"),
            std::string::npos);
}

TEST_F(credential_sources,
       shared_credentials_file_profile_is_selected_by_aws_profile) {
  write(".aws/credentials",
        "[default]\naws_access_key_id=AKIADEF\naws_secret_access_key=s1\n"
        "[ci]\naws_access_key_id = AKIACI\naws_secret_access_key = s2\n"
        "aws_session_token = t2\n");
  auto creds = make_default_credential_chain(opts_)->get();
  ASSERT_TRUE(creds) << det::render(creds.error());
  EXPECT_EQ(creds->access_key_id, "AKIADEF");
  env_["AWS_PROFILE"] = "ci";
  creds = make_default_credential_chain(opts_)->get();
  ASSERT_TRUE(creds) << det::render(creds.error());
  EXPECT_EQ(creds->access_key_id, "AKIACI");
  EXPECT_EQ(creds->secret_access_key, "s2");
  EXPECT_EQ(creds->session_token, "t2");
  EXPECT_NE(creds->source.find("profile ci"), std::string::npos);
}

TEST_F(credential_sources,
       config_file_keys_are_used_when_the_credentials_file_has_none) {
  write("elsewhere.ini",
        "[profile build]\naws_access_key_id=AKIACFG\n"
        "aws_secret_access_key=cfgsecret\nregion=ap-south-1\n");
  env_["AWS_CONFIG_FILE"] = home_ + "/elsewhere.ini";
  env_["AWS_SHARED_CREDENTIALS_FILE"] = home_ + "/missing";
  env_["AWS_PROFILE"] = "build";
  auto creds = make_default_credential_chain(opts_)->get();
  ASSERT_TRUE(creds) << det::render(creds.error());
  EXPECT_EQ(creds->access_key_id, "AKIACFG");
  auto region = resolve_region(opts_);
  ASSERT_TRUE(region) << det::render(region.error());
  EXPECT_EQ(*region, "ap-south-1");
}

TEST_F(credential_sources, region_prefers_aws_region_then_aws_default_region) {
  write(".aws/config", "[default]\nregion = us-west-2\n");
  EXPECT_EQ(*resolve_region(opts_), "us-west-2");
  env_["AWS_DEFAULT_REGION"] = "eu-north-1";
  EXPECT_EQ(*resolve_region(opts_), "eu-north-1");
  env_["AWS_REGION"] = "sa-east-1";
  EXPECT_EQ(*resolve_region(opts_), "sa-east-1");
}

TEST_F(credential_sources, no_credentials_error_names_every_source_tried) {
  opts_.use_imds = true;
  // A loopback port nobody listens on: IMDS is refused at once.
  env_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = "http://127.0.0.1:9";
  auto creds = make_default_credential_chain(opts_)->get();
  ASSERT_FALSE(creds);
  EXPECT_EQ(det::code_of(creds.error()), det::errc::not_found);
  auto text = det::render(creds.error());
  EXPECT_NE(text.find("no AWS credentials: tried environment"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(home_ + "/.aws/credentials"), std::string::npos) << text;
  EXPECT_NE(text.find("profile default"), std::string::npos) << text;
  EXPECT_NE(text.find("instance role (IMDS at http://127.0.0.1:9"),
            std::string::npos)
      << text;

  auto region = resolve_region(opts_);
  ASSERT_FALSE(region);
  EXPECT_NE(det::render(region.error()).find("AWS_DEFAULT_REGION"),
            std::string::npos);
}

TEST_F(credential_sources, errors_never_contain_the_secret) {
  write(".aws/credentials", "[default]\naws_secret_access_key=TOPSECRET\n");
  auto creds = make_default_credential_chain(opts_)->get();
  ASSERT_FALSE(creds);
  EXPECT_EQ(det::render(creds.error()).find("TOPSECRET"), std::string::npos);
}
