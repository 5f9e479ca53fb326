#!/usr/bin/env python3
"""boto3 against the same moto server the C++ client talks to: an
independent look at what really exists there, and a way to create the
resources a launch refers to. Used by ec2_moto_test.cpp.

Usage: boto3_check.py ENDPOINT REGION COMMAND [ARGS...]
  instances TAG_KEY TAG_VALUE   JSON list of the instances with that tag
  spot-requests TAG_KEY TAG_VALUE  JSON list of spot requests with that tag
  network NAME                  create a VPC, subnet and security group;
                                print {"subnet_id": ..., "security_group_id": ...}
  instance-profile NAME         create an IAM role + instance profile; print
                                its ARN
  ssm-put NAME VALUE            store a String SSM parameter; print null
  s3-objects BUCKET PREFIX      JSON {key: {size, sha256}} of the objects
  s3-bucket BUCKET              JSON {exists, tags, versioning, location}
"""
import json
import sys

import boto3


def client(service, endpoint, region):
    return boto3.client(service, endpoint_url=endpoint, region_name=region,
                        aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def instances(ec2, key, value):
    out = []
    pages = ec2.get_paginator("describe_instances").paginate(
        Filters=[{"Name": "tag:" + key, "Values": [value]}])
    for page in pages:
        for res in page["Reservations"]:
            for i in res["Instances"]:
                volumes = []
                for bdm in i.get("BlockDeviceMappings", []):
                    vid = bdm.get("Ebs", {}).get("VolumeId")
                    if vid:
                        v = ec2.describe_volumes(VolumeIds=[vid])["Volumes"][0]
                        volumes.append({"device": bdm["DeviceName"], "size": v["Size"],
                                        "tags": {t["Key"]: t["Value"] for t in v.get("Tags", [])}})
                out.append({
                    "id": i["InstanceId"],
                    "state": i["State"]["Name"],
                    "type": i["InstanceType"],
                    "image": i["ImageId"],
                    "key_name": i.get("KeyName", ""),
                    "lifecycle": i.get("InstanceLifecycle", ""),
                    "subnet_id": i.get("SubnetId", ""),
                    "security_groups": sorted(g["GroupId"] for g in i.get("SecurityGroups", [])),
                    "iam_profile_arn": i.get("IamInstanceProfile", {}).get("Arn", ""),
                    "http_tokens": i.get("MetadataOptions", {}).get("HttpTokens", ""),
                    "public_ip": i.get("PublicIpAddress", ""),
                    "tags": {t["Key"]: t["Value"] for t in i.get("Tags", [])},
                    "volumes": volumes,
                })
    return out


def spot_requests(ec2, key, value):
    reqs = ec2.describe_spot_instance_requests(
        Filters=[{"Name": "tag:" + key, "Values": [value]}])["SpotInstanceRequests"]
    return [{"id": r["SpotInstanceRequestId"], "state": r["State"],
             "instance_id": r.get("InstanceId", ""),
             "tags": {t["Key"]: t["Value"] for t in r.get("Tags", [])}} for r in reqs]


def network(ec2, name):
    vpc = ec2.create_vpc(CidrBlock="10.42.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.42.1.0/24")["Subnet"]["SubnetId"]
    sg = ec2.create_security_group(GroupName=name, Description=name, VpcId=vpc)["GroupId"]
    return {"subnet_id": subnet, "security_group_id": sg}


def instance_profile(iam, name):
    iam.create_role(RoleName=name, AssumeRolePolicyDocument="{}")
    arn = iam.create_instance_profile(InstanceProfileName=name)["InstanceProfile"]["Arn"]
    iam.add_role_to_instance_profile(InstanceProfileName=name, RoleName=name)
    return arn


def s3_objects(s3, bucket, prefix):
    import hashlib
    out = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for o in page.get("Contents", []):
            body = s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()
            out[o["Key"]] = {"size": o["Size"], "sha256": hashlib.sha256(body).hexdigest()}
    return out


def s3_bucket(s3, bucket):
    import botocore.exceptions
    try:
        s3.head_bucket(Bucket=bucket)
    except botocore.exceptions.ClientError:
        return {"exists": False}
    try:
        tags = {t["Key"]: t["Value"] for t in s3.get_bucket_tagging(Bucket=bucket)["TagSet"]}
    except botocore.exceptions.ClientError:
        tags = {}
    return {"exists": True, "tags": tags,
            "versioning": s3.get_bucket_versioning(Bucket=bucket).get("Status", ""),
            "location": s3.get_bucket_location(Bucket=bucket).get("LocationConstraint") or ""}


def main():
    endpoint, region, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    ec2 = client("ec2", endpoint, region)
    if cmd == "instances":
        print(json.dumps(instances(ec2, *args)))
    elif cmd == "spot-requests":
        print(json.dumps(spot_requests(ec2, *args)))
    elif cmd == "network":
        print(json.dumps(network(ec2, *args)))
    elif cmd == "ssm-put":
        client("ssm", endpoint, region).put_parameter(
            Name=args[0], Value=args[1], Type="String", Overwrite=True)
        print("null")
    elif cmd == "s3-objects":
        print(json.dumps(s3_objects(client("s3", endpoint, region), *args)))
    elif cmd == "s3-bucket":
        print(json.dumps(s3_bucket(client("s3", endpoint, region), *args)))
    elif cmd == "instance-profile":
        print(json.dumps(instance_profile(client("iam", endpoint, region), *args)))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
