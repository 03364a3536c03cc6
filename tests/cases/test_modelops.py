"""Golden cases for src/ops/modelops.c: constant padding (aten::pad, aten::constant_pad_nd,
F.pad) and finite differences (aten::diff)."""
from harness import cases

cases("pad", [
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (1, 2))",
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (0, -1, 1, 0), value=5)",
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (-1, -2))",
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (-3, 0))",
    "torch.nn.functional.pad(torch.arange(3), (0, 2), value=1.7)",
    "torch.nn.functional.pad(torch.ones(3, dtype=torch.bool), (0, 2), value=0.5)",
    "torch.nn.functional.pad(torch.ones(2, 2, dtype=torch.bfloat16), (1, 1, 1, 1), value=-1.5)",
    "torch.nn.functional.pad(torch.arange(4, dtype=torch.uint8), (2, 0), 'constant', 9)",
    "torch.nn.functional.pad(torch.tensor(2.), ())",
    "torch.nn.functional.pad(torch.ones(2, 0), (1, 1))",
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3).t(), (1, 0))",
    "torch.nn.functional.pad(torch.arange(12.).reshape(3, 4)[::2, 1::2], (1, 1, 0, 1), value=7)",
    "torch.nn.functional.pad(torch.arange(24.).reshape(2, 3, 4), (1, 0, 0, 1, 1, 1))",
    "torch.ops.aten.pad.default(torch.arange(6.).reshape(2, 3), [1, 1], 'constant', 2.0)",
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (1, 2, 3))",
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (-2, -2))",
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (-4, 1))",
    "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (1, 1, 1, 1, 1, 1))",
    "torch.ops.aten.pad.default(torch.arange(6.).reshape(2, 3), [1, 1], 'reflect', 3.0)",
])

cases("constant_pad_nd", [
    "torch.constant_pad_nd(torch.arange(3), [1, 1], 2.5)",
    "torch.constant_pad_nd(torch.arange(6.).reshape(2, 3), [0, 1, 2, 0])",
    "torch.constant_pad_nd(torch.arange(6.).reshape(2, 3), [1, -1], value=-3)",
    "torch.ops.aten.constant_pad_nd.default(torch.ones(2, 2, dtype=torch.float16), [1, 1], 0.5)",
    "torch.constant_pad_nd(torch.arange(6.).reshape(2, 3), [1, 2, 3])",
    "torch.constant_pad_nd(torch.arange(6.).reshape(2, 3), [1, 1, 1, 1, 1, 1])",
])

cases("diff", [
    "torch.diff(torch.tensor([1., 3, 6, 10]))",
    "torch.diff(torch.tensor([1., 3, 6, 10]), n=2)",
    "torch.diff(torch.tensor([True, False, False]))",
    "torch.diff(torch.tensor([True, False, True]), n=2)",
    "torch.diff(torch.tensor([1, 2], dtype=torch.uint8))",
    "torch.diff(torch.tensor([[1, 3, 6], [2, 2, 9]]), prepend=torch.tensor([[0], [1]]), dim=-1)",
    "torch.diff(torch.tensor([[1, 3], [6, 10]]), dim=0, append=torch.tensor([[0, 0]]))",
    "torch.diff(torch.arange(3), prepend=torch.tensor([1.5]))",
    "torch.diff(torch.tensor([True, False]), prepend=torch.tensor([1]))",
    "torch.diff(torch.arange(6.).reshape(2, 3), n=0)",
    "torch.diff(torch.arange(6.).reshape(2, 3), n=5)",
    "torch.diff(torch.arange(6.).reshape(2, 3).t(), dim=0)",
    "torch.diff(torch.ones(2, 0))",
    "torch.arange(10.)[::2].diff()",
    "torch.ops.aten.diff.default(torch.tensor([[1, 4, 9], [2, 3, 5]]), 1, 0)",
    "torch.ops.aten.diff.default(torch.tensor([1., 4, 9]), 2, -1, torch.tensor([0.]), None)",
    "torch.diff(torch.arange(4, dtype=torch.bfloat16) ** 2)",
    "torch.diff(torch.tensor(1.))",
    "torch.diff(torch.arange(6.).reshape(2, 3), n=-1)",
    "torch.diff(torch.arange(6.).reshape(2, 3), dim=2)",
    "torch.diff(torch.arange(6.).reshape(2, 3), prepend=torch.tensor(1.))",
    "torch.diff(torch.arange(6.).reshape(2, 3), prepend=torch.ones(3, 1))",
])

cases("diff_layout", [
    "torch.diff(torch.arange(6.).reshape(2, 3).t(), n=0)",
    "torch.diff(torch.arange(12.).reshape(3, 4).t(), n=2, dim=0)",
    "torch.diff(torch.arange(12.).reshape(3, 4).t(), dim=1, append=torch.ones(4, 1))",
], strides=True)
