// A model definition's files as the det CLI sends them are accepted; what
// could write outside the folder, or unpack other than listed, is refused
// at the boundary naming the entry and its field.

#include "messages/errc.hpp"
#include "messages/model_archive.hpp"
#include "util/archive.hpp"
#include "util/base64.hpp"

#include <gtest/gtest.h>

#include <string>

using nlohmann::json;

namespace {

json file(const std::string& path, const std::string& text = "x") {
  return {{"path", path},
          {"type", 48},
          {"content", det::base64_encode(text)},
          {"mode", 420}};
}

json dir(const std::string& path) {
  return {{"path", path}, {"type", 53}, {"content", ""}, {"mode", 493}};
}

/// The refusal's text, or "" when the list is accepted.
std::string refusal(const json& files) {
  auto err = det::check_model_files(files);
  return err ? det::render(err) : "";
}

} // namespace

TEST(model_archive,
     the_clis_files_and_folders_are_accepted_and_unpack_as_listed) {
  json files =
      json::array({file("train.py", "print(1)"),
                   dir("lib"),
                   file("lib/util.py", "x = 2"),
                   file("a//b.txt"),
                   {{"path", "old.txt"}, {"type", 0}, {"content", ""}}});
  EXPECT_EQ(refusal(files), "");
  auto tgz = det::make_model_archive(files);
  ASSERT_TRUE(tgz) << det::render(tgz.error());
  std::string error;
  auto back = det::util::read_tgz(*det::base64_decode(*tgz), error);
  ASSERT_EQ(error, "");
  std::vector<std::string> paths;
  for (const auto& f : back)
    paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"train.py", "lib", "lib/util.py",
                                             "a//b.txt", "old.txt"}));
}

TEST(model_archive,
     what_could_escape_or_unpack_otherwise_is_refused_naming_it) {
  const std::pair<json, std::string> cases[] = {
      // A link to outside, then a file written through it.
      {json::array({{{"path", "out"}, {"type", 50}, {"content", "L2V0Yw=="}},
                    file("out/passwd")}),
       "modelDefinition[0].type: 50 is not a file (48) or a directory (53)"},
      // The same without the link's type: the file under a file.
      {json::array({file("out"), file("out/passwd")}),
       "modelDefinition[1].path: 'out' is a file (modelDefinition[0]), not a "
       "directory"},
      {json::array({file("out"), dir("out")}),
       "modelDefinition[1].path: 'out' is a file (modelDefinition[0])"},
      {json::array({file(".")}),
       "modelDefinition[0].path: must not contain '.'"},
      {json::array({dir("./")}),
       "modelDefinition[0].path: must not contain '.'"},
      {json::array({file("a/./b")}),
       "modelDefinition[0].path: must not contain '.'"},
      {json::array({file("x"), file("a/../../b")}),
       "modelDefinition[1].path: must not contain '..'"},
      {json::array({file("/etc/cron.d/x")}),
       "modelDefinition[0].path: must be relative"},
      {json::array({file(std::string(4000, 'a'))}),
       "modelDefinition[0].path is 4000 bytes long, more than 1024"},
      {json::array({file("d/" + std::string(300, 'n'))}),
       "modelDefinition[0].path: a name is 300 bytes long, more than 255"},
      {json::array({file(std::string("a\0b", 3))}),
       "modelDefinition[0].path contains a NUL character at byte 1"},
      {json::array({file("a\x1b[2Jb")}),
       "modelDefinition[0].path contains control character"},
      {json::array({file("caf\xc3")}), "modelDefinition[0].path is not UTF-8"},
      {json::array({file("ok"), {{"path", "p"}, {"type", "0"}}}),
       "modelDefinition[1].type: \"0\" is not a file"},
      {json::array({{{"path", "p"}, {"content", "@@"}}}),
       "modelDefinition[0].content: must be base64 text"},
      {json::array({{{"path", ""}}}), "modelDefinition[0].path: required"},
  };
  for (const auto& [files, expected] : cases) {
    auto why = refusal(files);
    EXPECT_NE(why.find(expected), std::string::npos)
        << "got: " << why << "\nexpected: " << expected;
    EXPECT_FALSE(det::make_model_archive(files)) << expected;
  }
}
