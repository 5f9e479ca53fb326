// Exits in EC2 instance tags (messages/exit_tags.hpp): what det-agent
// writes round-trips, and what a hostile machine could write instead is
// refused with a reason that never echoes the bad bytes.
#include "messages/exit_tags.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace det::agent;

TEST(exit_tags, an_exit_round_trips_through_its_tag) {
  exit_report e{"17.2", 137, 1732978123456789};
  auto t = encode_exit_tag(e);
  ASSERT_TRUE(t) << det::render(t.error());
  EXPECT_EQ(t->first, "det:exit:17.2");
  EXPECT_EQ(t->second, "137@1732978123456789");
  EXPECT_LE(t->first.size(), 128u);
  EXPECT_LE(t->second.size(), 256u);
  auto back = decode_exit_tag(t->first, t->second);
  ASSERT_TRUE(back) << det::render(back.error());
  EXPECT_EQ(back->allocation_id, "17.2");
  EXPECT_EQ(back->exit_code, 137);
  EXPECT_EQ(back->exited_at_us, 1732978123456789);
  auto neg = decode_exit_tag("det:exit:a-b_c.1", "-9@0");
  ASSERT_TRUE(neg);
  EXPECT_EQ(neg->exit_code, -9);
}

TEST(exit_tags, what_cannot_be_written_is_refused_naming_the_field) {
  auto bad_id = encode_exit_tag({"7 1", 0, 1});
  ASSERT_FALSE(bad_id);
  EXPECT_NE(det::render(bad_id.error()).find("allocation_id"),
            std::string::npos);
  EXPECT_FALSE(encode_exit_tag({std::string(120, 'a'), 0, 1}));
  EXPECT_TRUE(encode_exit_tag({std::string(119, 'a'), 0, 1}));
  EXPECT_FALSE(encode_exit_tag({"", 0, 1}));
  auto bad_code = encode_exit_tag({"7.1", 256, 1});
  ASSERT_FALSE(bad_code);
  EXPECT_NE(det::render(bad_code.error()).find("exit_code"), std::string::npos);
  EXPECT_FALSE(encode_exit_tag({"7.1", 0, -1}));
}

// Hostile tags: each is refused, and the reason holds no byte of the value.
TEST(exit_tags, hostile_tags_are_refused) {
  const std::string nul("det:exit:7.1\0x", 14);
  struct row {
    std::string key, value;
  };
  std::vector<row> rows{
      {nul, "0@1"},
      {"det:exit:7.1\n", "0@1"},
      {"det:exit:7\x01", "0@1"},
      {"det:exit:\xff\xfe", "0@1"},
      {"det:exit:\xc3\xa9", "0@1"}, // valid UTF-8, not in the charset
      {"det:exit:", "0@1"},
      {"det:exit:" + std::string(120, 'a'), "0@1"},
      {"det:exit:7.1", ""},
      {"det:exit:7.1", "0"},
      {"det:exit:7.1", "@1"},
      {"det:exit:7.1", "0@"},
      {"det:exit:7.1", "+0@1"},
      {"det:exit:7.1", " 0@1"},
      {"det:exit:7.1", "0@1 "},
      {"det:exit:7.1", "0@-1"},
      {"det:exit:7.1", "0@1@2"},
      {"det:exit:7.1", "256@1"},
      {"det:exit:7.1", "-256@1"},
      {"det:exit:7.1", "99999999999@1"},
      {"det:exit:7.1", "0@99999999999999999999"},
      {"det:exit:7.1", "0@9223372036854775808"},
      {"det:exit:7.1", std::string("0@1\0", 4)},
      {"det:exit:7.1", "0@1\xff"},
      {"det:exit:7.1", std::string(300, '1')},
      {"det:exit:7.1", "--1@1"},
  };
  for (const auto& r : rows) {
    auto e = decode_exit_tag(r.key, r.value);
    EXPECT_FALSE(e) << "key of " << r.key.size() << " bytes, value "
                    << r.value.size();
    if (!e) {
      auto why = det::render(e.error());
      for (char c : why)
        EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "a control or non-ASCII byte";
    }
  }
  EXPECT_TRUE(decode_exit_tag("det:exit:7.1", "0@9223372036854775807"));
}

TEST(exit_tags, claims_are_read_from_an_instances_tags) {
  std::vector<tag_pair> tags{
      {"Name", "det-agent"},    {"det-pool", "gpu"},
      {"det:exit:7.1", "0@10"}, {"det:exit:8.1", "garbage"},
      {"det:exitx", "0@1"},     {"det:exit:9.1", "1@20"}};
  auto c = exit_claims_of(tags);
  ASSERT_EQ(c.exits.size(), 2u);
  EXPECT_EQ(c.exits[0].allocation_id, "7.1");
  EXPECT_EQ(c.exits[1].exit_code, 1);
  ASSERT_EQ(c.refused.size(), 1u);
  EXPECT_NE(c.refused[0].find("det:exit:8.1"), std::string::npos);
  // No more than max_exit_tags claims from one instance.
  std::vector<tag_pair> many;
  for (size_t k = 0; k < max_exit_tags + 5; ++k)
    many.push_back({"det:exit:1." + std::to_string(k), "0@1"});
  auto m = exit_claims_of(many);
  EXPECT_EQ(m.exits.size(), max_exit_tags);
  EXPECT_EQ(m.refused.size(), 5u);
}
