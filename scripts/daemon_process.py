"""A cudaperfd process for the scripts: started on an ephemeral port with its
own store and cache, JSON over HTTP, stopped with SIGTERM (drain)."""
import ctypes
import http.client
import json
import os
import signal
import subprocess


def _end_with_parent():
    """In the child before exec: SIGTERM when the process that started it
    ends (a test killed at its timeout leaves no daemon behind to hold
    ports, sandbox processes and files for the tests after it)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class DaemonProcess:
    def __init__(self, build, tasks, work, *flags, stderr=None, binary=None):
        """build: a build folder (its daemon/cudaperfd), or binary: that program itself (an installed one)."""
        os.makedirs(work, exist_ok=True)
        self.binary = binary or os.path.join(build, "daemon", "cudaperfd")
        self.db = os.path.join(work, "store.sqlite")
        self.command = [self.binary, "--listen", "127.0.0.1:0", "--tasks", tasks, "--db", self.db, "--cache",
                        os.path.join(work, "cache"), "--log-level", "warn", *flags]
        # stderr goes where the caller's goes (a pipe nobody drains could fill and stall the daemon).
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                        preexec_fn=_end_with_parent)
        line = self.process.stdout.readline()  # "cudaperfd listening on HOST:PORT"
        if "listening on" not in line:
            self.process.kill()
            self.process.wait()
            raise RuntimeError("cudaperfd did not start (%r): %s" % (line, " ".join(self.command)))
        self.port = int(line.rsplit(":", 1)[1])

    def call(self, method, path, body=None, timeout=7200):
        """(HTTP status, parsed JSON answer)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=json.dumps(body) if body is not None else None,
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    def post(self, path, body, timeout=7200):
        return self.call("POST", path, body, timeout)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=600)
