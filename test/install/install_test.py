#!/usr/bin/env python3
"""`cmake --install` into a fresh prefix, then the installed programs used as a
user outside this tree would: the plugin inside clang++-19 and the tool on an
example (their features equal the build tree's), cudaperfd started from
<prefix>/bin finding its analysis server and judge in <prefix>/libexec and
the task suite in <prefix>/share, the client finding the KernelBench importer.
The prefix stays for test/user-lit (the ctest fixture 'installed').

  install_test.py BUILD_DIR PREFIX SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BUILD, PREFIX, SOURCE = (os.path.abspath(a) for a in sys.argv[1:4])
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
from daemon_process import DaemonProcess  # noqa: E402

EXAMPLE = os.path.join(SOURCE, "test", "user-lit", "strided-load.cu")
MOCK_CUDA = ["-nocudainc", "-nocudalib", "--cuda-host-only", "-Wno-unknown-cuda-version"]


def run(*command, **kwargs):
    return subprocess.run(list(command), capture_output=True, text=True, timeout=300, **kwargs)


def kernel_features(report_text):
    report = json.loads(report_text)
    return {k["name"]: k["features"] for k in report["kernels"]}


class Installed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(PREFIX, ignore_errors=True)
        installed = run("cmake", "--install", BUILD, "--prefix", PREFIX)
        if installed.returncode:
            raise RuntimeError("cmake --install failed:\n" + installed.stdout[-3000:] + installed.stderr[-3000:])

    def path(self, *parts):
        return os.path.join(PREFIX, *parts)

    def test_layout(self):
        for part in [("bin", "cudaperf-features"), ("bin", "cudaperfd"), ("bin", "cudaperf"),
                     ("bin", "cudaperf-compile"), ("bin", "cudaperf-evaluate"), ("lib", "cudaperf", "cudaperf.so"),
                     ("libexec", "cudaperf", "cudaperf-analysis-server"),
                     ("share", "cudaperf", "tasks", "vector_add", "task.json"),
                     ("share", "cudaperf", "include", "cuda.h"),
                     ("share", "cudaperf", "cuda-compat", "texture_fetch_functions.h"),
                     ("share", "cudaperf", "scripts", "kernelbench", "import_kernelbench.py"),
                     ("share", "doc", "cudaperf", "api.md"), ("lib", "systemd", "system", "cudaperfd.service")]:
            self.assertTrue(os.path.exists(self.path(*part)), os.path.join(*part))
        if os.path.exists(os.path.join(BUILD, "daemon", "cudaperf-judge")):
            for name in ("cudaperf-judge", "cudaperf-worker"):
                self.assertTrue(os.access(self.path("libexec", "cudaperf", name), os.X_OK), name)
        if os.path.exists(os.path.join(BUILD, "trainer", "cudaperf-train")):
            self.assertTrue(os.access(self.path("bin", "cudaperf-train"), os.X_OK))
        self.assertEqual(len(os.listdir(self.path("share", "cudaperf", "tasks"))),
                         len(os.listdir(os.path.join(SOURCE, "tasks"))))
        unit = open(self.path("lib", "systemd", "system", "cudaperfd.service")).read()
        self.assertIn("ExecStart=%s/bin/cudaperfd " % PREFIX, unit)
        self.assertIn("--tasks %s/share/cudaperf/tasks" % PREFIX, unit)

    def test_plugin_and_tool_agree_with_the_build_tree(self):
        include = ["-isystem", self.path("share", "cudaperf", "include")]
        plugin = run("clang++-19", "-fsyntax-only", *MOCK_CUDA, *include,
                     "-fplugin=" + self.path("lib", "cudaperf", "cudaperf.so"),
                     "-fplugin-arg-cudaperf-format=json", EXAMPLE)
        self.assertEqual(plugin.returncode, 0, plugin.stderr)
        extra = ["--extra-arg=" + a for a in MOCK_CUDA + include]
        tool = run(self.path("bin", "cudaperf-features"), "--format=json", *extra, EXAMPLE)
        self.assertEqual(tool.returncode, 0, tool.stderr)
        built = run(os.path.join(BUILD, "clang-plugin", "cudaperf-features"), "--format=json",
                    *["--extra-arg=" + a for a in MOCK_CUDA + ["-isystem", os.path.join(SOURCE, "test", "lit", "Inputs")]],
                    EXAMPLE)
        self.assertEqual(kernel_features(plugin.stdout), kernel_features(built.stdout))
        self.assertEqual(kernel_features(tool.stdout), kernel_features(built.stdout))
        self.assertEqual(kernel_features(tool.stdout)["gatherColumn"]["coal"], 0.25)

    def test_the_installed_daemon_finds_its_parts(self):
        work = tempfile.mkdtemp(prefix="cudaperf-installed-")
        daemon = DaemonProcess(None, self.path("share", "cudaperf", "tasks"), work, "--gpus", "",
                               binary=self.path("bin", "cudaperfd"), stderr=subprocess.DEVNULL)
        try:
            status, health = daemon.call("GET", "/healthz", timeout=60)
            self.assertEqual(status, 200)
            tasks = [d for d in os.listdir(os.path.join(SOURCE, "tasks"))
                     if os.path.exists(os.path.join(SOURCE, "tasks", d, "task.json"))]
            self.assertEqual(health["tasks"], len(tasks))
            # Served by <prefix>/libexec/cudaperf/cudaperf-analysis-server.
            status, report = daemon.post("/v1/analyze", {"source": open(EXAMPLE).read(), "filename": "k.cu"},
                                         timeout=120)
            self.assertEqual(status, 200, report)
            self.assertEqual(report["features"]["coal"], 0.25)
        finally:
            daemon.stop()
            shutil.rmtree(work, ignore_errors=True)

    def test_the_client_finds_the_kernelbench_importer(self):
        answer = run(self.path("bin", "cudaperf"), "import-kernelbench", "--help",
                     env=dict(os.environ, CUDAPERF_PYTHON=sys.executable))
        self.assertEqual(answer.returncode, 0, answer.stderr)
        self.assertIn("--out", answer.stdout)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
