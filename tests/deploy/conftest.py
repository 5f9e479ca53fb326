"""Fixtures for the deploy tests: a moto server on a free loopback port, and
boto3 clients that can only talk to it."""

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

# Never reach a real AWS account, whatever the environment holds.
for _var in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
    os.environ.pop(_var, None)
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_DEFAULT_REGION="us-east-1",
    AWS_CONFIG_FILE=os.devnull,
    AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    AWS_EC2_METADATA_DISABLED="true",
    NO_PROXY="127.0.0.1,localhost",
    no_proxy="127.0.0.1,localhost",
)

MOTO_START_TIMEOUT = 60  # seconds


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def moto_endpoint(tmp_path_factory):
    port = _free_port()
    log_path = tmp_path_factory.mktemp("moto") / "moto.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + MOTO_START_TIMEOUT
    while True:
        if proc.poll() is not None:
            log.close()
            pytest.fail(f"moto server exited: {log_path.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=2).read()
            break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"moto server not up after {MOTO_START_TIMEOUT}s")
            time.sleep(0.2)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    log.close()


@pytest.fixture(scope="session")
def aws(moto_endpoint):
    """aws("ec2") -> a boto3 client of moto, region us-east-1."""
    import boto3
    from botocore.config import Config

    session = boto3.session.Session(
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    )
    config = Config(retries={"max_attempts": 1}, connect_timeout=5, read_timeout=60)

    def client(service):
        return session.client(service, endpoint_url=moto_endpoint, config=config)

    return client


@pytest.fixture(scope="session")
def amis(aws):
    """The key pair det-test and two of moto's AMIs, made once for the whole
    session: every deploy test module shares this one moto server."""
    ec2 = aws("ec2")
    ec2.create_key_pair(KeyName="det-test")
    images = [i["ImageId"] for i in ec2.describe_images(Owners=["amazon"])["Images"]]
    assert len(images) >= 2
    return {"master": images[0], "agent": images[1]}
