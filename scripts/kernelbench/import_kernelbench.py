#!/usr/bin/env python3
"""cudaperf import-kernelbench: KernelBench problem files as cudaperf tasks.

A problem file defines `class Model(nn.Module)` with `forward`, and module
functions `get_inputs()` and `get_init_inputs()` (size constants at module
level). Each file is run in a trusted Python process of its own (a problem
that crashes or hangs costs its own import) to discover the model's inputs,
parameters, buffers and outputs; the task written for it has the entry

    extern "C" void <name>(inputs in forward order, then the module's
                           parameters and buffers in named_parameters /
                           named_buffers order, then the outputs)

over buffers (device pointers on a GPU task) of float32, int64, int32 or
bool (one byte) elements, every shape fixed by
the problem and the scalars of get_init_inputs() baked in. The reference is the
module itself (reference.c starts reference_server.py beside it), with its
parameters and buffers drawn from the evaluation's secret seed like any input.
Problems the format cannot express get a reason in the summary, never a
silent skip.

usage: import_kernelbench.py DIR|FILE... --out TASKS_DIR [--memory device|host] [--eager-baseline auto|none]
                             [--torch-compile auto|none] [--jobs N] [--timeout 300]
       import_kernelbench.py --probe FILE      (one problem, JSON on stdout; used by the above)
"""
import argparse
import concurrent.futures
import contextlib
import glob
import inspect
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

OUT_OF_MEMORY = re.compile(r"OutOfMemoryError|CUDA out of memory|CUDA error: out of memory")
MAX_ARGUMENTS = 12  # the harness passes at most 12 registers (daemon/include/cudaperf/daemon/EntryCall.h)
HERE = os.path.dirname(os.path.abspath(__file__))


class Refused(Exception):
    """A problem this importer cannot express as a task; the message says why."""


# Element types an argument may have: torch's name -> (the task's type, the C
# type of the signature, bytes). float64, complex and the rest are refused.
ELEMENT_TYPES = {"float32": ("float32", "float", 4), "float16": ("float16", "__half", 2),
                 "bfloat16": ("bfloat16", "__nv_bfloat16", 2), "int64": ("int64", "long long", 8),
                 "int32": ("int32", "int", 4), "bool": ("uint8", "bool", 1)}
FLOATING = ("float32", "float16", "bfloat16")


def dtype_name(tensor):
    return str(tensor.dtype).replace("torch.", "")


def check_dtype(tensor, what, allowed=ELEMENT_TYPES):
    name = dtype_name(tensor)
    if name not in allowed:
        raise Refused("%s is %s (supported: %s)" % (what, tensor.dtype, ", ".join(allowed)))
    return name


# ---------------------------------------------------------------- probe side

SAMPLE = 1 << 20  # elements of an input kept to describe its spread (KernelBench's tensors reach GBs)


def summarize_input(tensor):
    """What describe_distribution needs of one drawn input, without keeping
    it: exact extremes and a strided sample."""
    import torch
    flat = tensor.detach().reshape(-1)
    if flat.numel() == 0:
        return {"floating": tensor.is_floating_point(), "empty": True}
    if not tensor.is_floating_point():
        flat = flat.to(torch.int64) if flat.dtype == torch.bool else flat
        return {"floating": False, "min": int(flat.min().item()), "max": int(flat.max().item())}
    stride = max(1, flat.numel() // SAMPLE)
    return {"floating": True, "min": flat.min().item(), "max": flat.max().item(),
            "sample": flat[::stride][:SAMPLE].to(torch.float64).cpu()}


def describe_distribution(summaries):
    """The init of an input, from the values get_inputs() drew (summaries of
    both draws): uniform(0, 1) for torch.rand-like data, else normal with the
    observed spread; integers and booleans uniform over the range seen (class
    labels stay valid indices, a mask stays 0 or 1)."""
    import torch
    summaries = [s for s in summaries if not s.get("empty")]
    if not summaries:
        return {"dist": "constant", "value": 0}
    low, high = min(s["min"] for s in summaries), max(s["max"] for s in summaries)
    if low == high:
        return {"dist": "constant", "value": low}
    if not summaries[0]["floating"]:
        return {"dist": "randint", "low": low, "high": high + 1}
    if low >= 0 and high <= 1:
        return {"dist": "uniform", "low": 0, "high": 1}
    values = torch.cat([s["sample"] for s in summaries])
    std = values.std().item()
    return {"dist": "normal", "mean": 0 if abs(values.mean().item()) < 0.1 * std else round(values.mean().item(), 3),
            "stddev": float("%.3g" % std)}


def constant_value(tensor):
    """The single value every element of an output holds, or None."""
    import torch
    flat = tensor.detach().reshape(-1)
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    if flat.numel() == 0:
        return None
    low, high = flat.min().item(), flat.max().item()
    return low if low == high else None


def output_digest(tensor):
    """The bytes of an output, hashed chunk by chunk: exact (NaN included)
    without holding two copies of a GB-sized output."""
    import hashlib
    import torch
    digest = hashlib.sha256(str((list(tensor.shape), str(tensor.dtype))).encode())
    flat = tensor.detach().reshape(-1)
    for chunk in flat.split(1 << 24):  # bytes through int views: numpy has no bfloat16; a GPU tensor comes home
        chunk = chunk.contiguous().cpu()
        if chunk.dtype in (torch.bfloat16, torch.float16):
            chunk = chunk.view(torch.int16)
        digest.update(chunk.numpy().tobytes())
    return digest.hexdigest()


def reproducible(forward_with_seed, device):
    """Whether two forwards of the same inputs and state under different
    random seeds agree. On the CPU bit for bit, through digests (no second
    copy of a GB-sized output in host memory); on the GPU within 1e-5, since
    a CUDA library may sum in another order from one call to the next
    (dropout changes whole elements)."""
    import torch
    if device == "cpu":
        digests = [[output_digest(o) for o in forward_with_seed(seed)] for seed in (3, 4)]
        return digests[0] == digests[1]
    first = forward_with_seed(3)
    second = forward_with_seed(4)
    return len(first) == len(second) and all(
        torch.allclose(a.float(), b.float(), rtol=1e-5, atol=1e-6, equal_nan=True) if a.is_floating_point()
        else torch.equal(a, b) for a, b in zip(first, second))


def describe_parameter(tensor):
    """The init of a parameter or buffer, as the module had it when built:
    uniform over the range PyTorch's own init drew from; around a constant
    init (a BatchNorm's ones and zeros) uniform within half of it (at least
    0.5), keeping its sign, so a candidate cannot hard-code the constant and a
    variance stays positive."""
    values = tensor.detach().reshape(-1).double()
    low, high = values.min().item(), values.max().item()
    if low == high:
        spread = 0.5 * max(abs(low), 1.0)
        if low > 0:
            spread = min(spread, 0.5 * low)
        return {"dist": "uniform", "low": low - spread, "high": low + spread}
    bound = max(abs(low), abs(high))
    return {"dist": "uniform", "low": -float("%.4g" % bound), "high": float("%.4g" % bound)}


def as_outputs(result, what):
    import torch
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    for k, value in enumerate(results):
        if not isinstance(value, torch.Tensor):
            raise Refused("%s %d is a %s, not a tensor" % (what, k, type(value).__name__))
        check_dtype(value, "%s %d" % (what, k))
    return results


def low_precision(values):
    """The half-precision dtype of a problem's inputs (the first one), or None.
    Such a problem is computed in float32 on the trusted side, its floating
    outputs rounded to that dtype: CPU kernels for half are partial (Debian's
    torch has no CPU relu for it) and float32 is the more exact reference."""
    import torch
    for value in values:
        if isinstance(value, torch.Tensor) and value.dtype in (torch.float16, torch.bfloat16):
            return value.dtype
    return None


def computed_as_float32(model, values, low):
    """The forward of a half-precision problem (low_precision): inputs widened
    to float32, floating outputs rounded to `low`."""
    import torch
    widened = [v.float() if isinstance(v, torch.Tensor) and v.dtype == low else v for v in values]
    result = model(*widened)
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    rounded = [r.to(low) if isinstance(r, torch.Tensor) and r.dtype == torch.float32 else r for r in results]
    return tuple(rounded) if isinstance(result, (tuple, list)) else rounded[0]


def probe(path, eager_device=None):
    import torch
    started = time.time()
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    namespace = {"__name__": "kernelbench_problem", "__file__": path}
    exec(compile(open(path).read(), path, "exec"), namespace)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in namespace:
            raise Refused("no %s in the file" % name)
    init_inputs = list(namespace["get_init_inputs"]())
    for k, value in enumerate(init_inputs):
        if isinstance(value, torch.Tensor) or not json_scalar(value):
            raise Refused("get_init_inputs()[%d] is a %s: only numbers, strings, booleans and lists of them "
                          "can be baked into a task" % (k, type(value).__name__))
    torch.manual_seed(1)
    model = namespace["Model"](*init_inputs)
    # As built: a forward in training mode updates buffers (a BatchNorm's running statistics).
    initial = {name: tensor.detach().clone() for name, tensor in list(model.named_parameters()) +
               list(model.named_buffers())}
    # Where the GPU traces the eager baseline, the whole probe runs there, as KernelBench runs its problems:
    # level 1's elementwise problems draw GBs per input, minutes of CPU work per draw and forward.
    device = "cuda" if eager_device == "cuda" else "cpu"
    model = model.to(device)

    def draw(seed):
        torch.manual_seed(seed)
        with (torch.device(device) if device != "cpu" else contextlib.nullcontext()):
            values = list(namespace["get_inputs"]())
        values = [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]
        for k, value in enumerate(values):
            if isinstance(value, torch.Tensor):
                check_dtype(value, "get_inputs()[%d]" % k)
            elif not json_scalar(value):
                raise Refused("get_inputs()[%d] is a %s: only tensors and numbers can be inputs" % (
                    k, type(value).__name__))
        return values

    def forward(values, seed=None):
        with torch.no_grad():
            if seed is not None:  # from the state as built, so a training-mode update does not carry over
                for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
                    tensor.copy_(initial[name])
                torch.manual_seed(seed)
            low = low_precision(values)
            return as_outputs(computed_as_float32(model, values, low) if low else model(*values), "output")

    # One draw's tensors at a time, summarised and let go: KernelBench's
    # inputs and outputs reach GBs each.
    inputs = draw(1)
    # A number among the inputs (matrix-scalar multiplication's `s = 3.14`) is
    # baked into the task when both draws give it alike, as get_init_inputs() is.
    baked = {k: v for k, v in enumerate(inputs) if not isinstance(v, torch.Tensor)}
    tensors = [k for k, v in enumerate(inputs) if isinstance(v, torch.Tensor)]
    summaries = [[summarize_input(inputs[k])] for k in tensors]
    input_meta = [(list(inputs[k].shape), dtype_name(inputs[k])) for k in tensors]
    outputs = forward(inputs)
    output_meta = [(list(o.shape), dtype_name(o)) for o in outputs]
    constant = [constant_value(o) for o in outputs]
    del outputs
    # The reference must be a function of its arguments: the same inputs and
    # state twice, the same outputs (dropout in training mode is not).
    if not reproducible(lambda seed: forward(inputs, seed), device):
        raise Refused("the forward is not deterministic: the same inputs and parameters gave different outputs "
                      "(dropout or another random op in training mode?)")
    del inputs
    second = draw(2)
    if len(second) != len(baked) + len(tensors):
        raise Refused("get_inputs() returned %d values, then %d" % (len(baked) + len(tensors), len(second)))
    for k, value in baked.items():
        if isinstance(second[k], torch.Tensor) or second[k] != value:
            raise Refused("get_inputs()[%d] is the number %r, then %r: a number that changes between draws "
                          "cannot be baked into the task" % (k, value, second[k]))
    for slot, k in enumerate(tensors):
        if not isinstance(second[k], torch.Tensor):
            raise Refused("get_inputs()[%d] is a tensor, then a %s" % (k, type(second[k]).__name__))
        summaries[slot].append(summarize_input(second[k]))
    second_outputs = forward(second)
    second_shapes = [list(o.shape) for o in second_outputs]
    for k, output in enumerate(second_outputs):
        # One value everywhere for both draws (KernelBench's Conv3d_GroupNorm_Min_Clamp_Dropout clamps to
        # a single value): no candidate could be told right from wrong, as the judge would say at once.
        if constant[k] is not None and constant_value(output) == constant[k]:
            raise Refused("output %d is %r everywhere, whatever the inputs: a task whose expected output is "
                          "constant cannot tell a wrong candidate from a right one" % (k, constant[k]))
    del second, second_outputs
    if [shape for shape, _ in output_meta] != second_shapes:
        raise Refused("the output shape depends on the input values (%s, then %s)" % (
            [shape for shape, _ in output_meta], second_shapes))

    arguments, skipped = [], []
    try:
        forward_names = [p for p in inspect.signature(model.forward).parameters]
    except (TypeError, ValueError):
        forward_names = []
    used = set()

    def unique(name):
        name = re.sub(r"\W", "_", name) or "arg"
        if name[0].isdigit():
            name = "_" + name
        base, k = name, 1
        while name in used:
            name, k = "%s_%d" % (base, k), k + 1
        used.add(name)
        return name

    def forward_name(k):
        return forward_names[k] if k < len(forward_names) and not forward_names[k].startswith("*") else "x%d" % k

    for slot, (shape, dtype) in enumerate(input_meta):
        arguments.append({"name": unique(forward_name(tensors[slot])), "role": "input", "shape": shape,
                          "dtype": dtype, "init": describe_distribution(summaries[slot])})
    baked_inputs = [{"position": k, "name": forward_name(k), "value": v} for k, v in sorted(baked.items())]
    for role, items in (("parameter", model.named_parameters()), ("buffer", model.named_buffers())):
        for module_name, tensor in items:
            if tensor.dtype != torch.float32:
                if role == "buffer" and not tensor.is_floating_point():
                    skipped.append("%s (%s buffer, not read by forward's float math)" % (module_name, tensor.dtype))
                    continue
                raise Refused("%s %s is %s (parameters and float buffers must be float32)" % (
                    role, module_name, tensor.dtype))
            arguments.append({"name": unique(module_name.replace(".", "_")), "role": role,
                              "module_name": module_name, "shape": list(tensor.shape), "dtype": "float32",
                              "init": describe_parameter(initial[module_name])})
    for k, (shape, dtype) in enumerate(output_meta):
        arguments.append({"name": unique("out" if len(output_meta) == 1 else "out%d" % k), "role": "output",
                          "shape": shape, "dtype": dtype})
    if len(arguments) > MAX_ARGUMENTS:
        raise Refused("%d arguments (%d inputs, %d parameters and buffers, %d outputs): the entry takes at most %d"
                      % (len(arguments), len(input_meta), len(arguments) - len(input_meta) - len(output_meta),
                         len(output_meta),
                         MAX_ARGUMENTS))
    low = next((dtype for _, dtype in input_meta if dtype in ("float16", "bfloat16")), None)
    found = {"ok": True, "computed_as_float32": low, "init_inputs": init_inputs, "baked_inputs": baked_inputs,
             "arguments": arguments, "skipped": skipped, "torch": torch.__version__}
    if eager_device:
        traced = time.time()
        try:
            found["eager"] = {"graph": trace_eager(model, initial, arguments, baked_inputs, draw, tensors, low,
                                                   eager_device),
                              "device": eager_device, "seconds": round(time.time() - traced, 3)}
        except Exception as error:  # the task stands; its answers then have no speedup against eager
            if OUT_OF_MEMORY.search("%s %s" % (type(error).__name__, error)):
                raise  # beside other probes: probed again alone
            found["eager_problem"] = "%s: %s" % (type(error).__name__, str(error).strip().splitlines()[0][:300]
                                                 if str(error).strip() else "")
    found["seconds"] = time.time() - started
    return found


def trace_eager(model, initial, arguments, baked_inputs, draw, tensors, low, device):
    """The module as PyTorch eager runs it, traced (TorchScript) into a
    function of the entry's non-output arguments in their order: the forward
    inputs, then the parameters and buffers (bound with functional_call, so
    none is stored in the graph). Returned as the saved graph's bytes
    (base64). Buffers are cloned inside (a BatchNorm in training mode updates
    its running statistics, which must not write into the judge's inputs);
    an input the forward writes into is cloned too. On the CPU a half
    problem is computed in float32 as the reference is; on the GPU natively,
    as KernelBench's eager baseline runs it. Checked against the module on a
    fresh draw before it is kept."""
    import base64
    import io
    import torch
    model = model.to(device)
    state = [a for a in arguments if a["role"] in ("parameter", "buffer")]
    count = len(tensors)
    widen = getattr(torch, low) if low and device == "cpu" else None

    def functional_call(module, bound, values):
        """module(*values) with its parameters and buffers replaced by
        `bound` (torch's stateless API refuses to run under the tracer)."""
        saved = []
        for dotted, tensor in bound.items():
            *path, leaf = dotted.split(".")
            owner = module
            for part in path:
                owner = getattr(owner, part)
            table = owner._parameters if leaf in owner._parameters else owner._buffers
            saved.append((table, leaf, table[leaf]))
            table[leaf] = tensor
        try:
            return module(*values)
        finally:
            for table, leaf, original in reversed(saved):
                table[leaf] = original

    class Eager(torch.nn.Module):
        def __init__(self, cloned):
            super().__init__()
            object.__setattr__(self, "problem", model)  # not a submodule: its weights stay out of the graph
            self.cloned = cloned

        def forward(self, *args):
            values = [a.clone() if k in self.cloned else a for k, a in enumerate(args[:count])]
            bound = {a["module_name"]: (t.clone() if a["role"] == "buffer" else t)
                     for a, t in zip(state, args[count:])}
            for baked in baked_inputs:
                values.insert(baked["position"], baked["value"])
            if widen is not None:
                values = [v.float() if isinstance(v, torch.Tensor) and v.dtype == widen else v for v in values]
            result = functional_call(self.problem, bound, tuple(values))
            results = list(result) if isinstance(result, (tuple, list)) else [result]
            if widen is not None:
                results = [r.to(widen) if r.dtype == torch.float32 else r for r in results]
            return tuple(results)

    def arguments_of(seed):
        values = draw(seed)
        return [values[k].to(device) for k in tensors] + [initial[a["module_name"]].to(device) for a in state]

    def same(got, want):  # a library may pick another algorithm from one call to the next: close, not equal
        return len(got) == len(want) and all(
            g.shape == w.shape and g.dtype == w.dtype and
            (torch.allclose(g.float(), w.float(), rtol=1e-4, atol=1e-5, equal_nan=True) if g.is_floating_point()
             else torch.equal(g, w)) for g, w in zip(got, want))

    with torch.no_grad():
        cloned = set()
        args = arguments_of(5)
        versions = [a._version for a in args[:count]]  # bumped by every in-place write, even one that changes nothing
        before = [a.clone() for a in args[:count]]
        want = Eager(cloned)(*args)
        cloned = {k for k in range(count)  # inputs the forward writes into
                  if args[k]._version != versions[k] or not torch.equal(before[k], args[k])}
        del before
        args = arguments_of(5)
        traced = torch.jit.trace(Eager(cloned), tuple(args), check_trace=False)
        args = arguments_of(6)
        want = Eager(cloned)(*args)
        got = traced(*args)
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        if not same(got, list(want)):
            raise ValueError("the traced graph does not give the module's outputs on a fresh draw "
                             "(control flow that depends on the values?)")
    buffer = io.BytesIO()
    torch.jit.save(traced, buffer)
    return base64.b64encode(buffer.getvalue()).decode()


def json_scalar(value):
    if isinstance(value, (bool, int, str)) or value is None:
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(json_scalar(v) for v in value)
    return False


# ---------------------------------------------------------------- writer side

def task_name(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    level = os.path.basename(os.path.dirname(os.path.abspath(path)))
    prefix = "kb_" + (re.sub(r"\W", "", level).lower() + "_" if re.match(r"level\d+$", level) else "")
    return prefix + re.sub(r"_+", "_", re.sub(r"\W", "_", stem)).strip("_").lower()


def numel(shape):
    count = 1
    for extent in shape:
        count *= extent
    return count


def element(argument):
    """(task type, C type, bytes) of an argument; tasks imported before
    arguments had a dtype are float32."""
    return ELEMENT_TYPES[argument.get("dtype", "float32")]


def signature_of(name, arguments):
    parts = []
    for argument in arguments:
        constant = "" if argument["role"] == "output" else "const "
        parts.append("%s%s *%s" % (constant, element(argument)[1], argument["name"]))
    return 'extern "C" void %s(%s)' % (name, ", ".join(parts))


def reference_c(name, arguments, problem):
    """The task's reference: the C entry the harness calls, handing the
    buffers to reference_server.py (the module itself) through shared memory."""
    bytes_ = ", ".join("%dLL" % (element(a)[2] * numel(a["shape"])) for a in arguments)
    # 1: a float32 output (NaN on failure), 2: any other output (every byte
    # 0xFF on failure: NaN in half and bfloat16, -1 in integers), 0: an input.
    outputs = ", ".join(("1" if element(a)[0] == "float32" else "2") if a["role"] == "output" else "0"
                        for a in arguments)
    params = ", ".join("intptr_t a%d" % k for k in range(MAX_ARGUMENTS))
    return r'''/* Generated by cudaperf import-kernelbench from %(problem)s.
   The reference is the PyTorch module itself: the first call starts
   reference_server.py (beside this file, found through __FILE__) with the
   Python that imported the problem (CUDAPERF_PYTHON overrides it) and keeps
   it. The two share one memory file holding every argument, one after the
   other in the task's order (the server's descriptor 3): each call copies the
   inputs in, sends one byte on a socket pair, and copies the outputs out once
   the server's byte comes back. Arguments are GBs at KernelBench's sizes:
   streamed through a socket they took half a minute each way. On any failure
   float outputs are NaN and integer ones all bytes 0xFF, which the trusted
   side reports as a broken task. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *kPython = "%(python)s";
enum { kArguments = %(count)d };
static const long long kBytes[kArguments] = {%(bytes)s};
static const int kIsOutput[kArguments] = {%(outputs)s};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int server = -1;
static pid_t serverPid = -1;
static char *shared = NULL; /* every argument, at its offset */
static long long sharedBytes = 0;

/* The socket closed, the server reads its end and exits; one that does not within 5 s is killed. Reaped
   either way (a process that loads this library for one task, as the daemon does, must not collect them). */
static void stopServer(void) {
  if (server >= 0)
    close(server);
  server = -1;
  if (serverPid > 0) {
    int waited = 0;
    pid_t reaped;
    while (((reaped = waitpid(serverPid, NULL, WNOHANG)) == 0 || (reaped < 0 && errno == EINTR)) && waited < 500)
      usleep(10000), ++waited;
    if (waited == 500) {
      kill(serverPid, SIGKILL);
      while (waitpid(serverPid, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  }
  serverPid = -1;
  if (shared)
    munmap(shared, (size_t)sharedBytes);
  shared = NULL;
}

/* dlclose (the daemon loads the reference for each computation) or the process's end: the server and its
   shared memory (GBs at KernelBench's sizes) go with the library, not with the process. */
__attribute__((destructor)) static void unloaded(void) {
  pthread_mutex_lock(&lock);
  stopServer();
  pthread_mutex_unlock(&lock);
}

static int startServer(void) {
  char file[PATH_MAX], script[PATH_MAX + 32];
  snprintf(file, sizeof file, "%%s", __FILE__);
  const char *dir = dirname(file);
  snprintf(script, sizeof script, "%%s/reference_server.py", dir);
  const char *python = getenv("CUDAPERF_PYTHON") ? getenv("CUDAPERF_PYTHON") : kPython;
  sharedBytes = 0;
  for (int i = 0; i < kArguments; ++i)
    sharedBytes += kBytes[i];
  /* The memory file is a file: past RLIMIT_FSIZE its ftruncate would kill the process (SIGXFSZ), not fail.
     The soft limit is raised to the hard one where that is needed and allowed; else the call fails cleanly. */
  struct rlimit fileSize;
  if (getrlimit(RLIMIT_FSIZE, &fileSize) == 0 && fileSize.rlim_cur != RLIM_INFINITY &&
      fileSize.rlim_cur < (rlim_t)sharedBytes) {
    if (fileSize.rlim_max != RLIM_INFINITY && fileSize.rlim_max < (rlim_t)sharedBytes) {
      fprintf(stderr, "reference: the arguments' %%lld bytes exceed this process's file-size limit\n", sharedBytes);
      return -1;
    }
    fileSize.rlim_cur = fileSize.rlim_max;
    if (setrlimit(RLIMIT_FSIZE, &fileSize) != 0)
      return -1;
  }
  const int memory = memfd_create("cudaperf-reference", MFD_CLOEXEC);
  if (memory < 0) {
    perror("reference: memfd_create");
    return -1;
  }
  if (ftruncate(memory, (off_t)sharedBytes) != 0) {
    perror("reference: ftruncate");
    close(memory);
    return -1;
  }
  shared = mmap(NULL, (size_t)sharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0);
  if (shared == MAP_FAILED) {
    perror("reference: mmap");
    shared = NULL;
    close(memory);
    return -1;
  }
  /* Not into processes the caller forks (the daemon's sandboxes and judges): they would keep the GBs alive. */
  madvise(shared, (size_t)sharedBytes, MADV_DONTFORK);
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    close(memory);
    return -1;
  }
  const pid_t child = fork();
  if (child < 0) {
    close(memory), close(pair[0]), close(pair[1]);
    return -1;
  }
  if (child == 0) {
    /* Its own session: a Ctrl-C or a signal to the caller's group reaches the caller, which ends the server
       by closing the socket. Descriptors: 0 /dev/null, 1 and 2 the caller's stderr (a print in the problem
       cannot reach the protocol), 3 the memory file, 4 the socket. Moved above 4 first: either may already
       sit on 0 to 4 (dup2 onto itself keeps close-on-exec). */
    setsid();
    const int socketEnd = fcntl(pair[1], F_DUPFD, 10), memoryFile = fcntl(memory, F_DUPFD, 10);
    const int nothing = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (socketEnd < 0 || memoryFile < 0 || nothing < 0 || dup2(nothing, 0) < 0 ||
        (dup2(2, 1) < 0 && dup2(nothing, 1) < 0) /* a caller without a stderr */ || dup2(memoryFile, 3) < 0 ||
        dup2(socketEnd, 4) < 0)
      _exit(127);
    if (close_range(5, ~0U, 0) != 0) /* none of the caller's files (its store, its sockets) */
      _exit(127);
    char size[32];
    snprintf(size, sizeof size, "%%lld", sharedBytes);
    execl(python, python, script, dir, "3", size, "4", (char *)0);
    _exit(127);
  }
  close(memory);
  close(pair[1]);
  serverPid = child;
  return pair[0];
}

/* One byte each way: the call's start, and the server's word that the outputs are in place. */
static int exchange(void) {
  char byte = 1;
  ssize_t done;
  while ((done = send(server, &byte, 1, MSG_NOSIGNAL)) < 0 && errno == EINTR) /* a signal to the caller */
    ;
  if (done != 1)
    return -1;
  while ((done = recv(server, &byte, 1, 0)) < 0 && errno == EINTR)
    ;
  return done == 1 && byte == 1 ? 0 : -1;
}

void %(name)s(%(params)s) {
  const intptr_t args[12] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11};
  int failed = 0;
  pthread_mutex_lock(&lock);
  if (server < 0)
    server = startServer();
  failed = server < 0;
  long long offset = 0;
  for (int i = 0; i < kArguments && !failed; offset += kBytes[i], ++i)
    if (!kIsOutput[i])
      memcpy(shared + offset, (const void *)args[i], (size_t)kBytes[i]);
  failed = failed || exchange() != 0;
  offset = 0;
  for (int i = 0; i < kArguments && !failed; offset += kBytes[i], ++i)
    if (kIsOutput[i])
      memcpy((void *)args[i], shared + offset, (size_t)kBytes[i]);
  if (failed) {
    fprintf(stderr, "%(name)s: the PyTorch reference (reference_server.py) failed\n");
    stopServer();
    for (int i = 0; i < kArguments; ++i)
      if (kIsOutput[i] == 1)
        for (long long k = 0; k < kBytes[i] / 4; ++k)
          ((float *)args[i])[k] = NAN;
      else if (kIsOutput[i] == 2)
        memset((void *)args[i], 0xFF, (size_t)kBytes[i]);
  }
  pthread_mutex_unlock(&lock);
}
''' % {"problem": os.path.basename(problem), "python": sys.executable.replace("\\", "\\\\").replace('"', '\\"'),
       "count": len(arguments), "bytes": bytes_, "outputs": outputs, "name": name, "params": params}


def eager_shim_c(name, arguments, problem, eager):
    """The task's eager baseline: a C shim holding the traced graph, calling
    libcudaperf-eager (daemon/eager) over the entry's buffers. The trusted
    side compiles it with the host's C compiler; it is never a candidate."""
    import base64
    graph = base64.b64decode(eager["graph"])
    rows = ",\n".join("  " + ", ".join("0x%02x" % b for b in graph[k:k + 16]) for k in range(0, len(graph), 16))
    lines = "".join("%s %s %s\\n" % ("out" if a["role"] == "output" else "in", a.get("dtype", "float32"),
                                      ",".join(map(str, a["shape"]))) for a in arguments)
    params = ", ".join("void *a%d" % k for k in range(len(arguments)))
    pointers = ", ".join("a%d" % k for k in range(len(arguments)))
    return r'''/* Generated by cudaperf import-kernelbench from %(problem)s: its module
   as PyTorch eager runs it (traced on %(device)s with torch %(torch)s), the task's GPU
   baseline and the oracle of the timed calls. Arguments as the task's entry:
   %(signature)s */
#include <stdio.h>

extern int cudaperf_eager_open(const unsigned char *graph, unsigned long bytes, const char *arguments,
                               int device, char *error, unsigned long error_bytes);
extern int cudaperf_eager_call(int handle, void *const *pointers, char *error, unsigned long error_bytes);

static const unsigned char kGraph[] = {
%(rows)s};
static const char kArguments[] = "%(lines)s";
static int handle = -1;

__attribute__((constructor)) static void open_graph(void) {
  char error[1024] = "";
  handle = cudaperf_eager_open(kGraph, sizeof kGraph, kArguments, %(cuda)d, error, sizeof error);
  if (error[0])
    fprintf(stderr, "%(name)s: %%s\n", error);
}

void %(name)s(%(params)s) {
  void *const pointers[] = {%(pointers)s};
  char error[1024] = "";
  if (cudaperf_eager_call(handle, pointers, error, sizeof error) != 0)
    fprintf(stderr, "%(name)s: %%s\n", error);
}
''' % {"problem": os.path.basename(problem), "device": eager["device"], "torch": eager.get("torch", "?"),
       "signature": signature_of(name, arguments), "rows": rows, "lines": lines,
       "cuda": 1 if eager["device"] == "cuda" else 0, "name": name, "params": params, "pointers": pointers}


def write_task(path, found, out_dir, memory):
    name = task_name(path)
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    arguments = found["arguments"]
    signature = signature_of(name, arguments)
    args = []
    for argument in arguments:
        entry = {"name": argument["name"], "type": element(argument)[0] + "*",
                 "intent": "out" if argument["role"] == "output" else "in", "size": str(numel(argument["shape"]))}
        if argument["role"] == "input" and element(argument)[0] not in FLOATING:
            entry["init"] = argument["init"]  # labels, indices, masks: only the range get_inputs() drew is valid
        elif argument["role"] == "input":
            # What get_inputs() draws, and a second spread (a kernel tuned to one distribution fails it).
            entry["init"] = [argument["init"], {"dist": "uniform", "low": -2, "high": 2}]
        elif argument["role"] != "output":
            entry["init"] = argument["init"]
        args.append(entry)
    order = "; ".join("%s: %s %s%s" % (a["name"], a["role"] if a["role"] != "parameter" else "parameter " +
                                       a["module_name"], "x".join(map(str, a["shape"])) or "scalar",
                                       "" if element(a)[0] == "float32" else " " + a["dtype"])
                      for a in arguments)
    source = open(path).read()
    description = ("KernelBench problem %s, as PyTorch:\n\n%s\n\nWrite `%s`: the arguments are buffers "
                   "(float32 unless the signature says otherwise; a bool is one byte, 0 or 1), contiguous "
                   "(row-major) in the shapes below, in this order: the forward inputs, then the "
                   "module's parameters and buffers (named_parameters, then named_buffers), then the outputs. "
                   "get_init_inputs() = %s is fixed.%s %s." % (
                       os.path.basename(path), source.strip(), signature, json.dumps(found["init_inputs"]),
                       "".join(" The forward's %s = %s is fixed (not an argument)." % (
                           b["name"], json.dumps(b["value"])) for b in found.get("baked_inputs", [])), order))
    spec = {"name": name, "description": description, "entry": name, "signature": signature, "args": args,
            "sizes": {"correctness": [{}], "benchmark": {}},
            # KernelBench's tolerance for level 1 and 2 float32, with cudaperf's rule that atol scales with the
            # RMS of the expected output (docs/kernelbench.md).
            "tolerance": {"rtol": 1e-2, "atol": 1e-2},
            "memory": memory,
            "kernelbench": {"problem": os.path.basename(path), "init_inputs": found["init_inputs"],
                            "baked_inputs": found.get("baked_inputs", []),
                            "computed_as_float32": found.get("computed_as_float32"),
                            "arguments": [{k: v for k, v in a.items() if k != "init"} for a in arguments],
                            "skipped": found["skipped"], "imported_with_torch": found["torch"]}}
    with open(os.path.join(folder, "task.json"), "w") as handle:
        json.dump(spec, handle, indent=2)
        handle.write("\n")
    shutil.copyfile(path, os.path.join(folder, "problem.py"))
    shutil.copyfile(os.path.join(HERE, "reference_server.py"), os.path.join(folder, "reference_server.py"))
    with open(os.path.join(folder, "reference.c"), "w") as handle:
        handle.write(reference_c(name, arguments, path))
    shim = os.path.join(folder, "baseline_eager.c")
    if "eager" in found:
        with open(shim, "w") as handle:
            handle.write(eager_shim_c(name, arguments, path, dict(found["eager"], torch=found["torch"])))
    elif os.path.exists(shim):  # a re-import without one: no stale graph left behind
        os.remove(shim)
    timing = os.path.join(folder, "torch_compile.json")
    if os.path.exists(timing):  # measured for the previous import's module, if any: again below, or not at all
        os.remove(timing)
    return name, signature


def problem_files(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            # In the problems' numeric order (2_x before 10_x), as KernelBench lists them.
            files += sorted(glob.glob(os.path.join(path, "**", "*.py"), recursive=True),
                            key=lambda f: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", f)])
        else:
            files.append(path)
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--out")
    parser.add_argument("--probe", action="store_true")
    parser.add_argument("--memory", choices=("device", "host"), default="device")
    parser.add_argument("--eager-baseline", choices=("auto", "none"), default="auto",
                        help="auto: trace the module as the task's eager baseline, on the GPU for device tasks "
                             "(none where this Python has no CUDA), on the CPU for host ones")
    parser.add_argument("--eager-device", choices=("cuda", "cpu"), help=argparse.SUPPRESS)  # the probe's
    parser.add_argument("--torch-compile", choices=("auto", "none"), default="auto",
                        help="auto: where eager is traced on the GPU, time torch.compile against eager "
                             "(time_torch_compile.py) for a second speedup, reported beside eager's")
    parser.add_argument("--jobs", type=int, default=1, help="problems probed at once (each in a process of its own)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds one problem may take to probe")
    args = parser.parse_args()
    if args.probe:
        try:
            result = probe(args.paths[0], args.eager_device)
        except Refused as why:
            result = {"ok": False, "reason": str(why)}
        except Exception as error:  # the problem's own code failed
            result = {"ok": False, "reason": "the problem raised %s: %s" % (type(error).__name__, error)}
        print(json.dumps(result))
        return 0
    if not args.out:
        parser.error("--out TASKS_DIR is required")
    os.makedirs(args.out, exist_ok=True)
    rows, imported = [], 0
    paths = problem_files(args.paths)
    probe_command = [sys.executable, os.path.abspath(__file__), "--probe"]
    eager_note = None
    if args.eager_baseline == "auto":
        if args.memory == "host":
            probe_command += ["--eager-device", "cpu"]
        elif subprocess.run([sys.executable, "-c", "import torch, sys; sys.exit(not torch.cuda.is_available())"],
                            capture_output=True).returncode == 0:
            probe_command += ["--eager-device", "cuda"]
        else:
            eager_note = "no eager baseline: this Python's torch has no GPU to trace device tasks on"
            print(eager_note, file=sys.stderr)
    def probe_one(path):
        started = time.time()
        try:
            run = subprocess.run(probe_command + [path], capture_output=True,
                                 text=True, timeout=args.timeout)
            lines = run.stdout.strip().splitlines()
            found = json.loads(lines[-1]) if lines else {
                "ok": False, "reason": "the probe died (%s): %s" % (run.returncode, run.stderr.strip()[-300:])}
        except subprocess.TimeoutExpired:
            found = {"ok": False, "reason": "probing took more than %g s" % args.timeout}
        return found, time.time() - started

    # Probes in parallel (--jobs), each a process of its own; tasks written and the table kept in the files' order.
    # A probe that ran out of GPU memory beside the others is probed again alone once they are done.
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(probe_one, path) for path in paths]
        results = []
        for path, future in zip(paths, futures):
            results.append(future.result())
            print("[%d/%d] %s: %s in %.1f s" % (len(results), len(paths), os.path.basename(path),
                                                 "probed" if results[-1][0]["ok"] else "refused", results[-1][1]),
                  file=sys.stderr, flush=True)
    for k, path in enumerate(paths):
        if not results[k][0]["ok"] and OUT_OF_MEMORY.search(results[k][0]["reason"]):
            print("%s ran out of GPU memory beside other probes: probed again alone" % os.path.basename(path),
                  file=sys.stderr, flush=True)
            results[k] = probe_one(path)
    for path, (found, seconds) in zip(paths, results):
        if found["ok"]:
            name, signature = write_task(path, found, args.out, args.memory)
            imported += 1
            eager = ("eager baseline traced on %s" % found["eager"]["device"] if "eager" in found else
                     "no eager baseline (%s)" % (found.get("eager_problem") or eager_note or
                                                 "--eager-baseline none"))
            rows.append((os.path.basename(path), "imported", "%s  %s; %s" % (name, signature, eager), seconds))
        else:
            rows.append((os.path.basename(path), "refused", found["reason"], seconds))
    width = max([len(r[0]) for r in rows] + [7])
    print("%-*s  %-8s  %7s  %s" % (width, "problem", "result", "seconds", "task, or why not"))
    for problem, result, detail, seconds in rows:
        print("%-*s  %-8s  %7.2f  %s" % (width, problem, result, seconds, detail))
    print("%d of %d imported into %s" % (imported, len(rows), args.out))
    on_gpu = [task_name(path) for path, (found, _) in zip(paths, results)
              if found["ok"] and found.get("eager", {}).get("device") == "cuda"]
    if args.torch_compile == "auto" and on_gpu:
        sys.stdout.flush()
        subprocess.run([sys.executable, os.path.join(HERE, "time_torch_compile.py"), "--jobs", str(args.jobs)] +
                       [os.path.join(args.out, name) for name in on_gpu])
    return 0 if imported == len(rows) else 3


if __name__ == "__main__":
    sys.exit(main())
