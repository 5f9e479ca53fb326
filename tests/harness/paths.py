"""Where things are: the repository, the build under test and its programs."""
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(os.environ.get("DET_BUILD_DIR", os.path.join(ROOT, "build")))
BIN = os.path.join(BUILD, "bin")
EXAMPLE = os.path.join(ROOT, "examples", "linear_regression")
SCRIPTS = os.path.join(ROOT, "scripts")
K8S_BED_DIR = os.path.join(ROOT, "tests", "k8s", "bed")
