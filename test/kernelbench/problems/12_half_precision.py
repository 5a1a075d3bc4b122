# Refused: a float16 input (half precision is not supported yet).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(64, 64).half()]


def get_init_inputs():
    return []
