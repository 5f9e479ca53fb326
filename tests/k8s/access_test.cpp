#include "k8s/access.hpp"

#include "util/base64.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;
using det::k8s::in_cluster_access;
using det::k8s::parse_kubeconfig;

namespace {

struct temp_dir {
  fs::path path;
  temp_dir() {
    char tmpl[] = "/tmp/k8s-access-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~temp_dir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
  }
};

const char* kubeconfig_with_data = R"(
apiVersion: v1
kind: Config
current-context: bed
contexts:
- name: other
  context: {cluster: nowhere, user: nobody}
- name: bed
  context: {cluster: local, user: admin}
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EtUEVN
users:
- name: admin
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
)";

} // namespace

TEST(kubeconfig, reads_the_current_contexts_server_ca_and_client_certificate) {
  auto a = parse_kubeconfig(kubeconfig_with_data, "/nowhere");
  ASSERT_TRUE(a) << det::render(a.error());
  EXPECT_EQ(a->server, "https://127.0.0.1:6443");
  EXPECT_EQ(a->ca_pem, "CA-PEM");
  EXPECT_EQ(a->client_cert_pem, "CERT");
  EXPECT_EQ(a->client_key_pem, "KEY");
  EXPECT_TRUE(a->token.empty());
}

TEST(kubeconfig, names_the_missing_cluster_of_a_chosen_context) {
  auto a = parse_kubeconfig(kubeconfig_with_data, "/nowhere", "other");
  ASSERT_FALSE(a);
  EXPECT_NE(det::render(a.error()).find("contexts[other].cluster"),
            std::string::npos)
      << det::render(a.error());
}

TEST(kubeconfig, reads_files_relative_to_its_folder_and_rereads_the_token) {
  temp_dir d;
  d.write("ca.crt", "CA FROM FILE");
  d.write("token", "first\n");
  auto a = parse_kubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h:1", certificate-authority: ca.crt}}]
users: [{name: u, user: {tokenFile: token}}]
)",
                            d.path.string());
  ASSERT_TRUE(a) << det::render(a.error());
  EXPECT_EQ(a->ca_pem, "CA FROM FILE");
  EXPECT_EQ(*a->bearer_token(), "first");
  d.write("token", "rotated");
  EXPECT_EQ(*a->bearer_token(), "rotated");
}

TEST(kubeconfig, refuses_exec_credentials_and_a_certificate_without_key) {
  auto exec = parse_kubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h:1"}}]
users: [{name: u, user: {exec: {command: aws}}}]
)",
                               "/");
  ASSERT_FALSE(exec);
  EXPECT_NE(det::render(exec.error()).find("users[u]"), std::string::npos);
  auto half = parse_kubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h:1"}}]
users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]
)",
                               "/");
  EXPECT_FALSE(half);
}

TEST(kubeconfig, refuses_a_server_that_is_not_a_url) {
  auto a = parse_kubeconfig(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "127.0.0.1:6443"}}]
)",
                            "/");
  ASSERT_FALSE(a);
  EXPECT_NE(det::render(a.error()).find("clusters[k].server"),
            std::string::npos);
}

TEST(in_cluster, uses_the_service_variables_ca_and_a_token_read_each_time) {
  temp_dir d;
  d.write("ca.crt", "SA CA");
  d.write("token", "t1");
  std::map<std::string, std::string> env{
      {"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
      {"KUBERNETES_SERVICE_PORT", "443"}};
  auto getenv = [&](const char* n) { return env[n]; };
  auto a = in_cluster_access(getenv, d.path.string());
  ASSERT_TRUE(a) << det::render(a.error());
  EXPECT_EQ(a->server, "https://10.96.0.1:443");
  EXPECT_EQ(a->ca_pem, "SA CA");
  EXPECT_EQ(*a->bearer_token(), "t1");
  d.write("token", "t2");
  EXPECT_EQ(*a->bearer_token(), "t2");
}

TEST(in_cluster, fails_outside_a_pod) {
  auto a = in_cluster_access([](const char*) { return std::string{}; },
                             "/nonexistent");
  ASSERT_FALSE(a);
  EXPECT_NE(det::render(a.error()).find("kubeconfig_path"), std::string::npos);
}
