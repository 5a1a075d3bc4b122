"""A small client of cudaperfd for trainers: standard library only, several
daemons (one per GPU host) spread round-robin, bounded concurrency, retries
on 503 (queue full) honouring Retry-After. Used by the verl and TRL examples."""
import concurrent.futures
import http.client
import itertools
import json
import re
import threading
import time
import urllib.parse

CODE_BLOCK = re.compile(r"```(?:cuda|cpp|c\+\+|cu)?\s*\n(.*?)```", re.DOTALL)


def extract_code(completion):
    """The last fenced code block of a completion, or the whole text."""
    if isinstance(completion, list):  # chat format: [{"role": ..., "content": ...}]
        completion = completion[-1]["content"] if completion else ""
    blocks = CODE_BLOCK.findall(completion or "")
    return blocks[-1] if blocks else (completion or "")


class CudaperfClient:
    def __init__(self, urls=("http://127.0.0.1:8742",), max_concurrency=32, timeout=900, retries=20):
        self._urls = itertools.cycle([urllib.parse.urlparse(u) for u in urls])
        self._lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(max_concurrency)
        self._timeout = timeout
        self._retries = retries

    def _post(self, path, body):
        with self._lock:
            url = next(self._urls)
        for attempt in range(self._retries):
            connection = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=self._timeout)
            try:
                connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
                response = connection.getresponse()
                data = json.loads(response.read())
                if response.status == 503:
                    time.sleep(float(response.getheader("Retry-After") or 5))
                    continue
                if response.status != 200:
                    raise RuntimeError("cudaperfd %s: HTTP %d %s" % (path, response.status, data))
                return data
            finally:
                connection.close()
        raise RuntimeError("cudaperfd stayed busy after %d attempts" % self._retries)

    def evaluate(self, task, source, turn=1):
        return self._post("/v1/evaluate", {"task": task, "source": source, "turn": turn})

    def evaluate_many(self, requests):
        """[(task, source, turn)] -> results in order, at most max_concurrency at once."""
        futures = [self._pool.submit(self.evaluate, *request) for request in requests]
        return [future.result() for future in futures]

    def group_reward(self, outcomes, mode="rank", dcp=None):
        body = {"outcomes": outcomes, "mode": mode}
        if dcp:
            body["dcp"] = dcp
        return self._post("/v1/group_reward", body)
