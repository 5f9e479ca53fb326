"""`det-deploy aws up` of each template of deploy/aws/ against a moto
server on loopback: the stack reaches CREATE_COMPLETE and det-deploy prints
its progress and the master URL; `--dry-run` printed exactly the template
that moto received; describe_stacks (boto3, the independent checker) shows
the outputs, and the resources exist in moto's EC2/IAM/S3/RDS/EFS; the
master.yaml in the master's UserData is what det-master's own parser
accepts; `det-deploy aws list` shows the cluster; `det-deploy aws down`
terminates the agents the master launched (and nothing else) and deletes
the stack.

What moto 5.2 cannot do, and what this suite does about it:
  * AWS::EC2::SecurityGroupEgress has no CloudFormation model in moto: the
    four egress rules are skipped with a warning ("No Moto CloudFormation
    support"), so the groups keep only moto's default allow-all egress. The
    egress rules are checked statically (test_templates.py), not here.
  * AWS::FSx::FileSystem has no model either: moto skips it, and any
    Fn::GetAtt of it fails the stack ("Fn::GetAtt references undefined
    resource"). For fsx.yaml only, this suite writes a copy whose two GetAtts
    of the mount command (DNSName, LustreMountName) are fixed strings and
    points det-deploy at it with --templates-dir; the FSx file system is not
    created and the FileSystemId output (a Ref of it) is missing. The
    template in deploy/aws/ is unchanged.
  * moto's AWS::EC2::Instance reads only the SecurityGroups property (and
    takes its entries for ids), not SecurityGroupIds, which the templates use
    as a VPC instance needs: in moto the master and the bastion have no
    security group. Not checked here; test_templates.py checks the property.
  * moto has no CloudFormation delete for EIP, NatGateway, VPCEndpoint,
    Route, SubnetRouteTableAssociation, RouteTable, VPCGatewayAttachment and
    InternetGateway: DeleteStack leaves them, and then fails on the VPC
    ("DependencyViolation ... has dependencies"). Before `det-deploy aws
    down` this suite removes exactly those resources of the stack with the
    EC2 API, in the order CloudFormation would
    (remove_what_moto_cannot_delete); the stack's delete then runs to
    DELETE_COMPLETE and removes the rest.
  * moto resolves the default of an AWS::SSM::Parameter::Value parameter
    even when a value is passed, and refuses to store /aws/service/...
    names; the templates therefore take MasterImageId as a plain string
    whose empty default means a {{resolve:ssm:...}} dynamic reference, and
    this suite always passes an AMI id (--master-image-id).
  * moto does not check parameter constraints (AllowedValues,
    AllowedPattern): cfn-lint, real CloudFormation and det-deploy's own
    option checks (det_deploy_test) do.
  * moto creates every resource within CreateStack, records only the
    stack's own events (no per-resource ones) and never fails or rolls back
    a stack: det-deploy's failure report and timeout are tested against a
    scripted stack in det_deploy_test (stack_waiter).
"""

import base64
import json
import re

import pytest
import yaml

from cfn import (
    closed_port_url,
    master_yaml_from_user_data,
    parse_template,
    run_det_deploy,
    template_path,
)
from stack_checks import (
    DB_PASSWORD,
    launch_agents,
    spot_states,
    instance_states,
    remove_what_moto_cannot_delete,
    check_master_ingress,
    check_network,
    check_master_yaml,
    check_with_det_master_parser,
)

FSX_MOTO_STANDINS = {
    "!GetAtt FSxFileSystem.DNSName": '"fs-0moto.fsx.us-east-1.amazonaws.com"',
    "!GetAtt FSxFileSystem.LustreMountName": '"motomount"',
}

# Arguments per deployment type: each template once, spread over the
# switches (spot with and without a price, CloudWatch off and on, package
# from https and from s3).
CASES = {
    "simple": ["--spot", "--spot-max-price", "0.90", "--cloudwatch-logs", "create"],
    "vpc": ["--cloudwatch-logs", "disabled"],
    "efs": ["--spot", "--cloudwatch-logs", "create", "--max-dynamic-agents", "3"],
    "fsx": ["--gpu-agent-instance-type", "g4dn.12xlarge"],
    "secure": [
        "--spot",
        "--spot-max-price=1.5",
        "--package",
        "s3://det-packages/determined-master_0.1.0_amd64.deb",
    ],
}
HTTPS_PACKAGE = "https://packages.example.com/determined-master_0.1.0_amd64.deb"


def templates_dir_for(kind, tmp_path):
    """None (det-deploy's own lookup) except for fsx: see the module comment."""
    if kind != "fsx":
        return None
    text = template_path(kind).read_text()
    for getatt, standin in FSX_MOTO_STANDINS.items():
        assert text.count(getatt) == 1, getatt
        text = text.replace(getatt, standin)
    out = tmp_path / "templates"
    out.mkdir()
    (out / "fsx.yaml").write_text(text)
    return out


def up_args(kind, stack_name, amis, templates_dir):
    args = [
        "aws", "up",
        "--cluster-id", stack_name,
        "--keypair", "det-test",
        "--deployment-type", kind,
        "--db-password", DB_PASSWORD,
        "--package", HTTPS_PACKAGE,
        "--master-image-id", amis["master"],
        "--agent-image-id", amis["agent"],
        "--log-group", f"/determined/{stack_name}/journald",
        "--poll-interval", "200ms",
        "--timeout", "2m",
    ]  # fmt: skip
    if kind == "secure":
        args += ["--bastion-image-id", amis["master"]]
    if templates_dir:
        args += ["--templates-dir", str(templates_dir)]
    return args + CASES[kind]


def expected_params(kind, stack_name):
    """What the checks below expect, keyed by template parameter."""
    flags = CASES[kind]
    params = dict(
        Keypair="det-test",
        DeterminedPackage=HTTPS_PACKAGE,
        SpotEnabled="true" if "--spot" in flags else "false",
        CloudWatchLogs="disabled",
        CloudWatchLogGroup=f"/determined/{stack_name}/journald",
    )
    names = {
        "--spot-max-price": "SpotMaxPrice",
        "--cloudwatch-logs": "CloudWatchLogs",
        "--max-dynamic-agents": "MaxDynamicAgents",
        "--gpu-agent-instance-type": "GpuAgentInstanceType",
        "--package": "DeterminedPackage",
    }
    i = 0
    while i < len(flags):
        flag, _, value = flags[i].partition("=")
        if flag in names:
            if not value:
                i += 1
                value = flags[i]
            params[names[flag]] = value
        i += 1
    return params


def user_data_of(ec2, instance_id):
    attr = ec2.describe_instance_attribute(InstanceId=instance_id, Attribute="userData")
    return base64.b64decode(attr["UserData"]["Value"]).decode()


@pytest.mark.parametrize("kind", list(CASES))
def test_det_deploy_up_list_down_on_moto(kind, aws, amis, moto_endpoint, tmp_path):
    cf, ec2 = aws("cloudformation"), aws("ec2")
    stack_name = f"det-{kind}"
    params = expected_params(kind, stack_name)
    params.update(CpuAgentImageId=amis["agent"])
    args = up_args(kind, stack_name, amis, templates_dir_for(kind, tmp_path))

    # --- the dry run: no AWS call at all (the endpoint is a closed port) ---
    dry = run_det_deploy(args + ["--dry-run", "--endpoint-url", closed_port_url()])
    assert dry.returncode == 0, dry.stderr
    assert DB_PASSWORD not in dry.stdout
    dry_request = json.loads(dry.stdout)

    # --- det-deploy aws up ---
    up = run_det_deploy(args + ["--endpoint-url", moto_endpoint])
    assert up.returncode == 0, up.stdout + up.stderr
    assert DB_PASSWORD not in up.stdout + up.stderr
    stack = cf.describe_stacks(StackName=stack_name)["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    out = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
    assert f"Creating stack {stack_name} ({kind}, " in up.stdout
    assert "AWS::CloudFormation::Stack           CREATE_COMPLETE" in up.stdout
    assert f"Master URL: {out['MasterURL']}\n" in up.stdout
    assert re.search(rf"^  CheckpointBucket +{out['CheckpointBucket']}$", up.stdout, re.M)
    tags = {t["Key"]: t["Value"] for t in stack["Tags"]}
    assert tags == {
        "managed-by": "det-deploy",
        "det-cluster-id": stack_name,
        "det-deployment-type": kind,
    }

    # --- what up sent is what the dry run printed ---
    sent_template = cf.get_template(StackName=stack_name)["TemplateBody"]
    assert dry_request["TemplateBody"] == sent_template
    assert sent_template == template_text(kind, tmp_path)
    assert parse_template(sent_template)["Outputs"]["DeploymentType"]["Value"] == kind
    sent = {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}
    printed = {p["ParameterKey"]: p["ParameterValue"] for p in dry_request["Parameters"]}
    assert printed.pop("DBPassword") == "****"
    sent.pop("DBPassword")
    assert {k: sent[k] for k in printed} == printed
    assert dry_request["Capabilities"] == ["CAPABILITY_IAM"]
    for key, value in params.items():
        assert sent[key] == value, key

    # --- outputs, checked against what moto holds ---
    assert out["DeploymentType"] == kind
    assert out["MasterURL"] == f"http://{out['MasterAddress']}:8080"
    assert out["Region"] == "us-east-1"
    master = ec2.describe_instances(InstanceIds=[out["MasterInstanceId"]])
    master = master["Reservations"][0]["Instances"][0]
    assert master["State"]["Name"] == "running"
    assert master["PrivateIpAddress"] == out["MasterPrivateAddress"]
    assert master["ImageId"] == amis["master"]
    assert "MasterInstanceProfile" in master["IamInstanceProfile"]["Arn"]
    assert master["KeyName"] == "det-test"
    profiles = aws("iam").list_instance_profiles()["InstanceProfiles"]
    assert out["AgentInstanceProfileArn"] in [p["Arn"] for p in profiles]
    buckets = [b["Name"] for b in aws("s3").list_buckets()["Buckets"]]
    assert out["CheckpointBucket"] in buckets
    dbs = aws("rds").describe_db_instances()["DBInstances"]
    db = [d for d in dbs if d["Endpoint"]["Address"] == out["DatabaseEndpoint"]]
    assert len(db) == 1 and db[0]["Engine"] == "postgres"
    assert db[0]["MasterUsername"] == "postgres" and db[0]["DBName"] == "determined"
    if kind != "simple":
        assert db[0]["DBSubnetGroup"]["VpcId"] == out["VpcId"]
        assert master["SubnetId"] in [
            s["SubnetIdentifier"] for s in db[0]["DBSubnetGroup"]["Subnets"]
        ]
    if params["CloudWatchLogs"] == "create":
        groups = aws("logs").describe_log_groups()["logGroups"]
        assert params["CloudWatchLogGroup"] in [g["logGroupName"] for g in groups]
        assert out["LogGroup"] == params["CloudWatchLogGroup"]
    else:
        assert out["LogGroup"] == ""
    created = {
        r["LogicalResourceId"]
        for r in cf.list_stack_resources(StackName=stack_name)["StackResourceSummaries"]
    }
    on_s3 = params["DeterminedPackage"].startswith("s3://")
    assert ("MasterPackagePolicy" in created) is on_s3
    assert ("LogGroup" in created) is (params["CloudWatchLogs"] == "create")
    check_master_ingress(ec2, out)
    check_network(kind, aws, out, master)

    # --- the master.yaml the master writes at first boot ---
    user_data = user_data_of(ec2, out["MasterInstanceId"])
    assert params["DeterminedPackage"] in user_data
    assert "systemctl enable --now det-master.service" in user_data
    text = master_yaml_from_user_data(user_data)
    check_master_yaml(kind, yaml.safe_load(text), params, out)
    check_with_det_master_parser(text, tmp_path / "master.yaml")

    # --- det-deploy aws list ---
    listed = run_det_deploy(["aws", "list", "--json", "--endpoint-url", moto_endpoint])
    assert listed.returncode == 0, listed.stderr
    mine = [c for c in json.loads(listed.stdout) if c["cluster_id"] == stack_name]
    assert len(mine) == 1
    assert mine[0]["deployment_type"] == kind
    assert mine[0]["status"] == "CREATE_COMPLETE"
    assert mine[0]["master_url"] == out["MasterURL"]
    assert mine[0]["stack_id"] == stack["StackId"]
    table = run_det_deploy(["aws", "list", "--endpoint-url", moto_endpoint])
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["CLUSTER", "ID", "TYPE", "STATUS", "CREATED", "MASTER", "URL"]
    row = [line for line in lines if line.startswith(stack_name + " ")]
    assert len(row) == 1 and out["MasterURL"] in row[0]
    assert row[0].index(f"  {kind}  ") + 2 == lines[0].index("TYPE")
    assert row[0].index("CREATE_COMPLETE") == lines[0].index("STATUS")

    # --- up again: an update, showing only its own events ---
    if kind == "simple":
        # Without --db-password: the update keeps the password
        # (UsePreviousValue; moto refuses one sent with a value too).
        i = args.index("--db-password")
        again_args = args[:i] + args[i + 2 :] + ["--max-dynamic-agents", "4"]
        again = run_det_deploy(again_args + ["--endpoint-url", moto_endpoint])
        assert again.returncode == 0, again.stdout + again.stderr
        # moto updates even when nothing changed; AWS says "No updates are
        # to be performed", which det-deploy reports as up to date.
        assert f"Updating stack {stack_name}" in again.stdout
        assert "UPDATE_COMPLETE" in again.stdout
        assert "CREATE_" not in again.stdout
        assert f"Master URL: {out['MasterURL']}\n" in again.stdout
        stack = cf.describe_stacks(StackName=stack_name)["Stacks"][0]
        assert stack["StackStatus"] == "UPDATE_COMPLETE"
        sent = {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}
        assert sent["MaxDynamicAgents"] == "4"
        # moto shows NoEcho values (a moto bug): the password was kept.
        assert sent["DBPassword"] == DB_PASSWORD

    # --- det-deploy aws down ---
    agents = launch_agents(ec2, amis, out)
    remove_what_moto_cannot_delete(ec2, cf, stack_name)
    down = run_det_deploy(
        ["aws", "down", "--cluster-id", stack_name, "--endpoint-url", moto_endpoint,
         "--poll-interval", "200ms", "--timeout", "2m"]
    )  # fmt: skip
    assert down.returncode == 0, down.stdout + down.stderr
    assert f"Terminating 2 agent instance(s) tagged {out['AgentTagKey']}" in down.stdout
    assert "DELETE_COMPLETE" in down.stdout
    assert f"Cluster {stack_name} is deleted." in down.stdout
    assert out["CheckpointBucket"] in down.stdout  # kept, and said so
    assert f"Cancelled 1 agent spot request(s) tagged {out['AgentTagKey']}" in down.stdout
    spots = spot_states(ec2, [agents["spot"], agents["spot_other"]])
    # moto forgets a cancelled request; AWS keeps it as "cancelled".
    assert spots.get(agents["spot"], "cancelled") == "cancelled"
    assert spots[agents["spot_other"]] == "active"
    ec2.cancel_spot_instance_requests(SpotInstanceRequestIds=[agents["spot_other"]])
    states = instance_states(ec2, [agents[k] for k in ("cpu", "gpu", "other_value", "other_key")])
    assert states[agents["cpu"]] == "terminated"
    assert states[agents["gpu"]] == "terminated"
    assert states[agents["other_value"]] == "running"
    assert states[agents["other_key"]] == "running"
    ec2.terminate_instances(InstanceIds=[agents["other_value"], agents["other_key"]])
    listed = run_det_deploy(["aws", "list", "--json", "--endpoint-url", moto_endpoint])
    assert stack_name not in [c["cluster_id"] for c in json.loads(listed.stdout)]
    stacks = cf.describe_stacks()["Stacks"]
    assert stack_name not in [s["StackName"] for s in stacks if s["StackStatus"] != "DELETE_COMPLETE"]
    gone = cf.describe_stacks(StackName=stack["StackId"])["Stacks"][0]
    assert gone["StackStatus"] == "DELETE_COMPLETE"
    master = ec2.describe_instances(InstanceIds=[out["MasterInstanceId"]])
    assert master["Reservations"][0]["Instances"][0]["State"]["Name"] == "terminated"
    dbs = aws("rds").describe_db_instances()["DBInstances"]
    assert out["DatabaseEndpoint"] not in [d["Endpoint"]["Address"] for d in dbs]
    arns = [p["Arn"] for p in aws("iam").list_instance_profiles()["InstanceProfiles"]]
    assert out["AgentInstanceProfileArn"] not in arns
    if kind != "simple":
        assert not ec2.describe_vpcs(Filters=[{"Name": "vpc-id", "Values": [out["VpcId"]]}])["Vpcs"]
    # Checkpoints outlive the cluster (DeletionPolicy: Retain).
    assert out["CheckpointBucket"] in [b["Name"] for b in aws("s3").list_buckets()["Buckets"]]


def template_text(kind, tmp_path):
    """The template det-deploy read (see templates_dir_for)."""
    if kind == "fsx":
        return (tmp_path / "templates" / "fsx.yaml").read_text()
    return template_path(kind).read_text()


def test_up_without_agent_amis_reads_them_from_ssm_and_prints_them(aws, amis, moto_endpoint, tmp_path):
    """The basic command needs no AMI: det-deploy reads each pool's from its
    SSM parameter (AWS's public ones by default; moto refuses /aws/... names,
    so the test names its own) and prints which it chose."""
    cf, ec2, ssm = aws("cloudformation"), aws("ec2"), aws("ssm")
    cpu_ami, gpu_ami = amis["agent"], amis["master"]
    ssm.put_parameter(Name="/det-test/agents/cpu", Value=cpu_ami, Type="String", Overwrite=True)
    ssm.put_parameter(Name="/det-test/agents/gpu", Value=gpu_ami, Type="String", Overwrite=True)
    stack_name = "det-ssm-amis"
    args = up_args("simple", stack_name, amis, None)
    i = args.index("--agent-image-id")
    args = args[:i] + args[i + 2 :] + [
        "--cpu-agent-image-ssm-parameter", "/det-test/agents/cpu",
        "--gpu-agent-image-ssm-parameter", "/det-test/agents/gpu",
        "--endpoint-url", moto_endpoint,
    ]  # fmt: skip
    up = run_det_deploy(args)
    assert up.returncode == 0, up.stdout + up.stderr
    assert f"Agent AMI for cpu-pool: {cpu_ami} (SSM /det-test/agents/cpu)\n" in up.stdout
    assert f"Agent AMI for gpu-pool: {gpu_ami} (SSM /det-test/agents/gpu)\n" in up.stdout
    stack = cf.describe_stacks(StackName=stack_name)["Stacks"][0]
    sent = {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}
    assert sent["CpuAgentImageId"] == cpu_ami and sent["GpuAgentImageId"] == gpu_ami
    out = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
    text = master_yaml_from_user_data(user_data_of(ec2, out["MasterInstanceId"]))
    pools = {p["pool_name"]: p["provider"] for p in yaml.safe_load(text)["resource_pools"]}
    assert pools["cpu-pool"]["image_id"] == cpu_ami
    assert pools["gpu-pool"]["image_id"] == gpu_ami
    check_with_det_master_parser(text, tmp_path / "master.yaml")

    # A parameter SSM does not have: named, nothing created.
    bad_args = [("det-ssm-none" if a == stack_name else "/det-test/none" if a == "/det-test/agents/cpu" else a)
                for a in args]  # fmt: skip
    bad = run_det_deploy(bad_args)
    assert bad.returncode == 1
    assert "no SSM parameter /det-test/none in us-east-1 for the cpu-pool AMI" in bad.stderr
    names = [s["StackName"] for s in cf.describe_stacks()["Stacks"]]
    assert "det-ssm-none" not in names

    remove_what_moto_cannot_delete(ec2, cf, stack_name)
    down = run_det_deploy(["aws", "down", "--cluster-id", stack_name, "--endpoint-url", moto_endpoint,
                           "--poll-interval", "200ms", "--timeout", "2m"])  # fmt: skip
    assert down.returncode == 0, down.stdout + down.stderr


def test_dry_run_without_agent_amis_leaves_them_to_the_master(tmp_path):
    """No AMI and --dry-run: no AWS call, the template's master.yaml names
    the public SSM parameters (ssm:...) for det-master to read; the document
    is the template as is, which cfn-lint passes (test_templates.py)."""
    from cfn import DEPLOYMENT_TYPES

    for kind in DEPLOYMENT_TYPES:
        dry = run_det_deploy(["aws", "up", "--cluster-id", "c1", "--keypair", "k",
                              "--package", HTTPS_PACKAGE, "--deployment-type", kind,
                              "--dry-run", "--endpoint-url", closed_port_url()])  # fmt: skip
        assert dry.returncode == 0, dry.stderr
        request = json.loads(dry.stdout)
        keys = {p["ParameterKey"] for p in request["Parameters"]}
        assert not keys & {"CpuAgentImageId", "GpuAgentImageId"}
        params = parse_template(request["TemplateBody"])["Parameters"]
        assert params["CpuAgentImageParameter"]["Default"] == "/aws/service/debian/release/12/latest/amd64"
        assert params["GpuAgentImageParameter"]["Default"] == "/aws/service/debian/release/12/latest/amd64"
        assert "image_id: ${CpuAgentImage}" in request["TemplateBody"]
