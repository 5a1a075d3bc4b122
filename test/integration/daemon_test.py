#!/usr/bin/env python3
"""cudaperfd over HTTP, started by this test on an ephemeral port: every
endpoint, every error code, hostile clients (truncated JSON, a 10 MiB body, a
client that sends half a request and stalls, 64 concurrent clients), a restart
on an existing database, and kill -9 during a batch (every answered evaluation
must be in the store afterwards, the database intact).

usage: daemon_test.py CUDAPERFD TASKS_DIR [CUDAPERF_CLIENT]
"""
import concurrent.futures
import hashlib
import json
import math
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import http.client

CUDAPERFD, TASKS = sys.argv[1], sys.argv[2]
CLIENT = sys.argv[3] if len(sys.argv) > 3 else None
TRAINER = sys.argv[4] if len(sys.argv) > 4 else None  # cudaperf-train, where it is built
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from daemon_process import DaemonProcess  # noqa: E402
BUNDLED_RANKER = os.path.join(TASKS, "data", "ranker.json")
# The bundled ranker reads a kernel against its task's baseline.cu; cudaperf-train score takes the baseline
# rows of the data it was trained on (the daemon analyses baseline.cu itself: the two must agree).
RANKER_DATA = os.path.join(TASKS, "data", "ranker-data.jsonl")
SCORE = [TRAINER, "score", "--ranker", BUNDLED_RANKER, "--baselines", RANKER_DATA]
NAIVE = open(os.path.join(TASKS, "vector_add", "variants", "naive.cu")).read()
FEATURE_KEYS = ["coal", "ai", "occ", "div", "xfer", "atomics", "sync", "kernels", "tpb", "gmem", "ops"]


class Daemon(DaemonProcess):
    """The scripts' launcher (no GPU), plus raw requests and the response object."""

    def __init__(self, workdir, *flags):
        super().__init__(None, TASKS, workdir, "--gpus", "", *flags, binary=CUDAPERFD)
        self.workdir = workdir

    def request(self, method, path, body=None, raw=None, timeout=120):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        payload = raw if raw is not None else (json.dumps(body) if body is not None else None)
        connection.request(method, path, body=payload, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = data.decode()
        return response.status, parsed, response

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=60)
        self.process.stdout.close()


def variant(tag):
    """A distinct, correct vector_add source (its own store key and compile)."""
    return "// variant %s\n%s" % (tag, NAIVE)


class DaemonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.daemon = Daemon(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        cls.tmp.cleanup()

    def assertError(self, status, body, code, fragment=None):
        self.assertIsInstance(body, dict, body)
        self.assertIn("error", body)
        self.assertEqual(body["error"]["code"], code, body)
        if fragment:
            self.assertIn(fragment, body["error"]["message"])

    # -- endpoints
    def test_healthz(self):
        status, body, _ = self.daemon.request("GET", "/healthz")
        self.assertEqual(status, 200)
        self.assertEqual(body["status"], "ok")
        self.assertEqual(body["tasks"], 30)
        self.assertFalse(body["gpu"])

    def test_tasks(self):
        status, body, _ = self.daemon.request("GET", "/v1/tasks")
        self.assertEqual(status, 200)
        names = [t["name"] for t in body["tasks"]]
        self.assertIn("vector_add", names)
        self.assertEqual(len(names), 30)
        status, task, _ = self.daemon.request("GET", "/v1/tasks/gemm")
        self.assertEqual(status, 200)
        self.assertIn("void gemm(", task["reference_c"])
        self.assertEqual(task["task_json"]["entry"], "gemm")

    def test_analyze(self):
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": NAIVE, "filename": "k.cu"})
        if status == 503:
            self.skipTest("built without the analysis library")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["schema"], "cudaperf.features/1")
        self.assertEqual(body["features"]["coal"], 1.0)
        self.assertEqual(body["features"]["tpb"], 256.0)

    def test_analyze_with_a_task_sizes_its_entry_launches(self):
        # vector_add's benchmark n is 2^26: (n + 255) / 256 blocks of 256 threads.
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": NAIVE, "task": "vector_add"})
        if status == 503:
            self.skipTest("built without the analysis library")
        self.assertEqual(status, 200, body)
        self.assertEqual(body["entry"], "vector_add")
        self.assertEqual([(l["kernel"], l["blocks"], l["threads_per_block"]) for l in body["entry_launches"]],
                         [("add", 1 << 18, 256)])
        self.assertEqual((body["extended"]["blocks"], body["extended"]["threads"]), (1 << 18, 1 << 26))
        self.assertNotIn("blocks", body["features_unknown"])
        # Without a task nothing is sized, and the two are unknown, not zero.
        status, plain, _ = self.daemon.request("POST", "/v1/analyze", {"source": NAIVE})
        self.assertNotIn("entry_launches", plain)
        self.assertIn("blocks", plain["features_unknown"])
        self.assertIn("threads", plain["features_unknown"])
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": NAIVE, "task": "no_such_task"})
        self.assertEqual(status, 404, body)
        self.assertIn("no_such_task", body["error"]["message"])
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": NAIVE, "task": 3})
        self.assertEqual(status, 400, body)

    def test_launch_shape_decoys_are_not_taken_for_the_launch_that_runs(self):
        """test/hostile/relu/launch_shape_decoy.cu and launch_size_fanout.cu (class 13), as the evaluation's
        analysis reads them (with the task): the decoy's 256-thread launch sits after a return under a null test
        of the entry's buffer, which the harness never passes null, so the shape reported is the 32-thread
        launch that runs; the fan-out of helpers stays within the analysis's deadline and its budget, and is
        left unknown with the reason named. An honest variant of the same task is sized."""
        started = time.time()
        status, body, _ = self.daemon.request("POST", "/v1/analyze",
                                              {"source": read_hostile("relu", "launch_size_fanout.cu"), "task": "relu"})
        if status == 503:
            self.skipTest("built without the analysis library")
        self.assertEqual(status, 200, body)
        self.assertLess(time.time() - started, 10)
        self.assertIn("blocks", body["features_unknown"])
        self.assertIn("threads", body["features_unknown"])
        self.assertIn("more evaluation than the walk allows", body["entry_launches_problem"])
        self.assertFalse(body["entry_launches_complete"])
        # The evaluation path binds the task too (no GPU here: the answer still carries the features).
        status, answer, _ = self.daemon.request("POST", "/v1/evaluate",
                                                {"task": "relu", "source": read_hostile("relu", "launch_shape_decoy.cu")})
        self.assertEqual(status, 200, answer)
        self.assertNotIn("blocks", answer["features"]["unknown"], answer["features"])
        report = answer["features"]["report"]
        self.assertEqual([(launch["blocks"], launch["threads_per_block"]) for launch in report["entry_launches"]],
                         [((1 << 26) // 32, 32)], report.get("entry_launches_problem"))
        status, honest, _ = self.daemon.request("POST", "/v1/analyze", {"source": open(
            os.path.join(TASKS, "relu", "variants", "naive.cu")).read(), "task": "relu"})
        self.assertNotIn("blocks", honest["features_unknown"], honest.get("entry_launches_problem"))

    def test_analyze_with_a_compile_gives_ptxas_facts(self):
        tiled = open(os.path.join(TASKS, "transpose", "variants", "tiled.cu")).read()
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": tiled, "compile": True})
        if status == 503:
            self.skipTest("built without the analysis library")
        self.assertEqual(status, 200, body)
        self.assertTrue(body["compile"]["ok"], body["compile"])
        [kernel] = body["ptxas"]
        self.assertEqual(kernel["kernel"], "transposeTile")
        self.assertEqual(kernel["shared_bytes"], 32 * 32 * 4)
        self.assertGreater(kernel["registers"], 0)
        self.assertIsNotNone(kernel["occupancy"]["theoretical"])  # the launch's block size is known
        self.assertNotIn("ptxas info", body["compile"]["log"])
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": tiled, "compile": "yes"})
        self.assertEqual(status, 400, body)

    def test_evaluate_without_gpu_then_cached(self):
        source = variant("no-gpu")
        status, first, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
        self.assertEqual(status, 200, first)
        self.assertEqual(first["status"], "no_gpu")
        self.assertNotIn("machine_verdict", first)  # a daemon without GPUs: its answer, stored
        self.assertTrue(first["compile"]["ok"])
        self.assertIn("no GPU", first["feedback"])
        self.assertFalse(first["cached"])
        self.assertIsNone(first["reward"]["r_ver"])
        analysis, _, _ = self.daemon.request("POST", "/v1/analyze", {"source": NAIVE})
        if analysis != 503:  # built with the analysis library: the vector is always there
            self.assertIn("vector", first["features"])
            self.assertEqual(sorted(first["features"]["vector"]),
                             sorted(["coal", "ai", "occ", "div", "xfer", "atomics", "sync", "kernels", "tpb",
                                     "gmem", "ops"]))
            # The evaluation's analysis knows its task: the launch is sized at the benchmark size.
            self.assertEqual(first["features"]["report"]["entry_launches"][0]["blocks"], 1 << 18)
        # ptxas's facts of the compile, kernel by kernel (without a GPU too).
        self.assertEqual([k["kernel"] for k in first["features"]["ptxas"]], ["add"])
        status, second, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
        self.assertTrue(second["cached"])
        self.assertEqual(second["id"], first["id"])

    def test_compile_error_and_rejected(self):
        status, body, _ = self.daemon.request("POST", "/v1/evaluate",
                                              {"task": "vector_add", "source": "this is not CUDA", "turn": 2})
        self.assertEqual(status, 200)
        self.assertEqual(body["status"], "compile_error")
        self.assertEqual(body["reward"]["r_ver"]["compile"], -3.0)
        self.assertIn("did not compile", body["feedback"])
        hostile = open(os.path.join(TASKS, "..", "test", "hostile", "vector_add", "uses_cublas.cu")).read()
        status, body, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": hostile})
        self.assertEqual(body["status"], "rejected")
        self.assertIn("cublasSaxpy_v2", body["compile"]["forbidden"])

    def test_a_compile_log_cut_inside_a_character_is_still_json(self):
        # The compiler echoes the source: a log of three-byte characters, cut
        # to its tail at a byte count, begins inside one for two paddings of three.
        for padding in range(3):
            source = "x" * padding + "\n" + "".join("#error %s\n" % ("\u20ac" * 50) for _ in range(60))
            status, body, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
            self.assertEqual(status, 200)
            self.assertIsInstance(body, dict, "padding %d: the answer is not UTF-8 JSON" % padding)
            self.assertEqual(body["status"], "compile_error")
            self.assertIn("\u20ac", body["compile"]["log"])
            self.assertIn("\u20ac", body["feedback"])

    def test_evaluate_batch_in_order(self):
        items = [{"task": "vector_add", "source": variant("batch-%d" % i)} for i in range(2)]
        items.append({"task": "relu", "source": "broken"})
        status, body, _ = self.daemon.request("POST", "/v1/evaluate_batch", {"items": items})
        self.assertEqual(status, 200, body)
        self.assertEqual([r["status"] for r in body["results"]], ["no_gpu", "no_gpu", "compile_error"])
        self.assertEqual(body["results"][2]["task"], "relu")

    def test_group_reward(self):
        outcomes = [{"passed_turn": 1, "speedup": 2.0}, {"passed_turn": 2}, {"passed_turn": None},
                    {"passed_turn": 1, "speedup": 1.0}]
        status, body, _ = self.daemon.request("POST", "/v1/group_reward",
                                              {"outcomes": outcomes, "mode": "rank", "tie_break": True,
                                               "dcp": {"tau_min": 1, "tau_max": 3}})
        self.assertEqual(status, 200, body)
        # Order: first-turn pass (faster) > first-turn pass > second-turn pass > failure.
        self.assertEqual(body["rewards"], [1.0, -1.0 / 3, -1.0, 1.0 / 3])
        self.assertTrue(body["admitted"])
        status, body, _ = self.daemon.request("POST", "/v1/group_reward",
                                              {"outcomes": [{"passed_turn": 1, "reward": 1.0},
                                                            {"passed_turn": None, "reward": -1.0}],
                                               "mode": "dr_grpo"})
        self.assertEqual(body["advantages"], [1.0, -1.0])
        status, body, _ = self.daemon.request("POST", "/v1/group_reward",
                                              {"outcomes": [{"passed_turn": 1}], "dcp": {"tau_min": 1,
                                                                                         "tau_max": 2}})
        self.assertFalse(body["admitted"])
        self.assertEqual(body["advantages"], [0.0])

    def test_metrics(self):
        self.daemon.request("GET", "/healthz")
        status, text, response = self.daemon.request("GET", "/metrics")
        self.assertEqual(status, 200)
        self.assertIn('cudaperf_requests_total{endpoint="/healthz",status="200"}', text)
        self.assertIn("cudaperf_cache_hits_total", text)
        self.assertIn("cudaperf_evaluations_in_flight", text)

    # -- errors
    def test_400_malformed_truncated_and_wrong_types(self):
        status, body, _ = self.daemon.request("POST", "/v1/evaluate", raw='{"task": "vector_add", "sour')
        self.assertEqual(status, 400)
        self.assertError(status, body, "bad_request", "malformed JSON")
        status, body, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add"})
        self.assertEqual(status, 400)
        self.assertError(status, body, "bad_request", "'source'")
        status, body, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": 5})
        self.assertError(status, body, "bad_request", "'source' must be a string")
        status, body, _ = self.daemon.request("POST", "/v1/evaluate",
                                              {"task": "vector_add", "source": "x", "turn": "two"})
        self.assertError(status, body, "bad_request", "'turn'")
        status, body, _ = self.daemon.request("POST", "/v1/evaluate_batch", {"items": [{"task": "relu"}]})
        self.assertError(status, body, "bad_request", "items[0].source")
        status, body, _ = self.daemon.request("POST", "/v1/group_reward", {"outcomes": [{"speedup": 1}]})
        self.assertError(status, body, "bad_request", "outcomes[0].passed_turn")
        status, body, _ = self.daemon.request("POST", "/v1/evaluate", raw="[1, 2]")
        self.assertEqual(status, 400)

    def test_404_405(self):
        status, body, _ = self.daemon.request("GET", "/v2/nothing")
        self.assertEqual(status, 404)
        self.assertError(status, body, "not_found")
        status, body, _ = self.daemon.request("GET", "/v1/tasks/no_such_task")
        self.assertError(status, body, "unknown_task")
        status, body, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "no_such_task", "source": "x"})
        self.assertEqual(status, 404)
        status, body, response = self.daemon.request("GET", "/v1/evaluate")
        self.assertEqual(status, 405)
        self.assertEqual(response.getheader("Allow"), "POST")
        status, body, _ = self.daemon.request("DELETE", "/healthz")
        self.assertEqual(status, 405)

    def test_413_ten_mebibyte_body(self):
        body = json.dumps({"task": "vector_add", "source": "x" * (10 << 20)})
        try:
            status, answer, _ = self.daemon.request("POST", "/v1/evaluate", raw=body)
        except (ConnectionResetError, BrokenPipeError):
            self.fail("the daemon dropped the connection instead of answering 413")
        self.assertEqual(status, 413)
        self.assertError(status, answer, "payload_too_large")
        self.assertEqual(self.daemon.request("GET", "/healthz")[0], 200)

    def test_bad_http_is_400(self):
        with socket.create_connection(("127.0.0.1", self.daemon.port), timeout=10) as s:
            s.sendall(b"THIS IS NOT HTTP\r\n\r\n")
            answer = s.recv(4096).decode(errors="replace")
        self.assertIn("400", answer.split("\r\n")[0])

    def test_stalled_half_request_does_not_block_others(self):
        stalled = socket.create_connection(("127.0.0.1", self.daemon.port), timeout=30)
        stalled.sendall(b"POST /v1/evaluate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"task\": ")
        start = time.time()
        for _ in range(5):
            self.assertEqual(self.daemon.request("GET", "/healthz", timeout=5)[0], 200)
        self.assertLess(time.time() - start, 5)
        stalled.close()

    def test_64_concurrent_clients(self):
        source = variant("concurrent")
        self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})

        def one(i):
            if i % 2:
                return self.daemon.request("GET", "/healthz")[0]
            status, body, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
            return status if body.get("cached") else -1

        with concurrent.futures.ThreadPoolExecutor(64) as pool:
            statuses = list(pool.map(one, range(256)))
        self.assertEqual(statuses, [200] * 256)

    def test_keep_alive(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.daemon.port, timeout=10)
        for _ in range(3):
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            response.read()
            self.assertEqual(response.status, 200)
        connection.close()

    def test_trainer_examples(self):
        os.environ["CUDAPERF_URLS"] = "http://127.0.0.1:%d" % self.daemon.port
        sys.path.insert(0, os.path.join(TASKS, "..", "docs", "examples"))
        import trl_reward
        import verl_compute_score
        completion = "Here it is:\n```cuda\n%s```\n" % variant("example")
        rewards = trl_reward.cudaperf_reward(["p", "p"], [completion, "no code at all"], task=["vector_add"] * 2)
        self.assertEqual(len(rewards), 2)
        self.assertEqual(rewards[1], -3.0)  # does not compile
        score = verl_compute_score.compute_score("cudaperf", completion, "vector_add", {"task": "vector_add"})
        # No GPU here: no_gpu, unscored; the score is the daemon's own total for that source.
        status, direct, _ = self.daemon.request("POST", "/v1/evaluate", {
            "task": "vector_add", "source": verl_compute_score.extract_code(completion)})
        self.assertEqual(direct["status"], "no_gpu")
        self.assertEqual(score["score"], direct["reward"]["total"])
        self.assertEqual((score["passed"], score["r_ver"]), (0.0, 0.0))
        batch = verl_compute_score.compute_score_batch(["d"] * 2, [completion, "x"], ["vector_add"] * 2, [{}, {}])
        self.assertEqual(batch[1]["score"], -3.0)

    def test_client_cli(self):
        if not CLIENT:
            self.skipTest("no client given")
        out = subprocess.run([CLIENT, "--url", "http://127.0.0.1:%d" % self.daemon.port, "tasks"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("vector_add", out.stdout)


class LimitsTest(unittest.TestCase):
    def test_503_when_the_queue_is_full_and_504_past_the_deadline(self):
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--queue-capacity", "2", "--request-deadline-seconds", "0.3")
            try:
                items = [{"task": "vector_add", "source": variant("queue-%d" % i)} for i in range(3)]
                status, body, response = daemon.request("POST", "/v1/evaluate_batch", {"items": items})
                self.assertEqual(status, 503)
                self.assertEqual(body["error"]["code"], "queue_full")
                self.assertEqual(response.getheader("Retry-After"), "5")
                # A compile takes longer than 0.3 s: 504, and the work goes on into the store.
                source = variant("deadline")
                status, body, _ = daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
                self.assertEqual(status, 504, body)
                self.assertEqual(body["error"]["code"], "deadline")
                for _ in range(100):
                    status, body, _ = daemon.request("POST", "/v1/evaluate",
                                                     {"task": "vector_add", "source": source})
                    if status == 200:
                        break
                    time.sleep(0.5)
                self.assertEqual(status, 200)
                self.assertTrue(body["cached"])
            finally:
                daemon.stop()


class GpuQueuePathTest(unittest.TestCase):
    """--gpus 0 forces the GPU path (reference outputs for a fresh secret seed
    per evaluation, the GPU queue, the judge) even here: without a device the
    judge answers no_gpu for every candidate, unscored, without starting a
    worker (the workers' isolation is tested by test/unit/JudgeTest.cpp)."""

    def test_batch_goes_through_the_judge(self):
        with tempfile.TemporaryDirectory() as workdir:
            # Not every task's baseline compiled at start (30 nvcc runs here): this batch needs one task.
            daemon = Daemon(workdir, "--gpus", "0", "--harness-wall-seconds", "20", "--prepare-tasks-at-start",
                            "false")
            try:
                items = [{"task": "vector_add", "source": variant("queue-path-%d" % i)} for i in range(3)]
                start = time.time()
                status, body, _ = daemon.request("POST", "/v1/evaluate_batch", {"items": items}, timeout=600)
                self.assertEqual(status, 200, body)
                self.assertLess(time.time() - start, 300)
                # The variant is correct: ok where the judge has a GPU, no_gpu where it has none.
                expected = "ok" if os.path.exists("/dev/nvidia0") else "no_gpu"
                for result in body["results"]:
                    # Answered by the judge itself, not a start failure. With
                    # a GPU one judge is kept for the whole batch; a judge
                    # whose GPU did not come up answers no_gpu and is replaced,
                    # so each of those answers comes from a judge of its own.
                    self.assertEqual(result["status"], expected, result)
                    self.assertIn("judge", result, result)
                    self.assertEqual(result["judge"]["outcome"], "running", result)
                    if result["status"] == "ok":
                        self.assertEqual(result["judge"]["judges_started"], 1, result)
                    else:
                        self.assertEqual(result["judge"]["evaluations"], 1, result)
                    self.assertNotIn("replay", result, "the secret seed stays in the store")
                    if result["status"] == "no_gpu":
                        self.assertIsNone(result["reward"]["r_ver"], "no GPU: unscored")
            finally:
                daemon.stop()


class MachineVerdictTest(unittest.TestCase):
    """A judge that cannot answer is the machine's trouble: the answer says harness_error, and nothing is
    stored, so the same source is judged afresh once the machine is sound (a stored harness_error would stand
    for that source for good, and score it 0, above every failure)."""

    def test_a_harness_error_is_answered_and_never_stored(self):
        worker = os.path.join(os.path.dirname(CUDAPERFD), "cudaperf-worker")
        if not os.path.exists(worker):
            self.skipTest("cudaperf-worker not built")
        with tempfile.TemporaryDirectory() as workdir:
            broken = os.path.join(workdir, "broken")
            os.makedirs(broken)
            with open(os.path.join(broken, "cudaperf-judge"), "w") as judge:
                judge.write("#!/bin/sh\nexit 3\n")  # starts, and ends before reading a request
            os.chmod(os.path.join(broken, "cudaperf-judge"), 0o755)
            shutil.copy2(worker, broken)
            daemon = Daemon(workdir, "--gpus", "0", "--judge", os.path.join(broken, "cudaperf-judge"),
                            "--prepare-tasks-at-start", "false")
            try:
                source = variant("machine-verdict")
                answers = [daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
                           for _ in range(2)]
            finally:
                daemon.stop()
            for status, body, _ in answers:
                self.assertEqual(status, 200, body)
                self.assertEqual(body["status"], "harness_error", body)
                self.assertIn("cannot start the judge", body["error"])
                self.assertFalse(body["cached"], "a machine's verdict came back from the store")
                self.assertIs(body.get("machine_verdict"), True, body)  # the reward client asks again
                self.assertNotIn("id", body)
            stored = sqlite3.connect(os.path.join(workdir, "store.sqlite")).execute(
                "SELECT COUNT(*) FROM evaluations").fetchone()[0]
            self.assertEqual(stored, 0)


    def test_a_stored_machine_verdict_is_never_served(self):
        """This build stores none, and an older build's rows are under its own keys; a row put there by other
        means (forged here under this build's key) is still not served: judged afresh each time, it stays."""
        with tempfile.TemporaryDirectory() as workdir:
            source = variant("stored-machine-verdict")
            daemon = Daemon(workdir)
            try:
                _, first, _ = daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
            finally:
                daemon.stop()
            self.assertEqual(first["status"], "no_gpu", first)
            store = sqlite3.connect(os.path.join(workdir, "store.sqlite"))
            row = json.loads(store.execute("SELECT result_json FROM evaluations WHERE id = ?",
                                           (first["id"],)).fetchone()[0])
            row.update(status="harness_error", error="cannot start the judge: it ended before reading the request")
            store.execute("UPDATE evaluations SET status = 'harness_error', result_json = ? WHERE id = ?",
                          (json.dumps(row), first["id"]))
            store.commit()
            store.close()
            daemon = Daemon(workdir)
            try:  # twice: the fast path (cachedAnswer) and the evaluation's own lookup both skip it
                answers = [daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})[1]
                           for _ in range(2)]
            finally:
                daemon.stop()
            for again in answers:
                self.assertEqual(again["status"], "no_gpu", again)
                self.assertFalse(again["cached"], "a stored machine's verdict was served")
            stored = sqlite3.connect(os.path.join(workdir, "store.sqlite")).execute(
                "SELECT COUNT(*), MIN(status) FROM evaluations").fetchone()
            self.assertEqual(stored, (1, "harness_error"))  # nothing rewritten


class DurabilityTest(unittest.TestCase):
    def test_restart_on_an_existing_database(self):
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir)
            _, first, _ = daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": variant("r")})
            daemon.stop()
            daemon = Daemon(workdir)
            try:
                _, again, _ = daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": variant("r")})
                self.assertTrue(again["cached"])
                self.assertEqual(again["id"], first["id"])
            finally:
                daemon.stop()
            exported = subprocess.run([CUDAPERFD, "export", "--db", daemon.db, "--format", "jsonl"],
                                      capture_output=True, text=True, timeout=60)
            lines = [json.loads(l) for l in exported.stdout.splitlines()]
            self.assertEqual(len(lines), 1)
            self.assertEqual(lines[0]["task"], "vector_add")
            self.assertIn("speedup", lines[0])
            self.assertEqual(sorted(lines[0]["features"]), sorted(FEATURE_KEYS))
            # The join key of scripts/collect-ranker-data: SHA-256 of the source's
            # 8-byte little-endian length and its bytes.
            data = variant("r").encode()
            self.assertEqual(lines[0]["source_hash"],
                             hashlib.sha256(len(data).to_bytes(8, "little") + data).hexdigest())

    def test_kill_9_during_a_batch_loses_no_answered_evaluation(self):
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir)
            answered = []
            lock = threading.Lock()

            def single(i):
                try:
                    # Queued behind the batch's eight compiles on a loaded 2-core CI machine a
                    # single can take over a minute: wait as long as the test does.
                    status, body, _ = daemon.request("POST", "/v1/evaluate",
                                                     {"task": "vector_add", "source": variant("single-%d" % i)},
                                                     timeout=290)
                    if status == 200:
                        with lock:
                            answered.append(body["key"] if "key" in body else body["id"])
                except (ConnectionError, OSError, http.client.HTTPException):
                    pass

            def run_batch():
                try:
                    daemon.request("POST", "/v1/evaluate_batch",
                                   {"items": [{"task": "vector_add", "source": variant("batch9-%d" % i)}
                                              for i in range(8)]}, timeout=60)
                except (ConnectionError, OSError, http.client.HTTPException):
                    pass  # killed mid-batch, as intended

            batch = threading.Thread(target=run_batch)
            batch.daemon = True
            batch.start()
            singles = [threading.Thread(target=single, args=(i,)) for i in range(6)]
            for t in singles:
                t.start()
                time.sleep(0.4)
            waited = time.time()
            while len(answered) < 2:
                self.assertLess(time.time() - waited, 300, "two single evaluations never answered")
                time.sleep(0.1)
            daemon.process.kill()  # kill -9, mid-batch
            daemon.process.wait()
            for t in singles:
                t.join()
            with lock:
                keys = list(answered)
            database = sqlite3.connect(daemon.db)
            self.assertEqual(database.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            stored = {row[0] for row in database.execute("SELECT request_key FROM evaluations")}
            database.close()
            self.assertTrue(set(keys) <= stored, (keys, stored))
            daemon.stop()
            restarted = Daemon(workdir)
            try:
                self.assertEqual(restarted.request("GET", "/healthz")[0], 200)
            finally:
                restarted.stop()


# A real Clang 19.1 crash (llvm-project issue 150738: a lambda's default
# argument naming a parameter of the enclosing function template).
CLANG_CRASHER = """template <class T>
void foo(T x) {
  [](T=x) {}();
};

void test() {
  foo(0);
}
__global__ void k(float *x) { x[threadIdx.x] = 0; }
"""
# A hostile candidate (class 13): the crasher where only Clang reads it, beside
# a correct kernel: nvcc compiles the file, the analysis of it dies.
BLIND_THE_ANALYSIS = open(os.path.join(TASKS, "..", "test", "hostile", "vector_add", "blind_the_analysis.cu")).read()
CLANG_ONLY_CRASHER = BLIND_THE_ANALYSIS[BLIND_THE_ANALYSIS.index("#ifdef __clang__"):
                                        BLIND_THE_ANALYSIS.index("#endif") + len("#endif\n")]
# Six nested macros: ten to the eighth tokens, a parse that would not end.
MACRO_BOMB = "#define A0 x x x x x x x x x x\n" + "".join(
    "#define A%d %s\n" % (i, " ".join(["A%d" % (i - 1)] * 10)) for i in range(1, 9)) + "int v = A8;\n"
SIMPLE = "__global__ void k(float *x) { x[threadIdx.x] = 1; }\n"


def read_hostile(task, name):
    return open(os.path.join(TASKS, "..", "test", "hostile", task, name)).read()


def decoy_sides(source, condition):
    """The two kernels a decoy holds, each written alone: (the #if branch, the #else branch)."""
    head, rest = source.split(condition, 1)
    first, rest = rest.split("#else\n", 1)
    second, tail = rest.split("#endif\n", 1)
    return head + first + tail, head + second + tail


def resident_megabytes(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0


class AnalysisIsolationTest(unittest.TestCase):
    """The analysis of hostile source runs in sandboxed servers: a Clang crash
    or a runaway parse costs that request an error, never the daemon."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.daemon = Daemon(cls.tmp.name, "--analysis-timeout-seconds", "5", "--analysis-servers", "2")
        status, body, _ = cls.daemon.request("GET", "/healthz")
        if not body.get("analysis"):
            raise unittest.SkipTest("built without the analysis server")

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        cls.tmp.cleanup()

    def test_a_clang_crash_costs_only_its_request(self):
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": CLANG_CRASHER})
        self.assertEqual(status, 422, body)
        self.assertIn("crashed", body["error"])
        self.assertIn("signal 11", body["error"])
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": SIMPLE})
        self.assertEqual(status, 200, body)
        # In an evaluation the crash is a features error beside the compile's verdict.
        status, body, _ = self.daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": CLANG_CRASHER})
        self.assertEqual(status, 200, body)
        self.assertIn("crashed", body["features"]["error"])
        self.assertEqual(body["status"], "compile_error")
        _, metrics, _ = self.daemon.request("GET", "/metrics")
        self.assertRegex(metrics, r"cudaperf_analysis_crashes_total [1-9]")

    def test_a_macro_bomb_is_stopped_at_its_deadline_while_others_are_served(self):
        answers = {}

        def bomb():
            start = time.time()
            answers["bomb"] = self.daemon.request("POST", "/v1/analyze", {"source": MACRO_BOMB})[:2]
            answers["bomb_seconds"] = time.time() - start

        thread = threading.Thread(target=bomb)
        thread.start()
        time.sleep(1)
        start = time.time()
        status, body, _ = self.daemon.request("POST", "/v1/analyze", {"source": SIMPLE})
        self.assertEqual(status, 200, body)
        self.assertLess(time.time() - start, 3, "a request waited behind the bomb")
        thread.join(timeout=60)
        status, body = answers["bomb"]
        self.assertEqual(status, 422, body)
        self.assertIn("did not finish within 5 s", body["error"])
        self.assertLess(answers["bomb_seconds"], 10)
        self.assertLess(resident_megabytes(self.daemon.process.pid), 1024)
        status, body, _ = self.daemon.request("GET", "/healthz")
        self.assertEqual(body["status"], "ok")


class StoreKeyTest(unittest.TestCase):
    def test_a_rebuilt_component_misses_the_cache(self):
        built = os.path.dirname(os.path.abspath(CUDAPERFD))
        judge = os.path.join(built, "cudaperf-judge")
        if not os.path.exists(judge):
            self.skipTest("cudaperf-judge not built")
        with tempfile.TemporaryDirectory() as workdir:
            source = variant("store-key")
            daemon = Daemon(workdir)
            try:
                _, first, _ = daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
                _, again, _ = daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
                self.assertTrue(again["cached"])
            finally:
                daemon.stop()
            # The same judge, rebuilt: one byte more (an ELF ignores what follows its sections).
            rebuilt = os.path.join(workdir, "rebuilt")
            os.makedirs(rebuilt)
            for name in ("cudaperf-judge", "cudaperf-worker"):
                shutil.copy2(os.path.join(built, name), rebuilt)
            with open(os.path.join(rebuilt, "cudaperf-judge"), "ab") as binary:
                binary.write(b"\0")
            daemon = Daemon(workdir, "--judge", os.path.join(rebuilt, "cudaperf-judge"))
            try:
                _, after, _ = daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": source})
                self.assertFalse(after["cached"], "a new build served the old build's answer")
                self.assertNotEqual(after["key"], first["key"])
            finally:
                daemon.stop()


@unittest.skipUnless(TRAINER, "cudaperf-train not built")
class TrainedRankerTest(unittest.TestCase):
    def test_daemon_score_equals_the_trainers(self):
        """R_str from the daemon (plain C++) equals cudaperf-train's LibTorch score of the same features."""
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                vectors, daemon_scores = [], []
                for name in sorted(os.listdir(os.path.join(TASKS, "gemm", "variants"))):
                    source = open(os.path.join(TASKS, "gemm", "variants", name)).read()
                    # With the task: blocks and threads are known inputs too.
                    status, report, _ = daemon.request("POST", "/v1/analyze", {"source": source, "task": "gemm"})
                    self.assertEqual(status, 200, report)
                    self.assertNotIn("blocks", report["features_unknown"])
                    # What the score reads: the 11, the extended features and the unknown list.
                    vectors.append(json.dumps(dict({key: report[key] for key in ("features", "extended",
                                                                                 "features_unknown") if key in report},
                                                   task="gemm")))
                    daemon_scores.append(report["r_str"])
                # The same lines with the reference inline (kernels of no bundled task are scored so): the
                # daemon's own report of gemm's baseline.cu, and no --baselines.
                status, base, _ = daemon.request("POST", "/v1/analyze", {
                    "source": open(os.path.join(TASKS, "gemm", "baseline.cu")).read(), "task": "gemm"})
                self.assertEqual(status, 200, base)
                reference = {key: base[key] for key in ("features", "extended", "features_unknown") if key in base}
                inline = [json.dumps(dict({k: v for k, v in json.loads(line).items() if k != "task"},
                                          baseline=reference)) for line in vectors]
            finally:
                daemon.stop()
            scored = subprocess.run(SCORE, input="\n".join(vectors),
                                    capture_output=True, text=True, timeout=120, check=True)
            trainer_scores = [float(x) for x in scored.stdout.split()]
            self.assertEqual(len(trainer_scores), len(daemon_scores))
            for ours, theirs in zip(daemon_scores, trainer_scores):
                self.assertAlmostEqual(ours, theirs, delta=1e-6)
            scored = subprocess.run([TRAINER, "score", "--ranker", BUNDLED_RANKER], input="\n".join(inline),
                                    capture_output=True, text=True, timeout=120, check=True)
            for ours, theirs in zip(daemon_scores, [float(x) for x in scored.stdout.split()]):
                self.assertAlmostEqual(ours, theirs, delta=1e-6)
            # Neither a task with a baseline row nor a baseline of its own: a clear error, no score.
            refused = subprocess.run([TRAINER, "score", "--ranker", BUNDLED_RANKER], input=vectors[0],
                                     capture_output=True, text=True, timeout=120)
            self.assertNotEqual(refused.returncode, 0)
            self.assertIn("baseline", refused.stderr)
            self.assertGreater(len(set(daemon_scores)), 1)  # the variants are told apart

    def test_a_doubt_added_to_a_poor_launch_shape_does_not_lift_r_str(self):
        """test/hostile/relu/launch_shape_laundered.cu (class 13): its launch of 32-thread blocks, which the
        ranker scores below its mean, plus a no-op launch in a loop the walk does not decide. Blocks and threads
        are unknown, yet R_str is no higher than the same launch written plainly (the lowest of the unknown's
        score and each sized launch's), and cudaperf-train score gives the same number from the report."""
        laundered = read_hostile("relu", "launch_shape_laundered.cu")
        plain = laundered[:laundered.index("  for (int pass")] + "}\n"
        wide = plain.replace("<<<(n + 31) / 32, 32>>>", "<<<(n + 255) / 256, 256>>>").replace(
            "blockIdx.x * 32", "blockIdx.x * 256")
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                reports = {}
                for name, source in (("laundered", laundered), ("plain", plain), ("wide", wide)):
                    status, reports[name], _ = daemon.request("POST", "/v1/analyze", {"source": source, "task": "relu"})
                    self.assertEqual(status, 200, reports[name])
                status, evaluated, _ = daemon.request("POST", "/v1/evaluate", {"task": "relu", "source": laundered})
                self.assertEqual(status, 200, evaluated)
            finally:
                daemon.stop()
        self.assertIn("blocks", reports["laundered"]["features_unknown"])
        self.assertIn("runs or not", reports["laundered"]["entry_launches_problem"])
        self.assertNotIn("blocks", reports["plain"]["features_unknown"])
        # The shape is poor by the ranker's own reading (a 256-thread launch scores higher), so the doubt must
        # not score it at the mean.
        self.assertGreater(reports["wide"]["r_str"], reports["plain"]["r_str"] + 0.1)
        self.assertLessEqual(reports["laundered"]["r_str"], reports["plain"]["r_str"] + 1e-9)
        self.assertAlmostEqual(evaluated["reward"]["r_str_absolute"], reports["laundered"]["r_str"], delta=1e-9)
        self.assertTrue(reports["laundered"]["entry_launches_complete"])  # every launch sized: one of them stands
        line = json.dumps(dict({key: reports["laundered"][key] for key in (
            "features", "extended", "features_unknown", "entry_launches", "entry_launches_complete")}, task="relu"))
        scored = subprocess.run(SCORE, input=line,
                                capture_output=True, text=True, timeout=120, check=True)
        self.assertAlmostEqual(float(scored.stdout), reports["laundered"]["r_str"], delta=1e-6)

    def test_a_launch_the_walk_could_not_size_leaves_the_shape_neutral(self):
        """No false penalty: an honest reduction whose main grid comes from the SM count (unsized) and whose
        second launch is one block is scored as unknown (the training mean), not as that block; the same
        report with the block standing would score far lower."""
        source = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                                   "sum_reduction_sm_count_grid.cu")).read()
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                status, report, _ = daemon.request("POST", "/v1/analyze", {"source": source, "task": "sum_reduction"})
            finally:
                daemon.stop()
        self.assertEqual(status, 200, report)
        self.assertIn("blocks", report["features_unknown"])
        self.assertFalse(report["entry_launches_complete"], report.get("entry_launches_problem"))
        self.assertEqual([launch["blocks"] for launch in report["entry_launches"]], [1])
        vector = dict({key: report[key] for key in ("features", "extended", "features_unknown")}, task="sum_reduction")
        as_if_complete = dict(vector, entry_launches=report["entry_launches"], entry_launches_complete=True)
        scored = subprocess.run(SCORE,
                                input=json.dumps(vector) + "\n" + json.dumps(as_if_complete),
                                capture_output=True, text=True, timeout=120, check=True)
        at_mean, block_standing = (float(x) for x in scored.stdout.split())
        self.assertAlmostEqual(report["r_str"], at_mean, delta=1e-6)
        self.assertLess(block_standing, at_mean - 0.5)  # what the rule would have cost an honest file

    def test_r_str_is_measured_from_the_tasks_baseline(self):
        """An evaluation's R_str is the candidate's score less that of its task's baseline.cu: the baseline
        itself gets 0, a variant its score less the baseline's; r_str_reference none keeps the absolute."""
        baseline = open(os.path.join(TASKS, "transpose", "baseline.cu")).read()
        padded = open(os.path.join(TASKS, "transpose", "variants", "tiled_padded.cu")).read()
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                scores = {}
                for name, source in (("baseline", baseline), ("padded", padded)):
                    # As the evaluation analyses them: with their task, launches sized at its benchmark size.
                    status, report, _ = daemon.request("POST", "/v1/analyze", {"source": source, "task": "transpose"})
                    self.assertEqual(status, 200, report)
                    scores[name] = report["r_str"]
                status, own, _ = daemon.request("POST", "/v1/evaluate", {"task": "transpose", "source": baseline})
                self.assertEqual(status, 200, own)
                self.assertAlmostEqual(own["reward"]["r_str"], 0.0, delta=1e-9)
                self.assertAlmostEqual(own["reward"]["r_str_baseline"], scores["baseline"], delta=1e-9)
                status, answer, _ = daemon.request("POST", "/v1/evaluate", {"task": "transpose", "source": padded})
                self.assertEqual(status, 200, answer)
                reward = answer["reward"]
                self.assertAlmostEqual(reward["r_str_absolute"], scores["padded"], delta=1e-9)
                self.assertAlmostEqual(reward["r_str"], scores["padded"] - scores["baseline"], delta=1e-9)
                self.assertGreater(reward["r_str"], 0, "the padded tile is structurally better than the naive copy")
                self.assertAlmostEqual(reward["total"], reward["lambda_str"] * reward["r_str"], delta=1e-9)  # no_gpu
            finally:
                daemon.stop()
            absolute = Daemon(os.path.join(workdir, "absolute"), "--ranker", BUNDLED_RANKER,
                              "--r-str-reference", "none")
            try:
                status, answer, _ = absolute.request("POST", "/v1/evaluate", {"task": "transpose", "source": padded})
                self.assertEqual(status, 200, answer)
                self.assertAlmostEqual(answer["reward"]["r_str"], scores["padded"], delta=1e-9)
                self.assertIsNone(answer["reward"]["r_str_baseline"])
            finally:
                absolute.stop()

    def test_a_source_that_does_not_compile_earns_no_structure_credit(self):
        """An answer that did not pass every test (here a failed compile) takes only R_str's negative part: the
        padded tile with an undeclared name still reads as a good transpose (R_str above 0 and reported), but
        its total is the compile penalty alone; r_str_credit_when_failed restores CudaPerf's -3 + R_str."""
        padded = open(os.path.join(TASKS, "transpose", "variants", "tiled_padded.cu")).read()
        broken = padded + "\nstatic int broken_on_purpose = name_nobody_declared;\n"
        with tempfile.TemporaryDirectory() as workdir:
            for credit in (False, True):
                config = os.path.join(workdir, "credit-%s.json" % credit)
                with open(config, "w") as out:
                    json.dump({"r_str_credit_when_failed": credit}, out)
                daemon = Daemon(os.path.join(workdir, str(credit)), "--ranker", BUNDLED_RANKER, "--config", config)
                try:
                    status, answer, _ = daemon.request("POST", "/v1/evaluate", {"task": "transpose", "source": broken})
                    self.assertEqual(status, 200, answer)
                    self.assertEqual(answer["status"], "compile_error")
                    reward = answer["reward"]
                    self.assertGreater(reward["r_str"], 0, reward)
                    if credit:
                        self.assertAlmostEqual(reward["total"], -3.0 + reward["lambda_str"] * reward["r_str"], delta=1e-9)
                    else:
                        self.assertEqual(reward["r_str_applied"], 0.0)
                        self.assertAlmostEqual(reward["total"], -3.0, delta=1e-9)
                finally:
                    daemon.stop()

    def test_a_source_only_clang_cannot_read_gets_the_floor(self):
        """test/hostile/vector_add/blind_the_analysis.cu (class 13) breaks the analysis on purpose with code
        only Clang reads; nvcc compiles it. No structure to score: R_str is the floor (r_str_unreadable,
        default -4), below the same kernel's score when it can be read, never the 0 of "as good as the
        baseline" that a worse-than-baseline kernel would gain from."""
        readable = BLIND_THE_ANALYSIS.replace(CLANG_ONLY_CRASHER, "")
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                status, answer, _ = daemon.request("POST", "/v1/evaluate",
                                                   {"task": "vector_add", "source": BLIND_THE_ANALYSIS})
                self.assertEqual(status, 200, answer)
                self.assertTrue(answer["compile"]["ok"], answer["compile"])
                self.assertIn("crashed", answer["features"]["error"])
                self.assertEqual(answer["reward"]["r_str"], -4.0)
                self.assertIsNone(answer["reward"]["r_str_absolute"])
                self.assertIn("could not read", answer["reward"]["r_str_note"])
                status, honest, _ = daemon.request("POST", "/v1/evaluate", {"task": "vector_add", "source": readable})
                self.assertEqual(status, 200, honest)
                self.assertGreater(honest["reward"]["r_str"], answer["reward"]["r_str"])
            finally:
                daemon.stop()
            configured = Daemon(os.path.join(workdir, "floor"), "--ranker", BUNDLED_RANKER, "--r-str-unreadable", "-2.5")
            try:
                status, answer, _ = configured.request("POST", "/v1/evaluate",
                                                       {"task": "vector_add", "source": BLIND_THE_ANALYSIS})
                self.assertEqual(answer["reward"]["r_str"], -2.5, answer["reward"])
            finally:
                configured.stop()

    def test_an_arch_decoy_scores_as_the_code_that_runs(self):
        """test/hostile/transpose/arch_decoy.cu (class 13): an uncoalesced body under #ifdef __CUDA_ARCH__ (what
        nvcc builds) and a padded shared-memory tile in its #else (what the host pass reads). R_str must be that
        of the code that runs: no higher than the uncoalesced body written alone, and below the tile written
        alone."""
        decoy = read_hostile("transpose", "arch_decoy.cu")
        runs, shown = decoy_sides(decoy, "#ifdef __CUDA_ARCH__\n")
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                scores = {}
                for name, source in (("decoy", decoy), ("runs", runs), ("shown", shown)):
                    status, answer, _ = daemon.request("POST", "/v1/evaluate", {"task": "transpose", "source": source})
                    self.assertEqual(status, 200, answer)
                    self.assertTrue(answer["compile"]["ok"], answer["compile"])
                    scores[name] = answer["reward"]["r_str"]
                    if name == "decoy":
                        branches = answer["features"]["report"]["compiler_branches"]
                        self.assertEqual(branches, [{"macro": "__CUDA_ARCH__", "line": 14, "side": True}])
                        self.assertIn("device_pass", answer["features"]["report"])
                self.assertLess(scores["runs"], scores["shown"], scores)  # the decoy would pay
                self.assertLessEqual(scores["decoy"], scores["runs"] + 1e-9, scores)
            finally:
                daemon.stop()

    def test_a_side_chosen_by_a_header_scores_as_the_code_that_runs(self):
        """test/hostile/transpose/target_macro_decoy.cu (class 13): NV_IF_ELSE_TARGET from <nv/target> picks the
        body by side inside the header, and the file names no side macro. The device pass every analysis adds
        reads the uncoalesced body nvcc builds: R_str is no higher than that body's alone (the arch decoy's
        runs side), below the tile's."""
        decoy = read_hostile("transpose", "target_macro_decoy.cu")
        runs, shown = decoy_sides(read_hostile("transpose", "arch_decoy.cu"), "#ifdef __CUDA_ARCH__\n")
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                scores = {}
                for name, source in (("decoy", decoy), ("runs", runs), ("shown", shown)):
                    status, answer, _ = daemon.request("POST", "/v1/analyze", {"source": source, "task": "transpose"})
                    self.assertEqual(status, 200, answer)
                    scores[name] = answer["r_str"]
                    if name == "decoy":
                        self.assertEqual(answer["compiler_branches"], [])
                        self.assertLess(answer["device_pass"]["features"]["coal"], answer["features"]["coal"])
                self.assertLess(scores["runs"], scores["shown"], scores)
                self.assertLessEqual(scores["decoy"], scores["runs"] + 1e-9, scores)
            finally:
                daemon.stop()

    def test_code_the_build_does_not_have_gets_the_floor(self):
        """test/hostile/transpose/overload_decoy.cu and front_end_decoy.cu (class 13): no preprocessor, Clang and
        nvcc's front end resolve the same text differently (a host/device overload pair picks a template
        instance; an if constexpr on the size of a Clang-only vector type picks a body). The daemon compares the
        analysed kernels with ptxas's facts of the build: an instance never built, or shared memory the build
        lacks, is the floor with a note that says which."""
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                for name, says in (("overload_decoy.cu", "transposeTile<false> (_Z13transposeTileILb0EEvPKfPfii), "
                                                         "which nvcc did not build"),
                                   ("front_end_decoy.cu", "4224 bytes of static shared memory in kernel "
                                                          "transposeTile, and nvcc's build of it has none")):
                    status, answer, _ = daemon.request("POST", "/v1/evaluate",
                                                       {"task": "transpose", "source": read_hostile("transpose", name)})
                    self.assertEqual(status, 200, answer)
                    self.assertTrue(answer["compile"]["ok"], answer["compile"])
                    self.assertEqual(answer["reward"]["r_str"], -4.0, (name, answer["reward"]))
                    self.assertIn(says, answer["reward"]["r_str_note"])
                # The honest tile compiled and read alike: scored, not floored.
                status, honest, _ = daemon.request("POST", "/v1/evaluate", {"task": "transpose", "source": open(
                    os.path.join(TASKS, "transpose", "variants", "tiled_padded.cu")).read()})
                self.assertGreater(honest["reward"]["r_str"], 0.0, honest["reward"])
                self.assertNotIn("r_str_note", honest["reward"])
            finally:
                daemon.stop()

    def test_a_compiler_decoy_gets_the_floor(self):
        """test/hostile/transpose/compiler_decoy.cu and gnuc_decoy.cu (class 13): #ifndef __clang__, or
        #if __GNUC__ >= 5 (gcc 12 in nvcc's device preprocessing, 4 in Clang), hides the code nvcc builds from
        every Clang pass. No structure to trust: the floor, with a note naming the line and the macro."""
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                for name, line, macro in (("compiler_decoy.cu", 13, "__clang__"), ("gnuc_decoy.cu", 13, "__GNUC__")):
                    decoy = read_hostile("transpose", name)
                    status, answer, _ = daemon.request("POST", "/v1/evaluate", {"task": "transpose", "source": decoy})
                    self.assertEqual(status, 200, answer)
                    self.assertEqual(answer["reward"]["r_str"], -4.0, answer["reward"])
                    self.assertIn("line %d tests %s" % (line, macro), answer["reward"]["r_str_note"])
                    status, analyzed, _ = daemon.request("POST", "/v1/analyze", {"source": decoy})
                    self.assertEqual(status, 200, analyzed)
                    self.assertNotIn("r_str", analyzed)
                    self.assertIn(macro, analyzed["r_str_note"])
            finally:
                daemon.stop()

    def test_without_its_baselines_score_an_answer_is_not_stored(self):
        """A task whose baseline.cu the analysis cannot read. The bundled ranker reads a kernel against that
        baseline: no R_str at all (the machine's gap, never the candidate's floor), a note that says why, and
        the answer not stored. A ranker of absolute inputs falls back to the absolute score, not stored under a
        key that says relative either. (The next identical request is computed again.)"""
        with tempfile.TemporaryDirectory() as workdir:
            tasks = os.path.join(workdir, "tasks")
            shutil.copytree(os.path.join(TASKS, "vector_add"), os.path.join(tasks, "vector_add"))
            with open(os.path.join(tasks, "vector_add", "baseline.cu"), "a") as baseline:
                baseline.write(CLANG_ONLY_CRASHER)
            absolute = json.load(open(BUNDLED_RANKER))
            absolute.pop("relative_to_baseline")
            absolute_ranker = os.path.join(workdir, "absolute-ranker.json")
            json.dump(absolute, open(absolute_ranker, "w"))
            for ranker in (BUNDLED_RANKER, absolute_ranker):
                daemon = DaemonProcess(None, tasks, os.path.join(workdir, "run-" + os.path.basename(ranker)), "--gpus",
                                       "", "--ranker", ranker, binary=CUDAPERFD)
                try:
                    body = {"task": "vector_add", "source": variant("baseline-missing")}
                    status, first = daemon.post("/v1/evaluate", body)
                    self.assertEqual(status, 200, first)
                    self.assertIsNone(first["reward"]["r_str_baseline"])
                    if ranker == BUNDLED_RANKER:
                        self.assertIsNone(first["reward"]["r_str"], first["reward"])
                        self.assertIn("baseline.cu could not be analysed", first["reward"]["r_str_note"])
                        self.assertEqual(first["reward"]["total"], 0.0)  # no_gpu: R_ver 0, and no R_str to add
                    else:
                        self.assertIsNotNone(first["reward"]["r_str"])
                        self.assertEqual(first["reward"]["r_str"], first["reward"]["r_str_absolute"])
                    status, again = daemon.post("/v1/evaluate", body)
                    self.assertEqual(status, 200, again)
                    self.assertFalse(again["cached"], "an answer without R_str's reference was stored")
                    self.assertNotIn("id", again)
                finally:
                    daemon.stop()

    def test_a_missing_baseline_never_spares_the_floor(self):
        """transpose with a baseline.cu the analysis cannot read: an honest tile gets no R_str (the machine's
        gap), but test/hostile/transpose/overload_decoy.cu (code the build does not have) still gets the floor:
        a policy gains nothing from a baseline the daemon could not read."""
        with tempfile.TemporaryDirectory() as workdir:
            tasks = os.path.join(workdir, "tasks")
            shutil.copytree(os.path.join(TASKS, "transpose"), os.path.join(tasks, "transpose"))
            with open(os.path.join(tasks, "transpose", "baseline.cu"), "a") as baseline:
                baseline.write(CLANG_ONLY_CRASHER)
            daemon = DaemonProcess(None, tasks, os.path.join(workdir, "run"), "--gpus", "", "--ranker",
                                   BUNDLED_RANKER, binary=CUDAPERFD)
            try:
                status, decoy = daemon.post("/v1/evaluate", {"task": "transpose",
                                                             "source": read_hostile("transpose", "overload_decoy.cu")})
                self.assertEqual(status, 200, decoy)
                self.assertEqual(decoy["reward"]["r_str"], -4.0, decoy["reward"])
                self.assertIn("which nvcc did not build", decoy["reward"]["r_str_note"])
                status, honest = daemon.post("/v1/evaluate", {"task": "transpose", "source": open(
                    os.path.join(TASKS, "transpose", "variants", "tiled_padded.cu")).read()})
                self.assertEqual(status, 200, honest)
                self.assertIsNone(honest["reward"]["r_str"], honest["reward"])
            finally:
                daemon.stop()

    def test_a_task_without_a_baseline_cu_has_no_r_str_and_is_stored(self):
        """A task with no baseline.cu (as an imported KernelBench task has none): the bundled ranker has nothing to
        read a kernel against, so no R_str, a note that says so, and (the task's own property, not the machine's
        gap) the answer is stored: the same request again is served from the store."""
        with tempfile.TemporaryDirectory() as workdir:
            tasks = os.path.join(workdir, "tasks")
            shutil.copytree(os.path.join(TASKS, "vector_add"), os.path.join(tasks, "vector_add"))
            os.remove(os.path.join(tasks, "vector_add", "baseline.cu"))
            daemon = DaemonProcess(None, tasks, os.path.join(workdir, "run"), "--gpus", "", "--ranker",
                                   BUNDLED_RANKER, binary=CUDAPERFD)
            try:
                body = {"task": "vector_add", "source": variant("no-baseline-task")}
                status, first = daemon.post("/v1/evaluate", body)
                self.assertEqual(status, 200, first)
                self.assertIsNone(first["reward"]["r_str"], first["reward"])
                self.assertIn("this task has none", first["reward"]["r_str_note"])
                status, again = daemon.post("/v1/evaluate", body)
                self.assertEqual(status, 200, again)
                self.assertTrue(again["cached"], again)
                status, analyzed = daemon.post("/v1/analyze", {"source": body["source"], "task": "vector_add"})
                self.assertEqual(status, 200, analyzed)
                self.assertNotIn("r_str", analyzed)
                self.assertIn("this task has none", analyzed["r_str_note"])
            finally:
                daemon.stop()

    def test_the_bundled_ranker_needs_the_task_to_score(self):
        """/v1/analyze of a source with no task: the bundled ranker, which reads a kernel against its task's
        baseline, gives no r_str but a note that says to name the task; with the task, an r_str, and the
        task's baseline.cu itself scores what its evaluation's r_str_baseline says."""
        baseline = open(os.path.join(TASKS, "transpose", "baseline.cu")).read()
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                status, bare, _ = daemon.request("POST", "/v1/analyze", {"source": baseline})
                self.assertEqual(status, 200, bare)
                self.assertNotIn("r_str", bare)
                self.assertIn("name the task", bare["r_str_note"])
                status, named, _ = daemon.request("POST", "/v1/analyze", {"source": baseline, "task": "transpose"})
                self.assertEqual(status, 200, named)
                status, own, _ = daemon.request("POST", "/v1/evaluate", {"task": "transpose", "source": baseline})
                self.assertEqual(status, 200, own)
                self.assertAlmostEqual(own["reward"]["r_str_baseline"], named["r_str"], delta=1e-9)
            finally:
                daemon.stop()

    def test_bank_conflicts_lower_the_bundled_rankers_score(self):
        """transpose's padded tile (no bank conflicts, measured 2x faster on the H200) scores above the
        unpadded one, which differs in nothing else the analysis sees; and so does any kernel pair that
        differs only in its conflict ways (the score is monotone in bank)."""
        padded_row = """
__global__ void column_read(const float *in, float *out, int n) {
  __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = in[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x];
  __syncthreads();
  out[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
extern "C" void run(const float *in, float *out, int n) { column_read<<<n / 1024, dim3(32, 32)>>>(in, out, n); }
"""
        with tempfile.TemporaryDirectory() as workdir:
            daemon = Daemon(workdir, "--ranker", BUNDLED_RANKER)
            try:
                def analyzed(source):
                    # Scored against transpose's baseline.cu (bank stays the kernel's own: monotone either way).
                    status, report, _ = daemon.request("POST", "/v1/analyze", {"source": source, "task": "transpose"})
                    self.assertEqual(status, 200, report)
                    return report
                variants = os.path.join(TASKS, "transpose", "variants")
                tiled = analyzed(open(os.path.join(variants, "tiled.cu")).read())
                padded = analyzed(open(os.path.join(variants, "tiled_padded.cu")).read())
                self.assertGreater(padded["r_str"], tiled["r_str"], (padded["r_str"], tiled["r_str"]))
                # Our own pair, in another shape: the same column read of a 32 x 33 and a 32 x 32 tile.
                good = analyzed(padded_row)
                bad = analyzed(padded_row.replace("[32][33]", "[32][32]"))
                self.assertGreater(good["r_str"], bad["r_str"], (good, bad))
            finally:
                daemon.stop()


def byte_chat_tokenizer():
    """tokenizer.json: the 256 bytes (GPT-2's byte-to-unicode map) and the two chat tokens."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    code_points, extra = {}, 0
    for b in range(256):
        if b in printable:
            code_points[b] = b
        else:
            code_points[b] = 256 + extra
            extra += 1
    vocab = {chr(code_points[b]): b for b in range(256)}
    return {"model": {"type": "BPE", "vocab": vocab, "merges": []},
            "added_tokens": [{"id": 256, "content": "<|im_start|>", "special": True},
                             {"id": 257, "content": "<|im_end|>", "special": True}],
            "pre_tokenizer": {"type": "ByteLevel"}}


@unittest.skipUnless(TRAINER, "cudaperf-train not built")
class GrpoAgainstTheDaemonTest(unittest.TestCase):
    def test_two_steps_a_checkpoint_and_a_resume(self):
        """cudaperf-train grpo: a tiny random policy, its completions scored by this cudaperfd through the
        reward client (no GPU here: compile results), a step, a checkpoint, a resumed second step."""
        with tempfile.TemporaryDirectory() as workdir:
            json.dump(byte_chat_tokenizer(), open(os.path.join(workdir, "tokenizer.json"), "w"))
            json.dump({"model_type": "qwen2", "vocab_size": 258, "hidden_size": 32, "intermediate_size": 48,
                       "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                       "max_position_embeddings": 4096, "tie_word_embeddings": True, "eos_token_id": 257},
                      open(os.path.join(workdir, "config.json"), "w"))
            model = os.path.join(workdir, "model")
            subprocess.run([TRAINER, "init", "--config", os.path.join(workdir, "config.json"), "--tokenizer",
                            os.path.join(workdir, "tokenizer.json"), "--out", model], check=True, timeout=120,
                           capture_output=True)
            daemon = Daemon(workdir)
            try:
                out = os.path.join(workdir, "run")
                config = {"model": model, "tasks_dir": TASKS, "tasks": ["relu", "vector_add"], "out_dir": out,
                          "prompts_per_step": 2, "group": 2, "max_new_tokens": 16, "max_turns": 2,
                          "daemon_urls": ["http://127.0.0.1:%d" % daemon.port], "daemon_concurrency": 4,
                          "filter_zero_std": False, "steps": 2, "checkpoint_every": 1, "learning_rate": 1e-3}
                path = os.path.join(workdir, "grpo.json")
                json.dump(config, open(path, "w"))
                first = subprocess.run([TRAINER, "grpo", "--config", path, "--stop-after", "1"],
                                       capture_output=True, text=True, timeout=600)
                self.assertEqual(first.returncode, 0, first.stderr[-3000:])
                self.assertIn('"group":2', first.stderr)  # the config is printed at start
                self.assertEqual(open(os.path.join(out, "latest")).read().strip(), "step-1")
                second = subprocess.run([TRAINER, "grpo", "--config", path, "--resume", "latest"],
                                        capture_output=True, text=True, timeout=600)
                self.assertEqual(second.returncode, 0, second.stderr[-3000:])
                # Every scored completion of both invocations is in the run's completions log, in the
                # daemon's own words, with its source (a failed one's is refinement data) and its feedback.
                scored = [json.loads(line) for line in open(os.path.join(out, "completions.jsonl"))]
                self.assertEqual(sorted({r["step"] for r in scored}), [1, 2])
                for record in scored:
                    self.assertIn(record["task"], ("relu", "vector_add"))
                    self.assertIn(record["turn"], (1, 2))
                    self.assertTrue(record["trained"])
                    self.assertNotEqual(record["status"], "no_answer")
                    self.assertIn("source", record)
                    self.assertTrue(record.get("feedback"), record)
                # The reading of it (scripts/top-completions): every line counted, the best rewards first.
                top = subprocess.run([os.path.join(os.path.dirname(TASKS), "scripts", "top-completions"),
                                      os.path.join(out, "completions.jsonl"), "-n", "3"],
                                     capture_output=True, text=True, timeout=60)
                self.assertEqual(top.returncode, 0, top.stderr)
                lines = top.stdout.splitlines()
                passed = sum(r["status"] == "ok" for r in scored)
                self.assertTrue(lines[0].startswith("%d completions, %d correct" % (len(scored), passed)), lines[0])
                shown = [float(line.split()[0]) for line in lines[2:]]
                best = sorted((r["reward"] for r in scored if r["reward"] is not None), reverse=True)[:3]
                self.assertEqual(shown, [round(float("%.3g" % b), 6) for b in best])
                report_path = os.path.join(workdir, "eval.json")
                evaluated = subprocess.run([TRAINER, "eval", "--model", os.path.join(out, "step-2"), "--tasks-dir",
                                            TASKS, "--tasks", "relu,vector_add", "--samples", "2", "--turns", "2", "--seeds",
                                            "0,1", "--max-new-tokens", "16", "--daemon",
                                            "http://127.0.0.1:%d" % daemon.port, "--out", report_path,
                                            "--completions-out", os.path.join(workdir, "eval-completions.jsonl")],
                                           capture_output=True, text=True, timeout=600)
                self.assertEqual(evaluated.returncode, 0, evaluated.stderr[-3000:])
                report = json.load(open(report_path))
                self.assertEqual(report["seeds"], 2)
                for metric in ("pass@1", "fast_1", "accuracy_turn_1", "cumulative_accuracy_turn_2"):
                    self.assertEqual(len(report["metrics"][metric]["per_seed"]), 2, metric)
                self.assertNotIn("pass@5", report["metrics"])  # k > n has no estimate
                # Both tasks' samples went through the turns batched together, each counted under its task.
                self.assertEqual(sorted(report["correct_per_task"]), ["relu", "vector_add"])
                for counts in report["correct_per_task"].values():
                    self.assertEqual(len(counts), 2)
                    self.assertTrue(all(0 <= c <= 2 for c in counts), counts)
                # Every sample's every turn, with its source: 2 seeds x 2 tasks x 2 samples at turn 1.
                judged = [json.loads(line) for line in open(os.path.join(workdir, "eval-completions.jsonl"))]
                self.assertEqual(len([r for r in judged if r["turn"] == 1]), 8)
                self.assertEqual({(r["seed"], r["task"], r["sample"]) for r in judged},
                                 {(s, t, i) for s in (0, 1) for t in ("relu", "vector_add") for i in (0, 1)})
                self.assertTrue(all(isinstance(r["source"], str) for r in judged))
                first, best = (report["metrics"][m]["per_seed"] for m in ("reward_turn_1", "reward_best_turn"))
                self.assertTrue(all(b >= f for f, b in zip(first, best)), (first, best))
                self.assertIn("pass@1", evaluated.stdout)
            finally:
                daemon.stop()
            records = [json.loads(line) for line in open(os.path.join(out, "log.jsonl"))]
            self.assertEqual([r["step"] for r in records], [1, 2])
            for record in records:
                self.assertGreaterEqual(record["daemon_calls"], 4)  # G x prompts, plus second turns
                self.assertEqual(len(record["pass_rate_per_turn"]), 2)
                self.assertIn("generate", record["seconds"])
                self.assertTrue(math.isfinite(record["loss"]))
                self.assertTrue(math.isfinite(record["reward_mean"]))
                self.assertLess(abs(record["logprob_agreement"] - 1.0), 1e-3)
            # The curves of the run.
            plot = os.path.join(workdir, "curves.png")
            plotted = subprocess.run([os.path.join(os.path.dirname(TASKS), "scripts", "plot-training"),
                                      os.path.join(out, "log.jsonl"), plot], capture_output=True, text=True, timeout=120)
            self.assertEqual(plotted.returncode, 0, plotted.stderr)
            self.assertEqual(open(plot, "rb").read(8), b"\x89PNG\r\n\x1a\n")
            for name in ("model.safetensors", "config.json", "tokenizer.json", "optimizer.safetensors",
                         "trainer_state.json"):
                self.assertTrue(os.path.exists(os.path.join(out, "step-2", name)), name)
            # The checkpoint is a model folder: it generates.
            generated = subprocess.run([TRAINER, "generate", "--model", os.path.join(out, "step-2"), "--prompt",
                                        "__global__", "--max-new-tokens", "4", "--ids"],
                                       capture_output=True, text=True, timeout=120)
            self.assertEqual(generated.returncode, 0, generated.stderr)


if __name__ == "__main__":
    # CUDAPERF_TEST=Class.test_name runs that test alone (a short re-check).
    unittest.main(argv=[sys.argv[0], "-v"] + [name for name in os.environ.get("CUDAPERF_TEST", "").split(",") if name])
