#!/usr/bin/env python3
"""torch.compile against PyTorch eager, for imported KernelBench tasks.

KernelBench reports speedups against eager and, separately, against
torch.compile (inductor). The judge times eager itself (the task's traced
graph, like a candidate); torch.compile has no such graph, so this measures
the ratio compiled / eager once per task, on the GPU the tasks are served
from, in one trusted Python process per task: the problem's module built
from get_init_inputs(), get_inputs() drawn on the GPU, then eager and
torch.compile(module) (inductor, default mode) called alternately, each call
after an L2 flush (waited for) and timed with CUDA events, medians compared.
Two passes: every task compiled first, --jobs at once (inductor's on-disk
caches warmed), then every task timed alone, one after the other, so that no
other compile or probe shares the machine with a timed call. The compiled
module must give eager's outputs (allclose with the task's atol and rtol,
1e-2) or it is not used.

Each task folder gets torch_compile.json:
  {"status": "ok", "compiled_over_eager": r, "eager_ms": .., "compiled_ms": .., "device": ..,
   "problem_key": contentKey of problem.py (a later edit leaves the ratio unused), ...}
  {"status": "failed", "reason": "..."}
and the daemon reports a candidate's speedup against torch.compile as its
speedup against eager times r (timing.speedup_vs_torch_compile); the judge's
speedup against eager stays the reward's.

usage: time_torch_compile.py TASKS_DIR|TASK_DIR... [--jobs N] [--runs 30] [--warmup 5] [--timeout 600]
       time_torch_compile.py --one TASK_DIR [--compile-only]   (one task, JSON on stdout; used by the above)
"""
import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import time

from import_kernelbench import OUT_OF_MEMORY  # beside this file


def tasks_under(paths):
    found = []
    for path in paths:
        if os.path.exists(os.path.join(path, "task.json")):
            found.append(path)
        else:
            found += sorted(os.path.join(path, name) for name in os.listdir(path)
                            if os.path.exists(os.path.join(path, name, "task.json")))
    return [t for t in found if "kernelbench" in json.load(open(os.path.join(t, "task.json")))]


def problem_key(task_dir):
    """contentKey([problem.py's bytes]) of contracts/ContentKey.h: its length (8 bytes, little endian), then it."""
    data = open(os.path.join(task_dir, "problem.py"), "rb").read()
    return hashlib.sha256(len(data).to_bytes(8, "little") + data).hexdigest()


def measure(task_dir, runs, warmup, compile_only):
    import torch
    if not hasattr(torch, "compile"):
        return {"status": "failed", "reason": "torch %s has no torch.compile" % torch.__version__}
    if not torch.cuda.is_available():
        return {"status": "failed", "reason": "no GPU: torch.compile is compared with eager on the GPU only"}
    spec = json.load(open(os.path.join(task_dir, "task.json")))
    meta = spec["kernelbench"]
    namespace = {"__name__": "kernelbench_problem", "__file__": os.path.join(task_dir, "problem.py")}
    exec(compile(open(namespace["__file__"]).read(), namespace["__file__"], "exec"), namespace)
    torch.manual_seed(1)
    model = namespace["Model"](*meta["init_inputs"]).cuda()
    torch.manual_seed(2)
    with torch.device("cuda"):
        inputs = [v.cuda() if isinstance(v, torch.Tensor) else v for v in namespace["get_inputs"]()]
    started = time.time()
    try:
        compiled = torch.compile(model)
        with torch.no_grad():
            got = compiled(*inputs)
        torch.cuda.synchronize()
    except Exception as error:  # inductor could not compile it: reported, as KernelBench's table does
        return {"status": "failed", "reason": "torch.compile failed: %s: %s" % (
            type(error).__name__, (str(error).strip().splitlines() or [""])[0][:300])}
    compile_seconds = time.time() - started
    with torch.no_grad():
        want = model(*inputs)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    tolerance = spec.get("tolerance", {"rtol": 1e-2, "atol": 1e-2})
    for k, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or not torch.allclose(g.float(), w.float(), rtol=tolerance["rtol"],
                                                    atol=tolerance["atol"], equal_nan=True):
            return {"status": "failed", "reason": "torch.compile's output %d differs from eager's" % k,
                    "compile_seconds": round(compile_seconds, 2)}
    del got, want
    if compile_only:  # inductor's caches are warm for the timed pass
        return {"status": "compiled", "compile_seconds": round(compile_seconds, 2)}
    # Twice the L2, written before every timed call, so neither version reads
    # its inputs from a cache the previous call warmed (the judge does the same).
    flush = torch.empty(2 * max(torch.cuda.get_device_properties(0).L2_cache_size, 1 << 20), dtype=torch.uint8,
                        device="cuda")
    times = {"eager": [], "compiled": []}
    versions = {"eager": model, "compiled": compiled}
    with torch.no_grad():
        for k in range(warmup + runs):
            for name in ("eager", "compiled") if k % 2 == 0 else ("compiled", "eager"):  # alternated: drift cancels
                flush.fill_(k & 0xFF)
                torch.cuda.synchronize()  # the flush done before the call's time starts
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                versions[name](*inputs)
                end.record()
                end.synchronize()
                if k >= warmup:
                    times[name].append(start.elapsed_time(end))
    eager_ms, compiled_ms = statistics.median(times["eager"]), statistics.median(times["compiled"])
    if not (0 < eager_ms < math.inf and 0 < compiled_ms < math.inf):
        return {"status": "failed", "reason": "a median time that is not a positive number (eager %r ms, compiled "
                "%r ms)" % (eager_ms, compiled_ms)}
    return {"status": "ok", "compiled_over_eager": compiled_ms / eager_ms, "eager_ms": eager_ms,
            "compiled_ms": compiled_ms, "compile_seconds": round(compile_seconds, 2), "runs": runs,
            "backend": "inductor", "mode": "default", "device": torch.cuda.get_device_name(0),
            "torch": torch.__version__, "problem_key": problem_key(task_dir)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--one")
    parser.add_argument("--compile-only", action="store_true")
    parser.add_argument("--jobs", type=int, default=4, help="tasks compiled at once (timed one at a time after)")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=600, help="seconds one task may take")
    args = parser.parse_args()
    if args.one:
        try:
            result = measure(args.one, args.runs, args.warmup, args.compile_only)
        except Exception as error:  # the problem's own code, or the GPU, failed
            result = {"status": "failed", "reason": "%s: %s" % (type(error).__name__,
                                                                 (str(error).strip().splitlines() or [""])[0][:300])}
        print(json.dumps(result, allow_nan=False))
        return 0
    tasks = tasks_under(args.paths)
    if not tasks:
        parser.error("no imported KernelBench task under %s" % " ".join(args.paths))
    def run_one(task_dir, compile_only):
        started = time.time()
        command = [sys.executable, os.path.abspath(__file__), "--one", task_dir, "--runs", str(args.runs),
                   "--warmup", str(args.warmup)] + (["--compile-only"] if compile_only else [])
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
            lines = run.stdout.strip().splitlines()
            try:
                result = json.loads(lines[-1])
            except (IndexError, ValueError):  # killed, or the problem printed last
                result = {"status": "failed", "reason": "died (%s): %s" % (run.returncode, run.stderr.strip()[-300:])}
        except subprocess.TimeoutExpired:
            result = {"status": "failed", "reason": "took more than %g s" % args.timeout}
        return result, time.time() - started

    def write(task_dir, result):
        partial = os.path.join(task_dir, ".torch_compile.json.partial")
        with open(partial, "w") as handle:
            json.dump(result, handle, indent=2, allow_nan=False)
            handle.write("\n")
        os.replace(partial, os.path.join(task_dir, "torch_compile.json"))  # the daemon never reads half a file

    # Compiled --jobs at once (a failure is final), then timed one task at a time with nothing else running.
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        compiled = list(pool.map(lambda t: run_one(t, True), tasks))
    results = []
    for task_dir, (first, _) in zip(tasks, compiled):
        if first["status"] == "failed" and not OUT_OF_MEMORY.search(first["reason"]):
            results.append((first, 0))  # inductor could not compile it, or it disagreed with eager: final
        else:  # compiled (its caches warm), or out of GPU memory beside the others' compiles: again, alone
            result, seconds = run_one(task_dir, False)
            if result["status"] == "ok" and "compile_seconds" in first:
                result["compile_seconds"] = first["compile_seconds"]  # the cold compile, not the cached one
            results.append((result, seconds))
        write(task_dir, results[-1][0])
    width = max(len(os.path.basename(t.rstrip("/"))) for t in tasks)
    print("%-*s  %9s  %11s  %8s  %s" % (width, "task", "eager ms", "compiled ms", "ratio", "or why not"))
    ratios = []
    for task_dir, (result, seconds) in zip(tasks, results):
        name = os.path.basename(task_dir.rstrip("/"))
        if result["status"] == "ok":
            ratios.append(result["compiled_over_eager"])
            print("%-*s  %9.3f  %11.3f  %8.3f  (compiled in %.1f s)" % (
                width, name, result["eager_ms"], result["compiled_ms"], result["compiled_over_eager"],
                result["compile_seconds"]))
        else:
            print("%-*s  %9s  %11s  %8s  %s" % (width, name, "-", "-", "-", result["reason"]))
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print("torch.compile timed on %d of %d tasks; compiled / eager: geomean %.3f, faster on %d" % (
            len(ratios), len(tasks), geomean, sum(r < 1 for r in ratios)))
    else:
        print("torch.compile timed on 0 of %d tasks" % len(tasks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
