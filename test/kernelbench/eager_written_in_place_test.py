#!/usr/bin/env python3
"""libcudaperf-eager writes a result straight into its output buffer where
the operator that produces it has an out= overload, and copies it otherwise.

Each case is a module traced the way the importer traces one (a forward
returning a tuple of results), opened and called through the library's C
API with ctypes over torch tensors' memory; the outputs must equal the
module's own results, and the library's mask of outputs written in place
must be the one the graph allows. Exit 77 (skipped) without torch.

usage: eager_written_in_place_test.py LIBCUDAPERF_EAGER
"""
import ctypes
import io
import os
import shutil
import subprocess
import sys

try:
    import torch
except ImportError:  # ctest's Python may lack it: the first one that has it runs this file
    for python in [os.environ.get("CUDAPERF_PYTHON"), "/usr/bin/python3", shutil.which("python3")]:
        if python and os.path.realpath(python) != os.path.realpath(sys.executable) and subprocess.run(
                [python, "-c", "import torch"], capture_output=True).returncode == 0:
            os.execv(python, [python] + sys.argv)
    print("SKIP: no Python with torch (Debian: python3-torch)")
    sys.exit(77)

library = ctypes.CDLL(sys.argv[1])
library.cudaperf_eager_open.restype = ctypes.c_int
library.cudaperf_eager_open.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int,
                                        ctypes.c_char_p, ctypes.c_ulong]
library.cudaperf_eager_call.restype = ctypes.c_int
library.cudaperf_eager_call.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
                                        ctypes.c_ulong]
library.cudaperf_eager_outputs_written_in_place.restype = ctypes.c_long
failures = []


class Relu(torch.nn.Module):
    def forward(self, x):
        return (torch.relu(x),)


class LinearThenScale(torch.nn.Module):  # the result comes from a mul of a matmul's output
    def forward(self, x, w):
        return (torch.matmul(x, w) * 0.5,)


class EndsInAView(torch.nn.Module):  # a view has no out= overload: copied
    def forward(self, x):
        return ((x + 1.0).reshape(-1),)


class OneFeedsTheOther(torch.nn.Module):
    # The first result is read again to make the second: written early into
    # its buffer it would still be right, but the rule keeps a result used
    # twice as it is; the second is the last operator's.
    def forward(self, x):
        a = torch.sigmoid(x)
        return a, a * 2.0


class ArgmaxIndices(torch.nn.Module):  # an int64 result, argmax.out
    def forward(self, x):
        return (torch.argmax(x, dim=1),)


class ReturnsItsInput(torch.nn.Module):  # no operator at all, the graph's own input: copied
    def forward(self, x, y):
        return (y, x * 3.0)


def check(condition, what):
    print("%s %s" % ("PASS" if condition else "FAIL", what), flush=True)
    if not condition:
        failures.append(what)


def run(name, module, inputs, expected_mask):
    with torch.no_grad():
        want = module(*inputs)
        traced = torch.jit.trace(module, tuple(inputs), check_trace=False)
    buffer = io.BytesIO()
    torch.jit.save(traced, buffer)
    graph = buffer.getvalue()
    outputs = [torch.full_like(w, 7) for w in want]
    lines = ["in float32 %s" % ",".join(str(d) for d in x.shape) for x in inputs]
    lines += ["out %s %s" % (str(o.dtype).replace("torch.", ""), ",".join(str(d) for d in o.shape)) for o in outputs]
    error = ctypes.create_string_buffer(4096)
    handle = library.cudaperf_eager_open(graph, len(graph), "\n".join(lines).encode(), 0, error, 4096)
    if handle < 0 or library.cudaperf_eager_outputs_written_in_place(handle) < 0:
        check(False, "%s: the graph opens (%s)" % (name, error.value.decode()))
        return
    mask = library.cudaperf_eager_outputs_written_in_place(handle)
    check(mask == expected_mask, "%s: outputs written in place 0b%s (expected 0b%s)" % (
        name, format(mask, "b"), format(expected_mask, "b")))
    for attempt in range(2):  # a second call over the same buffers: nothing of the first carries over
        for o in outputs:
            o.fill_(7)
        pointers = (ctypes.c_void_p * (len(inputs) + len(outputs)))(*[t.data_ptr() for t in inputs + outputs])
        status = library.cudaperf_eager_call(handle, pointers, error, 4096)
        check(status == 0 and all(torch.equal(o, w) for o, w in zip(outputs, want)),
              "%s: call %d gives the module's results (%s)" % (name, attempt + 1, error.value.decode()))


torch.manual_seed(0)
x = torch.randn(64, 48)
run("relu", Relu(), [x], 0b1)
run("matmul then scale", LinearThenScale(), [x, torch.randn(48, 32)], 0b1)
run("ends in a view", EndsInAView(), [x], 0b0)
run("one result feeds the other", OneFeedsTheOther(), [x], 0b10)
run("argmax (int64)", ArgmaxIndices(), [x], 0b1)
run("returns its input, then a product", ReturnsItsInput(), [x, torch.randn(5, 3)], 0b10)
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
