"""nn.functional breadth (issue #11), compared with upstream: hardshrink / softshrink and their
backward ops, glu / glu_backward, prelu (_prelu_kernel / _prelu_kernel_backward), one_hot,
pixel_shuffle / pixel_unshuffle, channel_shuffle, and instance_norm with running stats of
another dtype than the input. Every Python spelling (F.x, nn.Module, Tensor method,
torch.ops.aten), f32 / f64 / bf16, non-contiguous inputs, gradients and bad input."""
from harness import cases
from harness.autograd import grads

W = "torch.manual_seed(0)\n"
X = W + "x = torch.randn(4, 6)\n"
NC = W + "x = torch.randn(6, 4).t()\n"   # non-contiguous
SPECIAL = "x = torch.tensor([float('nan'), 0.5, -0.5, 0.7, -0.7, float('inf'), -float('inf'), -0.0, 0.0, 0.3])\n"

# ---- hardshrink / softshrink ----
for op in ("hardshrink", "softshrink"):
    cls = "Hardshrink" if op == "hardshrink" else "Softshrink"
    cases(op, {
        "f32": X + "torch.nn.functional.%s(x)" % op,
        "lambd": X + "torch.nn.functional.%s(x, 0.3)" % op,
        "lambd_kw": X + "torch.nn.functional.%s(x, lambd=1.25)" % op,
        "special": SPECIAL + "torch.nn.functional.%s(x)" % op,
        "f64": W + "x = torch.randn(3, 5, dtype=torch.float64)\ntorch.nn.functional.%s(x, 0.1)" % op,
        "bf16": W + "x = torch.randn(3, 5).bfloat16()\ntorch.nn.functional.%s(x, 0.3)" % op,
        "f16": W + "x = torch.randn(3, 5).half()\ntorch.nn.functional.%s(x, 0.3)" % op,
        "noncontig": W + "x = torch.randn(4, 12)[:, ::2]\ntorch.nn.functional.%s(x, 0.4)" % op,
        "zero_dim": "torch.nn.functional.%s(torch.tensor(-2.5))" % op,
        "empty": "torch.nn.functional.%s(torch.ones(0, 3))" % op,
        "method": X + "x.%s(0.2)" % op,
        "torch_fn": X + "torch.%s(x, 0.2)" % op if op == "hardshrink" else X + "torch._C._nn.softshrink(x, 0.2)",
        "module": X + "torch.nn.%s(0.6)(x)" % cls,
        "aten": X + "torch.ops.aten.%s.default(x, 0.5)" % op,
        "out": X + "o = torch.empty(0)\nr = torch.ops.aten.%s.out(x, 0.5, out=o)\n(r is o, o)" % op,
        "out_bad_dtype": X + "torch.ops.aten.%s.out(x, 0.5, out=torch.empty(0, dtype=torch.float64))" % op,
        "int": "torch.nn.functional.%s(torch.arange(4))" % op,
        "negative_lambd": X + "torch.nn.functional.%s(x, -1.0)" % op,
    })
    cases(op + "_backward", {
        "f32": X + "g = torch.randn(4, 6)\ntorch.ops.aten.%s_backward(g, x, 0.5)" % op,
        "special": SPECIAL + "torch.ops.aten.%s_backward.default(torch.ones(10), x, 0.5)" % op,
        "f64_bcast": W + "x = torch.randn(3, 4, dtype=torch.float64)\ntorch.ops.aten.%s_backward(torch.ones(4, dtype=torch.float64), x, 0.25)" % op,
        "bf16": W + "x = torch.randn(3, 4).bfloat16()\ntorch.ops.aten.%s_backward(torch.randn(3, 4).bfloat16(), x, 0.3)" % op,
        "mixed": X + "torch.ops.aten.%s_backward(torch.randn(4, 6, dtype=torch.float64), x, 0.3)" % op,
        "grad_input": X + "o = torch.empty(0)\nr = torch.ops.aten.%s_backward.grad_input(torch.randn(4, 6), x, 0.5, grad_input=o)\n(r is o, o)" % op,
        "bad_shape": X + "torch.ops.aten.%s_backward(torch.randn(3), x, 0.5)" % op,
    })
    grads(op + "_grad", {
        "f32": W + "ps = [torch.randn(4, 5, requires_grad=True)]\nout = torch.nn.functional.%s(ps[0], 0.4) * torch.arange(5.)" % op,
        "module_f64": W + "ps = [torch.randn(3, 4, dtype=torch.float64, requires_grad=True)]\nout = torch.nn.%s()(ps[0]).pow(2)" % cls,
        "double": W + "ps = [torch.randn(6, requires_grad=True)]\ny = torch.nn.functional.%s(ps[0])\n"
                  "g, = torch.autograd.grad(y.pow(2).sum(), ps[0], create_graph=True)\nout = g * ps[0]" % op,
    })

# ---- glu ----
cases("glu", {
    "f32": X + "torch.nn.functional.glu(x)",
    "dim0": X + "torch.nn.functional.glu(x, 0)",
    "dim_kw": X + "torch.nn.functional.glu(x, dim=-2)",
    "f64": W + "x = torch.randn(2, 4, 6, dtype=torch.float64)\ntorch.nn.functional.glu(x, 1)",
    "bf16": W + "x = torch.randn(3, 8).bfloat16()\ntorch.nn.functional.glu(x)",
    "f16": W + "x = torch.randn(3, 8).half()\ntorch.nn.functional.glu(x)",
    "noncontig": NC + "torch.nn.functional.glu(x, 0)",
    "empty": "torch.nn.functional.glu(torch.ones(0, 4))",
    "special": "x = torch.tensor([1., float('nan'), -2., 3., 0., float('inf'), float('-inf'), float('nan')])\ntorch.nn.functional.glu(x)",
    "module": X + "torch.nn.GLU(0)(x)",
    "torch_fn": X + "torch._C._nn.glu(x, 1)",
    "aten": X + "torch.ops.aten.glu.default(x, -1)",
    "out": X + "o = torch.empty(0)\nr = torch.ops.aten.glu.out(x, 1, out=o)\n(r is o, o)",
    "out_f64": X + "torch.ops.aten.glu.out(x, 1, out=torch.empty(0, dtype=torch.float64))",
    "out_bad_dtype": X + "torch.ops.aten.glu.out(x, 1, out=torch.empty(0, dtype=torch.long))",
    "odd": W + "torch.nn.functional.glu(torch.randn(2, 3))",
    "scalar": "torch.nn.functional.glu(torch.tensor(1.))",
    "bad_dim": W + "torch.nn.functional.glu(torch.randn(2, 4), 2)",
    "int": "torch.nn.functional.glu(torch.arange(4))",
}, tol="float")

cases("glu_backward", {
    "f32": X + "torch.ops.aten.glu_backward(torch.randn(4, 3), x, 1)",
    "dim0": X + "torch.ops.aten.glu_backward.default(torch.randn(2, 6), x, 0)",
    "f64": W + "x = torch.randn(2, 4, dtype=torch.float64)\ntorch.ops.aten.glu_backward(torch.randn(2, 2, dtype=torch.float64), x, -1)",
    "bf16": W + "x = torch.randn(3, 8).bfloat16()\ntorch.ops.aten.glu_backward(torch.randn(3, 4).bfloat16(), x, 1)",
    "noncontig": NC + "torch.ops.aten.glu_backward(torch.randn(3, 4).t(), x, 1)",
    "grad_input": X + "o = torch.empty(0)\nr = torch.ops.aten.glu_backward.grad_input(torch.randn(4, 3), x, 1, grad_input=o)\n(r is o, o)",
    "bad_grad": X + "torch.ops.aten.glu_backward(torch.randn(4, 5), x, 1)",
    "odd": W + "torch.ops.aten.glu_backward(torch.randn(2, 1), torch.randn(2, 3), 1)",
}, tol="float")

grads("glu_grad", {
    "f32": W + "ps = [torch.randn(3, 8, requires_grad=True)]\nout = torch.nn.functional.glu(ps[0]) * torch.arange(4.)",
    "f64_dim0": W + "ps = [torch.randn(4, 3, dtype=torch.float64, requires_grad=True)]\nout = torch.nn.GLU(0)(ps[0])",
})

# ---- prelu ----
cases("prelu", {
    "f32": X + "torch.nn.functional.prelu(x, torch.tensor([0.25]))",
    "channels": W + "x = torch.randn(2, 3, 4)\ntorch.nn.functional.prelu(x, torch.tensor([0.1, -0.5, 2.0]))",
    "one_d": W + "x = torch.randn(5)\ntorch.nn.functional.prelu(x, torch.tensor([0.3]))",
    "one_d_channels": W + "x = torch.randn(5)\ntorch.nn.functional.prelu(x, torch.randn(1))",
    "f64": W + "x = torch.randn(2, 3, 2, dtype=torch.float64)\ntorch.nn.functional.prelu(x, torch.randn(3, dtype=torch.float64))",
    "bf16": W + "x = torch.randn(2, 3).bfloat16()\ntorch.nn.functional.prelu(x, torch.randn(3).bfloat16())",
    "noncontig": NC + "torch.nn.functional.prelu(x, torch.randn(6))",
    "zero_dim_scalar_w": "torch.nn.functional.prelu(torch.tensor(-2.), torch.tensor(0.5))",
    "special": SPECIAL + "torch.nn.functional.prelu(x, torch.tensor([-0.5]))",
    "module": X + "torch.nn.PReLU(6, init=0.1)(x)",
    "method": X + "x.prelu(torch.tensor([0.2]))",
    "torch_fn": X + "torch.prelu(x, torch.tensor([0.2]))",
    "aten": X + "torch.ops.aten.prelu.default(x, torch.full((6,), 0.3))",
    "kernel": X + "torch.ops.aten._prelu_kernel.default(x, torch.randn(6))",
    "int": "torch.nn.functional.prelu(torch.arange(4), torch.tensor([1]))",
    "mismatch": X + "torch.nn.functional.prelu(x, torch.randn(2))",
    "type_promotion": X + "torch.nn.functional.prelu(x, torch.randn(6, dtype=torch.float64))",
    "weight_2d": X + "torch.nn.functional.prelu(x, torch.randn(1, 6))",
    "zero_dim_input": "torch.nn.functional.prelu(torch.tensor(1.), torch.randn(2))",
    "kernel_dtype": X + "torch.ops.aten._prelu_kernel(x, torch.randn(6, dtype=torch.float64))",
})

cases("_prelu_kernel_backward", {
    "f32": X + "torch.ops.aten._prelu_kernel_backward(torch.randn(4, 6), x, torch.randn(6))",
    "f64": W + "x = torch.randn(2, 3, 2, dtype=torch.float64)\ntorch.ops.aten._prelu_kernel_backward.default("
           "torch.randn(2, 3, 2, dtype=torch.float64), x, torch.randn(1, 3, 1, dtype=torch.float64))",
    "bcast_grad": X + "torch.ops.aten._prelu_kernel_backward(torch.randn(6), x, torch.tensor([0.5]))",
    "int": "torch.ops.aten._prelu_kernel_backward(torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long))",
})

grads("prelu_grad", {
    "module": W + "m = torch.nn.PReLU(3)\nx = torch.randn(2, 3, 4, requires_grad=True)\nps = [x, m.weight]\nout = m(x) * torch.arange(4.)",
    "single": W + "m = torch.nn.PReLU()\nx = torch.randn(5, 3, requires_grad=True)\nps = [x, m.weight]\nout = m(x).pow(2)",
    "f64": W + "w = torch.randn(4, dtype=torch.float64, requires_grad=True)\nx = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)\n"
           "ps = [x, w]\nout = torch.nn.functional.prelu(x, w)",
})

# ---- one_hot ----
cases("one_hot", {
    "basic": "torch.nn.functional.one_hot(torch.tensor([0, 2, 1, 2]))",
    "classes": "torch.nn.functional.one_hot(torch.tensor([[0, 2], [1, 3]]), 5)",
    "classes_kw": "torch.nn.functional.one_hot(torch.tensor([1]), num_classes=3)",
    "zero_dim": "torch.nn.functional.one_hot(torch.tensor(2), 4)",
    "noncontig": "torch.nn.functional.one_hot(torch.tensor([[0, 1, 2], [2, 1, 0]]).t())",
    "empty": "torch.nn.functional.one_hot(torch.tensor([], dtype=torch.long), 3)",
    "aten": "torch.ops.aten.one_hot.default(torch.tensor([3, 0]), -1)",
    "empty_infer": "torch.nn.functional.one_hot(torch.tensor([], dtype=torch.long))",
    "float": "torch.nn.functional.one_hot(torch.arange(3.), 4)",
    "int32": "torch.nn.functional.one_hot(torch.arange(3, dtype=torch.int32), 4)",
    "too_small": "torch.nn.functional.one_hot(torch.arange(3), 2)",
    "negative": "torch.nn.functional.one_hot(torch.tensor([-1]), 3)",
    "bad_classes": "torch.nn.functional.one_hot(torch.tensor([1]), -2)",
})

# ---- pixel_shuffle / pixel_unshuffle / channel_shuffle ----
cases("pixel_shuffle", {
    "basic": "x = torch.arange(16.).reshape(1, 4, 2, 2)\ntorch.nn.functional.pixel_shuffle(x, 2)",
    "batch_dims": W + "x = torch.randn(2, 3, 9, 2, 3)\ntorch.nn.functional.pixel_shuffle(x, 3)",
    "three_d": W + "x = torch.randn(8, 2, 3)\ntorch.nn.functional.pixel_shuffle(x, 2)",
    "factor1": W + "x = torch.randn(1, 2, 2, 2)\ny = torch.nn.functional.pixel_shuffle(x, 1)\n(y, y._is_view())",
    "f64": W + "x = torch.randn(1, 4, 3, 2, dtype=torch.float64)\ntorch.nn.functional.pixel_shuffle(x, 2)",
    "bf16": W + "x = torch.randn(1, 4, 3, 2).bfloat16()\ntorch.nn.functional.pixel_shuffle(x, 2)",
    "int": "torch.nn.functional.pixel_shuffle(torch.arange(8).reshape(1, 1, 4, 2, 1), 2)",
    "noncontig": W + "x = torch.randn(1, 4, 2, 3).transpose(2, 3)\ntorch.nn.functional.pixel_shuffle(x, 2)",
    "empty": "torch.nn.functional.pixel_shuffle(torch.ones(0, 4, 2, 2), 2)",
    "module": W + "torch.nn.PixelShuffle(2)(torch.randn(2, 8, 2, 2))",
    "torch_fn": W + "torch.pixel_shuffle(torch.randn(1, 4, 1, 1), 2)",
    "aten": W + "torch.ops.aten.pixel_shuffle.default(torch.randn(1, 9, 1, 2), 3)",
    "bad_dim": "torch.nn.functional.pixel_shuffle(torch.ones(2, 3), 1)",
    "bad_factor": "torch.nn.functional.pixel_shuffle(torch.ones(1, 4, 2, 2), 0)",
    "bad_channels": "torch.nn.functional.pixel_shuffle(torch.ones(1, 3, 2, 2), 2)",
})

cases("pixel_unshuffle", {
    "basic": "x = torch.arange(16.).reshape(1, 1, 4, 4)\ntorch.nn.functional.pixel_unshuffle(x, 2)",
    "batch_dims": W + "torch.nn.functional.pixel_unshuffle(torch.randn(2, 3, 2, 6, 6), 3)",
    "f64": W + "torch.nn.functional.pixel_unshuffle(torch.randn(1, 2, 4, 2, dtype=torch.float64), 2)",
    "bf16": W + "torch.nn.functional.pixel_unshuffle(torch.randn(1, 2, 4, 2).bfloat16(), 2)",
    "factor1": W + "y = torch.nn.functional.pixel_unshuffle(torch.randn(1, 2, 2, 2), 1)\n(y, y._is_view())",
    "noncontig": W + "torch.nn.functional.pixel_unshuffle(torch.randn(1, 2, 4, 6).transpose(2, 3), 2)",
    "module": W + "torch.nn.PixelUnshuffle(2)(torch.randn(2, 1, 4, 4))",
    "torch_fn": W + "torch.pixel_unshuffle(torch.randn(1, 1, 2, 2), 2)",
    "aten": W + "torch.ops.aten.pixel_unshuffle.default(torch.randn(1, 1, 3, 3), 3)",
    "bad_dim": "torch.nn.functional.pixel_unshuffle(torch.ones(2, 3), 1)",
    "bad_factor": "torch.nn.functional.pixel_unshuffle(torch.ones(1, 4, 2, 2), -1)",
    "bad_height": "torch.nn.functional.pixel_unshuffle(torch.ones(1, 3, 3, 2), 2)",
    "bad_width": "torch.nn.functional.pixel_unshuffle(torch.ones(1, 3, 2, 3), 2)",
})

cases("channel_shuffle", {
    "basic": "x = torch.arange(24.).reshape(1, 6, 2, 2)\ntorch.nn.functional.channel_shuffle(x, 2)",
    "three_d": W + "torch.nn.functional.channel_shuffle(torch.randn(2, 6, 3), 3)",
    "five_d": W + "torch.nn.functional.channel_shuffle(torch.randn(1, 4, 2, 1, 2), 2)",
    "groups1": W + "y = torch.nn.functional.channel_shuffle(torch.randn(1, 4, 2), 1)\n(y, y._is_view())",
    "f64": W + "torch.nn.functional.channel_shuffle(torch.randn(1, 4, 2, 2, dtype=torch.float64), 2)",
    "bf16": W + "torch.nn.functional.channel_shuffle(torch.randn(1, 4, 2, 2).bfloat16(), 4)",
    "int": "torch.nn.functional.channel_shuffle(torch.arange(12).reshape(1, 6, 2), 3)",
    "noncontig": W + "torch.nn.functional.channel_shuffle(torch.randn(2, 3, 4).transpose(1, 2), 2)",
    "module": W + "torch.nn.ChannelShuffle(2)(torch.randn(2, 4, 3, 3))",
    "torch_fn": W + "torch.channel_shuffle(torch.randn(1, 6, 1), 3)",
    "aten": W + "torch.ops.aten.channel_shuffle.default(torch.randn(1, 6, 1), 2)",
    "bad_dim": "torch.nn.functional.channel_shuffle(torch.ones(2, 3), 1)",
    "bad_groups": "torch.nn.functional.channel_shuffle(torch.ones(1, 4, 2), 0)",
    "not_divisible": "torch.nn.functional.channel_shuffle(torch.ones(1, 3, 2), 2)",
})

grads("shuffle_grad", {
    "pixel_shuffle": W + "ps = [torch.randn(2, 8, 2, 3, requires_grad=True)]\nout = torch.nn.functional.pixel_shuffle(ps[0], 2) * torch.arange(6.)",
    "pixel_unshuffle": W + "ps = [torch.randn(1, 2, 4, 6, requires_grad=True)]\nout = torch.nn.functional.pixel_unshuffle(ps[0], 2).exp()",
    "channel_shuffle": W + "ps = [torch.randn(2, 6, 3, requires_grad=True)]\nout = torch.nn.functional.channel_shuffle(ps[0], 3) * torch.arange(3.)",
})

# ---- instance_norm with running stats of another dtype (upstream converts them to the input's) ----
cases("instance_norm_dtypes", {
    "f64_input_f32_stats_train": W + "m = torch.nn.InstanceNorm2d(3, track_running_stats=True)\nx = torch.randn(2, 3, 4, 4, dtype=torch.float64)\n"
                                 "(m(x), m.running_mean, m.running_var)",
    "f64_input_f32_stats_eval": W + "m = torch.nn.InstanceNorm2d(3, track_running_stats=True).eval()\nx = torch.randn(2, 3, 4, 4, dtype=torch.float64)\n"
                                "(m(x), m.running_mean)",
    "f64_input_f32_affine": W + "m = torch.nn.InstanceNorm1d(3, affine=True)\nm(torch.randn(2, 3, 5, dtype=torch.float64))",
}, tol="float")

# upstream's vector body and scalar tail disagree on the sign of a zero (softshrink) and on NaN
# (the shrink backwards): 40 elements cover both on AVX2 and AVX-512 hosts; strided: all tail
EDGE = "x = torch.tensor([-0.25, -0.0, float('nan'), 0.25] * 10, dtype=torch.{dt})\n"
cases("shrink_vector_tail", {
    **{"softshrink_%s" % dt: EDGE.format(dt=dt) + "torch.nn.functional.softshrink(x)" for dt in ("float32", "float64", "bfloat16", "float16")},
    **{"softshrink_bwd_%s" % dt: EDGE.format(dt=dt) + "torch.ops.aten.softshrink_backward(-torch.ones(40, dtype=torch.%s), x, 0.5)" % dt
       for dt in ("float32", "float64", "bfloat16")},
    **{"hardshrink_bwd_%s" % dt: EDGE.format(dt=dt) + "torch.ops.aten.hardshrink_backward(torch.ones(40, dtype=torch.%s), x, 0.5)" % dt
       for dt in ("float32", "float64", "bfloat16")},
    "hardshrink_f32": EDGE.format(dt="float32") + "torch.nn.functional.hardshrink(x)",
    "softshrink_strided": EDGE.format(dt="float32") + "torch.nn.functional.softshrink(x[::2])",
    "bwd_strided": EDGE.format(dt="float32") + "torch.ops.aten.softshrink_backward(torch.ones(20), x[::2], 0.5)",
    "bwd_scalar_grad": EDGE.format(dt="float32") + "torch.ops.aten.hardshrink_backward(torch.ones(1), x, 0.5)",
    "rows": "x = torch.full((3, 40), -0.25)\ntorch.nn.functional.softshrink(x[:, :36])",
})

# ---- bilinear / _trilinear (sums of products: tol="float") ----
B = W + "x1 = torch.randn(4, 3)\nx2 = torch.randn(4, 5)\nw = torch.randn(2, 3, 5)\nb = torch.randn(2)\n"
cases("bilinear", {
    "bias": B + "torch.nn.functional.bilinear(x1, x2, w, b)",
    "no_bias": B + "torch.nn.functional.bilinear(x1, x2, w)",
    "batch_dims": W + "torch.nn.functional.bilinear(torch.randn(2, 3, 4), torch.randn(2, 3, 2), torch.randn(5, 4, 2))",
    "one_d": W + "torch.nn.functional.bilinear(torch.randn(3), torch.randn(2), torch.randn(4, 3, 2), torch.randn(4))",
    "f64": W + "torch.nn.functional.bilinear(torch.randn(3, 2, dtype=torch.float64), torch.randn(3, 4, dtype=torch.float64), torch.randn(2, 2, 4, dtype=torch.float64))",
    "bf16": B + "torch.nn.functional.bilinear(x1.bfloat16(), x2.bfloat16(), w.bfloat16(), b.bfloat16())",
    "int": "torch.nn.functional.bilinear(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 4, dtype=torch.long), torch.ones(5, 3, 4, dtype=torch.long))",
    "noncontig": W + "torch.nn.functional.bilinear(torch.randn(3, 4).t(), torch.randn(5, 4).t(), torch.randn(2, 3, 5))",
    "empty": W + "torch.nn.functional.bilinear(torch.randn(0, 3), torch.randn(0, 5), torch.randn(2, 3, 5))",
    # small integers: every sum exact whatever the order (the float rule's float64 re-run cannot
    # rebuild a module's parameters)
    "module": "m = torch.nn.Bilinear(3, 5, 2)\nwith torch.no_grad():\n    m.weight.copy_(torch.arange(30.).view(2, 3, 5) % 7 - 3)\n"
              "    m.bias.copy_(torch.tensor([0.5, -1.]))\nm(torch.arange(12.).view(4, 3) % 5 - 2, torch.arange(20.).view(4, 5) % 3 - 1)",
    "torch_fn": B + "torch.bilinear(x1, x2, w, b)",
    "aten": B + "torch.ops.aten.bilinear.default(x1, x2, w, b)",
    "trilinear": B + "torch.ops.aten._trilinear.default(x1, w, x2, [1, 3], [0], [1, 2], [2, 3])",
    "trilinear_nosum": W + "torch.ops.aten._trilinear(torch.randn(2, 3), torch.randn(3, 4), torch.randn(2, 4), [2], [0], [1], [])",
    "dtype": B + "torch.nn.functional.bilinear(x1, x2, w.double())",
    "dtype_bias": B + "torch.nn.functional.bilinear(x1, x2, w, b.double())",
    "dims": B + "torch.nn.functional.bilinear(x1, torch.randn(5), w)",
    "batch": B + "torch.nn.functional.bilinear(x1, torch.randn(3, 5), w)",
    "in1": B + "torch.nn.functional.bilinear(torch.randn(4, 2), x2, w)",
    "in2": B + "torch.nn.functional.bilinear(x1, torch.randn(4, 4), w)",
    "bias_size": B + "torch.nn.functional.bilinear(x1, x2, w, torch.randn(3))",
}, tol="float")

grads("bilinear_grad", {
    "module": W + "m = torch.nn.Bilinear(3, 4, 2)\nx1 = torch.randn(5, 3, requires_grad=True)\nx2 = torch.randn(5, 4, requires_grad=True)\n"
              "ps = [x1, x2, m.weight, m.bias]\nout = m(x1, x2)",
    "f64": W + "w = torch.randn(2, 3, 2, dtype=torch.float64, requires_grad=True)\nx1 = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)\n"
           "ps = [x1, w]\nout = torch.nn.functional.bilinear(x1, torch.randn(4, 2, dtype=torch.float64), w).pow(2)",
})

# ---- rrelu (training draws uniform_real<double> from the generator for x <= 0, as upstream) ----
R = "torch.manual_seed(0)\nx = torch.randn(3, 7)\ntorch.manual_seed(1)\n"
cases("rrelu", {
    "train": R + "(torch.nn.functional.rrelu(x, training=True), torch.rand(2))",
    "train_bounds": R + "torch.nn.functional.rrelu(x, 0.05, 0.5, True)",
    "eval": R + "torch.nn.functional.rrelu(x)",
    "eval_bounds": R + "torch.nn.functional.rrelu(x, 0.1, 0.2)",
    "f64": R + "torch.nn.functional.rrelu(x.double(), training=True)",
    "bf16": R + "torch.nn.functional.rrelu(x.bfloat16(), training=True)",
    "f16": R + "torch.nn.functional.rrelu(x.half(), training=True)",
    "f16_eval": R + "torch.nn.functional.rrelu(x.half())",
    "noncontig": R + "torch.nn.functional.rrelu(x.t(), training=True)",
    "inplace": R + "y = x.clone()\nr = torch.nn.functional.rrelu_(y, training=True)\n(r is y, y)",
    "inplace_kw": R + "y = x.clone()\ntorch.nn.functional.rrelu(y, inplace=True, training=True)\ny",
    "module": R + "torch.nn.RReLU(0.1, 0.3)(x)",
    "module_eval": R + "torch.nn.RReLU().eval()(x)",
    "torch_fn": R + "torch.rrelu(x, training=True)",
    "aten": R + "torch.ops.aten.rrelu.default(x, 0.1, 0.3, True)",
    "aten_inplace": R + "y = x.clone()\nr = torch.ops.aten.rrelu_.default(y, 0.1, 0.3, True)\n(r is y, y)",
    "generator": "x = torch.randn(3, 7, generator=torch.Generator().manual_seed(0))\ng = torch.Generator().manual_seed(7)\n"
                 "(torch.rrelu(x, 0.1, 0.3, True, g), g.get_state()[:32])",
    "with_noise": R + "n = torch.empty(3, 7)\n(torch.ops.aten.rrelu_with_noise.default(x, n, 0.2, 0.3, True), n)",
    "with_noise_inplace": R + "n = torch.empty(3, 7)\ny = x.clone()\ntorch.ops.aten.rrelu_with_noise_.default(y, n, 0.2, 0.3, True)\n(y, n)",
    "with_noise_out": R + "n = torch.empty(3, 7)\no = torch.empty(3, 7)\nr = torch.ops.aten.rrelu_with_noise.out(x, n, 0.2, 0.3, True, out=o)\n(r is o, o, n)",
    "with_noise_eval": R + "n = torch.zeros(3, 7)\n(torch.ops.aten.rrelu_with_noise(x, n, 0.2, 0.3, False), n)",
    "bad_bounds": R + "torch.nn.functional.rrelu(x, 0.5, 0.1, True)",
    "bad_noise_shape": R + "torch.ops.aten.rrelu_with_noise(x, torch.empty(3), 0.1, 0.3, True)",
    "bad_noise_dtype": R + "torch.ops.aten.rrelu_with_noise(x, torch.empty(3, 7, dtype=torch.float64), 0.1, 0.3, True)",
    "int_train": "torch.ops.aten.rrelu_with_noise(torch.arange(3), torch.empty(3), 0.1, 0.3, True)",
    "int_eval": "torch.ops.aten.rrelu_with_noise(torch.arange(3), torch.empty(3), 0.1, 0.3, False)",
})

cases("rrelu_with_noise_backward", {
    "train": R + "torch.ops.aten.rrelu_with_noise_backward.default(torch.ones(3, 7), x, torch.full((3, 7), 0.25), 0.1, 0.3, True, False)",
    "eval": R + "torch.ops.aten.rrelu_with_noise_backward(torch.ones(3, 7), x, torch.empty(3, 7), 0.1, 0.3, False, False)",
})

grads("rrelu_grad", {
    "train": R + "ps = [x.requires_grad_()]\nout = torch.nn.functional.rrelu(ps[0], training=True) * torch.arange(7.)",
    "eval_f64": R + "ps = [x.double().requires_grad_()]\nout = torch.nn.functional.rrelu(ps[0], 0.2, 0.3)",
    "inplace": R + "ps = [x.requires_grad_()]\nout = torch.nn.functional.rrelu(ps[0] * 2, training=True, inplace=True)",
})
