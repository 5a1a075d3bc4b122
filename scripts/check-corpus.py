#!/usr/bin/env python3
"""Robustness check: every .cu file under the given folders must give one
valid cudaperf.features/1 report, with an entry for every __global__ kernel
defined in it, without crashing the front end (plugin or cudaperf-features)."""
import argparse
import json
import pathlib
import re
import subprocess
import sys

FEATURES = ["coal", "ai", "occ", "div", "xfer", "atomics", "sync", "kernels", "tpb", "gmem", "ops"]
KERNEL = re.compile(r"__global__\s+(?:static\s+)?void\s+(?:__launch_bounds__\s*\((?:[^()]|\([^()]*\))*\)\s*)?(\w+)\s*\(")
SDK_FLAGS = ["--cuda-gpu-arch=sm_90", "-Wno-unknown-cuda-version"]


def command(args, path):
    if args.mode == "plugin":
        return [args.clang, "-fsyntax-only", *SDK_FLAGS, *args.flags, f"-fplugin={args.plugin}",
                "-fplugin-arg-cudaperf-format=json", str(path)]
    return [args.tool, "--format=json", str(path), "--", *args.flags]


def check(args, path):
    result = subprocess.run(command(args, path), capture_output=True, text=True, timeout=120)
    if result.returncode < 0 or "Stack dump" in result.stderr or "LLVM ERROR" in result.stderr:
        return f"crashed (signal {-result.returncode}): {result.stderr[-400:]}"
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError as error:
        return f"no valid JSON ({error}); stderr: {result.stderr[-400:]}"
    if report.get("schema") != "cudaperf.features/1":
        return "wrong schema"
    for scope in [report] + report["kernels"]:
        features = scope.get("features", {})
        if sorted(features) != sorted(FEATURES):
            return f"features keys {sorted(features)}"
        if not all(isinstance(features[k], (int, float)) for k in FEATURES):
            return "non-numeric feature"
    reported = {k["name"].split("<")[0] for k in report["kernels"]}
    source = re.sub(r"//.*", "", path.read_text(errors="replace"))
    defined = set(KERNEL.findall(source))
    missing = defined - reported
    if missing:
        return f"kernels missing from the report: {sorted(missing)}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=["plugin", "tool"], required=True)
    parser.add_argument("--clang", default="clang++-19")
    parser.add_argument("--plugin")
    parser.add_argument("--tool")
    parser.add_argument("--flag", dest="flags", action="append", default=[],
                        help="extra compiler flag (repeat), e.g. --flag=-nocudainc")
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    files = sorted(p for folder in args.folders for p in pathlib.Path(folder).rglob("*.cu"))
    failures = 0
    for path in files:
        problem = check(args, path)
        if problem:
            failures += 1
            print(f"FAIL {path}: {problem}")
    print(f"{len(files)} files checked through the {args.mode}")
    print(f"{len(files) - failures} passed, {failures} failed")
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main())
