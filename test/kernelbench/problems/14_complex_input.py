# Refused: a complex64 input (no complex buffers in the task format).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.abs(x)


def get_inputs():
    return [torch.randn(32, 32, dtype=torch.complex64)]


def get_init_inputs():
    return []
