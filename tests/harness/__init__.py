"""The harness of the Python suites that run real processes: tests/e2e,
tests/chaos, tests/provisioner, tests/webui and tests/k8s. Each suite's
conftest.py puts tests/ on sys.path and imports what it needs from here,
so a master, a database or a wait is started and bounded one way.

  harness.paths     ROOT, BUILD (DET_BUILD_DIR, else build/), BIN, EXAMPLE
  harness.wait      free_port(); wait_for() (fails the test) and
                    wait_until() (raises TimeoutError), both bounded
  harness.pg        a private PostgreSQL (scripts/pg.sh), the `pg_server`
                    fixture, a fresh database per cluster
  harness.master    det-master as a process: launch, answers /info, login
  harness.cluster   Cluster: det-master with a local pool of det-agent
                    processes and its REST client; the `cluster_factory`
                    and `moto_s3` fixtures; experiment_yaml(); process checks
  harness.k8s_bed   the Kubernetes test bed (tests/k8s/bed/bed.sh)
  harness.rm_master det-master with the kubernetes resource manager on a bed
  harness.jupyter   a notebook through the proxy: proxied(), run_in_kernel()
"""
from harness.paths import BIN, BUILD, EXAMPLE, ROOT  # noqa: F401
from harness.wait import free_port, wait_for, wait_until  # noqa: F401
