"""Static checks of the five CloudFormation templates in deploy/aws/: they
pass cfn-lint, fit in a TemplateBody, agree on everything they share, open
exactly upstream's security-group rules, and each has what its deployment
type is for."""

import copy
import subprocess
import sys

import pytest

from cfn import (
    DEPLOYMENT_TYPES,
    TEMPLATE_BODY_LIMIT,
    load_template,
    master_sub,
    template_path,
)

TEMPLATES = {kind: load_template(kind) for kind in DEPLOYMENT_TYPES}

# Seed 002's argument table, then the parameters every template adds.
COMMON_PARAMETERS = [
    "Keypair",
    "MasterInstanceType",
    "CpuAgentInstanceType",
    "GpuAgentInstanceType",
    "InboundCIDR",
    "DBPassword",
    "MaxCPUContainersPerAgent",
    "MaxIdleAgentPeriod",
    "MaxDynamicAgents",
    "SpotEnabled",
    "SpotMaxPrice",
    "DeterminedPackage",
    "MasterImageId",
    "CpuAgentImageId",
    "GpuAgentImageId",
    "DBInstanceClass",
    "DBAllocatedStorage",
    "CloudWatchLogs",
    "CloudWatchLogGroup",
]

SEED_AGENT_INSTANCE_TYPES = [
    "g4dn.xlarge", "g4dn.2xlarge", "g4dn.4xlarge", "g4dn.8xlarge",
    "g4dn.16xlarge", "g4dn.12xlarge", "g4dn.metal", "p2.xlarge",
    "p2.8xlarge", "p2.16xlarge", "p3.2xlarge", "p3.8xlarge", "p3.16xlarge",
    "p3dn.24xlarge", "t2.medium", "t2.large", "t2.xlarge", "t2.2xlarge",
]  # fmt: skip

COMMON_RESOURCES = [
    "MasterSecurityGroup",
    "AgentSecurityGroup",
    "MasterEgressToAgents",
    "MasterEgressToInternet",
    "MasterIngressFromAgents",
    "MasterIngressUI",
    "MasterIngressSSH",
    "AgentEgressToInternet",
    "AgentIngressFromMaster",
    "AgentIngressFromAgents",
    "AgentIngressSSH",
    "DatabaseSecurityGroup",
    "DatabaseIngressFromMaster",
    "AgentRole",
    "AgentInstanceProfile",
    "MasterRole",
    "MasterInstanceProfile",
    "MasterPackagePolicy",
    "LogGroup",
    "CloudWatchPolicy",
    "CheckpointBucket",
    "DatabaseSubnetGroup",
    "Database",
    "MasterInstance",
]

# Where the common resources may differ: which network they sit in.
NETWORK_PROPERTIES = {"VpcId", "SubnetId", "SubnetIds", "DBSubnetGroupName", "UserData"}

COMMON_OUTPUTS = [
    "MasterURL",
    "MasterAddress",
    "MasterPrivateAddress",
    "MasterInstanceId",
    "MasterSecurityGroupId",
    "AgentSecurityGroupId",
    "AgentInstanceProfileArn",
    "CheckpointBucket",
    "DatabaseEndpoint",
    "AgentTagKey",
    "CpuPoolTagValue",
    "GpuPoolTagValue",
    "LogGroup",
    "Region",
    "DeploymentType",
]
# Outputs whose value depends on where the master is (public or private).
PER_TYPE_OUTPUTS = {"MasterURL", "MasterAddress", "DeploymentType"}

# Seed 002, "Security Groups": (group, direction, protocol, from, to, peer).
SEED_002_RULES = {
    # Master: egress on all ports to the agent group and to the Internet,
    # ingress on 8080 (WebUI) and 22 (SSH), all ports from the agent group.
    ("Master", "egress", "tcp", 0, 65535, "sg:AgentSecurityGroup"),
    ("Master", "egress", "tcp", 0, 65535, "cidr:0.0.0.0/0"),
    ("Master", "ingress", "tcp", 8080, 8080, "param:InboundCIDR"),
    ("Master", "ingress", "tcp", 22, 22, "param:InboundCIDR"),
    ("Master", "ingress", "tcp", 0, 65535, "sg:AgentSecurityGroup"),
    # Agent: egress on all ports to the Internet, ingress on all ports from
    # the master and agent groups, 22 for SSH.
    ("Agent", "egress", "tcp", 0, 65535, "cidr:0.0.0.0/0"),
    ("Agent", "ingress", "tcp", 0, 65535, "sg:MasterSecurityGroup"),
    ("Agent", "ingress", "tcp", 0, 65535, "sg:AgentSecurityGroup"),
    ("Agent", "ingress", "tcp", 22, 22, "param:InboundCIDR"),
}

# The bastion (secure only) may also reach the master and the agents.
SECURE_BASTION_RULES = {
    ("Master", "ingress", "tcp", 22, 22, "sg:BastionSecurityGroup"),
    ("Master", "ingress", "tcp", 8080, 8080, "sg:BastionSecurityGroup"),
    ("Agent", "ingress", "tcp", 22, 22, "sg:BastionSecurityGroup"),
}

PROVISIONER_ACTIONS = {
    "ec2:DescribeInstances",
    "ec2:RunInstances",
    "ec2:TerminateInstances",
    "ec2:CreateTags",
    "ec2:RequestSpotInstances",
    "ec2:DescribeSpotInstanceRequests",
    "ec2:CancelSpotInstanceRequests",
}


def _peer(props):
    if "CidrIp" in props:
        cidr = props["CidrIp"]
        return "param:" + cidr["Ref"] if isinstance(cidr, dict) else "cidr:" + cidr
    ref = props.get("SourceSecurityGroupId") or props.get("DestinationSecurityGroupId")
    return "sg:" + ref["Fn::GetAtt"][0]


def security_group_rules(template):
    """Every rule on the master and agent groups, as seed-002 tuples."""
    rules = set()
    for res in template["Resources"].values():
        kind = res["Type"]
        if kind not in ("AWS::EC2::SecurityGroupIngress", "AWS::EC2::SecurityGroupEgress"):
            continue
        props = res["Properties"]
        group = props["GroupId"]["Fn::GetAtt"][0]
        if group not in ("MasterSecurityGroup", "AgentSecurityGroup"):
            continue
        rules.add((
            group[: -len("SecurityGroup")],
            "ingress" if kind.endswith("Ingress") else "egress",
            props["IpProtocol"],
            props["FromPort"],
            props["ToPort"],
            _peer(props),
        ))  # fmt: skip
    for name in ("MasterSecurityGroup", "AgentSecurityGroup"):
        props = template["Resources"][name]["Properties"]
        assert "SecurityGroupIngress" not in props and "SecurityGroupEgress" not in props, (
            f"{name}: rules are separate resources, as upstream does"
        )
    return rules


def without_network(resource):
    r = copy.deepcopy(resource)
    r.pop("DependsOn", None)
    r.pop("Condition", None)
    for key in NETWORK_PROPERTIES:
        r.get("Properties", {}).pop(key, None)
    return r


def test_every_template_passes_cfn_lint():
    paths = [str(template_path(k)) for k in DEPLOYMENT_TYPES]
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from cfnlint.runner import main; sys.exit(main())",
         *paths],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    # cfn-lint's exit code is a bit set: 2 errors, 4 warnings, 8 informational.
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("kind", DEPLOYMENT_TYPES)
def test_template_fits_in_a_template_body(kind):
    size = template_path(kind).stat().st_size
    assert size < TEMPLATE_BODY_LIMIT, f"{kind}.yaml is {size} bytes"
    assert template_path(kind).read_bytes().isascii()


@pytest.mark.parametrize("kind", DEPLOYMENT_TYPES)
def test_template_has_the_common_parameters_outputs_and_resources(kind):
    t = TEMPLATES[kind]
    for name in COMMON_PARAMETERS:
        assert name in t["Parameters"], f"{kind}: parameter {name}"
    for name in COMMON_RESOURCES:
        assert name in t["Resources"], f"{kind}: resource {name}"
    for name in COMMON_OUTPUTS:
        assert name in t["Outputs"], f"{kind}: output {name}"
    assert t["Outputs"]["DeploymentType"]["Value"] == kind


@pytest.mark.parametrize("kind", [k for k in DEPLOYMENT_TYPES if k != "simple"])
def test_templates_agree_with_simple_on_the_common_parts(kind):
    simple, t = TEMPLATES["simple"], TEMPLATES[kind]
    for name in COMMON_PARAMETERS:
        assert t["Parameters"][name] == simple["Parameters"][name], f"parameter {name}"
    for name in COMMON_RESOURCES:
        assert without_network(t["Resources"][name]) == without_network(
            simple["Resources"][name]
        ), f"resource {name}"
    for name in set(COMMON_OUTPUTS) - PER_TYPE_OUTPUTS:
        assert t["Outputs"][name] == simple["Outputs"][name], f"output {name}"
    for name, cond in simple["Conditions"].items():
        if name in t["Conditions"]:
            assert t["Conditions"][name] == cond, f"condition {name}"


@pytest.mark.parametrize("kind", [k for k in DEPLOYMENT_TYPES if k != "simple"])
def test_master_user_data_is_the_same_script_in_every_template(kind):
    text, variables = master_sub(TEMPLATES[kind])
    simple_text, simple_variables = master_sub(TEMPLATES["simple"])
    assert text == simple_text
    assert set(variables) == set(simple_variables)
    for name in ("DatabaseHost", "DatabasePort", "SpotMaxPriceField", "LogGroupName"):
        assert variables[name] == simple_variables[name], name


def test_agent_instance_types_are_the_seeds_list_with_the_seeds_defaults():
    p = TEMPLATES["simple"]["Parameters"]
    assert p["CpuAgentInstanceType"]["AllowedValues"] == SEED_AGENT_INSTANCE_TYPES
    assert p["GpuAgentInstanceType"]["AllowedValues"] == SEED_AGENT_INSTANCE_TYPES
    # Seed 002's defaults.
    assert p["MasterInstanceType"]["Default"] == "m5.large"
    assert p["CpuAgentInstanceType"]["Default"] == "t2.xlarge"
    assert p["GpuAgentInstanceType"]["Default"] == "p2.8xlarge"
    assert p["InboundCIDR"]["Default"] == "0.0.0.0/0"
    assert p["DBPassword"]["Default"] == "postgres"
    assert p["DBPassword"]["NoEcho"] is True
    assert p["MaxCPUContainersPerAgent"]["Default"] == 100
    assert p["MaxIdleAgentPeriod"]["Default"] == "10m"
    assert p["MaxDynamicAgents"]["Default"] == 5
    assert p["SpotEnabled"]["Default"] == "false"
    assert p["SpotMaxPrice"]["Default"] == ""
    assert "Default" not in p["Keypair"]


@pytest.mark.parametrize("kind", DEPLOYMENT_TYPES)
def test_security_groups_have_exactly_the_rules_of_seed_002(kind):
    rules = security_group_rules(TEMPLATES[kind])
    expected = SEED_002_RULES | (SECURE_BASTION_RULES if kind == "secure" else set())
    assert rules == expected


@pytest.mark.parametrize("kind", DEPLOYMENT_TYPES)
def test_database_is_reachable_from_the_master_only(kind):
    res = TEMPLATES[kind]["Resources"]
    ingress = [
        r["Properties"]
        for r in res.values()
        if r["Type"] == "AWS::EC2::SecurityGroupIngress"
        and r["Properties"]["GroupId"]["Fn::GetAtt"][0] == "DatabaseSecurityGroup"
    ]
    assert ingress == [{
        "GroupId": {"Fn::GetAtt": ["DatabaseSecurityGroup", "GroupId"]},
        "SourceSecurityGroupId": {"Fn::GetAtt": ["MasterSecurityGroup", "GroupId"]},
        "IpProtocol": "tcp", "FromPort": 5432, "ToPort": 5432,
    }]  # fmt: skip
    db = res["Database"]["Properties"]
    assert db["Engine"] == "postgres"
    assert db["PubliclyAccessible"] is False
    assert db["MasterUserPassword"] == {"Ref": "DBPassword"}
    if kind != "simple":
        assert db["DBSubnetGroupName"] == {"Ref": "DatabaseSubnetGroup"}


def _statements(role):
    for policy in role["Properties"]["Policies"]:
        yield from policy["PolicyDocument"]["Statement"]


def test_master_role_can_provision_agents_and_pass_only_the_agent_role():
    res = TEMPLATES["simple"]["Resources"]
    actions, pass_role = set(), []
    for st in _statements(res["MasterRole"]):
        acts = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        actions |= set(acts)
        if "iam:PassRole" in acts:
            pass_role.append(st["Resource"])
    assert PROVISIONER_ACTIONS <= actions
    assert pass_role == [{"Fn::GetAtt": ["AgentRole", "Arn"]}]
    agent_actions = set()
    for st in _statements(res["AgentRole"]):
        acts = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        agent_actions |= set(acts)
    assert agent_actions == {"s3:*", "ec2:DescribeInstances", "ec2:CreateTags"}
    # Reading the .deb from S3: that object only, and only when it is on S3.
    package = res["MasterPackagePolicy"]
    assert package["Condition"] == "PackageOnS3"
    assert package["Properties"]["Roles"] == [{"Ref": "MasterRole"}]
    (statement,) = package["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Action"] == ["s3:GetObject"]
    assert res["AgentInstanceProfile"]["Properties"]["Roles"] == [{"Ref": "AgentRole"}]


@pytest.mark.parametrize("kind", DEPLOYMENT_TYPES)
def test_the_agent_role_tags_only_its_own_instance_with_exit_tags(kind):
    res = TEMPLATES[kind]["Resources"]
    tagging = [st for st in _statements(res["AgentRole"])
               if "ec2:CreateTags" in st["Action"]]  # fmt: skip
    assert len(tagging) == 1
    (st,) = tagging
    assert st["Action"] == ["ec2:CreateTags"]
    cond = st["Condition"]
    # The tagged instance is the one the request comes from.
    assert cond["StringEquals"] == {"aws:ARN": "${ec2:SourceInstanceARN}"}
    # Only det:exit: keys, and a request without tags is not let through.
    assert cond["ForAllValues:StringLike"] == {"aws:TagKeys": ["det:exit:*"]}
    assert cond["Null"] == {"aws:TagKeys": "false"}


def test_cloudwatch_permissions_follow_seed_000_and_are_optional():
    t = TEMPLATES["simple"]
    res = t["Resources"]
    assert res["LogGroup"]["Condition"] == "CreateLogGroup"
    assert res["CloudWatchPolicy"]["Condition"] == "CloudWatchEnabled"
    assert t["Parameters"]["CloudWatchLogs"]["Default"] == "disabled"
    assert t["Parameters"]["CloudWatchLogGroup"]["Default"] == "/determined/determined/journald"
    statements = res["CloudWatchPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    actions = {a for st in statements for a in st["Action"]}
    assert actions == {
        "logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams",
        "cloudwatch:PutMetricData",
    }  # fmt: skip
    roles = res["CloudWatchPolicy"]["Properties"]["Roles"]
    assert {"Ref": "MasterRole"} in roles and {"Ref": "AgentRole"} in roles


def test_simple_uses_the_default_vpc():
    t = TEMPLATES["simple"]
    types = {r["Type"] for r in t["Resources"].values()}
    assert "AWS::EC2::VPC" not in types and "AWS::EC2::Subnet" not in types
    assert t["Parameters"]["SubnetId"]["Default"] == ""
    assert t["Parameters"]["VpcId"]["Default"] == ""


@pytest.mark.parametrize("kind", ["vpc", "efs", "fsx"])
def test_vpc_types_have_public_subnets_routed_to_an_internet_gateway(kind):
    res = TEMPLATES[kind]["Resources"]
    assert res["VPC"]["Type"] == "AWS::EC2::VPC"
    assert res["InternetGateway"]["Type"] == "AWS::EC2::InternetGateway"
    route = res["PublicDefaultRoute"]["Properties"]
    assert route["DestinationCidrBlock"] == "0.0.0.0/0"
    assert route["GatewayId"] == {"Ref": "InternetGateway"}
    for subnet in ("PublicSubnet1", "PublicSubnet2"):
        assert res[subnet]["Properties"]["MapPublicIpOnLaunch"] is True
    # Two zones, as an RDS subnet group needs.
    zones = {str(res[s]["Properties"]["AvailabilityZone"]) for s in ("PublicSubnet1", "PublicSubnet2")}
    assert len(zones) == 2
    assert res["MasterInstance"]["Properties"]["SubnetId"] == {"Ref": "PublicSubnet1"}


def test_efs_has_a_file_system_mounted_by_the_agents_at_mnt_efs():
    t = TEMPLATES["efs"]
    res = t["Resources"]
    assert res["FileSystem"]["Type"] == "AWS::EFS::FileSystem"
    targets = [r for r in res.values() if r["Type"] == "AWS::EFS::MountTarget"]
    assert {str(r["Properties"]["SubnetId"]) for r in targets} == {
        str({"Ref": "PublicSubnet1"}), str({"Ref": "PublicSubnet2"})
    }
    _, variables = master_sub(t)
    assert " /mnt/efs" in variables["AgentMountCommand"]["Fn::Sub"]
    assert "${FileSystem}.efs." in variables["AgentMountCommand"]["Fn::Sub"]
    nfs = res["EfsIngressFromAgents"]["Properties"]
    assert (nfs["FromPort"], nfs["ToPort"]) == (2049, 2049)


def test_fsx_has_a_lustre_file_system_mounted_by_the_agents_at_mnt_fsx():
    t = TEMPLATES["fsx"]
    fs = t["Resources"]["FSxFileSystem"]
    assert fs["Type"] == "AWS::FSx::FileSystem"
    assert fs["Properties"]["FileSystemType"] == "LUSTRE"
    assert fs["Properties"]["SubnetIds"] == [{"Ref": "PublicSubnet1"}]
    _, variables = master_sub(t)
    text, names = variables["AgentMountCommand"]["Fn::Sub"]
    assert "mount -t lustre" in text and text.endswith(" /mnt/fsx")
    assert names == {
        "FsxDns": {"Fn::GetAtt": ["FSxFileSystem", "DNSName"]},
        "FsxMountName": {"Fn::GetAtt": ["FSxFileSystem", "LustreMountName"]},
    }


def test_secure_puts_the_master_and_agents_behind_a_nat_and_a_bastion():
    t = TEMPLATES["secure"]
    res = t["Resources"]
    assert res["NatGateway"]["Properties"]["SubnetId"] == {"Ref": "PublicSubnet"}
    route = res["PrivateDefaultRoute"]["Properties"]
    assert route["NatGatewayId"] == {"Ref": "NatGateway"}
    endpoint = res["S3GatewayEndpoint"]["Properties"]
    assert endpoint["VpcEndpointType"] == "Gateway"
    assert endpoint["ServiceName"] == {"Fn::Sub": "com.amazonaws.${AWS::Region}.s3"}
    assert {"Ref": "PrivateRouteTable"} in endpoint["RouteTableIds"]
    assert res["BastionInstance"]["Properties"]["SubnetId"] == {"Ref": "PublicSubnet"}
    assert res["MasterInstance"]["Properties"]["SubnetId"] == {"Ref": "PrivateSubnet1"}
    assert res["PrivateSubnet1"]["Properties"]["MapPublicIpOnLaunch"] is False
    assert "MasterAddress" not in res, "the master gets no public address"
    _, variables = master_sub(t)
    assert variables["AgentPublicIp"] == "false"
    assert variables["AgentSubnetId"] == {"Ref": "PrivateSubnet1"}
    assert res["DatabaseSubnetGroup"]["Properties"]["SubnetIds"] == [
        {"Ref": "PrivateSubnet1"}, {"Ref": "PrivateSubnet2"}
    ]
    assert "BastionAddress" in t["Outputs"]
