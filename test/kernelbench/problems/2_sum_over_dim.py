# A reduction over one dimension, the dimension baked from get_init_inputs().
# It prints, at import and in every forward, as problems written for a quick
# look do: neither the importer's probe nor the reference's protocol may read it.
import torch
import torch.nn as nn

print("2_sum_over_dim: imported")


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        print("2_sum_over_dim: forward over", tuple(x.shape))
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 8
rows = 64
cols = 128


def get_inputs():
    return [torch.rand(batch_size, rows, cols)]


def get_init_inputs():
    return [1]
