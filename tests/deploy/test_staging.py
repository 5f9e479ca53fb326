"""det-deploy's staging bucket against moto: `up` without --package uploads
the det-master .deb (here --package-file; the installed one is found next
to the program, test_find_local_package below) to
s3://det-deploy-staging-<account>-<region>/det-master/<sha256>/<file>,
creating the bucket tagged managed-by: det-deploy and showing progress; a
second `up` uploads nothing; `down --purge-staging` keeps the bucket while
another cluster uses it and deletes it with the last one; the dry run of
the basic command works for every deployment type and its template passes
cfn-lint.

moto cannot hold AWS's public /aws/service/... SSM parameters and resolves
the master's AMI parameter itself (see test_moto_deploy.py), so the moto
runs name their own SSM parameters and --master-image-id; everything else
is the basic command."""

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from cfn import DEPLOYMENT_TYPES, closed_port_url, parse_template, run_det_deploy
from stack_checks import remove_what_moto_cannot_delete

ACCOUNT = "123456789012"  # moto's
BUCKET = f"det-deploy-staging-{ACCOUNT}-us-east-1"


@pytest.fixture
def package(tmp_path):
    path = tmp_path / "determined-master_9.9.9_amd64.deb"
    path.write_bytes(os.urandom(300_000))
    return path


def basic_up(cluster_id, amis, moto_endpoint, package):
    return run_det_deploy([
        "aws", "up", "--cluster-id", cluster_id, "--keypair", "det-test",
        "--package-file", str(package),
        "--master-image-id", amis["master"],
        "--cpu-agent-image-ssm-parameter", "/det-test/staging/cpu",
        "--gpu-agent-image-ssm-parameter", "/det-test/staging/gpu",
        "--endpoint-url", moto_endpoint, "--poll-interval", "200ms", "--timeout", "2m",
    ])  # fmt: skip


def down(cluster_id, moto_endpoint, *extra):
    return run_det_deploy(["aws", "down", "--cluster-id", cluster_id, "--endpoint-url",
                           moto_endpoint, "--poll-interval", "200ms", "--timeout", "2m",
                           *extra])  # fmt: skip


def agent_amis_in_ssm(aws, amis):
    ssm = aws("ssm")
    ssm.put_parameter(Name="/det-test/staging/cpu", Value=amis["agent"], Type="String", Overwrite=True)
    ssm.put_parameter(Name="/det-test/staging/gpu", Value=amis["master"], Type="String", Overwrite=True)


def test_up_stages_the_package_once_and_down_purges_it_with_the_last_cluster(
        aws, amis, moto_endpoint, package):
    cf, ec2, s3 = aws("cloudformation"), aws("ec2"), aws("s3")
    agent_amis_in_ssm(aws, amis)
    sha = hashlib.sha256(package.read_bytes()).hexdigest()
    key = f"det-master/{sha}/{package.name}"

    up = basic_up("det-staging-a", amis, moto_endpoint, package)
    assert up.returncode == 0, up.stdout + up.stderr
    assert f"Creating the staging bucket {BUCKET}" in up.stdout
    assert f"Uploading {package} to s3://{BUCKET}/{key}" in up.stdout
    assert "uploaded 300000 of 300000 bytes (100%)" in up.stdout
    assert f"Agent AMI for cpu-pool: {amis['agent']}" in up.stdout
    assert f"Agent AMI for gpu-pool: {amis['master']}" in up.stdout
    stack = cf.describe_stacks(StackName="det-staging-a")["Stacks"][0]
    params = {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}
    assert params["DeterminedPackage"] == f"s3://{BUCKET}/{key}"
    assert params["CpuAgentImageId"] == amis["agent"]
    assert params["GpuAgentImageId"] == amis["master"]
    body = s3.get_object(Bucket=BUCKET, Key=key)
    assert body["Body"].read() == package.read_bytes()
    assert body["Metadata"]["sha256"] == sha
    tags = {t["Key"]: t["Value"] for t in s3.get_bucket_tagging(Bucket=BUCKET)["TagSet"]}
    assert tags["managed-by"] == "det-deploy"
    modified = body["LastModified"]

    up2 = basic_up("det-staging-b", amis, moto_endpoint, package)
    assert up2.returncode == 0, up2.stdout + up2.stderr
    assert "is already staged" in up2.stdout and "Uploading" not in up2.stdout
    assert s3.head_object(Bucket=BUCKET, Key=key)["LastModified"] == modified
    assert len(s3.list_objects_v2(Bucket=BUCKET)["Contents"]) == 1

    remove_what_moto_cannot_delete(ec2, cf, "det-staging-a")
    d1 = down("det-staging-a", moto_endpoint, "--purge-staging")
    assert d1.returncode == 0, d1.stdout + d1.stderr
    assert f"Kept the staging bucket {BUCKET}: used by det-staging-b" in d1.stdout
    s3.head_bucket(Bucket=BUCKET)

    remove_what_moto_cannot_delete(ec2, cf, "det-staging-b")
    d2 = down("det-staging-b", moto_endpoint, "--purge-staging")
    assert d2.returncode == 0, d2.stdout + d2.stderr
    assert f"Deleted the staging bucket {BUCKET} (1 objects)" in d2.stdout
    assert BUCKET not in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    live = [s["StackName"] for s in cf.describe_stacks()["Stacks"]
            if s["StackStatus"] != "DELETE_COMPLETE"]
    assert "det-staging-a" not in live and "det-staging-b" not in live
    running = [i for r in ec2.describe_instances(Filters=[
        {"Name": "instance-state-name", "Values": ["pending", "running"]},
        {"Name": "tag:aws:cloudformation:stack-name", "Values": ["det-staging-a", "det-staging-b"]},
    ])["Reservations"] for i in r["Instances"]]  # fmt: skip
    assert running == []
    spot = ec2.describe_spot_instance_requests(Filters=[
        {"Name": "state", "Values": ["open", "active"]}])["SpotInstanceRequests"]  # fmt: skip
    assert [r for r in spot if any(t["Value"] in ("det-staging-a", "det-staging-b")
                                   for t in r.get("Tags", []))] == []


def test_a_bucket_of_that_name_without_our_tag_is_not_used(aws, amis, moto_endpoint, package):
    """In eu-west-1: moto keeps a deleted bucket's tags for a new bucket of
    the same name, so the us-east-1 one of the test above cannot be reused."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=moto_endpoint, region_name="eu-west-1")
    bucket = f"det-deploy-staging-{ACCOUNT}-eu-west-1"
    s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    up = run_det_deploy([
        "aws", "up", "--cluster-id", "det-staging-c", "--keypair", "det-test",
        "--package-file", str(package), "--agent-image-id", amis["agent"],
        "--master-image-id", amis["master"], "--region", "eu-west-1",
        "--endpoint-url", moto_endpoint, "--poll-interval", "200ms", "--timeout", "2m",
    ])  # fmt: skip
    assert up.returncode == 1, up.stdout
    assert f"bucket {bucket} exists without the tag managed-by: det-deploy" in up.stderr
    assert s3.list_objects_v2(Bucket=bucket).get("KeyCount", 0) == 0
    cf = boto3.client("cloudformation", endpoint_url=moto_endpoint, region_name="eu-west-1")
    assert "det-staging-c" not in [st["StackName"] for st in cf.describe_stacks()["Stacks"]]


@pytest.mark.parametrize("kind", DEPLOYMENT_TYPES)
def test_dry_run_of_the_basic_command_for_every_deployment_type(kind, package, tmp_path):
    extra = ["--bastion-image-id", "ami-87654321"] if kind == "secure" else []
    dry = run_det_deploy(["aws", "up", "--cluster-id", "c1", "--keypair", "k",
                          "--deployment-type", kind, "--package-file", str(package),
                          "--dry-run", "--endpoint-url", closed_port_url(), *extra])  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    request = json.loads(dry.stdout)
    params = {p["ParameterKey"]: p["ParameterValue"] for p in request["Parameters"]}
    sha = hashlib.sha256(package.read_bytes()).hexdigest()
    assert params["DeterminedPackage"] == (
        f"s3://det-deploy-staging-ACCOUNT-REGION/det-master/{sha}/{package.name}")
    parse_template(request["TemplateBody"])
    path = tmp_path / f"{kind}.yaml"
    path.write_text(request["TemplateBody"])
    lint = subprocess.run(
        [sys.executable, "-c", "import sys; from cfnlint.runner import main; sys.exit(main())",
         str(path)], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_find_local_package_looks_next_to_the_program_and_in_the_build_tree(tmp_path):
    """The installed layout (bin/ and share/determined/) and the build tree's
    (bin/ and package/, what `make package` writes)."""
    from cfn import det_deploy_binary

    for sub in ("share/determined", "package"):
        root = tmp_path / sub.replace("/", "_")
        (root / "bin").mkdir(parents=True)
        exe = root / "bin" / "det-deploy"
        shutil.copy(det_deploy_binary(), exe)
        (root / sub).mkdir(parents=True)
        deb = root / sub / "determined-master_1.2.3_amd64.deb"
        deb.write_bytes(b"x" * 10)
        dry = subprocess.run([str(exe), "aws", "up", "--cluster-id", "c1", "--keypair", "k",
                              "--agent-image-id", "ami-12345678", "--dry-run",
                              "--templates-dir", str(det_deploy_templates())],
                             capture_output=True, text=True, timeout=60)  # fmt: skip
        assert dry.returncode == 0, dry.stderr
        params = {p["ParameterKey"]: p["ParameterValue"]
                  for p in json.loads(dry.stdout)["Parameters"]}
        assert params["DeterminedPackage"].endswith("/determined-master_1.2.3_amd64.deb")
    lonely = tmp_path / "none" / "bin"
    lonely.mkdir(parents=True)
    shutil.copy(det_deploy_binary(), lonely / "det-deploy")
    none = subprocess.run([str(lonely / "det-deploy"), "aws", "up", "--cluster-id", "c1",
                           "--keypair", "k", "--agent-image-id", "ami-12345678",
                           "--templates-dir", str(det_deploy_templates()),
                           "--endpoint-url", closed_port_url(), "--region", "us-east-1"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert none.returncode == 1
    assert "no determined-master .deb next to det-deploy" in none.stderr
    assert "make package" in none.stderr


def det_deploy_templates():
    from cfn import template_path
    return template_path("simple").parent
