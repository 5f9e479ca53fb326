#include "util/archive.hpp"

#include <gtest/gtest.h>

#include <archive.h>
#include <archive_entry.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using det::util::archive_file;

namespace {

struct temp_dir {
  fs::path path;
  temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "det-archive-XXXXXX");
    path = mkdtemp(tmpl.data());
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read_file(const fs::path& p) {
  std::ifstream in{p, std::ios::binary};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

la_ssize_t append(struct archive*, void* out, const void* buf, size_t n) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(buf), n);
  return static_cast<la_ssize_t>(n);
}

/// A tgz with one symlink entry `name` -> `target` (make_tgz writes only
/// files and directories, as a hostile client would not).
std::string tgz_with_symlink(const std::string& name,
                             const std::string& target) {
  std::string out;
  auto* w = archive_write_new();
  archive_write_add_filter_gzip(w);
  archive_write_set_format_pax_restricted(w);
  archive_write_open(w, &out, nullptr, append, nullptr);
  auto* e = archive_entry_new();
  archive_entry_set_pathname(e, name.c_str());
  archive_entry_set_filetype(e, AE_IFLNK);
  archive_entry_set_symlink(e, target.c_str());
  archive_entry_set_perm(e, 0777);
  archive_write_header(w, e);
  archive_entry_free(e);
  archive_write_close(w);
  archive_write_free(w);
  return out;
}

} // namespace

TEST(archive, files_and_directories_round_trip_with_their_modes) {
  std::vector<archive_file> files{
      {"model", true, "", 0755},
      {"model/train.py", false, "print('hi')\n", 0644},
      {"model/run.sh", false, std::string("#!/bin/sh\0x", 11), 0755},
      {"deep/er/data.bin", false, std::string(100000, 'x'), 0600},
  };
  std::string err;
  auto tgz = det::util::make_tgz(files, err);
  ASSERT_EQ(err, "");
  auto back = det::util::read_tgz(tgz, err);
  ASSERT_EQ(err, "");
  ASSERT_EQ(back.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(back[i].path, files[i].path);
    EXPECT_EQ(back[i].directory, files[i].directory);
    EXPECT_EQ(back[i].content, files[i].content);
  }
  EXPECT_EQ(back[2].mode, 0755);
  temp_dir d;
  ASSERT_EQ(det::util::unpack_tgz(tgz, d.path.string()), "");
  EXPECT_EQ(read_file(d.path / "model/train.py"), "print('hi')\n");
  EXPECT_EQ(read_file(d.path / "deep/er/data.bin").size(), 100000u);
  auto perms = fs::status(d.path / "model/run.sh").permissions();
  EXPECT_NE(perms & fs::perms::owner_exec, fs::perms::none);
}

TEST(archive, an_entry_that_climbs_out_is_refused_and_nothing_escapes) {
  temp_dir d;
  auto inside = d.path / "in";
  std::string err;
  auto tgz = det::util::make_tgz({{"../escaped.txt", false, "x", 0644}}, err);
  ASSERT_EQ(err, "");
  auto why = det::util::unpack_tgz(tgz, inside.string());
  EXPECT_NE(why.find("refused ../escaped.txt"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(d.path / "escaped.txt"));
}

TEST(archive, an_absolute_entry_is_refused) {
  temp_dir d;
  auto target = d.path / "abs.txt";
  std::string err;
  auto tgz = det::util::make_tgz({{target.string(), false, "x", 0644}}, err);
  ASSERT_EQ(err, "");
  auto why = det::util::unpack_tgz(tgz, (d.path / "in").string());
  EXPECT_NE(why.find("absolute"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(target));
}

TEST(archive, a_symlink_entry_is_refused) {
  temp_dir d;
  auto why = det::util::unpack_tgz(tgz_with_symlink("link", "/etc"),
                                   (d.path / "in").string());
  EXPECT_NE(why.find("refused link"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(d.path / "in" / "link"));
}

TEST(archive, bytes_that_are_not_an_archive_are_an_error_not_a_crash) {
  temp_dir d;
  EXPECT_NE(det::util::unpack_tgz("not a tgz at all", d.path.string()), "");
  std::string err;
  auto entries = det::util::read_tgz(std::string(1000, 'x'), err);
  EXPECT_NE(err, "");
  EXPECT_TRUE(entries.empty());
}
