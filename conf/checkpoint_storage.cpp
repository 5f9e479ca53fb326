#include "conf/checkpoint_storage.hpp"

namespace det::conf {

using nlohmann::json;

json default_checkpoint_storage() {
  return json{{"type", "shared_fs"},
              {"host_path", "/tmp"},
              {"storage_path", "determined-checkpoint"}};
}

void read_checkpoint_storage(object_reader& r, checkpoint_storage_config& out) {
  if (!r.has("type")) {
    r.fail("type", "required (one of 'shared_fs', 's3', 'gcs', 'azure', "
                   "'directory')");
    r.allow_all();
    return;
  }
  out.type = r.choice("type", "shared_fs",
                      {"shared_fs", "s3", "gcs", "azure", "directory"});
  out.save_experiment_best = r.integer("save_experiment_best", 0, 0);
  out.save_trial_best = r.integer("save_trial_best", 1, 0);
  out.save_trial_latest = r.integer("save_trial_latest", 1, 0);
  if (out.type == "shared_fs") {
    out.host_path = r.required_str("host_path",
                                   "required for shared_fs checkpoint storage");
    if (!out.host_path.empty() && out.host_path.front() != '/')
      r.fail("host_path",
             "must be an absolute path, got \"" + out.host_path + "\"");
    out.storage_path = r.str("storage_path", "determined-checkpoint");
    if (!out.storage_path.empty() && out.storage_path.front() == '/') {
      auto base = out.host_path;
      if (!base.empty() && base.back() != '/')
        base += '/';
      if (out.storage_path.rfind(base, 0) != 0)
        r.fail("storage_path", "must either be a relative directory or a "
                               "subdirectory of host_path");
    }
    if (out.storage_path.find("..") != std::string::npos)
      r.fail("storage_path", "must not contain '..'");
    out.propagation = r.choice(
        "propagation", "rprivate",
        {"rprivate", "private", "rshared", "shared", "rslave", "slave"});
    r.allow({"container_path", "checkpoint_path"}); // legacy, ignored
  } else if (out.type == "s3" || out.type == "gcs") {
    out.bucket = r.required_str(
        "bucket", ("required for " + out.type + " checkpoint storage").c_str());
    if (auto p = r.opt_str("prefix")) {
      out.prefix = *p;
      if (p->find("..") != std::string::npos)
        r.fail("prefix", "must not contain '..'");
    }
    if (out.type == "s3") {
      out.access_key = r.opt_str("access_key").value_or("");
      out.secret_key = r.opt_str("secret_key").value_or("");
      out.endpoint_url = r.opt_str("endpoint_url").value_or("");
      if (out.access_key.empty() != out.secret_key.empty())
        r.fail_here("access_key and secret_key go together");
    }
  } else if (out.type == "azure") {
    out.container =
        r.required_str("container", "required for azure checkpoint storage");
    out.connection_string = r.opt_str("connection_string").value_or("");
    out.account_url = r.opt_str("account_url").value_or("");
    out.credential = r.opt_str("credential").value_or("");
    if (out.connection_string.empty() == out.account_url.empty())
      r.fail_here("azure storage needs exactly one of connection_string and "
                  "account_url");
  } else if (out.type == "directory") {
    out.container_path =
        r.required_str("container_path", "required for directory checkpoint "
                                         "storage");
  }
  r.finish();
}

json merge_checkpoint_storage(const json& base, const json& override_) {
  if (!override_.is_object())
    return base;
  if (!base.is_object())
    return override_;
  auto bt = base.find("type");
  auto ot = override_.find("type");
  if (ot != override_.end() && bt != base.end() && *ot != *bt)
    return override_;
  json out = base;
  for (auto& kv : override_.items())
    out[kv.key()] = kv.value();
  return out;
}

} // namespace det::conf
