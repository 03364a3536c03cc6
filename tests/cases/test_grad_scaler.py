"""torch.amp.GradScaler on CPU: `_amp_foreach_non_finite_check_and_unscale_` and
`_amp_update_scale_` (upstream's AmpGradScalerKernels.cpp), and GradScaler driving a training
loop, compared with upstream: values bit for bit, found_inf, the scale and growth tracker, errors."""
from harness import cases

a = "torch.ops.aten."
U = a + "_amp_foreach_non_finite_check_and_unscale_.default"
S = a + "_amp_update_scale_.default"
SETUP = """
def unscale(ts, inv, found=0.0):
    f = torch.tensor([found])
    %s(ts, f, torch.tensor([inv]))
    return ts, f
def err(f):
    try:
        f()
        return "ok"
    except Exception as e:
        return type(e).__name__, str(e)
x = torch.randn(3, 4)
""" % U

cases("amp_unscale", {
    "f32": "unscale([x.clone(), torch.randn(5)], 0.125)",
    "f64_f16_bf16": "unscale([x.double(), x.half(), x.bfloat16()], 1 / 3)",
    "inv_one_keeps": "unscale([x.clone()], 1.0)",
    "inf": "unscale([x.clone(), torch.tensor([1.0, float('inf')])], 0.5)",
    "nan_half": "unscale([torch.tensor([float('nan'), 2.0]).half()], 0.5)",
    "found_kept": "unscale([x.clone()], 0.5, found=1.0)",
    "strided": "t = torch.randn(4, 6)\nv = t[:, ::2]\nunscale([v], 0.25)\nt",
    "empty_list_no_checks": "unscale([], 0.5)",
    "overflow_to_inf": "unscale([torch.tensor([3e38])], 4.0)",
    "err_inv_numel": "err(lambda: " + U + "([x.clone()], torch.zeros(1), torch.ones(2)))",
    "err_found_numel": "err(lambda: " + U + "([x.clone()], torch.zeros(2), torch.ones(1)))",
    "err_inv_dtype": "err(lambda: " + U + "([x.clone()], torch.zeros(1), torch.ones(1, dtype=torch.float64)))",
    "err_found_dtype": "err(lambda: " + U + "([x.clone()], torch.zeros(1, dtype=torch.float16), torch.ones(1)))",
    "err_int_grad_after_first": "ts = [x.clone(), torch.ones(3, dtype=torch.int64)]\nerr(lambda: " + U + "(ts, torch.zeros(1), torch.full((1,), 0.5))), ts",
    "err_expanded": "err(lambda: " + U + "([torch.ones(1).expand(3)], torch.zeros(1), torch.full((1,), 0.5)))",
}, setup=SETUP)

cases("amp_update_scale", {
    "sequence": "s = torch.tensor([1024.0]); g = torch.tensor([0], dtype=torch.int32)\nout = []\n"
                "for f in [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, float('nan')]:\n"
                "    r = " + S + "(s, g, torch.tensor([f]), 2.0, 0.5, 3)\n"
                "    out.append((s.item(), g.item(), r is s))\nout",
    "no_overflow": "s = torch.tensor([3e38]); g = torch.tensor([0], dtype=torch.int32)\n" + S + "(s, g, torch.zeros(1), 2.0, 0.5, 1)\ns, g",
    "odd_factors": "s = torch.tensor([1000.0]); g = torch.tensor([0], dtype=torch.int32)\n" + S + "(s, g, torch.zeros(1), 1.1, 0.3, 1)\n"
                   + S + "(s, g, torch.ones(1), 1.1, 0.3, 1)\ns",
    "err_tracker_dtype": "err(lambda: " + S + "(torch.ones(1), torch.zeros(1), torch.zeros(1), 2.0, 0.5, 2))",
    "err_scale_numel": "err(lambda: " + S + "(torch.ones(2), torch.zeros(1, dtype=torch.int32), torch.zeros(1), 2.0, 0.5, 2))",
    "err_scale_dtype": "err(lambda: " + S + "(torch.ones(1, dtype=torch.float64), torch.zeros(1, dtype=torch.int32), torch.zeros(1), 2.0, 0.5, 2))",
}, setup=SETUP)

cases("amp_grad_scaler_loop", {   # GradScaler + SGD; step 3's loss is inf, so that step is skipped.
    # Elementwise model and mean (no GEMM), so the values are compared exactly
    "sgd": "torch.manual_seed(0)\nw = torch.randn(3, 4, requires_grad=True)\nb = torch.randn(3, requires_grad=True)\n"
           "opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)\n"
           "sc = torch.amp.GradScaler('cpu', init_scale=256.0, growth_interval=2)\nout = []\n"
           "for i in range(6):\n    opt.zero_grad()\n    loss = (torch.randn(8, 3, 4) * w + b.unsqueeze(1)).pow(2).mean() * (float('inf') if i == 3 else 1.0)\n"
           "    sc.scale(loss).backward()\n    sc.step(opt)\n    sc.update()\n    out.append((sc.get_scale(), w.detach().clone(), b.detach().clone()))\nout",
}, setup=SETUP)
