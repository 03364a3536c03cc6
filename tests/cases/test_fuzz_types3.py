"""Exception types and messages of the no-crash corpus's "both refuse, other type" calls, third pass
(group types; docs/breadth_more2.md "Fuzz corpus exception types, group types (session 36)"); the
corpus itself compares every call's exception type (tests/test_no_crash.py).

- lu / lu_factor_ex / geqrf / linalg_qr / _linalg_svd: upstream's CPU kernels refuse a dtype by the
  kernel's name ("lu_cpu", "geqrf_cpu", "linalg_svd_cpu"); qr / svd refuse a non-floating one first;
  lu's rank check words "Expected tensor with 2 or more dimensions"; geqrf has no Meta kernel.
- isin: only Bool / ComplexFloat / ComplexDouble refused by an operand's own dtype; the kernel
  ("isin_default_cpu") by the common one; isin.Tensor_Scalar is eq / ne.
- softshrink: "softshrink_check" for float8 and non-floating dtypes; the range message's numbers.
- nanmean.out: "integral types and 'Bool' ..." first, then nansum's kernel over out='s dtype.
- stack.out into an out= of a dtype the inputs cannot cast to: cat's TypeError.
- linalg.norm / matrix_norm with a complex order: RuntimeError before anything.
- torch._softmax_backward_data names its out= parameter grad_input (upstream's binding).
- index_select: IndexError "index out of range in self", but upstream's own words (RuntimeError
  "INDICES element is out of DATA bounds") for an empty self of 2+ dims and its dim-1 path.
- min / max.dim wrap dim before refusing complex; linalg.cross's kernel refuses self's dtype
  ("cross"), then reads other as that type ("expected scalar type Float but found Long").
- reflection / replication_pad1d_backward, grid_sampler, nll_loss_forward read a size first
  (IndexError); nll_loss_forward checks the target's dtype before its sizes.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
x = torch.arange(6.).reshape(2, 3)
sq = torch.arange(9.).reshape(3, 3) + torch.eye(3) * 5
i5 = torch.tensor([5])
DT = [torch.bfloat16, torch.float16, torch.bool, torch.int64, torch.complex32, torch.float8_e4m3fn, torch.uint16]
"""

cases("fuzz_types3", {
    "lapack_kernel_dtypes": "[err(lambda: f(sq.to(d))) for d in DT for f in [torch.linalg.lu, torch.linalg.lu_factor_ex, torch.linalg.lu_factor, "
                            "torch.geqrf, torch.linalg.qr, torch.linalg.svd, torch.ops.aten._linalg_svd]]",
    # (an empty input of another dtype runs upstream's lu / lu_factor_ex / svd: not yet ours, docs)
    "lapack_rank_and_empty": "[err(lambda: f(a)) for a in [torch.ones(3), torch.ones(3, dtype=torch.int64)] "
                             "for f in [torch.linalg.lu, torch.linalg.lu_factor_ex, torch.geqrf, torch.linalg.qr]], "
                             "[err(lambda: f(torch.ones(2, 0, 3, dtype=torch.int64))) for f in [torch.geqrf, torch.linalg.qr]], "
                             "err(lambda: torch.linalg.qr(torch.ones(0, 3, dtype=torch.bfloat16)))",
    "geqrf_meta": "[err(lambda: torch.geqrf(torch.ones(*s, dtype=d, device='meta'))) for s in [(3,), (3, 3)] for d in [torch.float32, torch.bool]]",
    "isin_dtypes": "D = [torch.complex32, torch.complex64, torch.float8_e4m3fn, torch.float32, torch.bool, torch.uint16, torch.int32]; "
                   "[err(lambda: torch.isin(x.to(a), x.to(b))) for a in D for b in D], "
                   "[err(lambda: torch.isin(2, x.to(a))) for a in D], [torch.isin(x.to(a), 2) if a not in (torch.bool, torch.complex64) "
                   "else err(lambda: torch.isin(x.to(a), 2)) for a in D], "
                   "[torch.isin(x.to(a), 1.0, invert=True) for a in (torch.complex32, torch.float8_e4m3fn, torch.uint16)], "
                   "torch.isin(x.to(torch.uint16), 2, out=torch.empty(2, 3, dtype=torch.bool)), "
                   "err(lambda: torch.isin(x.to(torch.uint16), 2, out=torch.empty(2, 3)))",
    "softshrink_dtypes_and_range": "[err(lambda: torch.nn.functional.softshrink(torch.ones(2, dtype=d), l)) for d in "
                                   "[torch.float32, torch.float64, torch.float16, torch.bfloat16] for l in [-1, -2 ** 63, 1e308, -0.5, float('nan')]], "
                                   "[err(lambda: torch.nn.functional.softshrink(x.to(d), -1)) for d in [torch.float8_e5m2, torch.int32, torch.complex64]], "
                                   "err(lambda: torch.ops.aten.softshrink.out(x.to(torch.float8_e4m3fn), 0.5, out=torch.empty(2, 3)))",
    "nanmean_out": "[err(lambda: torch.nanmean(x, out=torch.empty(0, dtype=d))) for d in [torch.int32, torch.bool, torch.complex64, torch.float8_e4m3fn, torch.complex32]], "
                   "torch.nanmean(x, out=torch.empty(0, dtype=torch.half)), err(lambda: torch.nanmean(x.int(), out=torch.empty(0, dtype=torch.int32))), "
                   "err(lambda: torch.nanmean(x.int())), err(lambda: torch.nanmean(x, 0, out=torch.empty(0, dtype=torch.int64)))",
    "stack_out_cast": "[err(lambda: torch.stack([x, x], out=torch.empty(0, dtype=d))) for d in [torch.int32, torch.bool]], "
                      "torch.stack([x.int(), x.int()], out=torch.empty(0, dtype=torch.complex64)), "
                      "err(lambda: torch.stack([x, x[0]], out=torch.empty(0, dtype=torch.int32))), err(lambda: torch.hstack([x, x], out=torch.empty(0, dtype=torch.int32)))",
    "norm_complex_order": "[err(f) for f in [lambda: torch.linalg.norm(x, 1j), lambda: torch.linalg.norm(x[0], 1j), lambda: torch.linalg.norm(x, 1j, dim=(0, 1)), "
                          "lambda: torch.linalg.norm(torch.ones(2, 2, 2), 1j), lambda: torch.linalg.norm(x.bool(), 1j), lambda: torch.linalg.matrix_norm(x, 3 + 0j), "
                          "lambda: torch.linalg.matrix_norm(torch.ones(3), 1j), lambda: torch.linalg.vector_norm(x, 1j), "
                          "lambda: torch.linalg.norm(x, 1j, out=torch.empty(()))]]",
    "softmax_backward_data_grad_input": "g = torch.empty(2, 3); F = torch._softmax_backward_data; "
                                        "F(x, x, 0, torch.float32, grad_input=g), g, F(x, x, 0, torch.float32, grad_input=None), "
                                        "err(lambda: F(x, x, 0, torch.float32, out=torch.empty(2, 3))), err(lambda: F(x, x, 0, torch.float32, out=None))",
    "index_select_bounds_words": "e = torch.empty(3, 0); x4 = torch.arange(12.).reshape(2, 1, 3, 2); "
                                 "[err(f) for f in [lambda: torch.index_select(e, 1, torch.tensor([0])), lambda: torch.index_select(e, 0, torch.tensor([-3])), "
                                 "lambda: torch.index_select(e, 0, i5), lambda: torch.index_select(torch.empty(0, 3), 0, torch.tensor([0])), "
                                 "lambda: torch.index_select(torch.empty(0), 0, torch.tensor([0])), lambda: torch.index_select(x, 0, torch.tensor([-1])), "
                                 "lambda: torch.index_select(x, 1, i5), lambda: torch.index_select(x, 1, torch.tensor([-1])), lambda: torch.index_select(x, -1, i5), "
                                 "lambda: torch.index_select(x.t(), 1, i5), lambda: torch.index_select(torch.ones(2, 3, 2), 2, i5), "
                                 "lambda: torch.index_select(torch.tensor(1.), 0, i5), lambda: torch.index_select(torch.ones(3), 0, i5.int()), "
                                 "lambda: torch.index_select(x4, 0, i5), lambda: torch.index_select(x4, 0, i5, out=torch.empty(0)), "
                                 "lambda: torch.index_select(x, 1, torch.tensor([5, 0]), out=torch.empty(2, 2).t()), "
                                 "lambda: torch.index_select(x, 1, torch.tensor([5, 0]), out=torch.empty(2, 2)), "
                                 "lambda: torch.index_select(x.to(torch.complex32), 0, i5), lambda: torch.index_select(x.to(torch.float8_e4m3fn), 1, i5)]], "
                                 "torch.index_select(e, 1, torch.tensor([], dtype=torch.long)).shape",
    "size_reads_first": "P1 = torch.ops.aten.reflection_pad1d_backward; R1 = torch.ops.aten.replication_pad1d_backward; "
                        "G = torch.ops.aten.grid_sampler_2d; NF = torch.ops.aten.nll_loss_forward; NB = torch.ops.aten.nll_loss_backward; "
                        "[err(f) for f in [lambda: P1(torch.tensor(1.), x, [1, 1]), lambda: P1(torch.ones(7), x, [1, 1]), lambda: R1(torch.tensor(1.), x, [1, 1]), "
                        "lambda: R1(torch.ones(4), x, [1, 1]), lambda: R1(torch.ones(2, 3), torch.ones(2, 2, 3), [1, 1]), "
                        "lambda: G(torch.tensor(1.), torch.tensor(1.), 0, 0, False), lambda: G(torch.ones(1, 1, 2, 2), torch.tensor(1.), 0, 0, False), "
                        "lambda: G(torch.tensor(1.), torch.ones(1, 2, 2, 2), 0, 0, False), "
                        "lambda: NF(x, torch.tensor(1), None, 1, -100), lambda: NF(x, torch.tensor(1.5), None, 1, -100), "
                        "lambda: NF(x, torch.tensor(1, dtype=torch.int32), None, 1, -100), lambda: NF(x, torch.tensor(1, dtype=torch.uint8), None, 1, -100), "
                        "lambda: NF(x, torch.zeros(3), None, 1, -100), lambda: NF(x, torch.zeros(3, dtype=torch.long), None, 1, -100), "
                        "lambda: NF(torch.ones(7), torch.zeros(7, dtype=torch.long), None, 1, -100), lambda: NF(torch.ones(7), torch.zeros(7), None, 1, -100), "
                        "lambda: NF(torch.ones(7), torch.zeros(7, dtype=torch.long), torch.ones(3), 1, -100), "
                        "lambda: NF(torch.ones(7, dtype=torch.int32), torch.zeros(7, dtype=torch.long), None, 1, -100), "
                        "lambda: NF(torch.ones(2, 3, 4), torch.tensor(1.5), None, 1, -100), lambda: NF(x, torch.zeros(2, 2), None, 1, -100), "
                        "lambda: NB(torch.tensor(1.), x, torch.tensor(1), None, 1, -100, torch.tensor(1.))]]",
    "minmax_dim_wrap_first": "c = x.to(torch.complex64); [err(lambda: f(c, d)) for f in [torch.min, torch.max] for d in [-3, 2, -33, 0]], "
                             "[err(lambda: f(c, 5, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))) for f in [torch.min, torch.max]], "
                             "err(lambda: torch.max(torch.tensor(1.), 1))",
    "cross_kernel_dtypes": "a = torch.arange(6.).reshape(2, 3); [err(lambda: torch.linalg.cross(p, q)) for p, q in [(a, a.long()), (a.long(), a), (a.bool(), a), "
                           "(a, a.bool()), (a.to(torch.complex32), a), (a.to(torch.float8_e4m3fn), a), (a.bool(), a.bool()), (a.half(), a), "
                           "(a.to(torch.uint16), a), (a.to(torch.uint16), a.to(torch.uint16)), (a, torch.ones(2, 2))]], "
                           "torch.linalg.cross(a.half(), a.half() + 1), torch.linalg.cross(a.long(), a.long() * 2)",
}, setup=SETUP)
