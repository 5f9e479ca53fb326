"""Every program's command line as a user meets it: --help prints a usage
on stdout and exits 0; a bad argument is one line "PROGRAM: REASON" on
stderr naming the argument or value, nothing on stdout, exit status 2. The
programs stop before doing any work, so no database or master is needed."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("DET_BUILD_DIR", REPO / "build")) / "bin"


def run(program, *args, env=None):
    path = BIN / program
    if not path.exists():
        if "DET_BUILD_DIR" in os.environ:
            pytest.fail(f"{path} is missing: the build did not make {program}")
        pytest.skip(f"{path} is not built")
    return subprocess.run([str(path), *args], capture_output=True, text=True, timeout=30, env=env)


BAD = [
    ("det-master", ["--bogus"], "unknown argument --bogus"),
    ("det-master", ["--port", "70000"], "--port"),
    ("det-master", ["--port", "http"], "'http'"),
    ("det-master", ["--config"], "--config needs a value"),
    ("det-agent", ["--slots", "many"], "--slots: 'many'"),
    ("det-agent", ["--frobnicate", "1"], "--frobnicate"),
    ("det-agent", ["stray"], "unexpected argument 'stray'"),
    ("det-agent", ["--master-url"], "--master-url needs a value"),
    ("det-replay", ["--db", "postgresql://x/y", "--to", "minus-one"], "--to: 'minus-one'"),
    ("det-replay", ["--db", "postgresql://x/y", "--bogus"], "unknown argument --bogus"),
    ("det-replay", [], "--db is required"),
    ("det-inspect", ["state", "--at", "abc"], "--at: 'abc'"),
    ("det-inspect", ["bogus"], "unknown command 'bogus'"),
    ("det-inspect", ["--master", "http://x", "--db", "postgresql://y", "pools"], "--master excludes --db"),
    ("det-inspect", ["events", "--limit", "0"], "--limit: '0'"),
    ("det-inspect", ["--wat", "pools"], "unknown argument --wat"),
    ("det-deploy", ["aws", "up", "--deployment-type", "tiny"], "--deployment-type: unknown value 'tiny'; allowed: simple, vpc, efs, fsx, secure"),
    ("det-deploy", ["aws", "down"], "missing required argument --cluster-id"),
    ("det-deploy", ["aws", "list", "--bogus"], "unknown argument --bogus"),
    ("det-deploy", ["aws", "sideways"], "unknown command 'aws sideways'; allowed: up, down, list"),
    ("det-deploy", ["gcp"], "unknown provider 'gcp'; allowed: aws"),
    ("det-sim", [], "--trace"),
    ("det-sim", ["--trace", "x.csv", "--idle", "soon"], "--idle: 'soon'"),
    ("det-sim", ["--trace", "x.csv", "--policies", "ours,magic"], "unknown policy magic"),
    ("det-sim", ["--trace", "x.csv", "--outage", "5d"], "--outage: '5d'"),
    ("det-sim", ["--trace", "x.csv", "--move-cost", "soon"], "--move-cost: 'soon'"),
]  # fmt: skip


@pytest.mark.parametrize("program, args, named", BAD, ids=[f"{p} {' '.join(a)}" for p, a, _ in BAD])
def test_a_bad_argument_is_one_line_naming_it_and_exit_2(program, args, named):
    env = {k: v for k, v in os.environ.items() if k not in ("DET_DB_URL", "DET_MASTER")}
    result = run(program, *args, env=env)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"{program}: "), result.stderr
    assert result.stderr.endswith("\n") and result.stderr.count("\n") == 1, result.stderr
    assert named in result.stderr


HELP = [
    ("det-master", [], ["--config", "--db", "--listen", "--port", "--check-config"]),
    ("det-agent", [], ["--master-url", "--slots", "--token", "--spot-notice", "DET_AGENT_TOKEN"]),
    ("det-replay", [], ["--db", "--to", "--verify-snapshots", "--json"]),
    ("det-inspect", [], ["--master", "--db", "--follow", "--at"]),
    ("det-deploy", ["aws", "up"], ["--cluster-id", "--deployment-type", "--dry-run"]),
    ("det-sim", [], ["--trace", "--config", "--policies", "--outage", "--svg"]),
]  # fmt: skip


@pytest.mark.parametrize("program, sub, flags", HELP, ids=[h[0] for h in HELP])
def test_help_is_generated_on_stdout_and_exits_0(program, sub, flags):
    result = run(program, *sub, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(" ".join(["usage:", program, *sub])), result.stdout
    for flag in flags:
        assert flag in result.stdout, flag
    assert result.stderr == ""


def test_the_environment_still_supplies_what_flags_may_omit():
    # DET_DB_URL stands in for --db: the refusal is then about the database,
    # not a usage error.
    env = dict(os.environ, DET_DB_URL="postgresql://127.0.0.1:1/none")
    result = run("det-replay", env=env)
    assert result.returncode == 1, result.stderr
    assert "--db" not in result.stderr
