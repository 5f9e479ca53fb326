#include "aws/s3_codec.hpp"

#include "aws/aws_error.hpp"
#include "aws/xml.hpp"

#include <cctype>

namespace det::aws::s3_codec {

namespace {

constexpr const char* xmlns = "http://s3.amazonaws.com/doc/2006-03-01/";

caf::error malformed(const char* call, const std::string& why) {
  return make_aws_error(aws_error_kind::server_error, "MalformedResponse",
                        std::string("s3 ") + call, why);
}

caf::expected<xml_element> parse(const char* call, const std::string& body) {
  auto doc = parse_xml(body);
  if (!doc)
    return malformed(call, error_text(doc.error()));
  return doc;
}

} // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string delete_body(const std::vector<std::string>& keys, size_t begin,
                        size_t end) {
  std::string out =
      std::string("<Delete xmlns=\"") + xmlns + "\"><Quiet>true</Quiet>";
  for (size_t i = begin; i < end && i < keys.size(); ++i)
    out += "<Object><Key>" + xml_escape(keys[i]) + "</Key></Object>";
  return out + "</Delete>";
}

std::string tagging_body(const std::map<std::string, std::string>& tags) {
  std::string out = std::string("<Tagging xmlns=\"") + xmlns + "\"><TagSet>";
  for (const auto& [k, v] : tags)
    out += "<Tag><Key>" + xml_escape(k) + "</Key><Value>" + xml_escape(v)
           + "</Value></Tag>";
  return out + "</TagSet></Tagging>";
}

std::string versioning_body(bool enabled) {
  return std::string("<VersioningConfiguration xmlns=\"") + xmlns
         + "\"><Status>" + (enabled ? "Enabled" : "Suspended")
         + "</Status></VersioningConfiguration>";
}

std::string create_bucket_body(const std::string& region) {
  if (region.empty() || region == "us-east-1")
    return {};
  return std::string("<CreateBucketConfiguration xmlns=\"") + xmlns
         + "\"><LocationConstraint>" + xml_escape(region)
         + "</LocationConstraint></CreateBucketConfiguration>";
}

std::string complete_multipart_body(const std::vector<std::string>& etags) {
  std::string out =
      std::string("<CompleteMultipartUpload xmlns=\"") + xmlns + "\">";
  for (size_t i = 0; i < etags.size(); ++i)
    out += "<Part><PartNumber>" + std::to_string(i + 1)
           + "</PartNumber><ETag>\"" + xml_escape(unquote(etags[i]))
           + "\"</ETag></Part>";
  return out + "</CompleteMultipartUpload>";
}

caf::expected<s3_list_page> parse_list(const std::string& body) {
  auto doc = parse("ListObjectsV2", body);
  if (!doc)
    return doc.error();
  if (doc->name != "ListBucketResult")
    return malformed("ListObjectsV2", "root is <" + doc->name + ">");
  s3_list_page page;
  for (const auto* c : doc->children_named("Contents")) {
    s3_object obj;
    obj.key = c->child_text("Key");
    if (obj.key.empty())
      return malformed("ListObjectsV2", "an object without a Key");
    auto size = c->child_text("Size");
    try {
      obj.size = size.empty() ? 0 : std::stoull(size);
    } catch (const std::exception&) {
      return malformed("ListObjectsV2", "Size '" + size + "' of " + obj.key);
    }
    obj.etag = unquote(c->child_text("ETag"));
    obj.last_modified = c->child_text("LastModified");
    page.objects.push_back(std::move(obj));
  }
  if (doc->child_text("IsTruncated") == "true") {
    page.next_continuation_token = doc->child_text("NextContinuationToken");
    if (page.next_continuation_token.empty())
      return malformed("ListObjectsV2",
                       "IsTruncated without NextContinuationToken");
  }
  return page;
}

caf::expected<std::vector<s3_delete_failure>>
parse_delete_result(const std::string& body) {
  auto doc = parse("DeleteObjects", body);
  if (!doc)
    return doc.error();
  if (doc->name != "DeleteResult")
    return malformed("DeleteObjects", "root is <" + doc->name + ">");
  std::vector<s3_delete_failure> out;
  for (const auto* e : doc->children_named("Error"))
    out.push_back({e->child_text("Key"), e->child_text("Code"),
                   e->child_text("Message")});
  return out;
}

caf::expected<std::map<std::string, std::string>>
parse_tagging(const std::string& body) {
  auto doc = parse("GetBucketTagging", body);
  if (!doc)
    return doc.error();
  std::map<std::string, std::string> out;
  const auto* set = doc->child("TagSet");
  if (set == nullptr)
    return out;
  for (const auto* t : set->children_named("Tag"))
    out[t->child_text("Key")] = t->child_text("Value");
  return out;
}

caf::expected<std::string> parse_upload_id(const std::string& body) {
  auto doc = parse("CreateMultipartUpload", body);
  if (!doc)
    return doc.error();
  auto id = doc->child_text("UploadId");
  if (id.empty())
    return malformed("CreateMultipartUpload", "no UploadId");
  return id;
}

error_doc parse_error(const std::string& body) {
  error_doc out;
  auto doc = parse_xml(body);
  if (!doc || doc->name != "Error")
    return out;
  out.code = doc->child_text("Code");
  out.message = doc->child_text("Message");
  out.request_id = doc->child_text("RequestId");
  return out;
}

bool valid_bucket_name(const std::string& name) {
  if (name.size() < 3 || name.size() > 63)
    return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  for (char c : name)
    if (!alnum(c) && c != '-' && c != '.')
      return false;
  return alnum(name.front()) && alnum(name.back());
}

std::string unquote(const std::string& etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"')
    return etag.substr(1, etag.size() - 2);
  return etag;
}

} // namespace det::aws::s3_codec
