"""Exception types (and messages) of the no-crash corpus where both sides refuse with different
types, second round of session 39 (docs/breadth_more2.md "Fuzz corpus exception types"); the corpus
itself compares every call's exception type (tests/test_no_crash.py).

- linalg_vector_norm (and torch.norm / Tensor.norm, which call it): the dtype checks come before the
  dims are wrapped, so a complex input with a real dtype and a dim out of range is the dtype's
  RuntimeError; on meta (out= on meta too) a complex order is upstream's Python reference's TypeError,
  and an integer input its wording of the dtype (torch.int64).
- _pack_padded_sequence: an empty input is refused before the batch size is read.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
x = torch.arange(6.).reshape(2, 3)
c = torch.arange(6.).reshape(2, 3).to(torch.complex64)
m = torch.empty(2, 3, device='meta')
"""

cases("fuzz_ie7", {
    "vector_norm_dtype_before_dims": "[err(g) for g in [lambda: torch.norm(c, 2, [6], False, dtype=torch.float32), "
                                     "lambda: c.norm(2, [0, 1, 2], False, dtype=torch.float32), "
                                     "lambda: torch.norm(c, 2, [-1, 2], False, dtype=torch.float32, out=torch.empty(2, 3)), "
                                     "lambda: torch.linalg.vector_norm(c, 2, [6], dtype=torch.float32), "
                                     "lambda: torch.linalg.vector_norm(x, 2, [6], dtype=torch.complex64), "
                                     "lambda: torch.linalg.vector_norm(x, 2, [6], dtype=torch.float32), "
                                     "lambda: torch.linalg.vector_norm(x, 2, [0, 0], dtype=torch.int64), "
                                     "lambda: torch.linalg.vector_norm(torch.empty(0, 3), -1, [5], dtype=torch.complex64), "
                                     "lambda: torch.linalg.vector_norm(torch.empty(0, 3), -1, [0], dtype=torch.complex64)]], "
                                     "torch.linalg.vector_norm(c, 2, [1], dtype=torch.complex128)",
    "vector_norm_complex_ord_meta": "[err(g) for g in [lambda: torch.ops.aten.linalg_vector_norm(m, 1j), lambda: torch.ops.aten.norm.Scalar(m, 1j), "
                                    "lambda: torch.ops.aten.norm.ScalarOpt_dim(m, 1j, [0]), lambda: torch.ops.aten.norm.ScalarOpt_dtype(m, 1j, dtype=torch.float32), "
                                    "lambda: m.norm(1j, dim=[0], keepdim=False, dtype=torch.float32), lambda: torch.ops.aten.linalg_vector_norm(x, 1j), "
                                    "lambda: torch.ops.aten.linalg_vector_norm(m.long(), 1j), lambda: torch.ops.aten.norm.Scalar(x, 1j), "
                                    "lambda: torch.ops.aten.linalg_vector_norm.out(m, 1j, out=torch.empty(0, device='meta')), "
                                    "lambda: torch.ops.aten.norm.Scalar_out(m, 1j, out=torch.empty(0, device='meta')), "
                                    "lambda: torch.ops.aten.norm.out(m, 1j, [0], False, out=torch.empty(0, device='meta'))]], "
                                    "torch.ops.aten.linalg_vector_norm(m, 2, [0]).shape",
    "pack_padded_empty_first": "P = torch.ops.aten._pack_padded_sequence; e = torch.empty(0, dtype=torch.long); "
                               "[err(g) for g in [lambda: P(e, e, False), lambda: P(torch.empty(0, 2), torch.tensor([1, 1]), False), "
                               "lambda: P(torch.ones(3), torch.tensor([1]), False), lambda: P(e, e, True), lambda: P(torch.ones(0, 2, 3), torch.tensor([1, 1]), True)]]",
}, setup=SETUP)
