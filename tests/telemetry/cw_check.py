#!/usr/bin/env python3
"""boto3 against the moto server the C++ shipper talks to: the independent
look at what arrived in CloudWatch. Used by cloudwatch_moto_test.cpp.

Usage: cw_check.py ENDPOINT REGION COMMAND [ARGS...]
  events GROUP STREAM           JSON list of [timestamp, message], oldest
                                first (GetLogEvents, every page)
  streams GROUP                 JSON list of the group's stream names
  metric NAMESPACE NAME DIMS    {"count": N, "sum": S} of the datums of
                                NAME with exactly DIMS (a JSON object)
                                (GetMetricStatistics over the last 30 days)
  metrics NAMESPACE             JSON list of [name, {dims}] (ListMetrics)
"""
import datetime
import json
import sys

import boto3


def client(service, endpoint, region):
    return boto3.client(service, endpoint_url=endpoint, region_name=region,
                        aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def events(logs, group, stream):
    out, token = [], None
    for _ in range(1000):
        kw = dict(logGroupName=group, logStreamName=stream, startFromHead=True)
        if token:
            kw["nextToken"] = token
        page = logs.get_log_events(**kw)
        out += [[e["timestamp"], e["message"]] for e in page["events"]]
        if not page["events"] or page.get("nextForwardToken") == token:
            break
        token = page.get("nextForwardToken")
    return out


def main():
    endpoint, region, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if cmd == "events":
        print(json.dumps(events(client("logs", endpoint, region), *args)))
    elif cmd == "streams":
        logs = client("logs", endpoint, region)
        names = [s["logStreamName"] for s in
                 logs.describe_log_streams(logGroupName=args[0])["logStreams"]]
        print(json.dumps(names))
    elif cmd == "metric":
        cw = client("cloudwatch", endpoint, region)
        ns, name, dims = args[0], args[1], json.loads(args[2])
        now = datetime.datetime.now(datetime.timezone.utc)
        r = cw.get_metric_statistics(
            Namespace=ns, MetricName=name,
            Dimensions=[{"Name": k, "Value": v} for k, v in dims.items()],
            StartTime=now - datetime.timedelta(days=30),
            EndTime=now + datetime.timedelta(hours=1),
            Period=86400 * 31, Statistics=["SampleCount", "Sum"])
        count = sum(p["SampleCount"] for p in r["Datapoints"])
        total = sum(p["Sum"] for p in r["Datapoints"])
        print(json.dumps({"count": count, "sum": total}))
    elif cmd == "metrics":
        cw = client("cloudwatch", endpoint, region)
        out = []
        for page in cw.get_paginator("list_metrics").paginate(Namespace=args[0]):
            for m in page["Metrics"]:
                out.append([m["MetricName"], {d["Name"]: d["Value"] for d in m.get("Dimensions", [])}])
        print(json.dumps(out))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
