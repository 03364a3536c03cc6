"""Exception types and messages of the no-crash corpus's "both refuse, other type" calls, fifth pass
(group types; docs/breadth_more2.md "Fuzz corpus exception types, group types (session 38)"); the
corpus itself compares every call's exception type (tests/test_no_crash.py).

- A device upstream's Python bindings initialize lazily (cuda, xpu, mtia, hpu): after the parse,
  torch.<type>._lazy_init() raises on a CPU-only build (AssertionError "Torch not compiled with CUDA
  enabled"; ModuleNotFoundError for hpu).
- Python ints out of int64 where upstream unpacks an int (x.size(d), x[i], x[[i]], x[0] = v,
  storage[i]): ValueError "Overflow when unpacking long long".
- The requires_grad / data setters: RuntimeError for a non-bool or a delete, TypeError naming the type.
- A meta self with a CPU out=: upstream's Meta path copies into out= before any argument check for
  std / var.out, special_logsumexp.out, softmax / log_softmax.int_out, argsort.stable_out,
  sort.values(_stable).
- Meta index_add / index_copy (functional, in place): their decompositions wrap the dim, compare
  the devices in their own words, then check the index's dims. CPU index_add of an index out of
  range: IndexError "index out of range in self" but for a self of 2+ dims with an int64 index and
  alpha 1 (RuntimeError naming the index).
- addmv's size-mismatch message reads self.size(0), the rnn cells' checks read sym_size(d): a 0-d
  tensor there is an IndexError ("Dimension specified as 0 but tensor has no dimensions").
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
a = torch.ops.aten
x = torch.arange(6.).reshape(2, 3)
m = torch.empty(2, 3, device="meta")
"""

cases("fuzz_types5", {
    "lazy_init_device": "[err(lambda: f(d)) for d in ['cuda', 'cuda:1', torch.device('cuda'), 'xpu', 'mtia', 'hpu', 'privateuseone'] "
                        "for f in [lambda d: torch.zeros(2, device=d), lambda d: torch.arange(2, 3, device=d), "
                        "lambda d: torch.hann_window(1, device=d), lambda d: torch.full([2], 1., device=d), "
                        "lambda d: torch.randperm(3, device=d), lambda d: torch.eye(2, device=d), lambda d: torch.tril_indices(1, 1, device=d), "
                        "lambda d: torch.normal(2., 2., size=[2, 3], device=d), lambda d: x.new_zeros(2, device=d), "
                        "lambda d: x.new_empty(2, device=d), lambda d: torch.zeros_like(x, device=d), lambda d: torch.randn(2, device=d), lambda d: torch.tensor([1], device=d), "
                        "lambda d: torch.as_tensor([1], device=d), lambda d: torch.asarray([1], device=d), lambda d: x.new_tensor([1], device=d), "
                        "lambda d: x.to(d), lambda d: x.to(device=d), lambda d: x.to(d, torch.float64)]]",
    "int_overflow_unpack": "u = torch.zeros(2, 3, dtype=torch.uint64); "
                           "[err(f) for f in [lambda: x.size(2**63), lambda: x.size(-2**63 - 1), lambda: x.stride(2**64), "
                           "lambda: torch.ones(()).size(2**63), lambda: x[2**63], lambda: x[-2**63 - 1], lambda: x[1, 2**63], "
                           "lambda: x[[2**63]], lambda: x[2**63:], lambda: x.untyped_storage()[2**63], "
                           "lambda: x.untyped_storage()[-2**63 - 1], lambda: x.size(2**40)]], "
                           "[err(lambda: t.__setitem__(0, v)) for t in [x.clone(), x.long(), u, x.to(torch.uint8)] "
                           "for v in [2**63, 2**64, 2**70, -2**63 - 1]], (x[0].__setitem__(0, 2**62), x)",
    "tensor_setters": "t = torch.zeros(2); "
                      "[err(f) for f in [lambda: setattr(t, 'requires_grad', 'x'), lambda: setattr(t, 'requires_grad', 1), "
                      "lambda: delattr(t, 'requires_grad'), lambda: delattr(t, 'data'), lambda: setattr(t, 'data', 3), "
                      "lambda: setattr(t, 'data', [1.])]], t.requires_grad",
    "meta_out_copy_first": "o = torch.zeros(2, 3); oi = o.long(); "
                           "[err(f) for d in [1, 2, -3] for f in [lambda: a.std.out(m, dim=[d], out=o), lambda: a.var.out(m, dim=[d], out=o), "
                           "lambda: a.special_logsumexp.out(m, dim=[d], out=o), lambda: a.softmax.int_out(m, d, out=o), "
                           "lambda: a.log_softmax.int_out(m, d, out=o), lambda: a.argsort.stable_out(m, stable=False, dim=d, out=o), "
                           "lambda: a.argsort.stable_out(m, stable=False, dim=d, out=oi), "
                           "lambda: a.sort.values(m, d, values=o, indices=oi), lambda: a.sort.values_stable(m, stable=True, dim=d, values=o, indices=oi), "
                           "lambda: torch.sort(m, dim=d, out=(o, oi)), lambda: torch.std(m, dim=[d], out=o)]]",
    "meta_index_add_copy": "i = torch.tensor([1]); s = torch.ones(1, 3); mi = i.to('meta'); ms = s.to('meta'); "
                           "[err(lambda: f(self, d, idx, src)) for f in [a.index_add.default, a.index_add_.default, a.index_copy.default, "
                           "a.index_copy_.default, torch.index_add, torch.index_copy] "
                           "for self, idx, src in [(m, i, s), (m, mi, s), (m, i, ms), (m, mi, ms), (x, mi, s), (m, torch.zeros(2, 3, device='meta'), ms), "
                           "(m, torch.zeros(2, 3), s)] for d in [0, 2, -3]], "
                           "[getattr(f(m, 0, mi, ms), 'shape', None) for f in [a.index_add.default, a.index_copy.default]]",
    "index_add_cpu_bounds": "[err(lambda: f(torch.zeros(sh, dtype=dt), d, torch.tensor([7] if sh else 7, dtype=it), torch.ones(ss, dtype=dt), alpha=al)) "
                            "for f in [a.index_add.default, torch.index_add, lambda s, *r, **k: s.index_add_(*r, **k)] "
                            "for dt in [torch.float32, torch.int64, torch.bool] for sh, d, ss in [((5,), 0, (1,)), ((), 0, ()), ((2, 3), 1, (2, 1))] "
                            "for it in [torch.int64, torch.int32] for al in [1, 2]]",
    "size_reads_0d": "z = torch.ones(()); v = torch.ones(3); h = torch.ones(2, 3); "
                     "[err(lambda: torch.addmv(s, x, vv)) for s in [z, torch.ones(1), torch.ones(5)] for vv in [torch.ones(7), torch.ones(1), v]], "
                     "[err(lambda: f(x, hx, wi, wh)) for f in [torch.rnn_tanh_cell, torch.rnn_relu_cell, torch.gru_cell] "
                     "for hx, wi, wh in [(z, h, h), (h, z, h), (h, h, z), (torch.ones(2), torch.ones(3, 3), torch.ones(3, 3))]], "
                     "[err(lambda: torch.lstm_cell(x, (hx, hx), torch.ones(12, 3), torch.ones(12, 3))) for hx in [z, torch.ones(2, 3)]]",
}, setup=SETUP)
