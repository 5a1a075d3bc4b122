#!/usr/bin/env python3
"""KernelBench-format problems (ours, test/kernelbench/problems) through
`cudaperf import-kernelbench`, then host-memory C candidates through the
judge against the PyTorch reference (no GPU needed):

  - 11 of the 15 problems import (int64 labels and indices, a bool mask, a
    half-precision tensor and a number among the inputs among them), the
    other four are refused with their reason;
  - the entry signatures list the inputs, then parameters and buffers, then outputs;
  - correct candidates are ok, wrong ones (a threshold, a missing bias,
    BatchNorm's evaluation mode for a module in training mode, int64 labels
    read as int32, int64 indices written as int32, an ignored mask) are
    wrong_answer;
  - a reference that cannot run (no Python there) is the task's fault
    (bad_task), never the candidate's;
  - with libcudaperf-eager (a build with LibTorch): every imported task has
    its module traced as the PyTorch eager baseline (baseline_eager.c), which
    the judge times in a sandboxed worker and uses as the timed calls'
    oracle: ok answers carry a speedup against eager, wrong candidates are
    still caught at every call, and an eager graph that cannot open is the
    task's fault (bad_task).

usage: kernelbench_test.py CUDAPERF_CLI CUDAPERF_EVALUATE [LIBCUDAPERF_EAGER]
Exits 77 (skipped) where no Python with torch is found (Debian: python3-torch).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

cli, evaluate = sys.argv[1:3]
eager_runtime = sys.argv[3] if len(sys.argv) > 3 else None
here = os.path.dirname(os.path.abspath(__file__))

python = None
for candidate in [os.environ.get("CUDAPERF_PYTHON"), "/usr/bin/python3", shutil.which("python3")]:
    if candidate and subprocess.run([candidate, "-c", "import torch"], capture_output=True).returncode == 0:
        python = candidate
        break
if python is None:
    print("no Python with torch (Debian python3-torch): skipped")
    sys.exit(77)
environment = dict(os.environ, CUDAPERF_PYTHON=python)

failures = []


def check(condition, what):
    print("%s: %s" % ("PASS" if condition else "FAIL", what))
    if not condition:
        failures.append(what)


# Outside /tmp: the judge's workers have a private one and must read the candidates.
work = tempfile.mkdtemp(prefix="kernelbench-test-", dir=os.getcwd())
os.chmod(work, 0o755)
try:
    tasks = os.path.join(work, "tasks")
    run = subprocess.run([cli, "import-kernelbench", os.path.join(here, "problems"), "--out", tasks, "--memory",
                          "host", "--jobs", "2"], capture_output=True, text=True, env=environment, timeout=900)
    print(run.stdout + run.stderr)
    lines = run.stdout.splitlines()
    refused = {line.split()[0]: line for line in lines if " refused " in line}
    check("11 of 15 imported" in run.stdout and run.returncode == 3,
          "11 of 15 problems imported (exit 3: some refused)")
    check("constant" in refused.get("15_constant_output.py", ""),
          "an output that is one value whatever the inputs is refused with its reason")
    check("depends on the input values" in refused.get("7_positive_values.py", ""),
          "a data-dependent output shape is refused with its reason")
    check("complex64" in refused.get("14_complex_input.py", ""), "a complex64 input is refused with its reason")
    check("not deterministic" in refused.get("9_dropout_train.py", ""), "a random forward (dropout) is refused")

    def spec(name):
        return json.load(open(os.path.join(tasks, name, "task.json")))

    check(spec("kb_4_conv2d")["signature"] ==
          'extern "C" void kb_4_conv2d(const float *x, const float *conv_weight, const float *conv_bias, float *out)',
          "conv2d: input, then the module's weight and bias, then the output")
    check(spec("kb_5_linear_gelu_scale")["signature"] == 'extern "C" void kb_5_linear_gelu_scale(const float *x, '
          'const float *extra_bias, const float *linear_weight, const float *linear_bias, float *out)',
          "named_parameters order: the module's own parameter, then its children's")
    check(spec("kb_2_sum_over_dim")["kernelbench"]["init_inputs"] == [1], "get_init_inputs() is baked in")
    check(spec("kb_8_argmax_indices")["signature"] ==
          'extern "C" void kb_8_argmax_indices(const float *x, long long *out)', "an int64 output is a long long *")
    entropy = {a["name"]: a for a in spec("kb_10_cross_entropy")["args"]}
    check(spec("kb_10_cross_entropy")["signature"] == 'extern "C" void kb_10_cross_entropy(const float *predictions, '
          'const long long *targets, float *out)' and entropy["targets"]["type"] == "int64*" and
          entropy["targets"]["init"] == {"dist": "randint", "low": 0, "high": 10},
          "int64 labels: drawn over the range get_inputs() showed (valid class indices), never a float spread")
    masked = {a["name"]: a for a in spec("kb_11_masked_cumsum")["args"]}
    check(masked["mask"]["type"] == "uint8*" and "const bool *mask" in spec("kb_11_masked_cumsum")["signature"] and
          masked["mask"]["init"] == {"dist": "randint", "low": 0, "high": 2}, "a bool mask: one byte, 0 or 1")
    check(spec("kb_12_half_precision")["signature"] ==
          'extern "C" void kb_12_half_precision(const __half *x, __half *out)' and
          spec("kb_12_half_precision")["args"][0]["type"] == "float16*", "a float16 tensor is a __half buffer")
    scalar = spec("kb_13_scalar_input")
    check(scalar["signature"] == 'extern "C" void kb_13_scalar_input(const float *A, float *out)' and
          "s = 2.5 is fixed" in scalar["description"] and
          scalar["kernelbench"]["baked_inputs"] == [{"position": 1, "name": "s", "value": 2.5}],
          "a number get_inputs() gives alike every draw is baked in and named in the prompt, not an argument")
    bn = {a["name"]: a for a in spec("kb_6_batchnorm_train")["args"]}
    check(bn["bn_running_var"]["init"] == {"dist": "uniform", "low": 0.5, "high": 1.5} and
          bn["bn_weight"]["init"]["dist"] != "constant" and "bn_num_batches_tracked" not in bn,
          "buffers as built (running_var 1, drawn around it, positive), never a constant a candidate could "
          "hard-code; the int64 counter left out")

    refs, candidates = os.path.join(work, "refs"), os.path.join(work, "candidates")
    os.makedirs(refs)
    os.makedirs(candidates)
    os.chmod(candidates, 0o755)

    def build(source, out):
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", out, source, "-lm"], check=True)
        os.chmod(out, 0o755)
        return out

    cases = [("kb_1_relu", "relu_ok.c", "ok"), ("kb_1_relu", "relu_wrong.c", "wrong_answer"),
             # Hostile: hunts for the reference's shared memory in every process it can see.
             ("kb_1_relu", "relu_find_reference_memory.c", "ok"),
             ("kb_2_sum_over_dim", "sum_ok.c", "ok"), ("kb_3_matmul", "matmul_ok.c", "ok"),
             ("kb_4_conv2d", "conv_ok.c", "ok"), ("kb_4_conv2d", "conv_no_bias.c", "wrong_answer"),
             ("kb_5_linear_gelu_scale", "linear_gelu_ok.c", "ok"),
             ("kb_6_batchnorm_train", "batchnorm_ok.c", "ok"),
             ("kb_6_batchnorm_train", "batchnorm_eval_mode.c", "wrong_answer"),
             ("kb_8_argmax_indices", "argmax_ok.c", "ok"), ("kb_8_argmax_indices", "argmax_int32.c", "wrong_answer"),
             ("kb_10_cross_entropy", "cross_entropy_ok.c", "ok"),
             ("kb_10_cross_entropy", "cross_entropy_int32_labels.c", "wrong_answer"),
             ("kb_11_masked_cumsum", "masked_cumsum_ok.c", "ok"),
             ("kb_11_masked_cumsum", "masked_cumsum_unmasked.c", "wrong_answer"),
             ("kb_12_half_precision", "half_relu_ok.c", "ok"),
             ("kb_12_half_precision", "half_relu_as_float.c", "wrong_answer"),
             ("kb_13_scalar_input", "scalar_input_ok.c", "ok"),
             ("kb_13_scalar_input", "scalar_input_wrong.c", "wrong_answer")]

    def eager_baseline(task, shim=None):
        """The task's eager shim built as TaskCatalog builds it (cc against libcudaperf-eager)."""
        library = os.path.join(refs, task + "-eager.so")
        folder = os.path.dirname(os.path.abspath(eager_runtime))
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library,
                        shim or os.path.join(tasks, task, "baseline_eager.c"), "-L" + folder, "-lcudaperf-eager",
                        "-Wl,-rpath," + folder], check=True)
        return library

    def judged(task, library, env, seed="fresh", baseline=None, eager=True):
        reference = os.path.join(refs, task + ".so")
        if not os.path.exists(reference):
            build(os.path.join(tasks, task, "reference.c"), reference)
        if baseline is None and eager_runtime and eager:
            baseline = eager_baseline(task)
        command = [evaluate, "--task", os.path.join(tasks, task), "--reference", reference, "--candidate", library,
                   "--device", "none", "--seed", seed, "--runs", "5", "--warmup", "1"]
        out = subprocess.run(command + (["--baseline", baseline] if baseline else []), capture_output=True,
                             text=True, env=env, timeout=600)
        answers = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        return answers[0] if answers else {"status": "no answer", "error": out.stderr[-500:]}

    against_eager = {"relu_wrong.c", "argmax_int32.c", "half_relu_as_float.c"}
    # Judged with the reference as the timed calls' oracle: the judge loads reference.c, so its shared memory is
    # mapped in the judge and open in the reference's Python server while the candidate runs.
    against_reference = {"relu_find_reference_memory.c"}
    imported = sorted(name for name in os.listdir(tasks) if os.path.exists(os.path.join(tasks, name, "task.json")))
    if eager_runtime:
        traced = [name for name in imported if os.path.exists(os.path.join(tasks, name, "baseline_eager.c"))]
        check(traced == imported, "every imported task has its eager baseline traced (%d of %d)" % (
            len(traced), len(imported)))
    for task, source, expected in cases:
        library = build(os.path.join(here, "candidates", source), os.path.join(candidates, source[:-2] + ".so"))
        # With the eager baseline, every candidate's correctness tests are checked against eager (the CPU
        # reference checks eager itself, on a seed of its own). Most wrong ones are judged without it here
        # (each eager evaluation costs two workers that load LibTorch), where the CPU reference catches them;
        # those in against_eager are caught by eager: a sign, an integer width, a half rounding.
        eager = (expected == "ok" or source in against_eager) and source not in against_reference
        answer = judged(task, library, environment, eager=eager)
        correctness = answer.get("correctness", {})
        check(answer["status"] == expected, "%s with %s: %s (expected %s; %s of %s tests; %s)" % (
            task, source, answer["status"], expected, correctness.get("passed"), correctness.get("total"),
            answer.get("error", "")[:200]))
        if eager_runtime and expected != "bad_task":
            check(correctness.get("expected_from") == ("baseline" if eager else "reference"),
                  "%s with %s: correctness tests checked against %s" % (task, source,
                                                                        correctness.get("expected_from")))
        timing = answer.get("timing", {})
        if eager_runtime and expected == "ok" and eager:
            eager = timing.get("gpu_baseline", {}).get("median_ms", 0)
            check(eager > 0 and timing.get("speedup_gpu", 0) > 0 and
                  timing.get("verified_calls", 0) >= timing.get("timed_calls", 1),
                  "%s: timed against PyTorch eager (%.4f ms, speedup %.2f), every timed call verified by it" % (
                      task, eager, timing.get("speedup_gpu", 0)))

    # The hunter's control: in this process, with the reference loaded and called once (its memory file mapped
    # here, open in its server, a child of this process), it finds the memory; in a worker (above) it found none.
    import ctypes
    import _ctypes
    os.environ["CUDAPERF_PYTHON"] = python
    reference_library = ctypes.CDLL(os.path.join(refs, "kb_1_relu.so"))
    x, y = (ctypes.c_float * (16 * 1024))(*([0.5] * (16 * 1024))), (ctypes.c_float * (16 * 1024))()
    getattr(reference_library, "kb_1_relu")(x, y, *([None] * 10))
    hunter = ctypes.CDLL(os.path.join(candidates, "relu_find_reference_memory.so"))
    seen = hunter.hostile_reference_memories()
    _ctypes.dlclose(reference_library._handle)  # the server and its memory go with the library
    check(y[0] == 0.5 and seen >= 1 and hunter.hostile_reference_memories() == 0,
          "control: the hunter finds the reference's shared memory where it is in reach (%d processes), "
          "and none once the reference is unloaded" % seen)

    # No Python where the reference runs: every output NaN, the task's own verdict.
    broken = dict(environment, CUDAPERF_PYTHON="/nonexistent/python3")
    shutil.rmtree(refs)
    os.makedirs(refs)
    answer = judged("kb_1_relu", os.path.join(candidates, "relu_ok.so"), broken, seed="7")
    check(answer["status"] == "bad_task", "a reference that cannot start is bad_task, not the candidate's (%s: %s)" % (
        answer["status"], answer.get("error", "")[:200]))

    daemon_binary = os.path.join(os.path.dirname(os.path.abspath(evaluate)), "cudaperfd")
    if eager_runtime and os.path.exists(daemon_binary):
        # Through cudaperfd: the daemon compiles the task's eager shim itself (TaskCatalog, trusted cc against
        # libcudaperf-eager beside it) and its answers say what the speedup is against. A judge without a
        # GPU (--judge-device none) serves these host-memory tasks.
        sys.path.insert(0, os.path.join(here, "..", "..", "scripts"))
        from daemon_process import DaemonProcess
        import hashlib

        def torch_compile_timing(task, ratio, device):
            # What time_torch_compile.py writes on the GPU machine (torch.compile is not in Debian's torch 1.13).
            problem = open(os.path.join(tasks, task, "problem.py"), "rb").read()
            with open(os.path.join(tasks, task, "torch_compile.json"), "w") as handle:
                json.dump({"status": "ok", "compiled_over_eager": ratio, "eager_ms": 1.0, "compiled_ms": ratio,
                           "device": device, "problem_key": hashlib.sha256(
                               len(problem).to_bytes(8, "little") + problem).hexdigest()}, handle)

        torch_compile_timing("kb_1_relu", 0.5, "card A")
        with open(os.path.join(tasks, "kb_3_matmul", "torch_compile.json"), "w") as handle:
            handle.write("{ cut short")  # the daemon still starts; that task's answers just lack the field

        def start_daemon():
            return DaemonProcess(None, tasks, os.path.join(work, "daemon"), "--gpus", "0", "--judge-device", "none",
                                 "--harness-wall-seconds", "60", binary=daemon_binary, stderr=subprocess.DEVNULL)

        daemon = start_daemon()
        try:
            source = ('extern "C" void kb_1_relu(const float *x, float *out) {\n'
                      '  for (int i = 0; i < 16 * 1024; ++i)\n    out[i] = x[i] > 0 ? x[i] : 0;\n}\n')
            status, answer = daemon.post("/v1/evaluate", {"task": "kb_1_relu", "source": source}, timeout=600)
            timing = answer.get("timing") or {}
            check(status == 200 and answer.get("status") == "ok" and
                  timing.get("gpu_baseline_source") == "pytorch_eager" and timing.get("speedup", 0) > 0,
                  "through cudaperfd: ok, speedup %.2f against %s (%s)" % (
                      timing.get("speedup", 0), timing.get("gpu_baseline_source"),
                      answer.get("error", answer.get("status"))))
            # Its correctness tests against eager; the reference's outputs (the check seed's) made only when
            # the judge asked for them, on the task's first evaluation: a second one of the task makes none.
            wrong = source.replace("x[i] > 0 ? x[i] : 0", "x[i] > 0 ? x[i] : -x[i]")
            status2, answer2 = daemon.post("/v1/evaluate", {"task": "kb_1_relu", "source": wrong}, timeout=600)
            check(answer.get("correctness", {}).get("expected_from") == "baseline" and
                  status2 == 200 and answer2.get("status") == "wrong_answer" and
                  answer2.get("correctness", {}).get("expected_from") == "baseline",
                  "through cudaperfd: correctness against eager (%s), a wrong candidate caught by it (%s)" % (
                      answer.get("correctness", {}).get("expected_from"), answer2.get("status")))
            check(abs(timing.get("speedup_vs_torch_compile", -1) - 0.5 * timing.get("speedup", 0)) < 1e-9 and
                  timing.get("torch_compile_measured_on") == "card A",
                  "speedup against torch.compile = against eager x compiled/eager (%s, eager %s, on %s)" % (
                      timing.get("speedup_vs_torch_compile"), timing.get("speedup"),
                      timing.get("torch_compile_measured_on")))
        finally:
            daemon.stop()
        # Re-timed (another card): the stored answer is served with the new ratio, the verdict unchanged.
        torch_compile_timing("kb_1_relu", 2.0, "card B")
        daemon = start_daemon()
        try:
            status, again = daemon.post("/v1/evaluate", {"task": "kb_1_relu", "source": source}, timeout=600)
            timed = again.get("timing") or {}
            check(again.get("cached") is True and timed.get("speedup") == timing.get("speedup") and
                  abs(timed.get("speedup_vs_torch_compile", -1) - 2.0 * timed.get("speedup", 0)) < 1e-9 and
                  timed.get("torch_compile_measured_on") == "card B",
                  "a stored answer takes the ratio of the daemon's start, not the one it was stored with (%s)" %
                  timed.get("speedup_vs_torch_compile"))
            status, matmul = daemon.post("/v1/evaluate", {"task": "kb_3_matmul", "source": "int x;\n"}, timeout=600)
            check(status == 200 and "speedup_vs_torch_compile" not in (matmul.get("timing") or {}),
                  "a malformed torch_compile.json leaves its task served without the field (%s)" % matmul.get("status"))
        finally:
            daemon.stop()

    if eager_runtime:
        # A graph that cannot be read (here: its bytes cut short) poisons the oracle's outputs: the task's verdict.
        shim = open(os.path.join(tasks, "kb_1_relu", "baseline_eager.c")).read()
        broken_shim = os.path.join(refs, "relu_broken_eager.c")
        open(broken_shim, "w").write(shim.replace("static const unsigned char kGraph[] = {",
                                                  "static const unsigned char kGraph[] = {0x50, 0x4b, 0x03, 0x04,", 1))
        answer = judged("kb_1_relu", os.path.join(candidates, "relu_ok.so"), environment, seed="8",
                        baseline=eager_baseline("kb_1_relu", broken_shim))
        # Its reason first, from the baseline worker's stderr, before the long answer that poisoned outputs give.
        reason = answer.get("error", "")[:600]
        check(answer["status"] == "bad_task" and "its worker's stderr ends:" in reason and
              "cannot open its graph" in reason,
              "an eager baseline whose graph cannot open is bad_task, not the candidate's, and says why first "
              "(%s: %s)" % (answer["status"], reason[:300]))
finally:
    shutil.rmtree(work, ignore_errors=True)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
