#include "deployer/commands.hpp"

#include "aws/aws_error.hpp"
#include "aws/cloudformation_client.hpp"
#include "aws/credential_chain.hpp"
#include "aws/query_ec2_client.hpp"
#include "aws/s3_client.hpp"
#include "aws/ssm_client.hpp"
#include "conf/duration.hpp"
#include "deployer/staging.hpp"
#include "deployer/templates.hpp"
#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>

namespace det::deploy {

namespace {

struct session {
  std::string region;
  std::shared_ptr<aws::cloudformation_client> cf;
  std::shared_ptr<aws::ec2_client> ec2;
  std::shared_ptr<aws::ssm_client> ssm;
  std::shared_ptr<aws::credential_provider> creds;
  std::string endpoint_url;
};

int fail(command_context& ctx, const std::string& why) {
  ctx.err << "det-deploy: " << why << "\n";
  return 1;
}

int fail(command_context& ctx, const caf::error& err) {
  return fail(ctx, aws::error_text(err));
}

// Region and credentials first, so that a machine without either hears so
// before anything is sent.
caf::expected<session> connect(const connection_options& conn,
                               command_context& ctx) {
  aws::credential_chain_options copts;
  copts.env = ctx.env;
  session s;
  s.region = conn.region;
  if (s.region.empty()) {
    auto region = aws::resolve_region(copts);
    if (!region)
      return make_error(errc::not_found,
                        aws::error_text(region.error()) + "; pass --region");
    s.region = *region;
  }
  auto creds = aws::make_default_credential_chain(copts);
  if (auto got = creds->get(); !got)
    return got.error();
  aws::cloudformation_client_config cc;
  cc.region = s.region;
  cc.endpoint_url = conn.endpoint_url;
  s.cf = aws::make_curl_cloudformation_client(cc, creds, ctx.env);
  aws::ec2_client_config ec;
  ec.region = s.region;
  ec.endpoint_url = conn.endpoint_url;
  s.ec2 = aws::make_curl_ec2_client(ec, creds, ctx.env);
  aws::ssm_client_config sc;
  sc.region = s.region;
  sc.endpoint_url = conn.endpoint_url;
  s.ssm = aws::make_curl_ssm_client(sc, creds, ctx.env);
  s.creds = creds;
  s.endpoint_url = conn.endpoint_url;
  return s;
}

// The agents' AMIs `up` was not given, read from their SSM parameters (one
// GetParameters call) and printed with where they came from.
caf::error choose_agent_images(session& s, up_options& o, std::ostream& out) {
  struct pool {
    const char* name;
    std::string* image;
    std::string parameter;
  };
  std::vector<pool> pools = {
      {"cpu-pool", &o.cpu_agent_image_id,
       o.cpu_agent_image_parameter.empty() ? cpu_image_parameter_default
                                           : o.cpu_agent_image_parameter},
      {"gpu-pool", &o.gpu_agent_image_id,
       o.gpu_agent_image_parameter.empty() ? gpu_image_parameter_default
                                           : o.gpu_agent_image_parameter},
  };
  std::vector<std::string> names;
  for (const auto& p : pools)
    if (p.image->empty())
      names.push_back(p.parameter);
  if (names.empty())
    return {};
  auto got = s.ssm->get_parameters(names);
  if (!got)
    return make_error(errc::remote_error,
                      "cannot read the agents' AMIs from SSM ("
                          + aws::error_text(got.error())
                          + "); pass --agent-image-id");
  for (auto& p : pools) {
    if (!p.image->empty()) {
      out << "Agent AMI for " << p.name << ": " << *p.image << " (given)\n";
      continue;
    }
    auto i = got->values.find(p.parameter);
    if (i == got->values.end())
      return make_error(errc::not_found, "no SSM parameter " + p.parameter
                                             + " in " + s.region + " for the "
                                             + p.name
                                             + " AMI; pass --agent-image-id");
    *p.image = i->second;
    out << "Agent AMI for " << p.name << ": " << *p.image << " (SSM "
        << p.parameter << ")\n";
  }
  return {};
}

bool managed_by_us(const aws::stack& s) {
  return s.tag(managed_by_tag) == managed_by_value;
}

void print_outputs(const aws::stack& s, std::ostream& out) {
  auto url = s.output("MasterURL");
  if (!url.empty())
    out << "Master URL: " << url << "\n";
  if (s.outputs.empty())
    return;
  auto outputs = s.outputs;
  std::sort(outputs.begin(), outputs.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  size_t width = 0;
  for (const auto& o : outputs)
    width = std::max(width, o.key.size());
  out << "Outputs:\n";
  for (const auto& o : outputs) {
    out << "  " << o.key;
    if (!o.value.empty())
      out << std::string(width - o.key.size() + 2, ' ') << o.value;
    out << "\n";
  }
}

// Follows `stack_id` to the end of `op` and reports; the exit status.
int follow(aws::cloudformation_client& cf, const std::string& stack_id,
           stack_operation op, event_follower& follower,
           const wait_options& wait, command_context& ctx) {
  auto result = wait_for_stack(cf, stack_id, op, follower, wait, ctx.clock,
                               [&](const aws::stack_event& e) {
                                 ctx.out << format_event(e) << std::endl;
                               });
  if (!result)
    return fail(ctx, result.error());
  if (auto why = failure_message(*result, stack_id, wait.timeout))
    return fail(ctx, *why);
  return 0;
}

std::vector<std::string> list_of(const std::string& a, const std::string& b) {
  std::vector<std::string> v{a};
  if (b != a)
    v.push_back(b);
  return v;
}

// The instances and spot requests the master launched are no stack
// resources: without this, DeleteStack fails on the agent security group.
// Touches only what carries the cluster's agent tag key with one of its
// pool tag values.
caf::error terminate_agents(session& s, const aws::stack& st,
                            const wait_options& wait, command_context& ctx) {
  const std::string stack = st.stack_name;
  auto key = st.output("AgentTagKey");
  auto cpu = st.output("CpuPoolTagValue");
  auto gpu = st.output("GpuPoolTagValue");
  // A stack that failed early has no outputs; the templates' formulas.
  if (key.empty())
    key = "determined-" + stack;
  if (cpu.empty())
    cpu = "determined-" + stack + "-cpu-pool";
  if (gpu.empty())
    gpu = "determined-" + stack + "-gpu-pool";
  const auto values = list_of(cpu, gpu);
  auto ours = [&](const std::vector<aws::ec2_tag>& tags) {
    return std::any_of(tags.begin(), tags.end(), [&](const aws::ec2_tag& t) {
      return t.key == key
             && std::find(values.begin(), values.end(), t.value)
                    != values.end();
    });
  };
  aws::describe_spot_requests_request sreq;
  sreq.filters = {{"tag:" + key, values}, {"state", {"open", "active"}}};
  auto spots = s.ec2->describe_spot_instance_requests(sreq);
  if (!spots)
    return spots.error();
  std::vector<std::string> spot_ids;
  for (const auto& r : *spots)
    if (ours(r.tags))
      spot_ids.push_back(r.request_id);
  if (!spot_ids.empty()) {
    auto cancelled = s.ec2->cancel_spot_instance_requests(spot_ids);
    if (!cancelled)
      return cancelled.error();
    ctx.out << "Cancelled " << spot_ids.size()
            << " agent spot request(s) tagged " << key << std::endl;
  }
  aws::describe_instances_request ireq;
  ireq.filters = {{"tag:" + key, values},
                  aws::state_filter({"pending", "running", "stopping",
                                     "stopped", "shutting-down"})};
  auto instances = s.ec2->describe_instances(ireq);
  if (!instances)
    return instances.error();
  std::vector<std::string> ids;
  for (const auto& i : *instances)
    if (ours(i.tags))
      ids.push_back(i.instance_id);
  if (ids.empty())
    return caf::none;
  auto terminated = s.ec2->terminate_instances(ids);
  if (!terminated)
    return terminated.error();
  ctx.out << "Terminating " << ids.size() << " agent instance(s) tagged " << key
          << std::endl;
  // Their network interfaces hold the agent security group until they are
  // gone.
  const auto deadline = ctx.clock.now() + wait.timeout;
  aws::describe_instances_request check;
  check.instance_ids = ids;
  for (;;) {
    auto now = s.ec2->describe_instances(check);
    if (!now)
      return now.error();
    if (std::all_of(now->begin(), now->end(), [](const aws::instance& i) {
          return i.state == "terminated";
        }))
      return caf::none;
    if (ctx.clock.now() >= deadline)
      return make_error(errc::remote_error,
                        "agent instances still not terminated after "
                            + conf::format_duration(wait.timeout));
    ctx.clock.sleep(wait.poll_interval);
  }
}

} // namespace

std::string dry_run_json(const aws::stack_request& req) {
  auto pairs = [](const std::vector<aws::stack_key_value>& kvs,
                  const char* key_name, const char* value_name) {
    auto arr = nlohmann::json::array();
    for (const auto& kv : kvs)
      arr.push_back({{key_name, kv.key}, {value_name, kv.value}});
    return arr;
  };
  nlohmann::json doc{
      {"StackName", req.stack_name},
      {"TemplateBody", req.template_body},
      {"Parameters", pairs(redact_parameters(req.parameters), "ParameterKey",
                           "ParameterValue")},
      {"Capabilities", req.capabilities},
      {"Tags", pairs(req.tags, "Key", "Value")},
  };
  return doc.dump(2) + "\n";
}

std::shared_ptr<aws::s3_client> s3_of(const session& s, command_context& ctx) {
  aws::s3_client_config c;
  c.region = s.region;
  c.endpoint_url = s.endpoint_url;
  return aws::make_curl_s3_client(c, s.creds, ctx.env);
}

caf::expected<std::string> staging_bucket(const session& s,
                                          command_context& ctx) {
  auto account = caller_account(s.region, s.endpoint_url, s.creds, ctx.env);
  if (!account)
    return account.error();
  return staging_bucket_name(*account, s.region);
}

// --package when given, else the local .deb staged in the staging bucket.
caf::error choose_package(const session& s, up_options& o,
                          command_context& ctx) {
  if (!o.package.empty())
    return {};
  auto path = o.package_file.empty()
                  ? find_local_package(ctx.exe_path)
                  : caf::expected<std::string>(o.package_file);
  if (!path)
    return path.error();
  auto bucket = staging_bucket(s, ctx);
  if (!bucket)
    return bucket.error();
  auto s3 = s3_of(s, ctx);
  auto url = stage_package(*s3, *bucket, *path, ctx.out);
  if (!url)
    return url.error();
  o.package = *url;
  return {};
}

// A dry run calls nothing: the package's staging URL with the account and
// region left as placeholders.
void dry_run_package(up_options& o, command_context& ctx) {
  if (!o.package.empty())
    return;
  auto path = o.package_file.empty()
                  ? find_local_package(ctx.exe_path)
                  : caf::expected<std::string>(o.package_file);
  std::string sha = "SHA256";
  std::string name = "determined-master.deb";
  if (path) {
    if (auto h = file_sha256(*path))
      sha = *h;
    name = std::filesystem::path(*path).filename().string();
  }
  o.package = "s3://"
              + staging_bucket_name(
                  "ACCOUNT", o.conn.region.empty() ? "REGION" : o.conn.region)
              + "/" + staging_key(sha, name);
  ctx.err << "det-deploy: dry run: the package would be staged at " << o.package
          << "\n";
}

int run_up(const up_options& given, command_context& ctx) {
  auto opts = given;
  auto tmpl = load_template(opts.deployment_type,
                            template_dirs(opts.templates_dir, ctx.exe_path));
  if (!tmpl)
    return fail(ctx, tmpl.error());
  if (auto err = check_template_size(*tmpl))
    return fail(ctx, err);
  if (opts.dry_run)
    dry_run_package(opts, ctx);
  aws::stack_request req;
  req.stack_name = opts.cluster_id;
  req.template_body = tmpl->body;
  req.parameters = template_parameters(opts);
  req.capabilities = {"CAPABILITY_IAM"};
  req.tags = stack_tags(opts);
  if (auto err = check_parameters(*tmpl, req.parameters))
    return fail(ctx, err);
  if (opts.dry_run) {
    ctx.out << dry_run_json(req);
    return 0;
  }
  auto s = connect(opts.conn, ctx);
  if (!s)
    return fail(ctx, s.error());
  if (auto err = choose_agent_images(*s, opts, ctx.out))
    return fail(ctx, err);
  if (auto err = choose_package(*s, opts, ctx))
    return fail(ctx, err);
  req.parameters = template_parameters(opts);
  auto existing = s->cf->describe_stack(opts.cluster_id);
  if (!existing)
    return fail(ctx, existing.error());
  std::string stack_id;
  auto op = stack_operation::create;
  std::unique_ptr<event_follower> follower;
  if (*existing) {
    const auto& st = **existing;
    if (!managed_by_us(st))
      return fail(ctx, "stack " + st.stack_name
                           + " exists and was not made by det-deploy (no tag "
                           + managed_by_tag + ": " + managed_by_value
                           + "); choose another --cluster-id");
    if (st.status == "ROLLBACK_COMPLETE")
      return fail(ctx, "stack " + st.stack_name
                           + " is ROLLBACK_COMPLETE: its creation failed and "
                             "it cannot be updated; run `det-deploy aws down "
                             "--cluster-id "
                           + st.stack_name + "`, then up again");
    stack_id = st.stack_id;
    follower = std::make_unique<event_follower>(*s->cf, stack_id);
    if (auto err = follower->skip_existing())
      return fail(ctx, err);
    auto update = req;
    if (!opts.db_password_given) {
      // Never reset a password nobody can see to the default.
      auto& ps = update.parameters;
      ps.erase(std::remove_if(
                   ps.begin(), ps.end(),
                   [](const auto& kv) { return is_secret_parameter(kv.key); }),
               ps.end());
      update.previous_value_parameters.push_back("DBPassword");
    }
    auto updated = s->cf->update_stack(update);
    if (!updated && aws::is_no_updates(updated.error())) {
      ctx.out << "Cluster " << opts.cluster_id << " is up to date ("
              << st.status << "): nothing to change.\n";
      print_outputs(st, ctx.out);
      return 0;
    }
    if (!updated)
      return fail(ctx, updated.error());
    op = stack_operation::update;
    ctx.out << "Updating stack " << opts.cluster_id << " (" << tmpl->path
            << ") in " << s->region << std::endl;
  } else {
    auto created = s->cf->create_stack(req);
    if (!created)
      return fail(ctx, created.error());
    stack_id = *created;
    follower = std::make_unique<event_follower>(*s->cf, stack_id);
    ctx.out << "Creating stack " << opts.cluster_id << " ("
            << opts.deployment_type << ", " << tmpl->path << ") in "
            << s->region << std::endl;
  }
  if (int rc = follow(*s->cf, stack_id, op, *follower, opts.wait, ctx))
    return rc;
  auto final_stack = s->cf->describe_stack(stack_id);
  if (!final_stack || !*final_stack)
    return fail(ctx, final_stack ? make_error(errc::not_found,
                                              "stack " + stack_id + " vanished")
                                 : final_stack.error());
  ctx.out << "Cluster " << opts.cluster_id << " is up ("
          << (*final_stack)->status << ").\n";
  print_outputs(**final_stack, ctx.out);
  return 0;
}

int run_down(const down_options& opts, command_context& ctx) {
  auto s = connect(opts.conn, ctx);
  if (!s)
    return fail(ctx, s.error());
  auto existing = s->cf->describe_stack(opts.cluster_id);
  if (!existing)
    return fail(ctx, existing.error());
  if (!*existing)
    return fail(ctx, "no cluster " + opts.cluster_id + ": no CloudFormation "
                         + "stack of that name in " + s->region);
  const auto st = **existing;
  if (!managed_by_us(st))
    return fail(ctx, "stack " + st.stack_name
                         + " was not made by det-deploy (no tag "
                         + managed_by_tag + ": " + managed_by_value
                         + "); not deleting it");
  if (auto err = terminate_agents(*s, st, opts.wait, ctx))
    return fail(ctx, err);
  event_follower follower(*s->cf, st.stack_id);
  if (auto err = follower.skip_existing())
    return fail(ctx, err);
  if (auto err = s->cf->delete_stack(st.stack_id))
    return fail(ctx, err);
  ctx.out << "Deleting stack " << st.stack_name << " in " << s->region
          << std::endl;
  if (int rc = follow(*s->cf, st.stack_id, stack_operation::remove, follower,
                      opts.wait, ctx))
    return rc;
  ctx.out << "Cluster " << opts.cluster_id << " is deleted.\n";
  if (opts.purge_staging) {
    auto bucket = staging_bucket(*s, ctx);
    if (!bucket)
      return fail(ctx, bucket.error());
    auto stacks = s->cf->describe_all_stacks();
    if (!stacks)
      return fail(ctx, stacks.error());
    auto users = stacks_using(*stacks, *bucket, st.stack_name);
    if (!users.empty()) {
      std::string names;
      for (const auto& n : users)
        names += (names.empty() ? "" : ", ") + n;
      ctx.out << "Kept the staging bucket " << *bucket << ": used by " << names
              << ".\n";
    } else if (auto err = purge_bucket(*s3_of(*s, ctx), *bucket, ctx.out)) {
      return fail(ctx, err);
    }
  }
  auto bucket = st.output("CheckpointBucket");
  ctx.out << "Kept on purpose: the checkpoint bucket"
          << (bucket.empty() ? "" : " " + bucket)
          << ", a final snapshot of the database, the log group (if one was "
             "created) and the EFS file system (efs); delete them by hand "
             "when they are no longer needed.\n";
  return 0;
}

int run_list(const list_options& opts, command_context& ctx) {
  auto s = connect(opts.conn, ctx);
  if (!s)
    return fail(ctx, s.error());
  auto stacks = s->cf->describe_all_stacks();
  if (!stacks)
    return fail(ctx, stacks.error());
  std::vector<aws::stack> ours;
  for (auto& st : *stacks)
    if (managed_by_us(st))
      ours.push_back(std::move(st));
  std::sort(ours.begin(), ours.end(), [](const auto& a, const auto& b) {
    return a.stack_name < b.stack_name;
  });
  auto cluster_id = [](const aws::stack& st) {
    auto id = st.tag(cluster_id_tag);
    return id.empty() ? st.stack_name : id;
  };
  auto created = [](const aws::stack& st) {
    auto t = st.creation_time.substr(0, 19);
    if (t.size() > 10 && t[10] == 'T')
      t[10] = ' ';
    return t;
  };
  if (opts.json) {
    auto arr = nlohmann::json::array();
    for (const auto& st : ours) {
      nlohmann::json outputs = nlohmann::json::object();
      for (const auto& o : st.outputs)
        outputs[o.key] = o.value;
      arr.push_back({{"cluster_id", cluster_id(st)},
                     {"stack_name", st.stack_name},
                     {"stack_id", st.stack_id},
                     {"deployment_type", st.tag(deployment_type_tag)},
                     {"status", st.status},
                     {"created", st.creation_time},
                     {"master_url", st.output("MasterURL")},
                     {"region", s->region},
                     {"outputs", outputs}});
    }
    ctx.out << arr.dump(2) << "\n";
    return 0;
  }
  if (ours.empty()) {
    ctx.out << "No clusters made by det-deploy in " << s->region << ".\n";
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {
      {"CLUSTER ID", "TYPE", "STATUS", "CREATED", "MASTER URL"}};
  for (const auto& st : ours)
    rows.push_back({cluster_id(st), st.tag(deployment_type_tag), st.status,
                    created(st), st.output("MasterURL")});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i)
      width[i] = std::max(width[i], r[i].size());
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i)
      line +=
          r[i]
          + std::string(i + 1 < r.size() ? width[i] - r[i].size() + 2 : 0, ' ');
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    ctx.out << line << "\n";
  }
  return 0;
}

} // namespace det::deploy
