// util/gzip: members joined from pieces decompress, with zlib, to the text
// in order; the Accept-Encoding reading follows RFC 9110's weights.

#include "util/gzip.hpp"

#include "tests/support/gunzip.hpp"

#include <gtest/gtest.h>

#include <random>

namespace det::gzip {
namespace {

using test::gunzip;

TEST(gzip, pieces_and_text_joined_in_any_order_inflate_to_the_text) {
  std::mt19937 rng(7);
  std::vector<std::string> rows;
  for (int i = 0; i < 50; ++i) {
    std::string row = "{\"id\":" + std::to_string(i) + ",\"name\":\"";
    for (size_t n = rng() % 400; n > 0; --n)
      row += static_cast<char>('a' + rng() % 26);
    rows.push_back(row + "\"}");
  }
  std::vector<piece> pieces;
  for (const auto& r : rows)
    pieces.push_back(compress(r));
  // Rows in a different order from their compression, with text between.
  writer w;
  std::string expected = "{\"rows\":[";
  w.text(expected);
  for (size_t k = 0; k < rows.size(); ++k) {
    auto i = (k * 17) % rows.size();
    if (k != 0) {
      w.text(",");
      expected += ',';
    }
    w.add(pieces[i]);
    expected += rows[i];
  }
  w.text("]}");
  expected += "]}";
  auto member = w.finish();
  EXPECT_EQ(gunzip(member), expected);
  EXPECT_LT(member.size(), expected.size());
}

TEST(gzip, text_past_a_stored_block_and_an_empty_piece_are_kept) {
  std::string big(200000, 'x');
  for (size_t i = 0; i < big.size(); i += 7)
    big[i] = static_cast<char>('0' + i % 10);
  writer w;
  w.text(big);
  w.add(compress(""));
  w.text("");
  w.add(compress(big));
  EXPECT_EQ(gunzip(w.finish()), big + big);
  // The writer starts over after finish().
  w.text("again");
  EXPECT_EQ(gunzip(w.finish()), "again");
}

TEST(gzip, a_whole_text_compresses_to_one_member) {
  std::string text(100000, 'a');
  auto member = compress_whole(text);
  EXPECT_LT(member.size(), 1000u);
  EXPECT_EQ(gunzip(member), text);
}

TEST(gzip, accepted_reads_codings_and_their_weights) {
  EXPECT_TRUE(accepted("gzip"));
  EXPECT_TRUE(accepted("gzip, deflate, br"));   // python-requests
  EXPECT_TRUE(accepted("deflate, GZIP;q=0.5")); // case and a weight
  EXPECT_TRUE(accepted("x-gzip"));
  EXPECT_TRUE(accepted("*"));
  EXPECT_TRUE(accepted("br;q=1.0, gzip;q=0.001"));
  EXPECT_FALSE(accepted(""));
  EXPECT_FALSE(accepted("identity"));
  EXPECT_FALSE(accepted("deflate, br"));
  EXPECT_FALSE(accepted("gzip;q=0"));
  EXPECT_FALSE(accepted("gzip;q=0.000"));
  EXPECT_FALSE(accepted("*, gzip;q=0")); // named beats the wildcard
  EXPECT_FALSE(accepted("*;q=0"));
  EXPECT_FALSE(accepted("gzip;q=2"));   // no such weight
  EXPECT_FALSE(accepted("gzip;q=abc")); // unreadable
  EXPECT_FALSE(accepted("gzipx"));
}

} // namespace
} // namespace det::gzip
