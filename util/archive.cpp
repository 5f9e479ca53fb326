#include "util/archive.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <memory>

namespace det::util {

namespace {

using writer_ptr =
    std::unique_ptr<struct archive, decltype(&archive_write_free)>;
using reader_ptr =
    std::unique_ptr<struct archive, decltype(&archive_read_free)>;
using entry_ptr =
    std::unique_ptr<struct archive_entry, decltype(&archive_entry_free)>;

la_ssize_t append_to_string(struct archive*, void* out, const void* buf,
                            size_t n) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(buf), n);
  return static_cast<la_ssize_t>(n);
}

std::string message_of(struct archive* a, const std::string& what) {
  const char* m = archive_error_string(a);
  return what + ": " + (m != nullptr ? m : "unknown libarchive error");
}

reader_ptr open_reader(const std::string& tgz, std::string& error) {
  reader_ptr r{archive_read_new(), &archive_read_free};
  archive_read_support_filter_gzip(r.get());
  archive_read_support_format_tar(r.get());
  if (archive_read_open_memory(r.get(), tgz.data(), tgz.size()) != ARCHIVE_OK) {
    error = message_of(r.get(), "reading the archive");
    return {nullptr, &archive_read_free};
  }
  return r;
}

} // namespace

std::string make_tgz(const std::vector<archive_file>& files,
                     std::string& error) {
  std::string out;
  writer_ptr w{archive_write_new(), &archive_write_free};
  archive_write_add_filter_gzip(w.get());
  archive_write_set_format_pax_restricted(w.get());
  if (archive_write_open(w.get(), &out, nullptr, append_to_string, nullptr)
      != ARCHIVE_OK) {
    error = message_of(w.get(), "creating the archive");
    return {};
  }
  for (const auto& f : files) {
    entry_ptr e{archive_entry_new(), &archive_entry_free};
    archive_entry_set_pathname(e.get(), f.path.c_str());
    archive_entry_set_filetype(e.get(), f.directory ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(
        e.get(), static_cast<mode_t>(f.directory ? 0755 : f.mode & 0777));
    archive_entry_set_size(
        e.get(), f.directory ? 0 : static_cast<la_int64_t>(f.content.size()));
    if (archive_write_header(w.get(), e.get()) != ARCHIVE_OK
        || (!f.directory && !f.content.empty()
            && archive_write_data(w.get(), f.content.data(), f.content.size())
                   < 0)) {
      error = message_of(w.get(), "adding " + f.path);
      return {};
    }
  }
  if (archive_write_close(w.get()) != ARCHIVE_OK) {
    error = message_of(w.get(), "finishing the archive");
    return {};
  }
  error.clear();
  return out;
}

std::string unpack_tgz(const std::string& tgz, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return "creating " + dir + ": " + ec.message();
  std::string error;
  auto r = open_reader(tgz, error);
  if (!r)
    return error;
  writer_ptr disk{archive_write_disk_new(), &archive_write_free};
  archive_write_disk_set_options(
      disk.get(), ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_NODOTDOT
                      | ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  fs::path root{dir};
  struct archive_entry* e = nullptr;
  for (;;) {
    auto rc = archive_read_next_header(r.get(), &e);
    if (rc == ARCHIVE_EOF)
      break;
    if (rc != ARCHIVE_OK)
      return message_of(r.get(), "reading the archive");
    std::string name = archive_entry_pathname(e);
    auto type = archive_entry_filetype(e);
    if (type != AE_IFREG && type != AE_IFDIR)
      return "refused " + name + ": only files and directories";
    // The entry's own path must stay inside: it is checked here, before
    // `dir` (absolute) is put in front of it for the disk writer.
    fs::path rel{name};
    if (rel.is_absolute())
      return "refused " + name + ": an absolute path";
    for (const auto& part : rel)
      if (part == "..")
        return "refused " + name + ": a path through '..'";
    archive_entry_set_perm(e, archive_entry_perm(e) & 0777);
    archive_entry_set_pathname(e, (root / name).c_str());
    if (archive_write_header(disk.get(), e) != ARCHIVE_OK)
      return message_of(disk.get(), "refused " + name);
    const void* buf = nullptr;
    size_t n = 0;
    la_int64_t off = 0;
    while ((rc = archive_read_data_block(r.get(), &buf, &n, &off))
           == ARCHIVE_OK)
      if (archive_write_data_block(disk.get(), buf, n, off) != ARCHIVE_OK)
        return message_of(disk.get(), "writing " + name);
    if (rc != ARCHIVE_EOF)
      return message_of(r.get(), "reading " + name);
    if (archive_write_finish_entry(disk.get()) != ARCHIVE_OK)
      return message_of(disk.get(), "writing " + name);
  }
  return {};
}

std::vector<archive_file> read_tgz(const std::string& tgz, std::string& error) {
  std::vector<archive_file> out;
  auto r = open_reader(tgz, error);
  if (!r)
    return out;
  struct archive_entry* e = nullptr;
  for (;;) {
    auto rc = archive_read_next_header(r.get(), &e);
    if (rc == ARCHIVE_EOF)
      break;
    if (rc != ARCHIVE_OK) {
      error = message_of(r.get(), "reading the archive");
      return {};
    }
    archive_file f;
    f.path = archive_entry_pathname(e);
    if (f.path.size() > 1 && f.path.back() == '/')
      f.path.pop_back();
    f.directory = archive_entry_filetype(e) == AE_IFDIR;
    f.mode = static_cast<int>(archive_entry_perm(e));
    char buf[16384];
    la_ssize_t n = 0;
    while ((n = archive_read_data(r.get(), buf, sizeof buf)) > 0)
      f.content.append(buf, static_cast<size_t>(n));
    if (n < 0) {
      error = message_of(r.get(), "reading " + f.path);
      return {};
    }
    out.push_back(std::move(f));
  }
  error.clear();
  return out;
}

} // namespace det::util
