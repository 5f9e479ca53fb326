// Allocation folders on a host shared by several masters: keyed by cluster
// id, private, and never deleted when another master made them.

#include "agent/work_dirs.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace det::agent {
namespace {

namespace fs = std::filesystem;

struct work_dirs : ::testing::Test {
  fs::path root =
      fs::temp_directory_path() / ("det-work-dirs-" + std::to_string(getpid()));
  ~work_dirs() override {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

TEST_F(work_dirs, two_clusters_allocations_of_one_id_get_folders_of_their_own) {
  auto a = prepare_allocation_dir(root.string(), "cluster-a",
                                  "http://127.0.0.1:8080", "1.1");
  auto b = prepare_allocation_dir(root.string(), "cluster-b",
                                  "http://127.0.0.1:9090", "1.1");
  ASSERT_TRUE(a) << render(a.error());
  ASSERT_TRUE(b) << render(b.error());
  EXPECT_NE(*a, *b);
  std::ofstream{fs::path{*a} / "work.txt"} << "a's work";
  // Cluster b starts its allocation 1.1 again: a's folder is untouched.
  ASSERT_TRUE(prepare_allocation_dir(root.string(), "cluster-b",
                                     "http://127.0.0.1:9090", "1.1"));
  EXPECT_TRUE(fs::exists(fs::path{*a} / "work.txt"));
}

TEST_F(work_dirs, pods_of_one_allocation_on_one_host_keep_their_own_folders) {
  // Rank 0 starts; rank 1 of the same allocation, same master, starts on
  // the same host while rank 0 works: rank 0's files stay.
  auto r0 = prepare_pod_allocation_dir(root.string(), "c", "m", "1.1", "0");
  ASSERT_TRUE(r0) << render(r0.error());
  std::ofstream{fs::path{*r0} / "work.txt"} << "rank 0's work";
  auto r1 = prepare_pod_allocation_dir(root.string(), "c", "m", "1.1", "1");
  ASSERT_TRUE(r1) << render(r1.error());
  EXPECT_NE(*r0, *r1);
  EXPECT_TRUE(fs::exists(fs::path{*r0} / "work.txt"));
  // A single pod keeps the allocation's own name.
  auto one = prepare_pod_allocation_dir(root.string(), "c", "m", "2.1", "");
  ASSERT_TRUE(one);
  EXPECT_EQ(fs::path{*one}.filename(), "2.1");
}

TEST_F(work_dirs, folders_are_private_to_the_agents_user) {
  auto a = prepare_allocation_dir(root.string(), "c", "m", "7.1");
  ASSERT_TRUE(a);
  for (auto p : {fs::path{*a}, fs::path{*a}.parent_path()}) {
    auto perms = fs::status(p).permissions();
    EXPECT_EQ(perms & (fs::perms::group_all | fs::perms::others_all),
              fs::perms::none)
        << p;
  }
}

TEST_F(work_dirs, a_folder_of_this_master_is_emptied_for_a_restart) {
  auto a = prepare_allocation_dir(root.string(), "c", "m", "7.1");
  ASSERT_TRUE(a);
  std::ofstream{fs::path{*a} / "stale.txt"} << "x";
  auto again = prepare_allocation_dir(root.string(), "c", "m", "7.1");
  ASSERT_TRUE(again);
  EXPECT_FALSE(fs::exists(fs::path{*again} / "stale.txt"));
}

TEST_F(work_dirs, a_folder_of_another_master_with_the_same_cluster_id_is_kept) {
  auto a = prepare_allocation_dir(root.string(), "determined",
                                  "http://127.0.0.1:8080", "3.1");
  ASSERT_TRUE(a);
  std::ofstream{fs::path{*a} / "work.txt"} << "first master's work";
  auto b = prepare_allocation_dir(root.string(), "determined",
                                  "http://127.0.0.1:9090", "3.1");
  ASSERT_TRUE(b) << render(b.error());
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(fs::exists(fs::path{*a} / "work.txt"));
  // The second master's restart of 3.1 finds its own folder again.
  std::ofstream{fs::path{*b} / "stale.txt"} << "x";
  auto again = prepare_allocation_dir(root.string(), "determined",
                                      "http://127.0.0.1:9090", "3.1");
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *b);
  EXPECT_FALSE(fs::exists(fs::path{*b} / "stale.txt"));
  EXPECT_TRUE(fs::exists(fs::path{*a} / "work.txt"));
}

} // namespace
} // namespace det::agent
