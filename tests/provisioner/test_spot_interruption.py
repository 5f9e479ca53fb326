"""A spot interruption notice: det-agent --spot-notice polls IMDSv2
spot/instance-action (a stub IMDS here; moto has none), tells the master,
which drains the agent, asks the trial to checkpoint now and launches a
replacement; the reclaimed instance's trial resumes there from its
checkpoint without counting a restart."""
import http.server
import threading

from prov_harness import experiment_yaml, tagged, wait_for


class StubImds:
    """IMDSv2 token PUT and spot/instance-action (404 until armed)."""

    def __init__(self):
        self.armed = threading.Event()
        stub = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code, body=b""):
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_PUT(self):
                self._send(200, b"stub-token")

            def do_GET(self):
                if self.headers.get("X-aws-ec2-metadata-token") != "stub-token":
                    return self._send(401)
                if self.path.endswith("/spot/instance-action") and stub.armed.is_set():
                    return self._send(200, b'{"action": "terminate", "time": "2030-01-01T00:02:00Z"}')
                self._send(404)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_spot_notice_checkpoints_now_and_the_trial_resumes_on_a_replacement(aws_cluster, ec2):
    imds = StubImds()
    try:
        c = aws_cluster(max_instances=2, idle="2s", spot=True)
        runner = c.run_instances()
        runner.extra_args = ["--spot-notice"]
        runner.extra_env = {"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.url,
                            "DET_SPOT_NOTICE_INTERVAL_MS": "200"}
        status, body = c.submit(experiment_yaml(max_length=300, trials=1, batch_delay=0.02,
                                                checkpoint_every=20, max_restarts=0))
        assert status == 200, body
        exp_id = int(body["experiment"]["id"])
        first = wait_for("the first spot instance", lambda: tagged(ec2, c.tag_value), timeout=60)[0]["InstanceId"]
        trial = wait_for("the trial to run",
                         lambda: [t for t in c.trials(exp_id) if t["state"] == "STATE_RUNNING"],
                         timeout=60)[0]
        imds.armed.set()
        wait_for("a replacement instance",
                 lambda: len(tagged(ec2, c.tag_value)) == 2, timeout=60)
        assert "spot interruption notice" in c.master_log()
        # AWS reclaims the first instance two minutes later (here: now).
        imds.armed.clear()
        ec2.terminate_instances(InstanceIds=[first])
        e = wait_for("the experiment to end",
                     lambda: c.experiment(exp_id)["state"] in
                     ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED") and c.experiment(exp_id),
                     timeout=150)
        assert e["state"] == "STATE_COMPLETED", c.master_log()[-3000:]
        t = [x for x in c.trials(exp_id) if x["id"] == trial["id"]][0]
        assert t.get("restarts", 0) == 0, t
    finally:
        imds.stop()
