#include "util/gzip.hpp"
#include "util/text.hpp"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>

namespace det::gzip {

namespace {

constexpr int level = 6;
constexpr size_t max_stored = 65535;

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out += static_cast<char>((v >> (8 * i)) & 0xff);
}

/// A deflate stream kept per thread and reset for each text: rows are
/// compressed one by one, and a fresh stream allocates and clears about
/// 256 KiB each time.
class stream {
public:
  explicit stream(int window_bits) {
    if (deflateInit2(&z_, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY)
        != Z_OK)
      throw std::bad_alloc();
  }
  ~stream() { deflateEnd(&z_); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  /// All of `text` deflated with `flush` (Z_SYNC_FLUSH or Z_FINISH).
  std::string run(std::string_view text, int flush) {
    deflateReset(&z_);
    std::string out;
    out.resize(deflateBound(&z_, text.size()) + 16);
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z_.avail_in = static_cast<uInt>(text.size());
    z_.next_out = reinterpret_cast<Bytef*>(out.data());
    z_.avail_out = static_cast<uInt>(out.size());
    int rc = deflate(&z_, flush);
    // The bound covers the whole input: anything else is zlib's bug.
    if ((flush == Z_FINISH && rc != Z_STREAM_END)
        || (flush != Z_FINISH && (rc != Z_OK || z_.avail_in != 0)))
      throw std::runtime_error("deflate failed");
    out.resize(out.size() - z_.avail_out);
    return out;
  }

private:
  z_stream z_{};
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// The q of one coding's parameters ("q=0.5"); 1 when absent, 0 when
/// unreadable (a coding with a broken weight is not chosen).
double weight(std::string_view params) {
  while (!params.empty()) {
    auto semi = params.find(';');
    auto p = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view{}
                                            : params.substr(semi + 1);
    if (p.size() < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=')
      continue;
    auto v = p.substr(2);
    if (v.empty() || v.size() > 5 || (v[0] != '0' && v[0] != '1'))
      return 0;
    for (size_t i = 1; i < v.size(); ++i)
      if (!(i == 1 ? v[i] == '.' : v[i] >= '0' && v[i] <= '9'))
        return 0;
    if (v[0] == '1')
      return 1;
    for (size_t i = 2; i < v.size(); ++i)
      if (v[i] != '0')
        return 0.5; // some weight above 0: only "is it 0" matters here
    return 0;
  }
  return 1;
}

} // namespace

piece compress(std::string_view text) {
  piece p;
  thread_local stream raw{-15};
  p.deflated = raw.run(text, Z_SYNC_FLUSH);
  p.crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(text.data()),
            static_cast<uInt>(text.size())));
  p.size = text.size();
  return p;
}

writer::writer() {
  // ID1 ID2, CM deflate, no flags, no mtime, XFL 0, OS unknown.
  out_.assign("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
}

void writer::text(std::string_view text) {
  crc_ = static_cast<uint32_t>(
      crc32(crc_, reinterpret_cast<const Bytef*>(text.data()),
            static_cast<uInt>(text.size())));
  size_ += text.size();
  while (!text.empty()) {
    auto n = std::min(text.size(), max_stored);
    out_ += '\0'; // not final, stored; the bits up to the byte end are 0
    put_le(out_, n, 2);
    put_le(out_, ~n & 0xffff, 2);
    out_.append(text.substr(0, n));
    text.remove_prefix(n);
  }
}

void writer::add(const piece& p) {
  crc_ = static_cast<uint32_t>(
      crc32_combine(crc_, p.crc, static_cast<z_off_t>(p.size)));
  size_ += p.size;
  out_ += p.deflated;
}

std::string writer::finish() {
  out_.append("\x01\x00\x00\xff\xff", 5); // an empty final stored block
  put_le(out_, crc_, 4);
  put_le(out_, size_ & 0xffffffffu, 4);
  std::string done;
  done.swap(out_);
  *this = writer{};
  return done;
}

std::string compress_whole(std::string_view text) {
  thread_local stream member{31};
  return member.run(text, Z_FINISH);
}

bool accepted(std::string_view accept_encoding) {
  double gzip_q = -1;
  double any_q = -1;
  auto rest = accept_encoding;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    auto item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{}
                                           : rest.substr(comma + 1);
    auto semi = item.find(';');
    auto name = trim(item.substr(0, semi));
    auto q = weight(semi == std::string_view::npos ? std::string_view{}
                                                   : item.substr(semi + 1));
    if (util::iequals(name, "gzip") || util::iequals(name, "x-gzip"))
      gzip_q = std::max(gzip_q, q);
    else if (name == "*")
      any_q = std::max(any_q, q);
  }
  if (gzip_q >= 0)
    return gzip_q > 0;
  return any_q > 0;
}

} // namespace det::gzip
