"""det-master as a process: started on a config and a database, logging to
a file, up once it answers /info; the admin's session."""
import os
import subprocess
import sys
import urllib.error
import urllib.request

from harness.paths import BIN, SCRIPTS


def launch_master(config, db, port, log_path, env=None):
    """Starts det-master on 127.0.0.1:`port`, its output appended to
    log_path; returns the Popen at once (wait with answers_info)."""
    log = open(log_path, "a")
    return subprocess.Popen(
        [os.path.join(BIN, "det-master"), "--config", config, "--db", db,
         "--listen", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, env=env)


def answers_info(url, context=None):
    """Whether a master answers GET /info at `url`."""
    try:
        urllib.request.urlopen(url + "/info", timeout=5, context=context).read()
        return True
    except (urllib.error.URLError, ConnectionError):
        return False


def admin_login(url, context=None):
    """A session token for admin (blank password): scripts/submit.py's login."""
    if SCRIPTS not in sys.path:
        sys.path.insert(0, SCRIPTS)
    import submit
    return submit.login(url, "admin", "", context=context)
