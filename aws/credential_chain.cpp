#include "aws/credential_chain.hpp"

#include "aws/aws_error.hpp"
#include "aws/ini_file.hpp"
#include "messages/errc.hpp"

#include <fstream>
#include <sstream>

namespace det::aws {

namespace {

std::optional<ini_document> read_ini(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_ini(ss.str());
}

// The profile's section of the config file: "[profile NAME]", or
// "[default]" for the default profile.
const ini_section* config_section(const ini_document& doc,
                                  const std::string& profile) {
  auto it = doc.find("profile " + profile);
  if (it == doc.end() && profile == "default")
    it = doc.find("default");
  return it == doc.end() ? nullptr : &it->second;
}

caf::expected<std::optional<credentials>> keys_of(const ini_section& s,
                                                  const std::string& source) {
  auto id = s.find("aws_access_key_id");
  auto secret = s.find("aws_secret_access_key");
  bool has_id = id != s.end() && !id->second.empty();
  bool has_secret = secret != s.end() && !secret->second.empty();
  if (!has_id && !has_secret)
    return std::optional<credentials>{};
  if (has_id != has_secret)
    return make_error(errc::invalid_argument,
                      source
                          + " sets only one of aws_access_key_id and "
                            "aws_secret_access_key");
  credentials c;
  c.access_key_id = id->second;
  c.secret_access_key = secret->second;
  if (auto tok = s.find("aws_session_token"); tok != s.end())
    c.session_token = tok->second;
  c.source = source;
  return std::optional<credentials>{c};
}

bool imds_enabled(const credential_chain_options& opts) {
  auto disabled = opts.env("AWS_EC2_METADATA_DISABLED");
  return opts.use_imds && !(disabled && *disabled == "true");
}

} // namespace

shared_files locate_shared_files(const credential_chain_options& opts) {
  std::string home = opts.home;
  if (home.empty())
    home = opts.env("HOME").value_or("");
  shared_files f;
  f.credentials_path = opts.env("AWS_SHARED_CREDENTIALS_FILE")
                           .value_or(home + "/.aws/credentials");
  f.config_path = opts.env("AWS_CONFIG_FILE").value_or(home + "/.aws/config");
  f.profile = opts.env("AWS_PROFILE").value_or("default");
  return f;
}

caf::expected<std::optional<credentials>>
credentials_from_environment(const env_lookup& env) {
  auto id = env("AWS_ACCESS_KEY_ID");
  auto secret = env("AWS_SECRET_ACCESS_KEY");
  if (!id && !secret)
    return std::optional<credentials>{};
  if (!id || !secret)
    return make_error(errc::invalid_argument,
                      std::string("environment sets ")
                          + (id ? "AWS_ACCESS_KEY_ID but not "
                                  "AWS_SECRET_ACCESS_KEY"
                                : "AWS_SECRET_ACCESS_KEY but not "
                                  "AWS_ACCESS_KEY_ID"));
  credentials c;
  c.access_key_id = *id;
  c.secret_access_key = *secret;
  c.session_token = env("AWS_SESSION_TOKEN").value_or("");
  c.source = "environment";
  return std::optional<credentials>{c};
}

caf::expected<std::optional<credentials>>
credentials_from_shared_files(const shared_files& files, std::string& why) {
  auto creds_doc = read_ini(files.credentials_path);
  if (creds_doc) {
    auto it = creds_doc->find(files.profile);
    if (it != creds_doc->end()) {
      auto c = keys_of(it->second, "shared credentials file "
                                       + files.credentials_path + " profile "
                                       + files.profile);
      if (!c || *c)
        return c;
    }
  }
  auto config_doc = read_ini(files.config_path);
  if (config_doc) {
    if (auto* s = config_section(*config_doc, files.profile)) {
      auto c = keys_of(*s, "shared config file " + files.config_path
                               + " profile " + files.profile);
      if (!c || *c)
        return c;
    }
  }
  why = std::string(creds_doc ? "" : "no ") + files.credentials_path + ", "
        + (config_doc ? "" : "no ") + files.config_path
        + ": no keys for profile " + files.profile;
  return std::optional<credentials>{};
}

credential_chain::credential_chain(credential_chain_options opts)
    : opts_(std::move(opts)) {
  if (!opts_.http)
    opts_.http = net::make_curl_http_client();
  imds_ = std::make_unique<imds_client>(imds_config_from_env(opts_.env),
                                        opts_.http, opts_.now);
}

caf::expected<credentials> credential_chain::get() {
  std::lock_guard<std::mutex> guard{mtx_};
  auto now = opts_.now();
  if (cached_
      && (!cached_->expiration
          || now + opts_.refresh_before < *cached_->expiration))
    return *cached_;
  auto fresh = resolve();
  if (fresh) {
    cached_ = *fresh;
    return fresh;
  }
  // A failed refresh keeps the old keys for as long as they still work.
  if (cached_ && cached_->expiration && now < *cached_->expiration)
    return *cached_;
  return fresh;
}

caf::expected<credentials> credential_chain::resolve() {
  std::string tried = "no AWS credentials: tried ";
  auto env = credentials_from_environment(opts_.env);
  if (!env)
    return env.error();
  if (*env)
    return **env;
  tried += "environment (AWS_ACCESS_KEY_ID unset), ";
  auto files = locate_shared_files(opts_);
  std::string why;
  auto shared = credentials_from_shared_files(files, why);
  if (!shared)
    return shared.error();
  if (*shared)
    return **shared;
  tried += "shared files (" + why + ")";
  if (!imds_enabled(opts_))
    return make_error(errc::not_found,
                      tried + ", instance role (IMDS disabled)");
  auto role = imds_->role_credentials();
  if (role)
    return role;
  return make_error(errc::not_found, tried + ", instance role ("
                                         + error_text(role.error()) + ")");
}

std::shared_ptr<credential_provider>
make_default_credential_chain(credential_chain_options opts) {
  return std::make_shared<credential_chain>(std::move(opts));
}

caf::expected<std::string>
resolve_region(const credential_chain_options& opts) {
  if (auto r = opts.env("AWS_REGION"))
    return *r;
  if (auto r = opts.env("AWS_DEFAULT_REGION"))
    return *r;
  auto files = locate_shared_files(opts);
  if (auto doc = read_ini(files.config_path)) {
    if (auto* s = config_section(*doc, files.profile)) {
      if (auto it = s->find("region"); it != s->end() && !it->second.empty())
        return it->second;
    }
  }
  std::string tried = "no AWS region: tried AWS_REGION, AWS_DEFAULT_REGION, "
                      + files.config_path + " profile " + files.profile;
  if (!imds_enabled(opts))
    return make_error(errc::not_found, tried + ", IMDS (disabled)");
  auto http = opts.http ? opts.http : net::make_curl_http_client();
  imds_client imds{imds_config_from_env(opts.env), http, opts.now};
  auto region = imds.region();
  if (region)
    return region;
  return make_error(errc::not_found,
                    tried + ", IMDS (" + error_text(region.error()) + ")");
}

} // namespace det::aws
