// The XML reader of AWS responses and the aws error kinds.

#include "aws/aws_error.hpp"
#include "aws/xml.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>

using namespace det::aws;

TEST(xml, elements_are_found_by_name_whatever_their_order_or_namespace) {
  auto doc =
      parse_xml("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- note -->\n"
                "<ec2:Root xmlns:ec2=\"urn:x\" a='1>2'><b>one</b><a/>"
                "<b attr=\"x/y\"> two </b><ec2:c>3</ec2:c></ec2:Root>");
  ASSERT_TRUE(doc) << det::render(doc.error());
  EXPECT_EQ(doc->name, "Root");
  EXPECT_EQ(doc->child_text("b"), "one");
  EXPECT_EQ(doc->children_named("b").size(), 2u);
  EXPECT_EQ(doc->children_named("b")[1]->text, " two ");
  EXPECT_EQ(doc->child_text("c"), "3");
  EXPECT_NE(doc->child("a"), nullptr);
  EXPECT_EQ(doc->child("missing"), nullptr);
  EXPECT_EQ(doc->child_text("missing"), "");
}

TEST(xml, entities_and_cdata_are_decoded) {
  auto doc =
      parse_xml("<m>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; "
                "&#65;&#x42; &#x1F600; &bogus; <![CDATA[<raw & x>]]></m>");
  ASSERT_TRUE(doc) << det::render(doc.error());
  EXPECT_EQ(doc->text,
            "a <b> & \"c\" 'd' AB \xf0\x9f\x98\x80 &bogus; <raw & x>");
}

TEST(xml, find_searches_depth_first_and_items_reads_ec2_sets) {
  auto doc = parse_xml("<r><x><y><z>deep</z></y></x><tagSet><item><key>k1"
                       "</key></item><item><key>k2</key></item></tagSet></r>");
  ASSERT_TRUE(doc);
  ASSERT_NE(doc->find("z"), nullptr);
  EXPECT_EQ(doc->find("z")->text, "deep");
  auto items = doc->items("tagSet");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1]->child_text("key"), "k2");
  EXPECT_TRUE(doc->items("nothing").empty());
}

TEST(xml, malformed_documents_fail_with_the_offset) {
  for (const char* bad : {"", "plain text", "<a><b></a>", "<a>", "<a x='1>",
                          "<a><![CDATA[x</a>"}) {
    auto doc = parse_xml(bad);
    ASSERT_FALSE(doc) << bad;
    EXPECT_EQ(det::code_of(doc.error()), det::errc::invalid_argument);
    EXPECT_NE(det::render(doc.error()).find("at byte"), std::string::npos);
  }
}

std::string nested(int levels) {
  std::string doc;
  for (int i = 0; i < levels; ++i)
    doc += "<a>";
  doc += "x";
  for (int i = 0; i < levels; ++i)
    doc += "</a>";
  return doc;
}

TEST(xml, a_well_formed_document_nested_too_deep_is_refused_by_its_depth) {
  auto doc = parse_xml(nested(10'000));
  ASSERT_FALSE(doc);
  EXPECT_EQ(det::code_of(doc.error()), det::errc::invalid_argument);
  // The first element below the limit: 201 "<a>" (3 bytes each) in.
  EXPECT_EQ(
      det::render(doc.error()),
      "invalid_argument: xml: nesting deeper than 200 levels at byte 603");
}

TEST(xml, nesting_up_to_the_limit_is_read_and_searched) {
  // The root and 200 levels below it.
  auto doc = parse_xml(nested(201));
  ASSERT_TRUE(doc) << det::render(doc.error());
  EXPECT_EQ(doc->find("missing"), nullptr);
  const xml_element* el = &*doc;
  int depth = 0;
  while (!el->children.empty()) {
    el = &el->children[0];
    ++depth;
  }
  EXPECT_EQ(depth, 200);
  EXPECT_EQ(el->text, "x");
  EXPECT_FALSE(parse_xml(nested(202)));
}

TEST(xml, text_keeps_whitespace_between_children_and_joins_cdata) {
  auto doc = parse_xml("<r>\n  <a>1</a>\n  tail<![CDATA[ & ]]>end</r>");
  ASSERT_TRUE(doc) << det::render(doc.error());
  EXPECT_EQ(doc->text, "\n  \n  tail & end");
  EXPECT_EQ(doc->child_text("a"), "1");
}

TEST(aws_error, ec2_codes_map_to_kinds) {
  struct row {
    const char* code;
    long status;
    aws_error_kind kind;
  };
  const row rows[] = {
      {"RequestLimitExceeded", 503, aws_error_kind::throttling},
      {"Throttling", 400, aws_error_kind::throttling},
      {"InsufficientInstanceCapacity", 500,
       aws_error_kind::insufficient_capacity},
      {"VcpuLimitExceeded", 400, aws_error_kind::quota},
      {"InstanceLimitExceeded", 400, aws_error_kind::quota},
      {"AuthFailure", 401, aws_error_kind::auth},
      {"UnauthorizedOperation", 403, aws_error_kind::auth},
      {"InvalidParameterValue", 400, aws_error_kind::bad_request},
      {"IdempotentParameterMismatch", 400, aws_error_kind::bad_request},
      {"InvalidInstanceID.NotFound", 400, aws_error_kind::not_found},
      {"InvalidAMIID.NotFound", 400, aws_error_kind::not_found},
      {"InternalError", 500, aws_error_kind::server_error},
      {"Unavailable", 503, aws_error_kind::server_error},
      {"HTTP502", 502, aws_error_kind::server_error},
      {"SomethingNew", 400, aws_error_kind::bad_request},
  };
  for (const auto& r : rows)
    EXPECT_EQ(classify_aws_code(r.code, r.status), r.kind) << r.code;
}

TEST(aws_error, kind_and_code_survive_the_round_trip_through_caf_error) {
  auto err = make_aws_error(aws_error_kind::insufficient_capacity,
                            "InsufficientInstanceCapacity",
                            "ec2 RunInstances at https://x/", "no p3 left");
  EXPECT_EQ(det::code_of(err), det::errc::remote_error);
  auto info = aws_error_of(err);
  EXPECT_EQ(info.kind, aws_error_kind::insufficient_capacity);
  EXPECT_EQ(info.code, "InsufficientInstanceCapacity");
  EXPECT_EQ(det::render(err),
            "remote_error: [insufficient_capacity InsufficientInstanceCapacity]"
            " ec2 RunInstances at https://x/: no p3 left");
  EXPECT_EQ(aws_error_of(det::make_error(det::errc::conflict, "x")).kind,
            aws_error_kind::none);
  EXPECT_TRUE(is_retryable(aws_error_kind::throttling));
  EXPECT_TRUE(is_retryable(aws_error_kind::transport));
  EXPECT_FALSE(is_retryable(aws_error_kind::insufficient_capacity));
}
