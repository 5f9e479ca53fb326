"""det-deploy as a user meets it outside the happy path: --help for each
command, bad arguments (exit 2, the argument named, the allowed values
listed), no credentials (exit 1, the sources tried), templates that cannot
be found or are too large, stacks det-deploy did not make, and --dry-run,
which calls nothing. The deploys themselves are in test_moto_deploy.py."""

import json
import os

import pytest

from cfn import DEPLOYMENT_TYPES, TEMPLATE_BODY_LIMIT, closed_port_url, run_det_deploy, template_path

REQUIRED = [
    "--cluster-id", "c1",
    "--keypair", "k",
    "--package", "https://example.com/det.deb",
    "--agent-image-id", "ami-12345678",
]  # fmt: skip
SEED_002_FLAGS = [
    "--cluster-id", "--keypair", "--master-instance-type", "--cpu-agent-instance-type",
    "--gpu-agent-instance-type", "--deployment-type", "--inbound-cidr", "--db-password",
    "--region", "--max-cpu-containers-per-agent", "--max-idle-agent-period",
    "--max-dynamic-agents", "--spot", "--spot-max-price", "--dry-run",
]  # fmt: skip
SEED_002_TYPES = (
    "g4dn.xlarge, g4dn.2xlarge, g4dn.4xlarge, g4dn.8xlarge, g4dn.16xlarge, "
    "g4dn.12xlarge, g4dn.metal, p2.xlarge, p2.8xlarge, p2.16xlarge, p3.2xlarge, "
    "p3.8xlarge, p3.16xlarge, p3dn.24xlarge, t2.medium, t2.large, t2.xlarge, t2.2xlarge"
)


def dry_run(*extra, env=None):
    args = ["aws", "up", *REQUIRED, "--dry-run", "--endpoint-url", closed_port_url(), *extra]
    return run_det_deploy(args, env=env)


@pytest.mark.parametrize("command", ["up", "down", "list"])
def test_each_command_has_help(command):
    result = run_det_deploy(["aws", command, "--help"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: det-deploy aws {command}")
    assert "--region" in result.stdout and "--endpoint-url" in result.stdout
    if command == "up":
        for flag in SEED_002_FLAGS:
            assert f"\n  {flag}" in result.stdout, flag
        assert SEED_002_TYPES in " ".join(result.stdout.split())


def test_top_level_help_names_the_commands():
    result = run_det_deploy(["--help"])
    assert result.returncode == 0
    for command in ("up", "down", "list"):
        assert f"\n  {command} " in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--deployment-type", "tiny"],
         "--deployment-type: unknown value 'tiny'; allowed: simple, vpc, efs, fsx, secure"),
        (["--cpu-agent-instance-type", "m5.large"],
         f"--cpu-agent-instance-type: unknown value 'm5.large'; allowed: {SEED_002_TYPES}"),
        (["--gpu-agent-instance-type", "p4d.24xlarge"],
         f"--gpu-agent-instance-type: unknown value 'p4d.24xlarge'; allowed: {SEED_002_TYPES}"),
        (["--inbound-cidr", "everyone"], "--inbound-cidr: 'everyone' is not an IPv4 CIDR range"),
        (["--max-dynamic-agents", "many"], "--max-dynamic-agents: 'many' is not a whole number"),
        (["--max-idle-agent-period", "10 days"], "--max-idle-agent-period: '10 days' is not a duration"),
        (["--spot-max-price", "0.5"], "--spot-max-price needs --spot"),
        (["--unknown-flag"], "unknown argument --unknown-flag"),
    ],
)  # fmt: skip
def test_bad_values_are_usage_errors_that_name_the_argument(args, message):
    result = dry_run(*args)
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith(f"det-deploy: {message}")
    assert "Try 'det-deploy aws up --help'." in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("missing", ["--cluster-id", "--keypair"])
def test_a_missing_required_argument_is_named(missing):
    args = list(REQUIRED)
    i = args.index(missing)
    del args[i : i + 2]
    result = run_det_deploy(["aws", "up", *args, "--dry-run"])
    assert result.returncode == 2
    assert result.stderr.startswith(f"det-deploy: missing required argument {missing}")


def test_a_bad_password_is_refused_without_being_shown():
    result = dry_run("--db-password", "has'quote")
    assert result.returncode == 2
    assert "--db-password: must not contain" in result.stderr
    assert "has'quote" not in result.stderr


@pytest.mark.parametrize("kind", DEPLOYMENT_TYPES)
def test_dry_run_prints_the_request_and_calls_nothing(kind):
    extra = ["--bastion-image-id", "ami-87654321"] if kind == "secure" else []
    result = dry_run("--deployment-type", kind, "--db-password", "Sup3r-secret", *extra)
    assert result.returncode == 0, result.stderr
    assert "Sup3r-secret" not in result.stdout + result.stderr
    request = json.loads(result.stdout)
    assert request["StackName"] == "c1"
    assert request["TemplateBody"] == template_path(kind).read_text()
    params = {p["ParameterKey"]: p["ParameterValue"] for p in request["Parameters"]}
    assert params["DBPassword"] == "****"
    assert params["Keypair"] == "k"
    assert params["CpuAgentImageId"] == params["GpuAgentImageId"] == "ami-12345678"
    assert params["MasterInstanceType"] == "m5.large"
    assert params["MaxIdleAgentPeriod"] == "10m"
    assert request["Capabilities"] == ["CAPABILITY_IAM"]
    assert {"Key": "managed-by", "Value": "det-deploy"} in request["Tags"]


def test_dry_run_needs_no_credentials_or_region():
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["AWS_EC2_METADATA_DISABLED"] = "true"
    result = dry_run(env=env)
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)


def test_no_credentials_lists_the_chain_it_tried(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        HOME=str(tmp_path),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no-credentials"),
        AWS_CONFIG_FILE=str(tmp_path / "no-config"),
    )
    for args in (
        ["aws", "up", *REQUIRED, "--region", "us-east-1", "--endpoint-url", closed_port_url()],
        ["aws", "down", "--cluster-id", "c1", "--region", "us-east-1"],
        ["aws", "list", "--region", "us-east-1"],
    ):
        result = run_det_deploy(args, env=env)
        assert result.returncode == 1, result.stdout
        err = result.stderr
        assert err.startswith("det-deploy: no AWS credentials: tried environment"), err
        assert str(tmp_path / "no-credentials") in err
        assert "instance role (IMDS disabled)" in err


def test_no_region_says_where_it_looked(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_EC2_METADATA_DISABLED="true", AWS_CONFIG_FILE=str(tmp_path / "none"))
    result = run_det_deploy(["aws", "list"], env=env)
    assert result.returncode == 1
    assert "no AWS region: tried AWS_REGION, AWS_DEFAULT_REGION" in result.stderr
    assert "pass --region" in result.stderr


def test_templates_dir_that_lacks_the_template_names_the_path(tmp_path):
    result = dry_run("--templates-dir", str(tmp_path))
    assert result.returncode == 1
    assert f"no template for deployment type simple: tried {tmp_path}/simple.yaml" in result.stderr


def test_a_template_over_the_inline_limit_is_refused_clearly(tmp_path):
    body = template_path("simple").read_text()
    body += "#" * (TEMPLATE_BODY_LIMIT - len(body.encode()) + 1) + "\n"
    (tmp_path / "simple.yaml").write_text(body)
    result = dry_run("--templates-dir", str(tmp_path))
    assert result.returncode == 1
    assert f"is {len(body.encode())} bytes, over CloudFormation's limit of 51200 bytes" in result.stderr


def test_a_parameter_the_template_lacks_is_refused():
    result = dry_run("--param", "NoSuchParameter=1")
    assert result.returncode == 1
    assert "has no parameter NoSuchParameter" in result.stderr


FOREIGN_TEMPLATE = """
Resources:
  Handle:
    Type: AWS::CloudFormation::WaitConditionHandle
"""


def test_stacks_det_deploy_did_not_make_are_left_alone(aws, moto_endpoint):
    cf = aws("cloudformation")
    cf.create_stack(StackName="foreign", TemplateBody=FOREIGN_TEMPLATE)
    try:
        listed = run_det_deploy(["aws", "list", "--json", "--endpoint-url", moto_endpoint])
        assert listed.returncode == 0, listed.stderr
        assert "foreign" not in [c["stack_name"] for c in json.loads(listed.stdout)]
        down = run_det_deploy(["aws", "down", "--cluster-id", "foreign", "--endpoint-url", moto_endpoint])
        assert down.returncode == 1
        assert "stack foreign was not made by det-deploy" in down.stderr
        up = run_det_deploy(["aws", "up", *REQUIRED[2:], "--cluster-id", "foreign",
                             "--endpoint-url", moto_endpoint])  # fmt: skip
        assert up.returncode == 1
        assert "stack foreign exists and was not made by det-deploy" in up.stderr
        assert cf.describe_stacks(StackName="foreign")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    finally:
        cf.delete_stack(StackName="foreign")


def test_down_of_an_unknown_cluster_fails(moto_endpoint):
    result = run_det_deploy(["aws", "down", "--cluster-id", "nobody", "--endpoint-url", moto_endpoint])
    assert result.returncode == 1
    assert "no cluster nobody: no CloudFormation stack of that name in us-east-1" in result.stderr


def test_an_unreachable_endpoint_is_a_failure_not_a_hang():
    result = run_det_deploy(["aws", "list", "--endpoint-url", closed_port_url()])
    assert result.returncode == 1
    assert "cloudformation DescribeStacks" in result.stderr


def test_aws_endpoint_url_from_the_environment(moto_endpoint):
    env = dict(os.environ, AWS_ENDPOINT_URL=moto_endpoint)
    result = run_det_deploy(["aws", "list", "--json"], env=env)
    assert result.returncode == 0, result.stderr
    assert isinstance(json.loads(result.stdout), list)
    env["AWS_ENDPOINT_URL"] = closed_port_url()
    result = run_det_deploy(["aws", "list", "--json"], env=env)
    assert result.returncode == 1
    assert env["AWS_ENDPOINT_URL"] in result.stderr
