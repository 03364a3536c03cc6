"""Fake quantization (quantization-aware training's float ops; src/ops/fakequant.c,
docs/quant_tensors.md): per-tensor and per-channel fake quantize with their cachemask forms and
backwards, the learnable (LSQ) forms and their backward rows, the fused moving-average observer +
fake quantize, _choose_qparams_per_tensor, iinfo of the quantized dtypes, and the observers of
torch.ao.quantization that run on them. Values bit-exact: upstream's rounding is nearbyint of
x * (1.0f / scale) (half to even), so ties are part of the cases. The end-to-end training
comparison is tests/test_qat.py."""
from harness import cases

SETUP = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
x = torch.randn(4, 6) * 3
w = torch.randn(3, 4, 2)
ties = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.25, 0.75, 126.5, 127.5, -128.5, 300., -300.])
special = torch.tensor([float('inf'), float('-inf'), float('nan'), 0., -0., 1e-30, 3.4e38])
sc3 = torch.tensor([0.1, 0.25, 0.03])
zp3 = torch.tensor([0, 3, -5], dtype=torch.int32)
def grad_of(f, *ts):
    ts = [t.clone().requires_grad_() for t in ts]
    out = f(*ts)
    out.backward(torch.arange(out.numel(), dtype=out.dtype).reshape(out.shape) / 7)
    return out, out.grad_fn.name(), [t.grad for t in ts]
"""

cases("fake_quantize_per_tensor", {
    "basic": "torch.fake_quantize_per_tensor_affine(x, 0.1, 3, 0, 255)",
    "ties_unit_scale": "torch.fake_quantize_per_tensor_affine(ties, 1.0, 0, -128, 127)",
    "ties_half_scale": "torch.fake_quantize_per_tensor_affine(ties, 0.5, 1, -128, 127)",
    "ties_inv_scale_rounding": "torch.fake_quantize_per_tensor_affine(ties * 0.1, 0.1, 0, -128, 127)",
    "special": "torch.fake_quantize_per_tensor_affine(special, 0.05, 10, 0, 255)",
    "scale_zero": "torch.fake_quantize_per_tensor_affine(x, 0.0, 3, 0, 255)",
    "tiny_scale": "torch.fake_quantize_per_tensor_affine(x, 1e-30, 0, -128, 127)",
    "float64": "torch.fake_quantize_per_tensor_affine(x.double(), 0.1, 3, 0, 255)",
    "float16": "torch.fake_quantize_per_tensor_affine(x.half(), 0.1, 3, 0, 255)",
    "bfloat16": "torch.fake_quantize_per_tensor_affine(x.bfloat16(), 0.1, 3, 0, 255)",
    "transposed": "r = torch.fake_quantize_per_tensor_affine(x.t(), 0.1, 3, 0, 255); r, r.stride()",
    "sliced": "r = torch.fake_quantize_per_tensor_affine(x[:, ::2], 0.1, 3, 0, 255); r, r.stride()",
    "zero_dim": "torch.fake_quantize_per_tensor_affine(torch.tensor(1.26), 0.1, 0, -128, 127)",
    "empty": "torch.fake_quantize_per_tensor_affine(torch.empty(0, 3), 0.1, 0, -128, 127)",
    "large": "torch.fake_quantize_per_tensor_affine(torch.randn(70000), 0.02, 0, -128, 127)",
    "tensor_qparams": "torch.fake_quantize_per_tensor_affine(x, torch.tensor([0.1]), torch.tensor([3]), 0, 255)",
    "tensor_qparams_0dim_float_zp": "torch.fake_quantize_per_tensor_affine(x, torch.tensor(0.1), torch.tensor(3.7), 0, 255)",
    "tensor_qparams_zp_out_of_range": "torch.fake_quantize_per_tensor_affine(x, torch.tensor([0.1]), torch.tensor([300]), 0, 255)",
    "aten": "torch.ops.aten.fake_quantize_per_tensor_affine.default(x, 0.1, 3, 0, 255)",
    "aten_tensor_qparams": "torch.ops.aten.fake_quantize_per_tensor_affine.tensor_qparams(x, torch.tensor([0.1]), torch.tensor([3]), 0, 255)",
    "cachemask": "torch.ops.aten.fake_quantize_per_tensor_affine_cachemask.default(ties, 0.5, 1, -128, 127)",
    "cachemask_f64": "torch.ops.aten.fake_quantize_per_tensor_affine_cachemask.default(x.double(), 0.1, 3, 0, 255)",
    "cachemask_tensor_qparams": "torch._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(x, torch.tensor(0.1), torch.tensor(3), torch.tensor([1]), 0, 255)",
    "cachemask_tensor_qparams_off": "torch._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(x, torch.tensor(0.1), torch.tensor(3), torch.tensor(0), 0, 255)",
    "cachemask_backward": "torch.ops.aten.fake_quantize_per_tensor_affine_cachemask_backward.default(x, x > 0)",
    "cachemask_backward_empty": "torch.ops.aten.fake_quantize_per_tensor_affine_cachemask_backward.default(torch.empty(0), torch.empty(0, dtype=torch.bool))",
    "err_int": "torch.fake_quantize_per_tensor_affine(x.int(), 0.1, 3, 0, 255)",
    "err_qmin_qmax": "torch.fake_quantize_per_tensor_affine(x, 0.1, 3, 255, 0)",
    "err_zero_point": "torch.fake_quantize_per_tensor_affine(x, 0.1, 300, 0, 255)",
    "err_tensor_qparams_numel": "torch.fake_quantize_per_tensor_affine(x, torch.tensor([0.1, 0.2]), torch.tensor([3]), 0, 255)",
    "err_tensor_qparams_qmin": "torch._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(x, torch.tensor(0.1), torch.tensor(3), torch.tensor([1]), 255, 0)",
    "err_backward_size": "torch.ops.aten.fake_quantize_per_tensor_affine_cachemask_backward.default(x, torch.ones(3, dtype=torch.bool))",
    "err_backward_dtype": "torch.ops.aten.fake_quantize_per_tensor_affine_cachemask_backward.default(x, x)",
}, setup=SETUP)

cases("fake_quantize_per_channel", {
    "int_zp": "torch.fake_quantize_per_channel_affine(w, sc3, zp3, 0, -128, 127)",
    "axis1": "torch.fake_quantize_per_channel_affine(w.transpose(0, 1), sc3, zp3, 1, -128, 127)",
    "axis2": "torch.fake_quantize_per_channel_affine(x.t(), torch.tensor([0.1, 0.2, 0.3, 0.4]), torch.tensor([0, 1, 2, 3], dtype=torch.int32), 1, 0, 255)",
    "float_zp": "torch.fake_quantize_per_channel_affine(w, sc3, torch.tensor([0., 1.5, -2.5]), 0, -128, 127)",
    "half_zp": "torch.fake_quantize_per_channel_affine(w, sc3, torch.tensor([0., 1.5, -2.5]).half(), 0, -128, 127)",
    "float_zp_out_of_range": "torch.fake_quantize_per_channel_affine(w, sc3, torch.tensor([0., 1.5, 500.]), 0, -128, 127)",
    "float64": "torch.fake_quantize_per_channel_affine(w.double(), sc3, zp3, 0, -128, 127)",
    "float64_float_zp": "torch.fake_quantize_per_channel_affine(w.double(), sc3, torch.tensor([0., 1.5, -2.5]), 0, -128, 127)",
    "float16": "torch.fake_quantize_per_channel_affine(w.half(), sc3, zp3, 0, -128, 127)",
    "bfloat16": "torch.fake_quantize_per_channel_affine(w.bfloat16(), sc3, zp3, 0, -128, 127)",
    "ties": "torch.fake_quantize_per_channel_affine(ties.reshape(1, 13).expand(3, 13), torch.tensor([1.0, 0.5, 0.1]), torch.tensor([0, 1, 0], dtype=torch.int32), 0, -128, 127)",
    "ties_float_zp": "torch.fake_quantize_per_channel_affine(ties.reshape(1, 13).expand(3, 13), torch.tensor([1.0, 0.5, 0.1]), torch.tensor([0., 1., 0.]), 0, -128, 127)",
    "special": "torch.fake_quantize_per_channel_affine(special.reshape(1, 7).expand(3, 7), sc3, zp3, 0, -128, 127)",
    "strided_scale": "torch.fake_quantize_per_channel_affine(w, torch.tensor([0.1, 9., 0.25, 9., 0.03])[::2], zp3, 0, -128, 127)",
    "cachemask": "torch.ops.aten.fake_quantize_per_channel_affine_cachemask.default(w, sc3, zp3, 0, -128, 127)",
    "cachemask_backward": "torch.ops.aten.fake_quantize_per_channel_affine_cachemask_backward.default(w, w > 0)",
    "aten": "torch.ops.aten.fake_quantize_per_channel_affine.default(w, sc3, zp3, 0, -128, 127)",
    "err_long_zp": "torch.fake_quantize_per_channel_affine(w, sc3, zp3.long(), 0, -128, 127)",
    "err_double_scale": "torch.fake_quantize_per_channel_affine(w, sc3.double(), zp3, 0, -128, 127)",
    "err_zp_range": "torch.fake_quantize_per_channel_affine(w, sc3, torch.tensor([0, 1, 200], dtype=torch.int32), 0, -128, 127)",
    "err_axis_size": "torch.fake_quantize_per_channel_affine(w, sc3, zp3, 1, -128, 127)",
    "err_axis_range": "torch.fake_quantize_per_channel_affine(w, sc3, zp3, 3, -128, 127)",
    "err_axis_negative": "torch.fake_quantize_per_channel_affine(w, sc3, zp3, -3, -128, 127)",
    "err_scale_2d": "torch.fake_quantize_per_channel_affine(w, sc3[None], zp3, 0, -128, 127)",
    "err_zp_2d": "torch.fake_quantize_per_channel_affine(w, sc3, zp3[None], 0, -128, 127)",
    "err_numel": "torch.fake_quantize_per_channel_affine(w, sc3, zp3[:2], 0, -128, 127)",
    "err_int_input": "torch.fake_quantize_per_channel_affine(w.int(), sc3, zp3, 0, -128, 127)",
    "err_qmin_qmax": "torch.fake_quantize_per_channel_affine(w, sc3, zp3, 0, 127, -128)",
}, setup=SETUP)

cases("fake_quantize_autograd", {
    "per_tensor": "grad_of(lambda t: torch.fake_quantize_per_tensor_affine(t, 0.1, 3, 0, 255), x)",
    "per_tensor_tensor_qparams": "grad_of(lambda t: torch.fake_quantize_per_tensor_affine(t, torch.tensor([0.1]), torch.tensor([3]), 0, 255), x)",
    "per_channel": "grad_of(lambda t: torch.fake_quantize_per_channel_affine(t, sc3, zp3, 0, -128, 127), w)",
    "per_tensor_f64": "grad_of(lambda t: torch.fake_quantize_per_tensor_affine(t, 0.1, 3, 0, 255), x.double())",
    "double_backward_refuses_nothing": "t = x.clone().requires_grad_(); y = torch.fake_quantize_per_tensor_affine(t, 0.1, 3, 0, 255); g, = torch.autograd.grad(y.sum(), t, create_graph=True); g, g.requires_grad",
    "learnable_per_tensor": "grad_of(lambda t, s, z: torch._fake_quantize_learnable_per_tensor_affine(t, s, z, 0, 255, 1.0), x, torch.tensor([0.1]), torch.tensor([3.4]))",
    "learnable_per_tensor_grad_factor": "grad_of(lambda t, s, z: torch._fake_quantize_learnable_per_tensor_affine(t, s, z, -128, 127, 0.25), x, torch.tensor([0.05]), torch.tensor([-2.6]))",
    "learnable_per_channel": "grad_of(lambda t, s, z: torch._fake_quantize_learnable_per_channel_affine(t, s, z, 0, -128, 127, 1.0), w, sc3, torch.tensor([0.2, 3.5, -5.5]))",
    "learnable_per_channel_axis1": "grad_of(lambda t, s, z: torch._fake_quantize_learnable_per_channel_affine(t, s, z, 1, 0, 255, 0.5), w, torch.tensor([0.1, 0.2, 0.3, 0.4]), torch.tensor([10., 20., 30., 40.]))",
    "learnable_backward_row": "torch.ops.aten._fake_quantize_learnable_per_tensor_affine_backward(x * 0 + 1, x, torch.tensor([0.1]), torch.tensor([3.]), 0, 255, 1.0)",
    "learnable_backward_row_empty": "torch.ops.aten._fake_quantize_learnable_per_tensor_affine_backward(torch.empty(0), torch.empty(0), torch.tensor([0.1]), torch.tensor([3.]), 0, 255, 1.0)",
    "learnable_channel_backward_row": "torch.ops.aten._fake_quantize_learnable_per_channel_affine_backward(w * 0 + 1, w, sc3, torch.tensor([0.2, 3.5, -5.5]), 0, -128, 127, 1.0)",
    "learnable_channel_backward_bf16": "torch.ops.aten._fake_quantize_learnable_per_channel_affine_backward((w * 0 + 1).bfloat16(), w.bfloat16(), sc3.bfloat16(), torch.tensor([0.2, 3.5, -5.5]).bfloat16(), 0, -128, 127, 1.0)",
    "err_learnable_0dim_scale": "torch._fake_quantize_learnable_per_tensor_affine(x, torch.tensor(0.1), torch.tensor([3.]), 0, 255, 1.0)",
    "err_learnable_backward_double": "torch.ops.aten._fake_quantize_learnable_per_tensor_affine_backward(x.double(), x.double(), torch.tensor([0.1]), torch.tensor([3.]), 0, 255, 1.0)",
    "err_learnable_backward_range": "torch.ops.aten._fake_quantize_learnable_per_tensor_affine_backward(x, x, torch.tensor([0.1]), torch.tensor([3.]), 1, 255, 1.0)",
    "err_learnable_channel_backward_range": "torch.ops.aten._fake_quantize_learnable_per_channel_affine_backward(w, w, sc3, torch.tensor([0.2, 3.5, -5.5]), 0, 1, 127, 1.0)",
    "err_learnable_channel_backward_axis": "torch.ops.aten._fake_quantize_learnable_per_channel_affine_backward(w, w, sc3, torch.tensor([0.2, 3.5, -5.5]), 1, -128, 127, 1.0)",
}, setup=SETUP)

FUSED = SETUP + """
def fused(t, per_row, sym, qmin, qmax, n=1, on=1, fq=1, rmin=None, rmax=None, avg=0.01, ch=0, zdt=torch.int32):
    rmin = torch.full((n,), float('inf')) if rmin is None else rmin.clone()
    rmax = torch.full((n,), float('-inf')) if rmax is None else rmax.clone()
    sc = torch.ones(n); zp = torch.zeros(n, dtype=zdt)
    out, mask = torch._fused_moving_avg_obs_fq_helper(t, torch.tensor([on]), torch.tensor([fq]), rmin, rmax, sc, zp, avg,
                                                      qmin, qmax, ch, per_row, sym)
    return out, mask, rmin, rmax, sc, zp
"""

cases("fused_moving_avg_obs_fake_quant", {
    "per_tensor_affine": "fused(x, False, False, 0, 255)",
    "per_tensor_reduced": "fused(x, False, False, 0, 127)",
    "per_tensor_symmetric": "fused(x, False, True, -128, 127)",
    "per_tensor_symmetric_unsigned": "fused(x, False, True, 0, 255)",
    "per_tensor_positive": "fused(x.abs(), False, False, 0, 255)",
    "per_tensor_zeros": "fused(torch.zeros(3, 4), False, False, 0, 255)",
    "per_tensor_tiny_range": "fused(torch.tensor([1e-9, 2e-9]), False, False, 0, 255)",
    "per_tensor_moving": "fused(x, False, False, 0, 255, rmin=torch.tensor([-1.]), rmax=torch.tensor([2.]), avg=0.3)",
    "per_row_symmetric": "fused(w.flatten(1), True, True, -128, 127, n=3)",
    "per_row_3d": "fused(w, True, True, -128, 127, n=3)",
    "per_row_axis1": "fused(w, True, True, -128, 127, n=4, ch=1)",
    "per_row_resize": "fused(w, True, True, -128, 127, n=0)",
    "per_row_affine": "fused(w, True, False, 0, 255, n=3)",
    "per_row_moving": "fused(w, True, False, 0, 255, n=3, rmin=torch.tensor([-1., 0.5, -3.]), rmax=torch.tensor([1., 2., 0.]), avg=0.1)",
    "observer_off": "fused(x, False, False, 0, 255, on=0, rmin=torch.tensor([-1.]), rmax=torch.tensor([2.]))",
    "fake_quant_off": "fused(x, False, False, 0, 255, fq=0)",
    "float_zero_point": "fused(x, False, False, 0, 255, zdt=torch.float)",
    "composite": "rmin = torch.tensor([float('inf')]); rmax = torch.tensor([float('-inf')]); sc = torch.ones(1); zp = torch.zeros(1, dtype=torch.int32); r = torch.fused_moving_avg_obs_fake_quant(x, torch.tensor([1]), torch.tensor([1]), rmin, rmax, sc, zp, 0.01, 0, 255, 0, False, False); r, rmin, rmax, sc, zp",
    "composite_aten": "torch.ops.aten.fused_moving_avg_obs_fake_quant.default(w, torch.tensor([1]), torch.tensor([1]), torch.tensor([]), torch.tensor([]), torch.tensor([]), torch.tensor([], dtype=torch.int32), 0.01, -128, 127, 0, True, True)",
    "composite_empty": "torch.fused_moving_avg_obs_fake_quant(torch.empty(0), torch.tensor([1]), torch.tensor([1]), torch.ones(1), torch.ones(1), torch.ones(1), torch.zeros(1, dtype=torch.int32), 0.01, 0, 255, 0, False, False)",
    "aten": "torch.ops.aten._fused_moving_avg_obs_fq_helper.default(x, torch.tensor([1]), torch.tensor([1]), torch.tensor([float('inf')]), torch.tensor([float('-inf')]), torch.ones(1), torch.zeros(1, dtype=torch.int32), 0.01, 0, 255, 0, False, False)",
    "backward": "t = x.clone().requires_grad_(); out = fused(t, False, False, 0, 127)[0]; out.backward(torch.ones_like(out)); out.grad_fn.name(), t.grad",
    "err_per_row_axis": "fused(w, True, True, -128, 127, n=2, ch=1)",
    "err_ch_axis_range": "fused(x, False, False, 0, 255, ch=5)",
    "err_per_row_negative_axis": "fused(x, True, True, -128, 127, n=4, ch=-1)",
    "err_double_buffers": "torch._fused_moving_avg_obs_fq_helper(x, torch.tensor([1]), torch.tensor([1]), torch.ones(1).double(), torch.ones(1).double(), torch.ones(1), torch.zeros(1, dtype=torch.int32), 0.01, 0, 255, 0, False, False)",
}, setup=FUSED)

cases("choose_qparams", {
    "basic": "torch._choose_qparams_per_tensor(x)",
    "reduce_range": "torch._choose_qparams_per_tensor(x, True)",
    "positive": "torch._choose_qparams_per_tensor(x.abs() + 1)",
    "negative": "torch._choose_qparams_per_tensor(-x.abs() - 1)",
    "zeros": "torch._choose_qparams_per_tensor(torch.zeros(3))",
    "tiny": "torch._choose_qparams_per_tensor(torch.tensor([1e-9, 2e-9]))",
    "tiny_both_signs": "torch._choose_qparams_per_tensor(torch.tensor([-1e-7, 2e-7]))",
    "aten": "torch.ops.aten._choose_qparams_per_tensor.default(x, False)",
    "err_empty": "torch._choose_qparams_per_tensor(torch.empty(0))",
    "optimized_4bit": "torch.choose_qparams_optimized(torch.randn(64), 64, 200, 0.16, 4)",
    "optimized_2bit": "torch.choose_qparams_optimized(torch.randn(300) * 100 + 3, 300, 50, 0.5, 2)",
    "optimized_prefix": "torch.choose_qparams_optimized(x, 10, 20, 0.3, 8)",
    "optimized_constant": "torch.choose_qparams_optimized(torch.ones(10), 10, 200, 0.16, 4)",
    "optimized_aten": "torch.ops.aten.choose_qparams_optimized.default(w, 24, 10, 0.3, 4)",
    "err_optimized_double": "torch.choose_qparams_optimized(x.double(), 5, 10, 0.3, 4)",
}, setup=SETUP)

cases("quantized_dtype_info", {
    "iinfo": "[(torch.iinfo(d).bits, torch.iinfo(d).min, torch.iinfo(d).max) for d in (torch.quint8, torch.qint8, torch.qint32, torch.quint4x2, torch.quint2x4)]",
    "err_iinfo_dtype": "torch.iinfo(torch.quint8).dtype",
    "err_iinfo_repr": "repr(torch.iinfo(torch.qint8))",
    "dtype_attrs": "[(d.is_floating_point, d.is_complex, d.itemsize) for d in (torch.quint8, torch.qint8, torch.qint32, torch.quint4x2)]",
}, setup=SETUP)

OBS = SETUP + """
import torch.ao.quantization as tq
def observe(obs, *ts):
    for t in ts:
        obs(t)
    return obs.calculate_qparams(), {k: v for k, v in obs.state_dict().items()}
"""

cases("observers", {
    "minmax": "observe(tq.MinMaxObserver(), x, x * 2)",
    "minmax_symmetric": "observe(tq.MinMaxObserver(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric), x)",
    "minmax_reduce_range": "observe(tq.MinMaxObserver(reduce_range=True), x)",
    "moving_average": "observe(tq.MovingAverageMinMaxObserver(averaging_constant=0.2), x, x * 3, x - 1)",
    "per_channel": "observe(tq.PerChannelMinMaxObserver(ch_axis=0, dtype=torch.qint8, qscheme=torch.per_channel_symmetric), w, w * 2)",
    "moving_average_per_channel": "observe(tq.MovingAveragePerChannelMinMaxObserver(ch_axis=1), w, w + 1)",
    "histogram": "observe(tq.HistogramObserver(bins=64), x, x * 2)",
    "fake_quantize_module": "fq = tq.FakeQuantize(); y = fq(x); y, fq.scale, fq.zero_point",
    "fused_module": "fq = tq.FusedMovingAvgObsFakeQuantize(); y = fq(x); y2 = fq(x * 2); y, y2, fq.scale, fq.zero_point",
    "fused_per_channel_module": "fq = tq.default_fused_per_channel_wt_fake_quant(); y = fq(w); y, fq.scale, fq.zero_point",
}, setup=OBS)

QT = SETUP + """
import io
def d(q):
    if not (isinstance(q, torch.Tensor) and q.is_quantized):
        return q
    per_channel = q.qscheme() == torch.per_channel_affine
    return (q.int_repr(), q.dequantize(), q.dtype, q.qscheme(), q.shape, q.stride(), q.is_contiguous(), repr(q),
            (q.q_per_channel_scales(), q.q_per_channel_zero_points(), q.q_per_channel_axis()) if per_channel
            else (q.q_scale(), q.q_zero_point()))
q = torch.quantize_per_tensor(x, 0.1, 10, torch.quint8)
p = torch.quantize_per_channel(w, sc3, torch.tensor([0, 3, 1]), 0, torch.qint8)
"""

cases("quantized_tensor", {
    "quint8": "d(q)",
    "qint8": "d(torch.quantize_per_tensor(x, 0.05, -3, torch.qint8))",
    "qint32": "d(torch.quantize_per_tensor(x * 1000, 0.01, 7, torch.qint32))",
    "ties": "d(torch.quantize_per_tensor(ties, 0.5, 0, torch.qint8))",
    "special": "d(torch.quantize_per_tensor(special[3:], 0.1, 0, torch.qint8))",
    "transposed_input": "d(torch.quantize_per_tensor(x.t(), 0.1, 10, torch.quint8))",
    "zero_dim": "d(torch.quantize_per_tensor(torch.tensor(1.26), 0.1, 0, torch.qint8))",
    "empty": "d(torch.quantize_per_tensor(torch.empty(0, 2), 0.1, 0, torch.qint8))",
    "tensor_qparams": "d(torch.quantize_per_tensor(x, torch.tensor(0.1), torch.tensor(10), torch.quint8))",
    "list": "[d(t) for t in torch.quantize_per_tensor([x, x * 2], torch.tensor([0.1, 0.2]), torch.tensor([10, 3]), torch.quint8)]",
    "dynamic_quint8": "d(torch.quantize_per_tensor_dynamic(x, torch.quint8, False))",
    "dynamic_qint8_reduce": "d(torch.quantize_per_tensor_dynamic(x, torch.qint8, True))",
    "per_channel": "d(p)",
    "per_channel_axis1": "d(torch.quantize_per_channel(w, torch.tensor([0.1, 0.2, 0.3, 0.4]), torch.tensor([0, 1, 2, 3]), 1, torch.quint8))",
    "per_channel_qint32": "d(torch.quantize_per_channel(w * 100, sc3, torch.tensor([0, 3, 1]), 0, torch.qint32))",
    "per_channel_float_params": "d(torch.quantize_per_channel(w, sc3.double(), torch.tensor([0, 3, 1], dtype=torch.int32), 0, torch.qint8))",
    "aten": "d(torch.ops.aten.quantize_per_tensor.default(x, 0.1, 10, torch.quint8))",
    "aten_tensor_qparams": "d(torch.ops.aten.quantize_per_tensor.tensor_qparams(x, torch.tensor(0.1), torch.tensor(10), torch.quint8))",
    "aten_tensors": "[d(t) for t in torch.ops.aten.quantize_per_tensor.tensors([x], torch.tensor([0.1]), torch.tensor([10]), torch.quint8)]",
    "aten_per_channel": "d(torch.ops.aten.quantize_per_channel.default(w, sc3, torch.tensor([0, 3, 1]), 0, torch.qint8))",
    "aten_dynamic": "d(torch.ops.aten.quantize_per_tensor_dynamic.default(x, torch.quint8, False))",
    "err_double_input": "torch.quantize_per_tensor(x.double(), 0.1, 10, torch.quint8)",
    "err_int_input": "torch.quantize_per_tensor(x.int(), 0.1, 10, torch.quint8)",
    "err_float_dtype": "torch.quantize_per_tensor(x, 0.1, 10, torch.float)",
    "err_per_channel_axis": "torch.quantize_per_channel(w, sc3, torch.tensor([0, 3, 1]), 3, torch.qint8)",
    "err_per_channel_len": "torch.quantize_per_channel(w, sc3[:2], torch.tensor([0, 3]), 0, torch.qint8)",
    "err_zero_point_low": "torch.quantize_per_tensor(x, 0.1, -1000, torch.qint8)",
    "err_zero_point_high": "torch.quantize_per_tensor(x, 0.1, 1000, torch.quint8)",
    "err_per_channel_zero_point": "torch.quantize_per_channel(w, sc3, torch.tensor([0, 0, 300]), 0, torch.quint8)",
}, setup=QT)

cases("quantized_tensor_ops", {
    "dequantize": "q.dequantize(), torch.dequantize(p)",
    "dequantize_dense": "torch.dequantize(x.double())",
    "dequantize_list": "torch.dequantize([q, p])",
    "aten_dequantize": "torch.ops.aten.dequantize.self(q), torch.ops.aten.dequantize.tensors([q, p])",
    "int_repr": "q.int_repr(), torch.int_repr(p), torch.ops.aten.int_repr.default(q)",
    "accessors": "q.q_scale(), q.q_zero_point(), q.qscheme(), p.q_per_channel_axis(), p.qscheme(), q.is_quantized, x.is_quantized",
    "aten_accessors": "(torch.ops.aten.q_scale.default(q), torch.ops.aten.q_zero_point.default(q), torch.ops.aten.q_per_channel_scales.default(p), torch.ops.aten.q_per_channel_zero_points.default(p), torch.ops.aten.q_per_channel_axis.default(p))",
    "meta": "q.dtype, q.layout, q.device, q.shape, q.stride(), q.storage_offset(), q.element_size(), q.numel(), q.dim(), q.is_contiguous(), q.requires_grad",
    "err_q_scale_per_channel": "p.q_scale()",
    "err_scales_per_tensor": "q.q_per_channel_scales()",
    "err_q_scale_dense": "x.q_scale()",
    "err_qscheme_dense": "x.qscheme()",
    "err_int_repr_dense": "x.int_repr()",
    "make_per_tensor": "d(torch._make_per_tensor_quantized_tensor(torch.tensor([1, 2, 250], dtype=torch.uint8), 0.5, 3))",
    "make_per_tensor_int8": "d(torch._make_per_tensor_quantized_tensor(torch.tensor([1, 2, -5], dtype=torch.int8), 0.5, 3))",
    "make_per_tensor_int32": "d(torch._make_per_tensor_quantized_tensor(torch.tensor([1, 2, -5], dtype=torch.int32), 0.5, 3))",
    "make_per_channel": "d(torch._make_per_channel_quantized_tensor(torch.tensor([[1, 2], [3, 4]], dtype=torch.int8), torch.tensor([0.5, 0.25], dtype=torch.double), torch.tensor([0, 1]), 1))",
    "err_make_long": "torch._make_per_tensor_quantized_tensor(torch.tensor([1, 2, 5]), 0.5, 3)",
    "empty_affine": "e = torch._empty_affine_quantized([2, 3], scale=0.5, zero_point=1, dtype=torch.qint8); e.shape, e.dtype, e.q_scale(), e.q_zero_point()",
    "empty_per_channel": "e = torch._empty_per_channel_affine_quantized([2, 3], scales=torch.tensor([0.5, 0.25]), zero_points=torch.tensor([1, 2]), axis=0, dtype=torch.quint8); e.shape, e.q_per_channel_scales(), e.q_per_channel_zero_points()",
    "views": "d(q.t()), d(q[1]), d(q[:, 1:4]), d(q.view(6, 4)), d(q.permute(1, 0)), d(q.unsqueeze(0)), d(q.detach())",
    "view_shares": "v = q.t(); v.int_repr(), v.untyped_storage().data_ptr() == q.untyped_storage().data_ptr()",
    "clone": "d(q.t().clone()), d(p.clone())",
    "contiguous": "d(q.t().contiguous()), q.contiguous() is q",
    "relu": "d(q.relu()), d(torch.relu(torch.quantize_per_tensor(x, 0.1, 0, torch.qint8)))",
    "relu_": "c = q.clone(); torch.relu_(c); d(c)",
    "equal": "torch.equal(q, q.clone()), torch.equal(q, p), torch.equal(p, p.clone()), torch.equal(q, x)",
    "eq": "q == q.clone(), q.eq(1.0)",
    "to_same": "q.to(torch.quint8) is q",
    "save_load": "b = io.BytesIO(); torch.save({'q': q, 'p': p, 'v': q[1:]}, b); b.seek(0); r = torch.load(b); d(r['q']), d(r['p']), d(r['v'])",
    "err_to_float": "q.float()",
    "err_to_qint8": "q.to(torch.qint8)",
    "err_relu_per_channel": "p.relu()",
    "per_channel_detach": "d(p.detach())",
    "err_per_channel_transpose": "p.transpose(0, 1)",
    "err_per_channel_permute": "p.permute(2, 0, 1)",
    "err_per_channel_expand": "p.expand(2, 3, 4, 2)",
    "err_add_number": "q + 1",
    "err_mul_number": "q * 2",
    "err_add_tensor": "q - q",
    "err_sum": "q.sum()",
    "err_tolist": "q.tolist()",
    "err_numpy": "q.numpy()",
    "err_requires_grad": "q.requires_grad_()",
}, setup=QT)
