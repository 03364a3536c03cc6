"""Exception types and messages of the no-crash corpus's "ours RuntimeError, upstream
NotImplementedError" and "ours NotImplementedError, upstream RuntimeError" differences, fifth
round, fixed in the layer owning each check (docs/breadth_more2.md "Fuzz corpus exception types,
group ne (session 38)"); the corpus itself compares every call's exception type
(tests/test_no_crash.py).

- torch.ops factories given an accelerator device (cuda, xpu, mps, ...): upstream's dispatcher
  has no kernel for the allocation ("Could not run 'aten::empty.memory_format' with arguments
  from the 'CUDA' backend."), Sparse / Quantized keys by layout and dtype, after the few checks
  made before allocating (zeros' sizes, linspace's steps, the windows' length).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3)
def head(f):
    e = err(f)
    return e and (e[0], e[1].split(' This could')[0])
"""

cases("fuzz_ne5", {
    "accel_factories": "[head(f) for d in ['cuda', 'cuda:1', torch.device('xpu'), 'mps', 'lazy', 'privateuseone'] for f in ["
                       "lambda: A.zeros.default([2, 3], device=d), lambda: A.empty.memory_format([2], device=d), "
                       "lambda: A.empty_strided.default([2], [1], device=d), lambda: A.zeros_like.default(x, device=d), "
                       "lambda: A.randint_like.low_dtype(x, 1, 1, device=d), lambda: A.new_empty_strided.default(x, [2], [1], device=d), "
                       "lambda: A.arange.start_step(2, 1, 1, device=d), lambda: A.hann_window.periodic(3, False, device=d), "
                       "lambda: A.eye.m(2, 2, device=d), lambda: A.fft_rfftfreq.default(3, device=d), lambda: A.scalar_tensor.default(2, device=d), "
                       "lambda: A.normal.float_float(0., 1., [2], device=d), lambda: A.randperm.generator(3, generator=None, device=d), "
                       "lambda: A.tril_indices.default(2, 2, device=d), lambda: A.triu_indices.default(2, 2, device=d), "
                       "lambda: A._empty_affine_quantized.default([2], device=d), lambda: A._sparse_coo_tensor_with_dims.default(1, 1, [2, 3], device=d), "
                       "lambda: A.sparse_coo_tensor.size([2, 3], device=d), lambda: A.zeros([2], device=d), lambda: A.new_ones.default(x, [2], device=d)]]",
    "accel_keys_and_checks": "[head(f) for d in ['cuda', 'hip'] for f in ["
                             "lambda: A.zeros.default([2], device=d, dtype=torch.qint8), lambda: A.zeros.default([2], device=d, layout=torch.sparse_coo), "
                             "lambda: A.zeros.default([2], device=d, layout=torch.sparse_coo, dtype=torch.qint8), "
                             "lambda: A.empty_like.default(x, device=d, layout=torch.sparse_coo), lambda: A.empty_like.default(x, device=d, dtype=torch.quint8), "
                             "lambda: A._empty_affine_quantized.default([2], device=d, dtype=torch.qint8), "
                             "lambda: A.sparse_coo_tensor.size([2, 3], device=d, dtype=torch.qint8), lambda: A.zeros.default([-1], device=d), "
                             "lambda: A.ones.default([-1], device=d), lambda: A.empty.memory_format([-1], device=d), "
                             "lambda: A.linspace.default(0, 1, -1, device=d), lambda: A.logspace.default(0, 1, -2, device=d), "
                             "lambda: A.kaiser_window.default(-1, device=d), lambda: A.bartlett_window.periodic(-1, False, device=d), "
                             "lambda: A.randint.low(3, 1, [2], device=d), lambda: A.tril_indices.default(-1, 1, device=d), "
                             "lambda: A.zeros.default([2], None, None, d)]], "
                             "A.zeros.default([2], device='cpu'), A.zeros.default([2], device='meta').shape",
}, setup=SETUP)
