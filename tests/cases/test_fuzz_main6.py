"""Calls of the no-crash corpus (tests/test_no_crash.py) fixed outside the helper groups in session
39 (docs/breadth_more2.md "Fuzz corpus, session 39"), compared with upstream 2.13.0:

- roll of a 0-d tensor with dims: upstream reads self.size(dim), an IndexError for any dim (ours
  wrapped the dim as for a 1-d tensor and read a size the tensor does not have: garbage values).
- roll's shifts are a SymInt[]: upstream's CPU kernel refuses an element below -2^62 (the range
  c10::SymInt keeps for symbolic values) before anything else; its message carries a build path,
  so the text after the last ': ' is compared. On meta, its meta function runs: no such
  refusal, and every dim wrapped (IndexError) before the shifts / dims length checks.
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
