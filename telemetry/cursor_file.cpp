#include "telemetry/cursor_file.hpp"

#include "messages/errc.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace det::telemetry {

std::string cursor_file::load() {
  std::ifstream in{path_};
  if (!in)
    return {};
  std::string cursor;
  std::getline(in, cursor);
  // journald cursors are printable ASCII ("s=...;i=...;b=..."); anything
  // else is not ours.
  for (char c : cursor)
    if (static_cast<unsigned char>(c) < 0x21
        || static_cast<unsigned char>(c) > 0x7e)
      return {};
  return cursor;
}

caf::error cursor_file::save(const std::string& cursor) {
  auto tmp = path_ + ".tmp";
  auto fail = [&](const char* what) {
    return make_error(errc::remote_error, std::string{what} + " " + tmp + ": "
                                              + std::strerror(errno));
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return fail("cannot create");
  auto text = cursor + "\n";
  auto n = ::write(fd, text.data(), text.size());
  bool ok = n == static_cast<ssize_t>(text.size()) && fsync(fd) == 0;
  ::close(fd);
  if (!ok)
    return fail("cannot write");
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    return fail("cannot rename");
  return {};
}

} // namespace det::telemetry
