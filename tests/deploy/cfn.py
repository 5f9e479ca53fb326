"""Helpers shared by the deploy tests: where things are, loading a
CloudFormation YAML template into plain data, and pulling the master.yaml
out of the master's UserData."""

import os
import pathlib
import socket
import subprocess

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
TEMPLATES_DIR = REPO / "deploy" / "aws"
DEPLOYMENT_TYPES = ["simple", "vpc", "efs", "fsx", "secure"]

# CloudFormation's limit for a template passed inline (TemplateBody); larger
# ones must be uploaded to S3 and passed as TemplateURL.
TEMPLATE_BODY_LIMIT = 51200

MASTER_YAML_START = "cat > /etc/determined/master.yaml <<'DET_MASTER_YAML'\n"
MASTER_YAML_END = "\nDET_MASTER_YAML\n"


def build_dir():
    """The CMake build tree: DET_BUILD_DIR (what the Makefile passes), else
    build/ in the repository."""
    return pathlib.Path(os.environ.get("DET_BUILD_DIR", REPO / "build"))


class _CfnLoader(yaml.SafeLoader):
    pass


def _intrinsic(loader, tag_suffix, node):
    # "!Ref X" -> {"Ref": X}; "!GetAtt A.B" -> {"Fn::GetAtt": [A, B]};
    # "!Sub ..." -> {"Fn::Sub": ...}, and so on, as CloudFormation reads them.
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if tag_suffix == "Ref":
        return {"Ref": value}
    if tag_suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {"Fn::" + tag_suffix: value}


_CfnLoader.add_multi_constructor("!", _intrinsic)
# "2012-10-17" must stay a string; the templates quote it, but be safe.
_CfnLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in _CfnLoader.yaml_implicit_resolvers.items()
}


def template_path(kind):
    return TEMPLATES_DIR / f"{kind}.yaml"


def load_template(kind):
    with open(template_path(kind), encoding="utf-8") as f:
        return yaml.load(f, Loader=_CfnLoader)


def parse_template(text):
    return yaml.load(text, Loader=_CfnLoader)


DET_DEPLOY_TIMEOUT = 150  # seconds per det-deploy run (its --timeout is less)


def det_deploy_binary():
    path = build_dir() / "bin" / "det-deploy"
    if path.exists():
        return path
    if "DET_BUILD_DIR" in os.environ:
        pytest.fail(f"{path} is missing: the build did not make det-deploy")
    pytest.skip(f"{path} is not built (cmake --build build --target det-deploy)")


def run_det_deploy(args, env=None):
    """det-deploy ARGS as a process; the CompletedProcess (text)."""
    return subprocess.run(
        [str(det_deploy_binary()), *args],
        capture_output=True, text=True, timeout=DET_DEPLOY_TIMEOUT,
        env=env if env is not None else os.environ.copy(),
    )  # fmt: skip


def closed_port_url():
    """An http URL on loopback where nothing listens: a call there fails."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def master_sub(template):
    """(text, variables) of the master instance's UserData Fn::Sub."""
    user_data = template["Resources"]["MasterInstance"]["Properties"]["UserData"]
    text, variables = user_data["Fn::Base64"]["Fn::Sub"]
    return text, variables


def master_yaml_from_user_data(user_data):
    """The master.yaml text the UserData script writes (a quoted heredoc, so
    the shell changes nothing in it)."""
    assert MASTER_YAML_START in user_data, "UserData writes no master.yaml"
    body = user_data.split(MASTER_YAML_START, 1)[1]
    assert MASTER_YAML_END in body, "master.yaml heredoc is not closed"
    return body.split(MASTER_YAML_END, 1)[0] + "\n"
