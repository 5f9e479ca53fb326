"""The aws provisioner end to end against moto (server mode, loopback):
real det-master, PostgreSQL, det-agent processes playing the instances,
the sample model, boto3 as the independent checker of what EC2 holds."""
import collections
import time

from prov_harness import TAG_KEY, experiment_yaml, tagged, tags_of, wait_for


def ended(c, exp_id, timeout=150):
    return wait_for("experiment %d to end" % exp_id,
                    lambda: c.experiment(exp_id)["state"] in
                    ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED") and
                    c.experiment(exp_id), timeout=timeout)


def launches(proxy, action="RunInstances"):
    return [c for c in proxy.actions(action) if c[3] == "pass"]


def test_on_demand_scale_up_run_and_scale_down(aws_cluster, ec2, proxy):
    c = aws_cluster(max_instances=2, idle="2s")
    c.run_instances()
    status, body = c.submit(experiment_yaml(max_length=30, trials=3))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    got = wait_for("2 tagged instances", lambda: len(tagged(ec2, c.tag_value)) == 2 and
                   tagged(ec2, c.tag_value), timeout=60)
    for inst in got:
        t = tags_of(inst)
        assert t[TAG_KEY] == c.tag_value and t["det-pool"] == "default"
        assert t["Name"] == "determined-ai-agent" and t["det-cluster-id"]
        assert t["det-launch"].startswith("det-")
        assert inst["InstanceType"] == "t2.micro"
    # The master's view agrees with EC2 (boto3).
    ids = {i["InstanceId"] for i in got}
    wait_for("the pool view to list them",
             lambda: {i["id"] for i in c.pool()["instances"]} == ids, timeout=30)
    e = ended(c, exp_id)
    assert e["state"] == "STATE_COMPLETED", c.master_log()[-3000:]
    # Never more than max_instances, never relaunched for the same demand.
    assert len(tagged(ec2, c.tag_value, states=("pending", "running", "shutting-down",
                                                "terminated"))) == 2
    wait_for("idle instances to be terminated",
             lambda: not tagged(ec2, c.tag_value), timeout=60)
    wait_for("the pool view to be empty", lambda: c.pool()["instances"] == [], timeout=30)
    # Every RunInstances carried a ClientToken, each a different one.
    tokens = [p[2]["ClientToken"][0] for p in launches(proxy)]
    assert len(tokens) == len(set(tokens)) >= 1


def test_spot_requests_fulfilled_tagged_and_cleaned_up(aws_cluster, ec2, proxy):
    c = aws_cluster(max_instances=1, idle="2s", spot=True)
    c.run_instances()
    status, body = c.submit(experiment_yaml(max_length=20, trials=1))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    inst = wait_for("the spot instance to be tagged as ours",
                    lambda: tagged(ec2, c.tag_value), timeout=60)[0]
    assert inst.get("InstanceLifecycle") == "spot"
    reqs = ec2.describe_spot_instance_requests(Filters=[
        {"Name": "tag:" + TAG_KEY, "Values": [c.tag_value]}])["SpotInstanceRequests"]
    assert len(reqs) == 1 and reqs[0]["InstanceId"] == inst["InstanceId"]
    assert tags_of(reqs[0])["det-pool"] == "default"
    assert ended(c, exp_id)["state"] == "STATE_COMPLETED", c.master_log()[-3000:]
    wait_for("the idle spot instance to be terminated",
             lambda: not tagged(ec2, c.tag_value), timeout=60)
    assert len(proxy.actions("RequestSpotInstances")) == 1
    assert not proxy.actions("RunInstances")


def test_foreign_resources_are_never_touched_and_orphans_are_removed(aws_cluster, ec2, network):
    subnet, _ = network
    tag_value = "det-test-foreign-ours"

    def run(tags):
        spec = [{"ResourceType": "instance", "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}] if tags else []
        kw = {"TagSpecifications": spec} if spec else {}
        return ec2.run_instances(ImageId="ami-12345678", MinCount=1, MaxCount=1,
                                 InstanceType="t2.micro", SubnetId=subnet, **kw)["Instances"][0]["InstanceId"]
    foreign = [
        run({}),
        run({TAG_KEY: "someone-else"}),
        run({TAG_KEY: tag_value + "*"}),
        run({TAG_KEY: tag_value, "det-pool": "other-pool"}),
        run({"det-pool": "default"}),
    ]
    ours_other_pool_spot = ec2.request_spot_instances(
        InstanceCount=1, LaunchSpecification={"ImageId": "ami-12345678", "InstanceType": "t2.micro"},
        TagSpecifications=[{"ResourceType": "spot-instances-request",
                            "Tags": [{"Key": TAG_KEY, "Value": tag_value},
                                     {"Key": "det-pool", "Value": "other-pool"}]}],
    )["SpotInstanceRequests"][0]["SpotInstanceRequestId"]
    foreign_spot = ec2.request_spot_instances(
        InstanceCount=1, LaunchSpecification={"ImageId": "ami-12345678", "InstanceType": "t2.micro"},
        TagSpecifications=[{"ResourceType": "spot-instances-request",
                            "Tags": [{"Key": TAG_KEY, "Value": "someone-else"}]}],
    )["SpotInstanceRequests"][0]["SpotInstanceRequestId"]
    # Ours by tag, but from no launch the log knows: removed after the grace.
    orphan = run({TAG_KEY: tag_value, "det-pool": "default", "det-launch": "det-unknown-7"})
    c = aws_cluster(tag_value=tag_value, max_instances=3, spot=True)
    wait_for("the orphan to be terminated",
             lambda: ec2.describe_instances(InstanceIds=[orphan])["Reservations"][0]
             ["Instances"][0]["State"]["Name"] in ("shutting-down", "terminated"), timeout=30)
    states = {i["InstanceId"]: i["State"]["Name"] for r in
              ec2.describe_instances(InstanceIds=foreign)["Reservations"] for i in r["Instances"]}
    assert all(s == "running" for s in states.values()), states
    for sir in (foreign_spot, ours_other_pool_spot):
        req = ec2.describe_spot_instance_requests(SpotInstanceRequestIds=[sir])["SpotInstanceRequests"][0]
        assert req["State"] == "active", req
        inst = ec2.describe_instances(InstanceIds=[req["InstanceId"]])["Reservations"][0]["Instances"][0]
        assert inst["State"]["Name"] == "running"
        assert not tagged(ec2, tag_value) or req["InstanceId"] not in {
            i["InstanceId"] for i in tagged(ec2, tag_value)}  # never tagged as ours
    pool = c.pool()
    assert pool["instances"] == [] and pool["spotRequests"] == [] and pool["numAgents"] == 0
    assert "refusing" not in c.master_log()


def test_faults_back_off_fall_back_and_never_double_launch(aws_cluster, ec2, proxy):
    # Throttling, 500s, dropped connections and slow answers are retried
    # inside the client; capacity and quota errors back off per type and
    # fall back to the alternative type.
    proxy.add("RunInstances", "capacity", times=2, match="InstanceType=t2.micro")
    proxy.add("RunInstances", "vcpu", times=1, match="InstanceType=t3.micro")
    proxy.add("RunInstances", "throttle", times=1)
    proxy.add("RunInstances", "500", times=1)
    proxy.add("RunInstances", "drop", times=1)
    proxy.add("DescribeInstances", "throttle", times=2)
    proxy.add("DescribeInstances", "slow", times=1, seconds=2.0)
    proxy.add("TerminateInstances", "500", times=1)
    c = aws_cluster(max_instances=2, idle="2s", alternatives=("t3.micro",))
    c.run_instances()
    status, body = c.submit(experiment_yaml(max_length=20, trials=2))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    # While launches fail, the waiting trials say why (det trial describe,
    # det experiment list-trials).
    wait_for("a waiting trial to show the failed launch",
             lambda: any("the last launch failed" in t.get("pendingReason", "")
                         for t in c.trials(exp_id)), timeout=60)
    e = ended(c, exp_id, timeout=180)
    assert e["state"] == "STATE_COMPLETED", c.master_log()[-4000:]
    assert not any("pendingReason" in t for t in c.trials(exp_id))
    wait_for("no instance left", lambda: not tagged(ec2, c.tag_value), timeout=90)
    everything = tagged(ec2, c.tag_value, states=("pending", "running", "shutting-down", "terminated"))
    per_launch = collections.Counter(tags_of(i)["det-launch"] for i in everything)
    # Each launch that reached EC2 made exactly its MinCount instances, once:
    # no retried call (throttle, 500, dropped connection) launched twice.
    passed = {p["ClientToken"][0]: int(p["MinCount"][0]) for _, _, p, k in
              proxy.actions("RunInstances") if k == "pass"}
    assert len(passed) == len(launches(proxy)), "a token was sent twice to EC2"
    assert dict(per_launch) == passed, (per_launch, passed)
    assert len(everything) == 2, everything  # two trials, max_instances 2
    assert "(insufficient_capacity)" in c.master_log()
    calls = proxy.actions("RunInstances")
    kinds = [k for _, _, _, k in calls]
    assert kinds[:2] == ["capacity", "vcpu"], kinds  # t2.micro, then the fallback t3.micro
    assert {"throttle", "500", "drop"} <= set(kinds), kinds
    # No tight loop: after a capacity or quota failure, the same type is not
    # asked again before its backoff (5 s, jittered by half) ran out.
    for i, (t, _, p, k) in enumerate(calls):
        if k in ("capacity", "vcpu"):
            later = [u for u, _, q, _ in calls[i + 1:] if q.get("InstanceType") == p.get("InstanceType")]
            assert not later or later[0] - t >= 2.0, (p.get("InstanceType"), later[0] - t)
    assert "next try of this type in" in c.master_log()
    # The last launch error stays visible in the pool view.
    err = c.pool()["launchError"]
    assert err["kind"] in ("insufficient_capacity", "quota_exceeded"), err
    assert "VcpuLimitExceeded" in err["message"] or "InsufficientInstanceCapacity" in err["message"]


def test_master_killed_after_run_instances_launches_exactly_once(aws_cluster, ec2, proxy):
    c = aws_cluster(min_instances=1, max_instances=1,
                    env={"DET_TEST_CRASH_AFTER": "run_instances"}, )
    wait_for("the master to crash after RunInstances", lambda: c.proc.poll() is not None, timeout=60)
    assert c.proc.returncode == 70
    assert len(tagged(ec2, c.tag_value)) == 1
    c.env.pop("DET_TEST_CRASH_AFTER")
    c.start()
    wait_for("the instance to be adopted",
             lambda: len(c.pool()["instances"]) == 1, timeout=30)
    # Give the provisioner a few more ticks to (wrongly) launch again.
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        assert len(tagged(ec2, c.tag_value)) == 1
        time.sleep(0.3)
    assert len(launches(proxy)) == 1
    assert "adopting instance" in c.master_log()
    assert c.pool()["instances"][0]["id"] == tagged(ec2, c.tag_value)[0]["InstanceId"]


def test_listing_follows_every_page(aws_cluster, ec2, proxy):
    # One instance per RunInstances: moto pages DescribeInstances by
    # reservation, so 12 launches with MaxResults 5 make three pages.
    c = aws_cluster(min_instances=12, max_instances=12,
                    env={"DET_PROVISIONER_PAGE_SIZE": "5", "DET_PROVISIONER_MAX_PER_LAUNCH": "1"})
    wait_for("12 instances in the pool view", lambda: len(c.pool()["instances"]) == 12, timeout=60)
    wait_for("a paged listing after the launches",
             lambda: len([d for d in proxy.actions("DescribeInstances") if "NextToken" in d[2]]) >= 2,
             timeout=30)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        assert len(c.pool()["instances"]) == 12
        time.sleep(0.3)
    assert len(tagged(ec2, c.tag_value)) == 12
    tokens = [p[2]["ClientToken"][0] for p in launches(proxy)]
    assert len(tokens) == len(set(tokens)) == 12
    assert "is gone" not in c.master_log() and "unknown tagged" not in c.master_log()


def test_user_data_starts_det_agent_with_the_imds_resolved_master_url(aws_cluster, ec2):
    import base64
    import os
    import subprocess
    import sys
    from prov_harness import ROOT
    imds = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "aws", "fake_imds.py")],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(imds.stdout.readline())
        c = aws_cluster(min_instances=1, max_instances=1, master_url="local-ipv4",
                        env={"AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:%d" % port})
        inst = wait_for("the instance", lambda: tagged(ec2, c.tag_value), timeout=60)[0]
        data = ec2.describe_instance_attribute(InstanceId=inst["InstanceId"], Attribute="userData")
        script = base64.b64decode(data["UserData"]["Value"]).decode()
        # local-ipv4 came from (fake) IMDS; the port is the master's.
        assert "--master-url 'http://10.0.0.12:%d'" % c.port in script, script
        assert "--resource-pool 'default'" in script
        assert '--agent-id "$INSTANCE_ID"' in script and "meta-data/instance-id" in script
        assert "X-aws-ec2-metadata-token" in script and "export DET_AGENT_TOKEN=" in script
        assert inst["KeyName"] == "det-test-key"
        # Idle for the pool's max_idle_agent_period while the master is
        # unreachable, det-agent exits 75 and the instance shuts down,
        # which terminates it.
        assert " --idle-shutdown-after " in script, script
        # While the master is unreachable: the pool's shorter period
        # (default 1m), and exits written into the instance's tags first.
        assert " --idle-shutdown-unreachable 1m" in script, script
        assert " --exit-tags" in script, script
        assert "if [ $? -eq 75 ]; then shutdown -h now; fi" in script
        shutdown = ec2.describe_instance_attribute(
            InstanceId=inst["InstanceId"], Attribute="instanceInitiatedShutdownBehavior")
        assert shutdown["InstanceInitiatedShutdownBehavior"]["Value"] == "terminate"
    finally:
        imds.kill()
        imds.wait(timeout=10)


def test_a_pools_log_group_makes_its_agents_ship_to_cloudwatch(aws_cluster, ec2):
    """provider `log_group` (det-deploy --cloudwatch-logs sets it): the
    launch script hands det-agent the group and the cluster id, which turn
    its CloudWatch shipping on (docs/cloudwatch.md)."""
    import base64
    c = aws_cluster(min_instances=1, max_instances=1, log_group="/determined/t/journald")
    inst = wait_for("the instance", lambda: tagged(ec2, c.tag_value), timeout=60)[0]
    data = ec2.describe_instance_attribute(InstanceId=inst["InstanceId"], Attribute="userData")
    script = base64.b64decode(data["UserData"]["Value"]).decode()
    assert "export DET_CLOUDWATCH_LOG_GROUP='/determined/t/journald'\n" in script, script
    assert "export DET_CLUSTER_ID='c%s'\n" % c.tag_value[-8:] in script, script
    assert script.index("DET_CLOUDWATCH_LOG_GROUP") < script.index("det-agent --master-url")


def test_security_group_given_by_name_launches_into_that_group(aws_cluster, ec2, network, proxy):
    """`security_group: NAME` (the older documents' field): det-master looks
    the group up once and launches into it; an unknown name stops the pool
    with an error naming the field."""
    sg = network[1]
    name = ec2.describe_security_groups(GroupIds=[sg])["SecurityGroups"][0]["GroupName"]
    c = aws_cluster(max_instances=1, security_group_name=name)
    status, body = c.submit(experiment_yaml(max_length=5, trials=1))
    assert status == 200, body
    wait_for("a tagged instance", lambda: tagged(ec2, c.tag_value), timeout=60)
    # moto does not show an interface's groups on the instance: the
    # request (through the proxy) says which group it launched into.
    run = launches(proxy)
    assert len(run) == 1
    assert run[0][2]["NetworkInterface.1.SecurityGroupId.1"] == [sg]
    assert [c for c in proxy.actions("DescribeSecurityGroups") if c[3] == "pass"]
    c.stop()
    bad = aws_cluster(max_instances=1, security_group_name="no-such-group-" + name)
    wait_for("the pool's error in the log",
             lambda: 'provisioner.security_group: no security group named "no-such-group-'
             in bad.master_log(), timeout=30)
