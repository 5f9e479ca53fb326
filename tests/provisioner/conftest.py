"""pytest fixtures of the aws provisioner tests (see prov_harness.py)."""
from prov_harness import (aws_cluster, ec2, moto_url, network, pg_server,  # noqa: F401
                          proxy)
