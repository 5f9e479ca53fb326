#pragma once

// gunzip() for tests: zlib's inflate over one gzip member, which checks the
// member's CRC-32 and size; a broken member fails the calling test.

#include <zlib.h>

#include <gtest/gtest.h>

#include <string>

namespace det::test {

inline std::string gunzip(const std::string& member) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 31), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(member.data()));
  z.avail_in = static_cast<uInt>(member.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END) << (z.msg != nullptr ? z.msg : "");
  EXPECT_EQ(z.avail_in, 0u) << "bytes after the member";
  inflateEnd(&z);
  return out;
}

} // namespace det::test
