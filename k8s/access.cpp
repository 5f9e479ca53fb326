#include "k8s/access.hpp"

#include "conf/yaml_tree.hpp"
#include "util/base64.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>

namespace det::k8s {

namespace {

using nlohmann::json;

std::string trim(std::string s) {
  auto is_space = [](char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
  };
  while (!s.empty() && is_space(s.back()))
    s.pop_back();
  size_t i = 0;
  while (i < s.size() && is_space(s[i]))
    ++i;
  return s.substr(i);
}

caf::error bad(const std::string& field, const std::string& why) {
  return make_error(errc::invalid_argument, "kubeconfig " + field + ": " + why);
}

std::string resolve(const std::string& base_dir, const std::string& p) {
  if (p.empty() || p.front() == '/' || base_dir.empty())
    return p;
  return base_dir + "/" + p;
}

/// The entry named `name` in the list `key` ("clusters", "users",
/// "contexts"): its inner object (`cluster`, `user`, `context`).
const json* named(const json& root, const char* key, const char* inner,
                  const std::string& name) {
  auto list = root.find(key);
  if (list == root.end() || !list->is_array())
    return nullptr;
  for (const auto& e : *list)
    if (e.is_object() && e.value("name", json()).is_string()
        && e["name"].get<std::string>() == name) {
      auto in = e.find(inner);
      return in != e.end() && in->is_object() ? &*in : nullptr;
    }
  return nullptr;
}

std::string str_of(const json& obj, const char* key) {
  auto i = obj.find(key);
  return i != obj.end() && i->is_string() ? i->get<std::string>() : "";
}

/// `<key>-data` (base64) or `<key>` (a file): the PEM text.
caf::expected<std::string> pem_of(const json& obj, const std::string& field,
                                  const char* key, const std::string& base) {
  auto data = str_of(obj, (std::string{key} + "-data").c_str());
  if (!data.empty()) {
    auto decoded = base64_decode(data);
    if (!decoded)
      return bad(field + "." + key + "-data", "not valid base64");
    return *decoded;
  }
  auto file = str_of(obj, key);
  if (file.empty())
    return std::string{};
  return conf::read_text_file(resolve(base, file));
}

} // namespace

caf::expected<std::string> cluster_access::bearer_token() const {
  if (token_file.empty())
    return token;
  auto text = conf::read_text_file(token_file);
  if (!text)
    return make_error(errc::not_found, "service-account token file "
                                           + token_file + " cannot be read");
  return trim(*text);
}

caf::expected<cluster_access> parse_kubeconfig(const std::string& text,
                                               const std::string& base_dir,
                                               const std::string& context) {
  auto tree = conf::parse_tree(text);
  if (!tree)
    return bad("", render(tree.error()));
  const json& root = *tree;
  std::string ctx_name = context;
  if (ctx_name.empty())
    ctx_name = str_of(root, "current-context");
  if (ctx_name.empty())
    return bad("current-context", "not set and no context given");
  const json* ctx = named(root, "contexts", "context", ctx_name);
  if (ctx == nullptr)
    return bad("contexts", "no context named \"" + ctx_name + "\"");
  auto cluster_name = str_of(*ctx, "cluster");
  const json* cluster = named(root, "clusters", "cluster", cluster_name);
  if (cluster == nullptr)
    return bad("contexts[" + ctx_name + "].cluster",
               "no cluster named \"" + cluster_name + "\"");
  cluster_access out;
  out.server = str_of(*cluster, "server");
  while (!out.server.empty() && out.server.back() == '/')
    out.server.pop_back();
  if (out.server.rfind("https://", 0) != 0
      && out.server.rfind("http://", 0) != 0)
    return bad("clusters[" + cluster_name + "].server",
               "expected an http(s) URL, got \"" + out.server + "\"");
  auto skip = cluster->find("insecure-skip-tls-verify");
  out.insecure_skip_verify =
      skip != cluster->end() && skip->is_boolean() && skip->get<bool>();
  auto ca = pem_of(*cluster, "clusters[" + cluster_name + "]",
                   "certificate-authority", base_dir);
  if (!ca)
    return ca.error();
  out.ca_pem = *ca;

  auto user_name = str_of(*ctx, "user");
  if (user_name.empty())
    return out;
  const json* user = named(root, "users", "user", user_name);
  if (user == nullptr)
    return bad("contexts[" + ctx_name + "].user",
               "no user named \"" + user_name + "\"");
  std::string field = "users[" + user_name + "]";
  if (user->contains("exec") || user->contains("auth-provider"))
    return bad(field, "exec and auth-provider credentials are not supported; "
                      "use a token, a token file or a client certificate");
  auto cert = pem_of(*user, field, "client-certificate", base_dir);
  if (!cert)
    return cert.error();
  auto key = pem_of(*user, field, "client-key", base_dir);
  if (!key)
    return key.error();
  if (cert->empty() != key->empty())
    return bad(field, "a client certificate needs its key and the other way "
                      "round");
  out.client_cert_pem = *cert;
  out.client_key_pem = *key;
  out.token = str_of(*user, "token");
  auto token_file = str_of(*user, "tokenFile");
  if (!token_file.empty())
    out.token_file = resolve(base_dir, token_file);
  return out;
}

caf::expected<cluster_access> load_kubeconfig(const std::string& path,
                                              const std::string& context) {
  auto text = conf::read_text_file(path);
  if (!text)
    return make_error(errc::not_found,
                      "kubeconfig " + path + " cannot be read");
  auto slash = path.rfind('/');
  std::string base = slash == std::string::npos ? "." : path.substr(0, slash);
  auto out = parse_kubeconfig(*text, base, context);
  if (!out)
    return make_error(errc::invalid_argument,
                      path + ": " + render(out.error()));
  return out;
}

caf::expected<cluster_access>
in_cluster_access(const std::function<std::string(const char*)>& getenv,
                  const std::string& sa_dir) {
  auto host = getenv("KUBERNETES_SERVICE_HOST");
  auto port = getenv("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty())
    return make_error(errc::not_found,
                      "not in a pod: KUBERNETES_SERVICE_HOST/PORT are unset; "
                      "set resource_manager.kubeconfig_path");
  cluster_access out;
  bool v6 = host.find(':') != std::string::npos;
  out.server = "https://" + (v6 ? "[" + host + "]" : host) + ":" + port;
  auto ca = conf::read_text_file(sa_dir + "/ca.crt");
  if (!ca)
    return make_error(errc::not_found, sa_dir + "/ca.crt cannot be read");
  out.ca_pem = *ca;
  out.token_file = sa_dir + "/token";
  if (auto t = out.bearer_token(); !t)
    return t.error();
  return out;
}

caf::expected<cluster_access> resolve_access(const std::string& path,
                                             const std::string& sa_dir) {
  if (!path.empty())
    return load_kubeconfig(path);
  auto getenv = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string{v == nullptr ? "" : v};
  };
  if (sa_dir.empty())
    return in_cluster_access(getenv);
  return in_cluster_access(getenv, sa_dir);
}

} // namespace det::k8s
