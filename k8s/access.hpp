#pragma once

// How to reach and authenticate to one Kubernetes API server: from a
// kubeconfig file (kubectl's format, read with yaml-cpp through
// conf/yaml_tree) or from inside a pod (the service account's token and CA,
// KUBERNETES_SERVICE_HOST/PORT). Plain data plus the token re-read: a
// projected service-account token rotates (about hourly), so a token given
// by file is read again on every request instead of once.
//
// Secrets (token, client key) live in memory only; nothing here logs them.
// Pure apart from reading the files it is pointed at; no network.

#include "messages/errc.hpp"

#include <caf/expected.hpp>

#include <functional>
#include <string>

namespace det::k8s {

struct cluster_access {
  /// https://127.0.0.1:6443, without a trailing slash.
  std::string server;
  /// PEM of the CA that signed the server's certificate ("" = system roots).
  std::string ca_pem;
  /// PEM of a client certificate and its key (both or neither).
  std::string client_cert_pem;
  std::string client_key_pem;
  /// A bearer token, used when token_file is empty.
  std::string token;
  /// A file holding the bearer token, read again on every request.
  std::string token_file;
  bool insecure_skip_verify = false;

  /// The bearer token to send now: token_file's trimmed content when set
  /// (errc::not_found naming the file when it cannot be read), else token
  /// (may be "": client certificates only).
  [[nodiscard]] caf::expected<std::string> bearer_token() const;
};

/// The kubeconfig at `path` for `context` ("" = its current-context):
/// server, certificate-authority(-data), client-certificate(-data),
/// client-key(-data), token, tokenFile, insecure-skip-tls-verify. Relative
/// file paths are relative to the kubeconfig's folder. Fails with
/// errc::invalid_argument naming the field ("contexts[dev].cluster: no
/// cluster named ...") or errc::not_found for an unreadable file. An
/// exec/auth-provider user is refused by name: not supported.
[[nodiscard]] caf::expected<cluster_access>
load_kubeconfig(const std::string& path, const std::string& context = {});

/// The same from the kubeconfig's text; `base_dir` resolves relative paths.
[[nodiscard]] caf::expected<cluster_access>
parse_kubeconfig(const std::string& text, const std::string& base_dir,
                 const std::string& context = {});

/// Inside a pod: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT,
/// the CA at <sa_dir>/ca.crt and the token file <sa_dir>/token (re-read).
/// `getenv` is injected for tests. errc::not_found when the variables or the
/// files are missing (not running in a pod).
[[nodiscard]] caf::expected<cluster_access>
in_cluster_access(const std::function<std::string(const char*)>& getenv,
                  const std::string& sa_dir =
                      "/var/run/secrets/kubernetes.io/serviceaccount");

/// in_cluster_access with the process environment when kubeconfig_path is
/// "" (the service-account folder `sa_dir` when not "", for a pod whose
/// mounts live elsewhere: DET_K8S_SA_DIR, conf/env_overrides.hpp), else
/// load_kubeconfig(kubeconfig_path).
[[nodiscard]] caf::expected<cluster_access>
resolve_access(const std::string& kubeconfig_path, const std::string& sa_dir);

} // namespace det::k8s
