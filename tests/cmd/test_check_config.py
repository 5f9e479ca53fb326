"""det-master --check-config as an operator uses it on a master.yaml written
by hand: every example configuration of the documentation
(tests/data/conf/documented) is accepted and printed back with its defaults
filled in and its secrets redacted; a refused file exits 1 with each error
naming its field and value. Nothing is started: no database, no port."""

import os
import pathlib
import re
import subprocess

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("DET_BUILD_DIR", REPO / "build")) / "bin"
DOCUMENTED = REPO / "tests" / "data" / "conf" / "documented"

# What CloudFormation's Fn::Sub puts into the template's master.yaml.
CFN_VALUES = {
    "CheckpointBucket": "det-checkpoints-alice",
    "DBPassword": "pg-secret-1",
    "Database.Endpoint.Address": "db.cluster.us-west-2.rds.amazonaws.com",
    "AgentInstanceProfile.Arn": "arn:aws:iam::123456789012:instance-profile/det-agent",
    "AgentAmiId": "ami-0f4677bfc3161edc8",
    "Version": "0.38.1",
    "UserName": "alice",
    "AgentInstanceType": "p3.8xlarge",
    "MaxIdleAgentPeriod": "10m",
    "MaxInstances": "5",
    "AgentSecurityGroup.GroupId": "sg-0123456789abcdef0",
    "Keypair": "alice-key",
}


def check(path):
    exe = BIN / "det-master"
    if not exe.exists():
        if "DET_BUILD_DIR" in os.environ:
            pytest.fail(f"{exe} is missing")
        pytest.skip(f"{exe} is not built")
    # An unreachable database: --check-config must not need one.
    env = dict(os.environ, DET_DB_URL="postgresql://127.0.0.1:1/none")
    return subprocess.run([str(exe), "--check-config", "--config", str(path)],
                          capture_output=True, text=True, timeout=30, env=env)


def substituted(src, tmp_path):
    text = re.sub(r"\$\{([A-Za-z0-9.]+)\}", lambda m: CFN_VALUES.get(m.group(1), m.group(0)),
                  src.read_text())
    out = tmp_path / src.name
    out.write_text(text)
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in DOCUMENTED.glob("*.yaml")))
def test_every_documented_example_is_accepted_and_printed_back(name, tmp_path):
    path = substituted(DOCUMENTED / name, tmp_path)
    result = check(path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    effective = yaml.safe_load(result.stdout)
    written = yaml.safe_load(path.read_text())
    # What the file said is in the effective config (the top-level
    # provisioner as the provider of pool "default").
    if "provisioner" in written:
        prov = effective["resource_pools"][0]["provider"]
        assert effective["resource_pools"][0]["pool_name"] == "default"
        assert prov["type"] == "aws"
        for key in ("image_id", "tag_key", "tag_value", "ssh_key_name", "max_instances"):
            assert str(prov[key]) == str(written["provisioner"][key]), key
    # Defaults are filled in.
    assert effective["port"] == 8080
    assert effective["resource_manager"]["default_compute_resource_pool"] == "default"


def test_the_documented_provisioner_with_a_security_group_name_is_accepted(tmp_path):
    result = check(DOCUMENTED / "dynamic-agents-aws.yaml")
    assert result.returncode == 0, result.stderr
    prov = yaml.safe_load(result.stdout)["resource_pools"][0]["provider"]
    assert prov["security_group"] == "group_name"
    assert prov["master_url"] == "master_address"
    assert prov["max_idle_agent_period"] == "5m"


def test_secrets_are_redacted_in_what_is_printed(tmp_path):
    path = tmp_path / "master.yaml"
    path.write_text("""
agent_token: agent-tok-123
security: {initial_user_password: admin-pw-456}
db: {user: u, password: pg-pw-789, host: db.internal}
checkpoint_storage: {type: s3, bucket: b, access_key: AKIAEXAMPLE, secret_key: s3-secret-000}
provisioner:
  provider: aws
  image_id: ami-1
  ssh_key_name: k
  instance_type: p3.2xlarge
  startup_script: "export TOKEN=script-secret-111"
""")
    result = check(path)
    assert result.returncode == 0, result.stderr
    for secret in ("agent-tok-123", "admin-pw-456", "pg-pw-789", "AKIAEXAMPLE",
                   "s3-secret-000", "script-secret-111"):
        assert secret not in result.stdout, secret
    effective = yaml.safe_load(result.stdout)
    assert effective["db"]["password"] == "********"
    assert effective["agent_token"] == "********"
    assert effective["db"]["user"] == "u"


def test_a_refused_config_exits_1_naming_each_field_and_value(tmp_path):
    path = tmp_path / "master.yaml"
    path.write_text("""
port: 99999
provisioner:
  provider: aws
  image_id: ami-1
  ssh_key_name: k
  security_group: sg-xyz
  max_instances: lots
""")
    result = check(path)
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 3, result.stderr
    for line in lines:
        assert line.startswith(f"det-master: {path}: "), line
    assert any("port:" in x and "99999" in x for x in lines), lines
    assert any("provisioner.security_group: \"sg-xyz\"" in x for x in lines), lines
    assert any("provisioner.max_instances: expected an integer, got \"lots\"" in x
               for x in lines), lines


def test_a_missing_file_exits_1_naming_it(tmp_path):
    result = check(tmp_path / "nope.yaml")
    assert result.returncode == 1
    assert "nope.yaml" in result.stderr and result.stdout == ""
