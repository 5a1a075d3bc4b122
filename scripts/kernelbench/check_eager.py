#!/usr/bin/env python3
"""Does each imported task's PyTorch eager baseline pass its own evaluation?

For every task under TASKS_DIR with a baseline_eager.c, the judge evaluates a
candidate that writes nothing with the eager baseline attached. The judge
times the baseline first, in a sandboxed worker, after checking it like any
candidate against the PyTorch reference on the task's correctness trials; so
the empty candidate's `wrong_answer` means eager passed, and `bad_task` means eager disagreed with the reference or failed to
run (the reason is printed). One row per task, then a total.

usage: check_eager.py TASKS_DIR --evaluate CUDAPERF_EVALUATE [--eager LIBCUDAPERF_EAGER]
                      [--device cuda|none] [--reference-device cpu|cuda] [--jobs N] [--wall SECONDS]
(--eager defaults to libcudaperf-eager.so beside cudaperf-evaluate; --device
none for --memory host imports.) Exit status 0 when every baseline passed.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def build(source, out, *flags):
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", out, source, *flags], check=True, capture_output=True)
    os.chmod(out, 0o755)
    return out


def check(task_dir, work, args):
    name = os.path.basename(task_dir.rstrip("/"))
    spec = json.load(open(os.path.join(task_dir, "task.json")))
    folder = os.path.dirname(os.path.abspath(args.eager))
    reference = build(os.path.join(task_dir, "reference.c"), os.path.join(work, name + "-reference.so"), "-lm")
    eager = build(os.path.join(task_dir, "baseline_eager.c"), os.path.join(work, name + "-eager.so"),
                  "-L" + folder, "-lcudaperf-eager", "-Wl,-rpath," + folder)
    empty = os.path.join(work, name + "-empty.c")
    with open(empty, "w") as handle:
        handle.write("void %s(void) {}\n" % spec["entry"])  # every argument ignored: writes nothing
    candidate = build(empty, os.path.join(work, name + "-empty.so"))
    started = time.time()
    try:
        run = subprocess.run([args.evaluate, "--task", task_dir, "--reference", reference, "--candidate", candidate,
                              "--baseline", eager, "--device", args.device, "--runs", "10", "--warmup", "2",
                              "--wall", str(args.wall)],
                             capture_output=True, text=True, timeout=args.timeout,
                             env=dict(os.environ, CUDAPERF_REFERENCE_DEVICE=args.reference_device))
    except subprocess.TimeoutExpired:
        return name, False, "no answer in %g s" % args.timeout
    answers = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    answer = answers[0] if answers else {"status": "no answer", "error": run.stderr[-300:]}
    if answer["status"] == "wrong_answer":  # judged only after the baseline passed and was timed
        return name, True, "eager passed its own evaluation (%.1f s)" % (time.time() - started)
    return name, False, "%s: %s" % (answer["status"], re.sub(r"\s+", " ", str(answer.get("error", "")))[:400])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tasks")
    parser.add_argument("--evaluate", required=True)
    parser.add_argument("--eager")
    parser.add_argument("--device", choices=("cuda", "none"), default="cuda")
    parser.add_argument("--reference-device", choices=("cpu", "cuda"), default="cpu",
                        help="where the PyTorch reference computes the check seed's outputs (cuda: a machine "
                             "where nothing else is timed; the CPU takes minutes per task at KernelBench's sizes)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--wall", type=float, default=600, help="seconds an evaluation may take (the judge's limit)")
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()
    args.eager = args.eager or os.path.join(os.path.dirname(os.path.abspath(args.evaluate)), "libcudaperf-eager.so")
    tasks = sorted(os.path.join(args.tasks, t) for t in os.listdir(args.tasks)
                   if os.path.exists(os.path.join(args.tasks, t, "baseline_eager.c")))
    # Outside /tmp: the judge's workers have a private one and must read the libraries.
    work = tempfile.mkdtemp(prefix="check-eager-", dir=os.getcwd())
    os.chmod(work, 0o755)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for row in pool.map(lambda t: check(t, work, args), tasks):
            rows.append(row)
            print("%-50s %s  %s" % (row[0], "pass" if row[1] else "FAIL", row[2]), flush=True)
    passed = sum(1 for r in rows if r[1])
    print("%d of %d eager baselines passed their own evaluation" % (passed, len(rows)))
    subprocess.run(["rm", "-rf", work])
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
