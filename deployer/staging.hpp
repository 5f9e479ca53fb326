#pragma once

// det-deploy's staging bucket, as the AWS SAM CLI keeps its managed
// artifacts bucket: `up` without --package uploads the det-master .deb it
// was installed with to s3://det-deploy-staging-<account>-<region>/
// det-master/<sha256>/<file> (the bucket created on first use and tagged
// managed-by: det-deploy, the key named by the package's sha256 so an
// unchanged package is never uploaded twice) and hands that URL to the
// template. `down --purge-staging` deletes the bucket once no det-deploy
// stack refers to it. Blocking AWS calls (det-deploy is a command line
// program).

#include "aws/cloudformation_types.hpp"
#include "aws/credential_provider.hpp"
#include "aws/environment.hpp"
#include "aws/s3_client.hpp"

#include <caf/expected.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace det::deploy {

/// The .deb det-deploy was installed with: `<dir>/*.deb` and
/// `<dir>/../share/determined/*.deb` next to `exe_path`, then the build
/// tree's `make package` output (`<dir>/../package/*.deb`); the newest when
/// several. errc::not_found naming the folders searched.
[[nodiscard]] caf::expected<std::string>
find_local_package(const std::string& exe_path);

/// The account id of the credentials (STS GetCallerIdentity).
[[nodiscard]] caf::expected<std::string>
caller_account(const std::string& region, const std::string& endpoint_url,
               std::shared_ptr<aws::credential_provider> creds,
               const aws::env_lookup& env);

std::string staging_bucket_name(const std::string& account,
                                const std::string& region);

/// "det-master/<sha256>/<file name>".
std::string staging_key(const std::string& sha256_hex,
                        const std::string& file_name);

/// Hex SHA-256 of the file at `path`, read in chunks.
[[nodiscard]] caf::expected<std::string> file_sha256(const std::string& path);

/// Makes sure the bucket exists and is ours (created and tagged when
/// missing; one without our tag is refused), uploads `path` unless its key
/// exists already, printing progress to `out`. Returns the s3:// URL.
[[nodiscard]] caf::expected<std::string>
stage_package(aws::s3_client& s3, const std::string& bucket,
              const std::string& path, std::ostream& out);

/// The stacks (det-deploy's, other than `except`) whose DeterminedPackage
/// lies in `bucket`.
std::vector<std::string> stacks_using(const std::vector<aws::stack>& stacks,
                                      const std::string& bucket,
                                      const std::string& except);

/// Empties and deletes the bucket (when it carries our tag).
[[nodiscard]] caf::error
purge_bucket(aws::s3_client& s3, const std::string& bucket, std::ostream& out);

} // namespace det::deploy
