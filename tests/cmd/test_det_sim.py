"""det-sim as a user runs it: a tiny trace whose answer is known by hand
(one 1-GPU job of an hour on 8-GPU instances booting in 180 s: it waits
180 s, and the instance bills until 180 s after the job ends), the same
bytes on a second run, and the SVG with a column per policy."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("DET_BUILD_DIR", REPO / "build")) / "bin" / "det-sim"


def det_sim(*args):
    if not BIN.exists():
        if "DET_BUILD_DIR" in os.environ:
            pytest.fail(f"{BIN} is missing")
        pytest.skip(f"{BIN} is not built")
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=30)


def test_one_job_costs_what_it_costs_by_hand(tmp_path):
    trace = tmp_path / "jobs.csv"
    trace.write_text("submit,duration,gpus\n0,3600,1\n")
    svg = tmp_path / "r.svg"
    args = ["--trace", str(trace), "--gpus-per-instance", "8", "--price", "10",
            "--policies", "ours,det-20m", "--svg", str(svg)]
    first = det_sim(*args)
    assert first.returncode == 0, first.stderr
    lines = [json.loads(l) for l in first.stdout.splitlines()]
    assert lines[0]["work_h"] == pytest.approx(3600 / 8 / 3600, abs=0.01)
    ours, det = lines[1], lines[2]
    assert ours["policy"] == "ours" and det["policy"] == "det-20m"
    assert ours["wait"]["p50_s"] == 180
    assert ours["instance_hours"] == pytest.approx(3960 / 3600, abs=0.01)
    assert det["instance_hours"] == pytest.approx((3780 + 1200) / 3600, abs=0.01)
    assert ours["cost"] == pytest.approx(ours["instance_hours"] * 10, abs=0.01)
    picture = svg.read_text()
    assert ">ours<" in picture and ">det-20m<" in picture
    again = det_sim(*args)
    assert again.stdout == first.stdout


def test_consolidation_moves_a_stranded_job_and_charges_the_move(tmp_path):
    # 7+1 GPUs on instance A, 5 on B, both up at 180; the 7-GPU job ends at
    # 1180 and leaves the 1-GPU job alone on A. Ten minutes later it moves
    # to B (ending 120 s later, at 20300) and A, drained for 120 s, goes at
    # 1900: A bills 1900 s and B 20480 s instead of 20360 s each.
    trace = tmp_path / "jobs.csv"
    trace.write_text("submit,duration,gpus\n0,1000,7\n0,20000,1\n0,20000,5\n")
    args = ["--trace", str(trace), "--gpus-per-instance", "8", "--price", "10",
            "--policies", "ours,ours+consolidate", "--consolidate-after", "10m",
            "--move-cost", "120s"]
    result = det_sim(*args)
    assert result.returncode == 0, result.stderr
    ours, moved = [json.loads(l) for l in result.stdout.splitlines()][1:]
    assert ours["instance_hours"] == pytest.approx(2 * 20360 / 3600, abs=0.01)
    assert moved["policy"] == "ours+consolidate"
    assert moved["moves"] == 1 and moved["consolidated_instances"] == 1
    assert moved["move_gpu_hours"] == pytest.approx(120 / 3600, abs=0.01)
    assert moved["instance_hours"] == pytest.approx((1900 + 20480) / 3600, abs=0.01)
    assert det_sim(*args).stdout == result.stdout
