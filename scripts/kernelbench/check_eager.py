#!/usr/bin/env python3
"""Does each imported task's PyTorch eager baseline pass its own evaluation?

For every task under TASKS_DIR with a baseline_eager.c, the judge evaluates a
candidate that writes nothing with the eager baseline attached. The judge
times the baseline first, in a sandboxed worker, after checking it like any
candidate against the PyTorch reference on the task's correctness trials; so
the empty candidate's `wrong_answer` means eager passed, and `bad_task` means eager disagreed with the reference or failed to
run (the reason is printed). One row per task, then a total.

usage: check_eager.py TASKS_DIR --evaluate CUDAPERF_EVALUATE [--eager LIBCUDAPERF_EAGER]
                      [--device cuda|none] [--reference-device cpu|cuda] [--jobs N] [--memory-gb G]
                      [--gpu-memory-gb G]
                      [--wall SECONDS] [--timeout SECONDS]
(--eager defaults to libcudaperf-eager.so beside cudaperf-evaluate; --device
none for --memory host imports.) Exit status 0 when every baseline passed.
"""
import argparse
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

from import_kernelbench import ELEMENT_TYPES, numel  # beside this file: torch's name -> (type, C type, bytes)


def build(source, out, *flags):
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", out, source, *flags], check=True, capture_output=True)
    os.chmod(out, 0o755)
    return out


# Host copies of the arguments one evaluation holds at once (the judge's draw,
# eager's private copy, the reference's bytes and its expected outputs, the
# outputs read back): KernelBench's elementwise problems are GBs per argument,
# and six such evaluations at once run a 128 GiB machine out of memory.
HOST_COPIES = 6


# GPU copies of the arguments one evaluation of a device task holds at its peak: the judge's shared
# buffers (inputs and outputs), the reference's tensors where it computes on the GPU, and an eager
# worker's open, whose check of in-place outputs holds about four copies before it gives them back. On an
# 80 GB card two evaluations of level 1's elementwise problems (6.4 GB a tensor) at once left eager's
# outputs NaN (docs/kernelbench.md).
DEVICE_COPIES = 8


def argument_bytes(spec):
    return sum(numel(argument["shape"]) * ELEMENT_TYPES[argument.get("dtype", "float32")][2]
               for argument in spec["kernelbench"]["arguments"])


def host_footprint(spec):
    return HOST_COPIES * argument_bytes(spec)


def device_footprint(spec):
    return DEVICE_COPIES * argument_bytes(spec) if spec.get("memory") == "device" else 0


class MemoryBudget:
    """Evaluations start while their estimated footprints fit the budget (one always may, alone)."""

    def __init__(self, budget):
        self.budget, self.used, self.condition = budget, 0, threading.Condition()

    def __call__(self, need):
        host = self

        class Held:
            def __enter__(self):
                with host.condition:
                    host.condition.wait_for(lambda: host.used == 0 or host.used + need <= host.budget)
                    host.used += need

            def __exit__(self, *error):
                with host.condition:
                    host.used -= need
                    host.condition.notify_all()
        return Held()


def gpu_memory():
    """The first GPU's memory in bytes (nvidia-smi), or None where there is none."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=30)
        return int(out.stdout.split()[0]) << 20 if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def available_memory():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 16 << 30


def check(task_dir, work, args, host, device):
    name = os.path.basename(task_dir.rstrip("/"))
    spec = json.load(open(os.path.join(task_dir, "task.json")))
    with host(host_footprint(spec)), device(device_footprint(spec)):
        return evaluate(name, spec, task_dir, work, args)


def evaluate(name, spec, task_dir, work, args):
    folder = os.path.dirname(os.path.abspath(args.eager))
    reference = build(os.path.join(task_dir, "reference.c"), os.path.join(work, name + "-reference.so"), "-lm")
    eager = build(os.path.join(task_dir, "baseline_eager.c"), os.path.join(work, name + "-eager.so"),
                  "-L" + folder, "-lcudaperf-eager", "-Wl,-rpath," + folder)
    empty = os.path.join(work, name + "-empty.c")
    with open(empty, "w") as handle:
        handle.write("void %s(void) {}\n" % spec["entry"])  # every argument ignored: writes nothing
    candidate = build(empty, os.path.join(work, name + "-empty.so"))
    started = time.time()
    command = [args.evaluate, "--task", task_dir, "--reference", reference, "--candidate", candidate, "--baseline",
               eager, "--device", args.device, "--runs", "10", "--warmup", "2", "--wall", str(args.wall)]
    # A session of its own: on a timeout the reference's Python (forked by reference.c, GBs of memory) goes
    # too, not only cudaperf-evaluate, before the memory budgets give its share to the next evaluation.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True,
                               env=dict(os.environ, CUDAPERF_REFERENCE_DEVICE=args.reference_device))
    try:
        stdout, stderr = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return name, False, "no answer in %g s" % args.timeout
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever it left behind
        except ProcessLookupError:
            pass
    answers = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    answer = answers[0] if answers else {"status": "no answer", "error": stderr[-300:]}
    phases = answer.get("phases") or {}
    # Where the time went: the reference (check seed's outputs, the CPU baseline), the task's buffers,
    # eager's own evaluation (its check and its timing), the empty candidate's worker.
    spent = "%.1f s: reference %.1f, task setup %.1f, eager %.1f, candidate %.1f" % (
        time.time() - started, (answer.get("reference") or {}).get("seconds", 0), phases.get("task_setup_seconds", 0),
        phases.get("baseline_seconds", 0), phases.get("worker_run_seconds", 0))
    if answer["status"] == "wrong_answer":  # judged only after the baseline passed and was timed
        return name, True, "eager passed its own evaluation (%s)" % spent
    # The whole reason, and the end of the judge's log: a failure at KernelBench's sizes is rarely in the
    # first lines (an eager worker out of GPU memory says so on its stderr).
    return name, False, "%s: %s [stderr: %s]" % (answer["status"], re.sub(r"\s+", " ", str(answer.get("error", "")))[:1500],
                                                 re.sub(r"\s+", " ", stderr)[-1500:])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tasks")
    parser.add_argument("--evaluate", required=True)
    parser.add_argument("--eager")
    parser.add_argument("--device", choices=("cuda", "none"), default="cuda")
    parser.add_argument("--reference-device", choices=("cpu", "cuda"), default="cpu",
                        help="where the PyTorch reference computes the check seed's outputs (cuda: a machine "
                             "where nothing else is timed; the CPU takes minutes per task at KernelBench's sizes)")
    parser.add_argument("--jobs", type=int, default=1, help="evaluations at once, while their host memory fits")
    parser.add_argument("--memory-gb", type=float, help="host memory the evaluations may hold together "
                        "(default: 70%% of what is available)")
    parser.add_argument("--gpu-memory-gb", type=float, help="GPU memory the evaluations of device tasks may hold "
                        "together (default: 90%% of the first GPU's)")
    parser.add_argument("--wall", type=float, default=600, help="seconds an evaluation may take (the judge's limit)")
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()
    args.eager = args.eager or os.path.join(os.path.dirname(os.path.abspath(args.evaluate)), "libcudaperf-eager.so")
    tasks = sorted(os.path.join(args.tasks, t) for t in os.listdir(args.tasks)
                   if os.path.exists(os.path.join(args.tasks, t, "baseline_eager.c")))
    # Outside /tmp: the judge's workers have a private one and must read the libraries.
    work = tempfile.mkdtemp(prefix="check-eager-", dir=os.getcwd())
    os.chmod(work, 0o755)
    host = MemoryBudget(args.memory_gb * (1 << 30) if args.memory_gb else 0.7 * available_memory())
    card = gpu_memory() if args.device == "cuda" else None
    if args.device == "cuda" and not card and not args.gpu_memory_gb:
        print("NOTE no GPU memory reading (nvidia-smi): device tasks are admitted by --jobs alone; "
              "--gpu-memory-gb sets the budget", file=sys.stderr, flush=True)
    device = MemoryBudget(args.gpu_memory_gb * (1 << 30) if args.gpu_memory_gb else
                          0.9 * card if card else float("inf"))
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        # Rows as they finish, so a call that runs out of time keeps every answer it got.
        futures = [pool.submit(check, t, work, args, host, device) for t in tasks]
        for future in concurrent.futures.as_completed(futures):
            row = future.result()
            rows.append(row)
            print("%-50s %s  %s" % (row[0], "pass" if row[1] else "FAIL", row[2]), flush=True)
    passed = sum(1 for r in rows if r[1])
    unanswered = sum(1 for r in rows if not r[1] and r[2].startswith("no answer"))
    print("%d of %d eager baselines passed their own evaluation; %d disagreed or failed to run, %d gave no answer" % (
        passed, len(rows), len(rows) - passed - unanswered, unanswered))
    subprocess.run(["rm", "-rf", work])
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
