"""A small seeded classification task for examples and tests. Data and initial weights come from
numpy's seeded generator (bit-identical on torchnative and upstream torch), not from torch's RNG."""
import numpy as np
import torch

IN, HIDDEN, CLASSES = 8, 16, 3


def make_model(seed=0):
    rng = np.random.default_rng(seed)
    m = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, CLASSES))
    with torch.no_grad():
        for p in m.parameters():
            bound = 1.0 / np.sqrt(p.shape[-1] if p.dim() > 1 else HIDDEN)
            p.copy_(torch.from_numpy(rng.uniform(-bound, bound, size=tuple(p.shape)).astype(np.float32)))
    return m


def partition(pid, num_partitions, seed=0):
    """Client `pid`'s data: (x float32 [n, IN], y int64 [n]), n = 40 + 20 * pid (unequal sizes,
    so the example weighting matters); class centres shared by all clients, samples not."""
    centres = np.random.default_rng(seed + 12345).normal(0.0, 2.0, size=(CLASSES, IN))
    rng = np.random.default_rng(seed * 1000 + 7 * pid + 1)
    n = 40 + 20 * int(pid)
    y = rng.integers(0, CLASSES, size=n)
    x = centres[y] + rng.normal(0.0, 1.0, size=(n, IN))
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y.astype(np.int64))


def test_set(seed=0):
    return partition(99, 100, seed)


def state_to_json(state):
    """name -> list of float values (exact: float32 values are exact in float64 JSON numbers)."""
    return {k: v.detach().to(torch.float64).reshape(-1).tolist() for k, v in state.items()}
