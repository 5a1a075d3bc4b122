# BatchNorm in training mode: running statistics are buffers it updates on every call.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bn = nn.BatchNorm1d(features)

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(64, 32) * 3 + 1]


def get_init_inputs():
    return [32]
