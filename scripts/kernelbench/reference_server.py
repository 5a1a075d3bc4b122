"""The PyTorch reference of an imported KernelBench task, on the trusted side.

The task's reference.c (written by import_kernelbench.py) starts this once per
process that computes reference outputs and keeps it: for every call it
writes the bytes of every input argument (the problem's inputs, then the
module's parameters and buffers, in the task's argument order) on this
process's stdin, and reads the outputs' bytes back from its stdout. The module
is built once from the problem file with the baked get_init_inputs(); before
each forward its parameters and buffers are set from the call's arguments
(drawn from the evaluation's secret seed), so no state carries over from one
call to the next (a BatchNorm in training mode updates its running stats).

usage (by reference.c): python3 reference_server.py TASK_DIR
"""
import importlib.util
import json
import os
import sys

import torch


# An argument's element type (tasks imported before arguments had one are float32).
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "int64": torch.int64,
          "int32": torch.int32, "bool": torch.bool}


def dtype_of(argument):
    return DTYPES[argument.get("dtype", "float32")]


def read_exactly(stream, count):
    """count bytes read straight into one buffer (an argument is GBs at KernelBench's sizes: no copies)."""
    data = bytearray(count)
    view, done = memoryview(data), 0
    while done < count:
        got = stream.readinto(view[done:])
        if not got:
            return None
        done += got
    return data


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
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    inputs = [a for a in meta["arguments"] if a["role"] in ("input", "parameter", "buffer")]
    outputs = [a for a in meta["arguments"] if a["role"] == "output"]
    while True:
        tensors = []
        for argument in inputs:
            count = 1
            for extent in argument["shape"]:
                count *= extent
            dtype = dtype_of(argument)
            data = read_exactly(stdin, torch.empty((), dtype=dtype).element_size() * count)
            if data is None:
                return  # the reference's process ended
            if count == 0:
                tensors.append(torch.empty(argument["shape"], dtype=dtype))
            elif dtype == torch.bool:  # one byte per element; a byte other than 0 is true, as in C
                tensors.append((torch.frombuffer(data, dtype=torch.uint8) != 0).reshape(argument["shape"]))
            else:  # the tensor is the buffer read: nothing copied
                tensors.append(torch.frombuffer(data, dtype=dtype).reshape(argument["shape"]))
            tensors[-1] = tensors[-1].to(device)
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
            tensor = tensor.detach().to(dtype_of(argument)).cpu().contiguous()
            if list(tensor.shape) != argument["shape"]:
                sys.exit("output %s has shape %s, the task %s" % (argument["name"], list(tensor.shape),
                                                                  argument["shape"]))
            if tensor.dtype in (torch.float16, torch.bfloat16):  # numpy has no bfloat16: the bits as int16
                tensor = tensor.view(torch.int16)
            stdout.write(memoryview(tensor.numpy()).cast("B"))  # the tensor's own bytes, not a copy
        stdout.flush()


if __name__ == "__main__":
    main()
