# A fused level-2 style chain: Linear, GELU, a scale and a learned per-feature bias.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.extra_bias = nn.Parameter(torch.randn(out_features) * 0.1)
        self.scale = scale

    def forward(self, x):
        return torch.nn.functional.gelu(self.linear(x)) * self.scale + self.extra_bias


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return [64, 128, 0.5]
