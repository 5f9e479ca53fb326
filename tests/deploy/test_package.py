"""The determined-master .deb (cmake/Packaging.cmake): cpack builds it from
the build tree, and it holds the programs that were built, the systemd
units, the example configs (as conffiles), the CloudFormation templates and
the maintainer scripts. Also `cmake --install` into a staging DESTDIR. The
det-deploy of both reads the templates installed next to it."""

import configparser
import json
import os
import re
import subprocess

import pytest

from cfn import DEPLOYMENT_TYPES, REPO, build_dir, closed_port_url

PROGRAMS = ["det-master", "det-agent", "det-replay", "det-inspect", "det-deploy"]
TIMEOUT = 600  # seconds per cpack / install


def packaging_build_dir():
    build = build_dir()
    if (build / "CPackConfig.cmake").exists():
        return build
    reason = (
        f"{build} has no CPackConfig.cmake: add include(Packaging) to the "
        "top-level CMakeLists.txt and re-run cmake"
    )
    if "DET_BUILD_DIR" in os.environ:
        pytest.fail(reason)
    pytest.skip(reason)


def built_programs(build):
    return [p for p in PROGRAMS if (build / "bin" / p).exists()]


@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    build = packaging_build_dir()
    out = tmp_path_factory.mktemp("cpack")
    result = subprocess.run(
        ["cpack", "-G", "DEB", "--config", str(build / "CPackConfig.cmake"), "-B", str(out)],
        cwd=build, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    debs = list(out.glob("determined-master_*.deb"))
    assert len(debs) == 1, result.stdout
    return debs[0]


def deb_contents(deb):
    listing = subprocess.run(
        ["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    # "-rwxr-xr-x root/root 409240 2026-01-01 00:00 ./usr/bin/det-replay"
    return {line.split()[5].lstrip(".") for line in listing.splitlines()}


def test_package_is_named_and_versioned(deb):
    fields = subprocess.run(
        ["dpkg-deb", "--field", str(deb), "Package", "Version", "Depends"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "Package: determined-master" in fields
    version = re.search(r"project\(det_master VERSION ([0-9.]+)", (REPO / "CMakeLists.txt").read_text())
    assert f"Version: {version.group(1)}" in fields
    assert "adduser" in fields


def test_package_holds_programs_units_configs_and_templates(deb):
    files = deb_contents(deb)
    programs = built_programs(packaging_build_dir())
    assert programs, "no program is built"
    assert "det-deploy" in programs
    for p in programs:
        assert f"/usr/bin/{p}" in files
    for p in set(PROGRAMS) - set(programs):
        assert f"/usr/bin/{p}" not in files
    assert "/usr/lib/systemd/system/det-master.service" in files
    assert "/usr/lib/systemd/system/det-agent.service" in files
    assert "/etc/determined/master.yaml" in files
    assert "/etc/determined/agent.yaml" in files
    for kind in DEPLOYMENT_TYPES:
        assert f"/usr/share/determined/deploy/aws/{kind}.yaml" in files
    assert "/usr/share/determined/examples/master-aws.yaml" in files


def test_package_ships_the_webui_bundle_that_was_built(deb):
    # det-master looks for it at <bindir>/../share/determined/webui.
    bundle = packaging_build_dir() / "webui"
    if not (bundle / "index.html").exists():
        pytest.skip("the WebUI was not built in this tree (make webui)")
    files = deb_contents(deb)
    assert "/usr/share/determined/webui/index.html" in files
    for asset in (bundle / "assets").iterdir():
        assert f"/usr/share/determined/webui/assets/{asset.name}" in files


def test_package_configs_are_conffiles_and_scripts_are_there(deb, tmp_path):
    subprocess.run(["dpkg-deb", "--control", str(deb), str(tmp_path)], check=True)
    conffiles = (tmp_path / "conffiles").read_text().split()
    assert conffiles == ["/etc/determined/master.yaml", "/etc/determined/agent.yaml"]
    for script in ("postinst", "prerm", "postrm"):
        path = tmp_path / script
        assert os.access(path, os.X_OK), script
        subprocess.run(["sh", "-n", str(path)], check=True)
    assert "adduser --system" in (tmp_path / "postinst").read_text()


def test_packaged_configs_are_the_repository_examples(deb, tmp_path):
    subprocess.run(["dpkg-deb", "--extract", str(deb), str(tmp_path)], check=True)
    for name in ("master.yaml", "agent.yaml"):
        packaged = (tmp_path / "etc" / "determined" / name).read_text()
        assert packaged == (REPO / "conf" / name).read_text()
    template = tmp_path / "usr/share/determined/deploy/aws/simple.yaml"
    assert template.read_text() == (REPO / "deploy/aws/simple.yaml").read_text()
    assert_det_deploy_reads_templates_next_to_it(tmp_path / "usr")


def assert_det_deploy_reads_templates_next_to_it(prefix):
    """Marks the installed simple.yaml and checks that det-deploy's dry run
    sends the marked file, not the source tree's."""
    template = prefix / "share/determined/deploy/aws/simple.yaml"
    marked = template.read_text() + "# installed copy\n"
    template.write_text(marked)
    result = subprocess.run(
        [str(prefix / "bin/det-deploy"), "aws", "up", "--cluster-id", "c1",
         "--keypair", "k", "--package", "https://example.com/det.deb",
         "--agent-image-id", "ami-12345678", "--dry-run",
         "--endpoint-url", closed_port_url()],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["TemplateBody"] == marked


@pytest.mark.parametrize("unit", ["det-master.service", "det-agent.service"])
def test_systemd_units_start_the_packaged_programs(unit):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(REPO / "deploy" / "systemd" / unit)
    program = unit.split(".")[0]
    assert parser["Service"]["ExecStart"].startswith(f"/usr/bin/{program} --config /etc/determined/")
    assert parser["Service"]["User"] == "determined"
    # The CloudWatch shipper's journalctl must read the system journal.
    assert parser["Service"]["SupplementaryGroups"] == "systemd-journal"
    assert parser["Install"]["WantedBy"] == "multi-user.target"


def test_cmake_install_stages_under_destdir(tmp_path):
    build = packaging_build_dir()
    env = dict(os.environ, DESTDIR=str(tmp_path))
    result = subprocess.run(
        ["cmake", "--install", str(build), "--prefix", "/opt/det"],
        capture_output=True, text=True, timeout=TIMEOUT, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    for p in built_programs(build):
        assert (tmp_path / "opt/det/bin" / p).exists()
    assert (tmp_path / "opt/det/lib/systemd/system/det-master.service").exists()
    assert (tmp_path / "etc/determined/master.yaml").exists()
    for kind in DEPLOYMENT_TYPES:
        assert (tmp_path / f"opt/det/share/determined/deploy/aws/{kind}.yaml").exists()
    assert_det_deploy_reads_templates_next_to_it(tmp_path / "opt/det")
