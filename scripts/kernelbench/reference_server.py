"""The PyTorch reference of an imported KernelBench task, on the trusted side.

The task's reference.c (written by import_kernelbench.py) starts this once per
process that computes reference outputs and keeps it. The two share one memory
file (descriptor FD, SIZE bytes): every argument of the task, one after the
other in the task's order (the problem's inputs, the module's parameters and
buffers, then the outputs). For every call reference.c copies the inputs in and
writes one byte on the socket; this process runs the module on them
(views of the shared memory, not copies), writes the outputs in place and
answers one byte (1) on the socket. The module is built once from the problem
file with the baked get_init_inputs(); before each forward its parameters and
buffers are set from the call's arguments (drawn from the evaluation's secret
seed), so no state carries over from one call to the next (a BatchNorm in
training mode updates its running stats).

Its stdout is the caller's stderr: what the problem prints never reaches the
protocol, which runs on the socket SOCKET_FD.

usage (by reference.c): python3 reference_server.py TASK_DIR FD SIZE SOCKET_FD
"""
import importlib.util
import json
import mmap
import os
import socket
import sys

import torch


# An argument's element type (tasks imported before arguments had one are float32).
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "int64": torch.int64,
          "int32": torch.int32, "bool": torch.bool}


def dtype_of(argument):
    return DTYPES[argument.get("dtype", "float32")]


def shared_tensor(memory, offset, argument):
    """The argument's bytes in the shared memory, as a tensor of its shape (a view: nothing copied)."""
    dtype = dtype_of(argument)
    count = 1
    for extent in argument["shape"]:
        count *= extent
    if count == 0:
        return torch.empty(argument["shape"], dtype=dtype)
    stored = torch.uint8 if dtype == torch.bool else dtype  # a bool is one byte; any but 0 is true, as in C
    return torch.frombuffer(memory, dtype=stored, count=count, offset=offset).reshape(argument["shape"])


def main():
    task_dir = sys.argv[1]
    spec = json.load(open(os.path.join(task_dir, "task.json")))
    meta = spec["kernelbench"]
    torch.set_num_threads(int(os.environ.get("CUDAPERF_REFERENCE_THREADS", "1")))
    torch.manual_seed(0)  # the module's own initial values are replaced before every call
    loader = importlib.util.spec_from_file_location("kernelbench_problem", os.path.join(task_dir, "problem.py"))
    problem = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(problem)
    # The CPU by default: a GPU reference would share the GPU with the candidates being timed. A check of a
    # whole import on an otherwise idle GPU machine (check_eager.py --reference-device cuda) may use it.
    device = os.environ.get("CUDAPERF_REFERENCE_DEVICE", "cpu")
    model = problem.Model(*meta["init_inputs"]).to(device)
    state = dict(model.named_parameters())
    state.update(dict(model.named_buffers()))
    memory = mmap.mmap(int(sys.argv[2]), int(sys.argv[3]))
    views, offset = {}, 0
    for argument in meta["arguments"]:
        views[argument["name"]] = shared_tensor(memory, offset, argument)
        offset += views[argument["name"]].numel() * torch.empty((), dtype=dtype_of(argument)).element_size()
    if offset != len(memory):
        sys.exit("the shared memory holds %d bytes, the task's arguments %d" % (len(memory), offset))
    channel = socket.socket(fileno=int(sys.argv[4]))
    inputs = [a for a in meta["arguments"] if a["role"] in ("input", "parameter", "buffer")]
    outputs = [a for a in meta["arguments"] if a["role"] == "output"]
    while channel.recv(1):  # a call's inputs are in place; end of input: the reference's process ended
        tensors = []
        for argument in inputs:
            tensor = views[argument["name"]]
            if dtype_of(argument) == torch.bool:
                tensor = tensor != 0
            # A module that writes its inputs in place writes the shared memory: harmless, reference.c copies
            # every input in before each call and only the outputs out.
            tensors.append(tensor.to(device))
        forward_inputs = []
        with torch.no_grad():
            for argument, tensor in zip(inputs, tensors):
                if argument["role"] == "input":
                    forward_inputs.append(tensor)
                else:
                    state[argument["module_name"]].copy_(tensor)
            for baked in meta.get("baked_inputs", []):  # numbers get_inputs() gave alike every draw
                forward_inputs.insert(baked["position"], baked["value"])
            low = DTYPES.get(meta.get("computed_as_float32") or "")
            if low is not None:  # a half-precision problem: computed in float32, rounded back (as the probe did)
                forward_inputs = [v.float() if isinstance(v, torch.Tensor) and v.dtype == low else v
                                  for v in forward_inputs]
            result = model(*forward_inputs)
            if low is not None:
                rounded = [r.to(low) if isinstance(r, torch.Tensor) and r.dtype == torch.float32 else r
                           for r in (list(result) if isinstance(result, (tuple, list)) else [result])]
                result = rounded if isinstance(result, (tuple, list)) else rounded[0]
            results = list(result) if isinstance(result, (tuple, list)) else [result]
            if len(results) != len(outputs):
                sys.exit("the module returned %d outputs, the task has %d" % (len(results), len(outputs)))
            for argument, tensor in zip(outputs, results):
                if list(tensor.shape) != argument["shape"]:
                    sys.exit("output %s has shape %s, the task %s" % (argument["name"], list(tensor.shape),
                                                                      argument["shape"]))
                views[argument["name"]].copy_(tensor.detach())  # converts the type, and from the GPU
        if device != "cpu":
            # The server lives as long as the process that computes references, beside the judge's buffers and
            # the workers on the same GPU: what this call allocated (GBs at KernelBench's sizes) is given back.
            tensors = forward_inputs = result = results = tensor = rounded = None
            torch.cuda.empty_cache()
        channel.sendall(b"\x01")


if __name__ == "__main__":
    main()
