#pragma once

// The XML bodies of the S3 calls s3_client makes, and the parsing of S3's
// answers. Pure; any thread. Parsers fail with an aws error of kind
// server_error (MalformedResponse) naming what was missing.

#include "aws/s3_client.hpp"

#include <caf/expected.hpp>

#include <map>
#include <string>
#include <vector>

namespace det::aws::s3_codec {

/// `text` with & < > " ' escaped for element content.
std::string xml_escape(const std::string& text);

/// <Delete><Quiet>true</Quiet><Object><Key>...</Key></Object>...</Delete>
std::string delete_body(const std::vector<std::string>& keys, size_t begin,
                        size_t end);

std::string tagging_body(const std::map<std::string, std::string>& tags);

std::string versioning_body(bool enabled);

/// "" for us-east-1 (no LocationConstraint there).
std::string create_bucket_body(const std::string& region);

/// Parts as (number, ETag) in order.
std::string complete_multipart_body(const std::vector<std::string>& etags);

[[nodiscard]] caf::expected<s3_list_page> parse_list(const std::string& body);

[[nodiscard]] caf::expected<std::vector<s3_delete_failure>>
parse_delete_result(const std::string& body);

[[nodiscard]] caf::expected<std::map<std::string, std::string>>
parse_tagging(const std::string& body);

[[nodiscard]] caf::expected<std::string>
parse_upload_id(const std::string& body);

/// An <Error> document's Code and Message; both "" when `body` is not one.
struct error_doc {
  std::string code;
  std::string message;
  std::string request_id;
};
error_doc parse_error(const std::string& body);

/// A bucket name S3 accepts: 3-63 of [a-z0-9.-], starting and ending with a
/// letter or digit.
bool valid_bucket_name(const std::string& name);

/// `etag` without its surrounding double quotes.
std::string unquote(const std::string& etag);

} // namespace det::aws::s3_codec
