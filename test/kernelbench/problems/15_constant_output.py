# Refused: the output is one value whatever the inputs (a min then a clamp to the same bound, as one of
# KernelBench's level 2 problems does), so no candidate could be told right from wrong.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.clamp(torch.min(x, torch.tensor(0.0)), min=0.0, max=1.0)


def get_inputs():
    return [torch.randn(32, 32)]


def get_init_inputs():
    return []
