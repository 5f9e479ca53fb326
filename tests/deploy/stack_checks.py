"""What the deploy tests check of a stack det-deploy made on moto: the
master's network and ingress, its master.yaml (also through det-master's
own parser), agents launched the way the master would, and the clean-up
of what moto's DeleteStack leaves behind."""
import os
import subprocess

import pytest
import yaml

from cfn import build_dir

DB_PASSWORD = "pa$$w0rd#:x!"  # shell, YAML and Sub metacharacters


def conf_check_binary():
    path = build_dir() / "tests" / "deploy_conf_check"
    if path.exists():
        return path
    if "DET_BUILD_DIR" in os.environ:
        pytest.fail(f"{path} is missing: the build did not make deploy_conf_check")
    pytest.skip(f"{path} is not built (cmake --build build --target deploy_conf_check)")


def launch_agents(ec2, amis, out):
    """Instances as the master would launch them (the cluster's agent tag key
    and a pool's tag value), and two that only look alike: down must
    terminate the first two and leave the others alone."""
    key = out["AgentTagKey"]
    tags = {
        "cpu": (key, out["CpuPoolTagValue"]),
        "gpu": (key, out["GpuPoolTagValue"]),
        "other_value": (key, "determined-someone-else"),
        "other_key": ("determined-other", out["CpuPoolTagValue"]),
    }
    ids = {}
    for name, (k, v) in tags.items():
        ids[name] = ec2.run_instances(
            ImageId=amis["agent"], MinCount=1, MaxCount=1, InstanceType="t2.xlarge",
            TagSpecifications=[{"ResourceType": "instance", "Tags": [{"Key": k, "Value": v}]}],
        )["Instances"][0]["InstanceId"]  # fmt: skip
    for name, (k, v) in (("spot", tags["gpu"]), ("spot_other", tags["other_value"])):
        ids[name] = ec2.request_spot_instances(
            InstanceCount=1,
            LaunchSpecification={"ImageId": amis["agent"], "InstanceType": "p2.8xlarge"},
            TagSpecifications=[
                {"ResourceType": "spot-instances-request", "Tags": [{"Key": k, "Value": v}]}
            ],
        )["SpotInstanceRequests"][0]["SpotInstanceRequestId"]  # fmt: skip
    return ids


def spot_states(ec2, ids):
    found = ec2.describe_spot_instance_requests(SpotInstanceRequestIds=list(ids))
    return {r["SpotInstanceRequestId"]: r["State"] for r in found["SpotInstanceRequests"]}


def instance_states(ec2, ids):
    found = ec2.describe_instances(InstanceIds=list(ids))["Reservations"]
    return {i["InstanceId"]: i["State"]["Name"] for r in found for i in r["Instances"]}


def remove_what_moto_cannot_delete(ec2, cf, stack_name):
    """What CloudFormation deletes on AWS and moto's DeleteStack does not
    (see the module comment), in dependency order."""
    by_type = {}
    for r in cf.list_stack_resources(StackName=stack_name)["StackResourceSummaries"]:
        by_type.setdefault(r["ResourceType"], []).append(r.get("PhysicalResourceId", ""))
    vpc_ids = by_type.get("AWS::EC2::VPC", [])
    eips = [
        a
        for a in ec2.describe_addresses()["Addresses"]
        if a["PublicIp"] in by_type.get("AWS::EC2::EIP", [])
    ]
    for a in eips:
        if a.get("AssociationId") and a.get("InstanceId"):
            ec2.disassociate_address(AssociationId=a["AssociationId"])
    for nat in by_type.get("AWS::EC2::NatGateway", []):
        ec2.delete_nat_gateway(NatGatewayId=nat)
    for a in eips:
        ec2.release_address(AllocationId=a["AllocationId"])
    if by_type.get("AWS::EC2::VPCEndpoint"):
        ec2.delete_vpc_endpoints(VpcEndpointIds=by_type["AWS::EC2::VPCEndpoint"])
    if vpc_ids:
        tables = ec2.describe_route_tables(Filters=[{"Name": "vpc-id", "Values": vpc_ids}])
        for table in tables["RouteTables"]:
            if any(a.get("Main") for a in table["Associations"]):
                continue
            for a in table["Associations"]:
                ec2.disassociate_route_table(AssociationId=a["RouteTableAssociationId"])
            for route in table["Routes"]:
                if route.get("GatewayId") != "local":
                    ec2.delete_route(
                        RouteTableId=table["RouteTableId"],
                        DestinationCidrBlock=route["DestinationCidrBlock"],
                    )
            ec2.delete_route_table(RouteTableId=table["RouteTableId"])
    for igw in by_type.get("AWS::EC2::InternetGateway", []):
        for vpc_id in vpc_ids:
            ec2.detach_internet_gateway(InternetGatewayId=igw, VpcId=vpc_id)
        ec2.delete_internet_gateway(InternetGatewayId=igw)



def check_master_ingress(ec2, out):
    """The seed-002 ingress rules, as moto created them (egress: see the
    module comment)."""
    groups = ec2.describe_security_groups(
        GroupIds=[out["MasterSecurityGroupId"], out["AgentSecurityGroupId"]]
    )["SecurityGroups"]
    by_id = {g["GroupId"]: g for g in groups}

    def rules(group_id):
        found = set()
        for p in by_id[group_id]["IpPermissions"]:
            for r in p.get("IpRanges", []):
                found.add((p["FromPort"], p["ToPort"], r["CidrIp"]))
            for r in p.get("UserIdGroupPairs", []):
                found.add((p["FromPort"], p["ToPort"], r["GroupId"]))
        return found

    master, agent = out["MasterSecurityGroupId"], out["AgentSecurityGroupId"]
    assert {(8080, 8080, "0.0.0.0/0"), (22, 22, "0.0.0.0/0"), (0, 65535, agent)} <= rules(
        master
    )
    assert {(0, 65535, master), (0, 65535, agent), (22, 22, "0.0.0.0/0")} <= rules(agent)


def check_network(kind, aws, out, master):
    ec2 = aws("ec2")
    if kind == "simple":
        default_vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])
        assert master["VpcId"] == default_vpc["Vpcs"][0]["VpcId"]
        return
    assert master["VpcId"] == out["VpcId"]
    assert master["SubnetId"] == out["AgentSubnetId"]
    igws = ec2.describe_internet_gateways(
        Filters=[{"Name": "attachment.vpc-id", "Values": [out["VpcId"]]}]
    )["InternetGateways"]
    assert len(igws) == 1
    if kind == "efs":
        efs = aws("efs")
        fs_id = out["FileSystemId"]
        assert efs.describe_file_systems(FileSystemId=fs_id)["FileSystems"]
        targets = efs.describe_mount_targets(FileSystemId=fs_id)["MountTargets"]
        assert len(targets) == 2
    if kind == "fsx":
        # moto skipped AWS::FSx::FileSystem, so its Ref output is absent.
        assert "FileSystemId" not in out
    if kind == "secure":
        nats = ec2.describe_nat_gateways(
            Filters=[{"Name": "vpc-id", "Values": [out["VpcId"]]}]
        )["NatGateways"]
        assert len(nats) == 1
        endpoints = ec2.describe_vpc_endpoints(
            Filters=[{"Name": "vpc-id", "Values": [out["VpcId"]]}]
        )["VpcEndpoints"]
        assert [e["ServiceName"] for e in endpoints] == ["com.amazonaws.us-east-1.s3"]
        assert not master.get("PublicIpAddress")
        bastion = [
            i
            for r in ec2.describe_instances(
                Filters=[{"Name": "vpc-id", "Values": [out["VpcId"]]}]
            )["Reservations"]
            for i in r["Instances"]
            if i["InstanceId"] != master["InstanceId"]
        ]
        assert len(bastion) == 1
        assert bastion[0]["SubnetId"] != master["SubnetId"]
        assert out["BastionAddress"]


def check_master_yaml(kind, cfg, params, out):
    stack = f"det-{kind}"
    assert cfg["port"] == 8080
    assert cfg["cluster_id"] == stack
    assert cfg["db"] == {
        "user": "postgres",
        "password": DB_PASSWORD,
        "host": out["DatabaseEndpoint"],
        "port": 5432,
        "name": "determined",
        "ssl_mode": "verify-full",
        "ssl_root_cert": "/etc/determined/rds-ca.pem",
    }
    assert cfg["checkpoint_storage"] == {"type": "s3", "bucket": out["CheckpointBucket"]}
    # --cloudwatch-logs turns det-master's own shipping on (and the pools'
    # log_group that of their agents).
    assert cfg["cloudwatch"] == {
        "enabled": params["CloudWatchLogs"] != "disabled",
        "log_group": params["CloudWatchLogGroup"],
    }
    pools = {p["pool_name"]: p for p in cfg["resource_pools"]}
    assert set(pools) == {"cpu-pool", "gpu-pool"}
    assert cfg["resource_manager"]["default_compute_resource_pool"] == "gpu-pool"
    assert cfg["resource_manager"]["default_aux_resource_pool"] == "cpu-pool"
    assert pools["cpu-pool"]["max_aux_containers_per_agent"] == 100
    spot = params.get("SpotEnabled", "false") == "true"
    tag_values = set()
    for name, instance_type in (
        ("cpu-pool", params.get("CpuAgentInstanceType", "t2.xlarge")),
        ("gpu-pool", params.get("GpuAgentInstanceType", "p2.8xlarge")),
    ):
        p = pools[name]["provider"]
        assert p["type"] == "aws"
        assert p["region"] == "us-east-1"
        assert p["image_id"] == params["CpuAgentImageId"]
        assert p["instance_type"] == instance_type
        assert p["ssh_key_name"] == "det-test"
        assert p["iam_instance_profile_arn"] == out["AgentInstanceProfileArn"]
        assert p["master_url"] == "http://local-ipv4:8080"
        assert p["network_interface"]["security_group_id"] == out["AgentSecurityGroupId"]
        assert p["network_interface"]["public_ip"] is (kind != "secure")
        expected_subnet = "" if kind == "simple" else out["AgentSubnetId"]
        assert p["network_interface"]["subnet_id"] == expected_subnet
        assert p["tag_key"] == out["AgentTagKey"] == f"determined-{stack}"
        assert stack in p["tag_value"]
        tag_values.add(p["tag_value"])
        assert p["max_idle_agent_period"] == "10m"
        assert p["max_instances"] == int(params.get("MaxDynamicAgents", "5"))
        assert p["spot"] is spot
        if spot and params.get("SpotMaxPrice"):
            assert p["spot_max_price"] == params["SpotMaxPrice"]
        else:
            assert "spot_max_price" not in p
        cloudwatch = params["CloudWatchLogs"] != "disabled"
        assert p["log_group"] == (params["CloudWatchLogGroup"] if cloudwatch else "")
        script = p["startup_script"]
        assert params["DeterminedPackage"] in script
        # Debian 12 AMIs for both pools: the GPU agents install NVIDIA's
        # driver (the 470 series on K80s) before det-agent, once.
        if name == "gpu-pool":
            driver = script.index("apt-get install -y $driver firmware-misc-nonfree")
            assert driver < script.index("apt-get install -y /tmp/determined.deb")
            assert "if ! command -v nvidia-smi" in script
            assert 'driver="nvidia-tesla-470-driver nvidia-tesla-470-smi"' in script
        else:
            assert "nvidia" not in script
        if kind == "efs":
            assert f"{out['FileSystemId']}.efs.us-east-1.amazonaws.com:/ /mnt/efs" in script
        elif kind == "fsx":
            assert "fs-0moto.fsx.us-east-1.amazonaws.com@tcp:/motomount /mnt/fsx" in script
        else:
            assert "/mnt/" not in script
    assert tag_values == {out["CpuPoolTagValue"], out["GpuPoolTagValue"]}
    assert len(tag_values) == 2, "each pool needs its own tag pair"


def check_with_det_master_parser(text, path):
    binary = conf_check_binary()
    path.write_text(text)
    result = subprocess.run([str(binary), str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    effective = yaml.safe_load(result.stdout)
    assert [p["pool_name"] for p in effective["resource_pools"]] == ["cpu-pool", "gpu-pool"]
    assert effective["checkpoint_storage"]["type"] == "s3"
