# An int64 output (indices along a dimension), as KernelBench's argmax and argmin problems have.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=1)


def get_inputs():
    return [torch.randn(16, 256)]


def get_init_inputs():
    return []
