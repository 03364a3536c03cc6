"""Calls of the no-crash corpus (tests/test_no_crash.py) fixed outside the helper groups in session
39 (docs/breadth_more2.md "Fuzz corpus, session 39"), compared with upstream 2.13.0:

- roll of a 0-d tensor with dims: upstream reads self.size(dim), an IndexError for any dim (ours
  wrapped the dim as for a 1-d tensor and read a size the tensor does not have: garbage values).
- roll's shifts are a SymInt[]: upstream's CPU kernel refuses an element below -2^62 (the range
  c10::SymInt keeps for symbolic values) before anything else; its message carries a build path,
  so the text after the last ': ' is compared. On meta, its meta function runs: no such
  refusal, and every dim wrapped (IndexError) before the shifts / dims length checks.
- linear with a bias: upstream takes addmm (the bias expanded to the folded 2-D result, which the
  result views) for a 2-D input or a contiguous one whose bias is 1-D or 1-D once squeezed; otherwise matmul, then output.add_(bias) in place (no broadcasting the output larger,
  the output's dtype kept). Ours broadcast any bias out of place (a 1-D input with a (1, N) bias
  gave (1, N), upstream (N,)). addmm's CPU kernel expands self to (n, m) first: its expand errors
  (ours broadcast and named the output's shape).
"""
from harness import cases

SETUP = """
def err(f):
    try:
        f()
    except Exception as e:
        return (type(e).__name__, str(e).split(': ')[-1])
    return None
x = torch.arange(6.).reshape(2, 3)
s = torch.tensor(1.5)
"""

cases("fuzz_main6_roll", {
    "zero_dim_dims": "[err(lambda: torch.roll(s, sh, d)) for sh, d in (([1], [0]), ([1], [-1]), ([1], [1]), ([1, 1], [0, 0]), "
                     "([2, 3], [-1, 0]))] + [torch.roll(s, 1), torch.roll(s, [3]), s.roll(-2)]",
    "zero_dim_aten": "[err(lambda: torch.ops.aten.roll.default(s, [1], [0])), err(lambda: s.roll([1], [0])), "
                     "err(lambda: torch.roll(torch.tensor(3), [1], [0]))]",
    "symint_range": "[err(lambda: torch.roll(x, [v])) for v in (-2**62, -2**62 - 1, -2**63)] + "
                    "[err(lambda: torch.roll(x, [v], [0])) for v in (-2**62, -2**62 - 1)] + "
                    "[err(lambda: torch.roll(x, [1, -2**63], [0, 1])), err(lambda: x.roll(-2**63)), "
                    "err(lambda: torch.roll(torch.empty(0), [-2**63])), err(lambda: torch.roll(x, [-2**63], [0, 1])), "
                    "err(lambda: torch.roll(x.to(torch.uint16), [-2**63])), err(lambda: torch.roll(s, [-2**63], [0]))]",
    "values": "[torch.roll(x, [-2**62]), torch.roll(x, [1, -2**62], [0, 1]), torch.roll(x, 2**62 + 1)]",
    "meta": "[tuple(torch.roll(torch.ones(2, 3, device='meta'), [v]).shape) for v in (-2**63, -2**62 - 1, 5)] + "
            "[err(lambda: torch.roll(torch.ones(2, 3, device='meta'), sh, d)) for sh, d in (([1, 1], [0, 1, 2]), "
            "([1, 1], [2]), ([1], [-3]), ([1, 1], [0]), ([], [0]), ([1], [0, 1]))] + "
            "[err(lambda: torch.roll(torch.ones((), device='meta'), [1], [0]))]",
}, setup=SETUP)

LINEAR = SETUP + """
W = torch.arange(6.).reshape(2, 3) / 4
def lin(x, bs, dtype=torch.float32):
    b = (torch.arange(float(torch.Size(bs).numel())).reshape(bs) * 10).to(dtype)
    try:
        r = torch.nn.functional.linear(x, W, b)
    except Exception as e:
        return (type(e).__name__, str(e))
    return (r, r.dtype, r._base is not None)
SHAPES = [(3,), (2,), (1, 2), (2, 1), (1, 1), (2, 2), (1, 1, 2), (1, 1, 1, 2), (2, 1, 1, 1), (), (1,), (3, 2)]
"""

cases("fuzz_main6_linear_bias", {
    "x1": "[lin(torch.tensor([1., 2., 3.]), s) for s in SHAPES]",
    "x1_strided": "[lin(torch.tensor([1., 0., 2., 0., 3., 0.])[::2], s) for s in SHAPES]",
    "x2": "[lin(torch.arange(12.).reshape(4, 3), s) for s in SHAPES]",
    "x3": "[lin(torch.arange(12.).reshape(2, 2, 3), s) for s in SHAPES]",
    "x3_noncontig": "[lin(torch.arange(24.).reshape(2, 3, 4).transpose(1, 2), s) for s in SHAPES]",
    "x4": "[lin(torch.arange(24.).reshape(2, 2, 2, 3), s) for s in SHAPES]",
    "dtypes": "[lin(x, s, dt) for x in (torch.tensor([1., 2., 3.]), torch.arange(24.).reshape(2, 3, 4).transpose(1, 2)) "
              "for s in ((2,), (1, 2), (1,)) for dt in (torch.float64, torch.int64, torch.complex64)]",
    "x1_grad": "[lin(torch.tensor([1., 2., 3.], requires_grad=True), s) for s in SHAPES]",
    "x3_noncontig_grad": "[lin(torch.arange(24.).reshape(2, 3, 4).transpose(1, 2).requires_grad_(), s) for s in SHAPES]",
    "bias_grad": "[(lambda b: (lambda r: (r, r.grad_fn.name()) if isinstance(r, torch.Tensor) else r)(err(lambda: None) or "
                 "torch.nn.functional.linear(torch.arange(24.).reshape(2, 3, 4).transpose(1, 2), W, b)))"
                 "(torch.ones(s, requires_grad=True)) for s in ((2,), (1, 2), (1,), (4, 1, 2))]",
    "addmm_expand": "[err(lambda: torch.addmm(torch.ones(s), torch.ones(1, 3, requires_grad=g), torch.ones(3, 2))) "
                    "for s in ((2, 1), (1, 1, 2), (3,), (2, 2)) for g in (False, True)] + "
                    "[torch.addmm(torch.ones(s), torch.ones(2, 3), torch.ones(3, 2)) for s in ((2,), (1, 2), (2, 1), (), (1,))]",
}, setup=LINEAR, tol="float")
