"""Example harness cases: a small, diverse sample showing how cases are written.

Each `cases(...)`/`case(...)` call makes one pytest function whose items compare the subject's
torch with upstream 2.13.0 (see tests/harness/runner.py for what is compared and how).
"""
import pytest

from harness import case, cases

cases("creation", [
    "torch.arange(6.).reshape(2, 3)",
    "torch.zeros(2, 3, dtype=torch.int32)",
    "torch.full((2, 2), 7, dtype=torch.int8)",
    "torch.linspace(0, 1, 5)",
    "torch.tensor([[1, 2], [3, 4]], dtype=torch.uint8)",
    "torch.eye(3, dtype=torch.bool)",
    "torch.tensor([1+2j, -0.5j])",
])

cases("add", [
    "torch.add(torch.arange(6.).reshape(2, 3), 2)",
    "torch.ones(2, 3, dtype=torch.bfloat16) + torch.ones(3)",
    "torch.tensor([1, 2, 3]) + 1.5",                      # int tensor + float scalar -> float32
    "torch.tensor([1, 2], dtype=torch.int8) + torch.tensor(300)",   # 0-dim wraps into int8
    "torch.tensor([1, 2, 3]) / 0",                         # inf, not an exception
    "torch.tensor([1, 2, 3]) // 0",                        # upstream raises RuntimeError
    "torch.tensor([0.1, -0.0, float('nan')], dtype=torch.float16) * 3",
])

cases("views", {
    "transpose": "torch.arange(12.).reshape(3, 4).t()",
    "slice": "torch.arange(10)[2:8:3]",
    "expand": "torch.tensor([1., 2.]).expand(3, 2)",
    "alias": """
        x = torch.arange(6.)
        y = x.view(2, 3)
        z = x.clone()
        y[0, 0] = 100
        (y, z)
    """,
    "inplace": """
        x = torch.ones(4)
        x.mul_(3)
    """,
}, strides=True)

cases("reduce", [
    "torch.arange(10.).sum()",
    "torch.arange(12).reshape(3, 4).sum(dim=1)",
    "torch.tensor([[3., 1.], [2., 5.]]).max(dim=0)",
    "torch.tensor([True, False, True]).any()",
], strides=False)

cases("float_tol", [
    "torch.randn(8, 16).softmax(-1)",
    "torch.randn(5, 7) @ torch.randn(7, 3)",
    "torch.randn(32, dtype=torch.bfloat16).exp().sum()",
], tol="float")

cases("errors", [
    "torch.ones(2, 3) @ torch.ones(2, 3)",
    "torch.ones(2).view(3)",
    "torch.arange(4)[10]",
])

case("repr", """
    t = torch.tensor([[1.5, -0.0], [float('nan'), 1e10]])
    repr(t) + '\\n' + str(torch.arange(3, dtype=torch.int16)) + '\\n' + repr(t.dtype) + repr(t.shape)
""")

case("autograd", """
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    (y, x.grad)
""")
# Honest skip: torchnative has no autograd engine yet (no grad_fn recording, no backward; the
# first missing piece upstream reaches is torch._C._stash_obj_in_tls). Unskip when it exists.
test_autograd = pytest.mark.skip(reason="needs autograd (grad_fn recording and backward), not built yet")(test_autograd)

case("empty_meta", "torch.empty(3, 4).t()", values=False)
