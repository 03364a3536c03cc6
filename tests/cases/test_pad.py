"""Golden cases for src/ops/pad.c: reflect / replicate / circular padding through F.pad (aten::pad
in src/ops/modelops.c) and the aten spellings reflection_pad{1,2,3}d(.out),
replication_pad{1,2,3}d(.out) and _pad_circular. Error cases return "Type: message" so the
message is compared too, not only the exception class."""
from harness import cases

MSG = """
def msg(f):
    try:
        r = f()
        return ("ok", tuple(r.shape), r.dtype)
    except Exception as e:
        return type(e).__name__ + ": " + str(e)
"""

MODES = ("reflect", "replicate", "circular")
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
          "complex64")

# values and shapes through F.pad: every supported (rank, pad length) pair and mode
fpad = {}
for mode in MODES:
    for nd, pads in [(2, (1, 2)), (3, (2, 1)), (3, (1, 0, 2, 1)), (4, (0, 2, 1, 1)),
                     (4, (1, 1, 2, 0, 0, 1)), (5, (2, 1, 0, 1, 1, 1))]:
        shape = (2, 3, 4, 3, 4)[5 - nd:] if nd < 5 else (1, 2, 3, 3, 4)
        fpad["%s-%dd-%d" % (mode, nd, len(pads))] = (
            "torch.nn.functional.pad(torch.arange(%d.).reshape%r, %r, mode=%r)"
            % (eval("*".join(map(str, shape))), shape, pads, mode))
cases("pad_fpad", fpad)

# dtypes (integer, reduced float, complex)
dt = {}
for mode in MODES:
    for d in DTYPES:
        dt["%s-%s" % (mode, d)] = (
            "torch.nn.functional.pad((torch.arange(24) %% 7 - 3).reshape(2, 3, 4).to(torch.%s), "
            "(2, 1, 1, 2), mode=%r)" % (d, mode))
    dt["%s-complex128" % mode] = ("torch.nn.functional.pad(torch.randn(2, 3, 4, dtype=torch.complex128,"
                                  " generator=torch.Generator().manual_seed(0)), (1, 2), mode=%r)" % mode)
    dt["%s-f32rand" % mode] = ("torch.nn.functional.pad(torch.randn(2, 3, 5, 6, generator="
                               "torch.Generator().manual_seed(1)), (3, 2, 1, 4), mode=%r)" % mode)
cases("pad_dtypes", dt)

# dtypes upstream refuses (reflect/replicate; circular is copies and takes every dtype)
bad_dt = {}
for mode in MODES:
    for d in ("bool", "uint16", "uint32", "uint64"):
        bad_dt["%s-%s" % (mode, d)] = (
            "msg(lambda: torch.nn.functional.pad(torch.empty(2, 3, dtype=torch.%s), (1, 1), mode=%r))"
            % (d, mode))
cases("pad_bad_dtypes", bad_dt, setup=MSG)

# non-contiguous inputs: transposed, stepped, expanded, channels-last, offset views
nc = {}
for mode in MODES:
    nc[mode + "-t"] = ("torch.nn.functional.pad(torch.arange(24.).reshape(2, 4, 3).transpose(1, 2), "
                       "(1, 2), mode=%r)" % mode)
    nc[mode + "-step"] = ("torch.nn.functional.pad(torch.arange(60.).reshape(3, 4, 5)[:, ::2, 1::2], "
                          "(1, 1, 1, 0), mode=%r)" % mode)
    nc[mode + "-expand"] = ("torch.nn.functional.pad(torch.arange(4.).expand(2, 3, 4), (2, 1), mode=%r)"
                            % mode)
    nc[mode + "-cl"] = ("torch.nn.functional.pad(torch.arange(120.).reshape(2, 3, 4, 5)"
                        ".to(memory_format=torch.channels_last), (1, 2, 2, 1), mode=%r)" % mode)
    nc[mode + "-cl3d"] = ("torch.nn.functional.pad(torch.arange(240.).reshape(2, 2, 3, 4, 5)"
                          ".to(memory_format=torch.channels_last_3d), (1, 1, 1, 1, 1, 1), mode=%r)" % mode)
    nc[mode + "-cl4d3"] = ("torch.nn.functional.pad(torch.arange(120.).reshape(2, 3, 4, 5)"
                           ".to(memory_format=torch.channels_last), (1, 1, 1, 1, 1, 1), mode=%r)" % mode)
    nc[mode + "-offset"] = ("torch.nn.functional.pad(torch.arange(50.).reshape(5, 10)[1:4, 3:8], "
                            "(2, 2), mode=%r)" % mode)
    nc[mode + "-perm3"] = ("torch.nn.functional.pad(torch.arange(60.).reshape(5, 4, 3).permute(2, 1, 0), "
                           "(1, 1, 3, 0), mode=%r)" % mode)
cases("pad_noncontig", nc, strides=True)

# negative padding (cropping), mixed signs, zero padding, empty batch
neg = {}
for mode in MODES:
    for i, p in enumerate([(-1, 1), (-1, -1), (1, -2), (-2, 2), (0, 0), (-1, 0, 0, -1), (2, -1, -1, 2)]):
        x = "torch.arange(20.).reshape(1, 4, 5)" if len(p) == 4 else "torch.arange(10.).reshape(2, 5)"
        neg["%s-%d" % (mode, i)] = "torch.nn.functional.pad(%s, %r, mode=%r)" % (x, p, mode)
    neg[mode + "-batch0"] = "torch.nn.functional.pad(torch.zeros(0, 2, 3), (1, 1), mode=%r)" % mode
    neg[mode + "-batch0-2d"] = "torch.nn.functional.pad(torch.zeros(0, 2, 3, 3), (1, 1, 1, 1), mode=%r)" % mode
    neg[mode + "-value0"] = "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (1, 1), mode=%r, value=0.0)" % mode
neg["reflect-max"] = "torch.nn.functional.pad(torch.arange(8.).reshape(2, 4), (3, 3), mode='reflect')"
neg["replicate-big"] = "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (5, 7), mode='replicate')"
neg["circular-full"] = "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (3, 3), mode='circular')"
neg["circular-crop-all"] = "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), (-3, 0), mode='circular')"
neg["circular-wrap-crop"] = "torch.nn.functional.pad(torch.arange(6.).reshape(2, 1, 3), (-1, 3), mode='circular')"
neg["circular-wrap-crop2"] = "torch.nn.functional.pad(torch.arange(8.).reshape(1, 2, 4), (-3, 3), mode='circular')"
neg["circular-1-1"] = "torch.nn.functional.pad(torch.arange(3.).reshape(1, 1, 3), (1, -1), mode='circular')"
neg["positional"] = "torch.nn.functional.pad(torch.arange(6.).reshape(2, 3), [1, 1], 'reflect')"
neg["C_nn"] = "torch._C._nn.pad(torch.arange(6.).reshape(2, 3), [1, 1], 'replicate')"
neg["aten-pad"] = "torch.ops.aten.pad.default(torch.arange(6.).reshape(2, 3), [1, 1], 'circular')"
neg["module"] = "torch.nn.ReflectionPad2d((1, 0, 2, 1))(torch.arange(12.).reshape(1, 3, 4))"
neg["module-rep3d"] = "torch.nn.ReplicationPad3d(1)(torch.arange(24.).reshape(1, 2, 3, 4))"
neg["module-circ1d"] = "torch.nn.CircularPad1d((2, 1))(torch.arange(6.).reshape(2, 3))"
cases("pad_negative", neg, strides=True)

# bad input through F.pad (message compared)
bad = {
    "mode": "msg(lambda: F.pad(x, (1, 1), mode='foo'))",
    "mode-case": "msg(lambda: F.pad(x, (1, 1), mode='Reflect'))",
    "mode-odd": "msg(lambda: F.pad(x, (1, 1, 1), mode='foo'))",
    "odd": "msg(lambda: F.pad(x, (1,), mode='reflect'))",
    "odd3": "msg(lambda: F.pad(x, (1, 1, 1), mode='replicate', value=1.0))",
    "toolong": "msg(lambda: F.pad(x, (1,) * 6, mode='circular'))",
    "value": "msg(lambda: F.pad(x, (1, 1), mode='reflect', value=1.0))",
    "value-circ": "msg(lambda: F.pad(x, (1, 1), mode='circular', value=2.0))",
    "value-nan": "msg(lambda: F.pad(x, (1, 1), mode='replicate', value=float('nan')))",
    "value-4": "msg(lambda: F.pad(x, (1, 1, 1, 1), mode='reflect', value=1.0))",
    "1d": "msg(lambda: F.pad(torch.zeros(3), (1, 1), mode='reflect'))",
    "2d-4": "msg(lambda: F.pad(x, (1, 1, 1, 1), mode='replicate'))",
    "empty-pad": "msg(lambda: F.pad(x, (), mode='circular'))",
    "4d-2": "msg(lambda: F.pad(torch.zeros(1, 2, 3, 3), (1, 1), mode='reflect'))",
    "5d-4": "msg(lambda: F.pad(torch.zeros(1, 2, 3, 3, 3), (1, 1, 1, 1), mode='replicate'))",
    "reflect-big": "msg(lambda: F.pad(x, (3, 0), mode='reflect'))",
    "reflect-big-r": "msg(lambda: F.pad(x, (0, 3), mode='reflect'))",
    "reflect-big-h": "msg(lambda: F.pad(x[None], (0, 0, 2, 0), mode='reflect'))",
    "reflect-small": "msg(lambda: F.pad(x, (-2, -1), mode='reflect'))",
    "replicate-small": "msg(lambda: F.pad(x, (-3, -1), mode='replicate'))",
    "circular-wrap": "msg(lambda: F.pad(x, (4, 0), mode='circular'))",
    "circular-wrap-r": "msg(lambda: F.pad(x, (-1, 4), mode='circular'))",
    "circular-neg": "msg(lambda: F.pad(x, (-2, -2), mode='circular'))",
    "circular-overlap": "msg(lambda: F.pad(torch.arange(3.)[None, None], (-1, 3), mode='circular'))",
    "circular-overlap-h": "msg(lambda: F.pad(torch.arange(16.).reshape(1, 1, 4, 4), (-1, 2, 3, -2), mode='circular'))",
    "reflect-zero-dim": "msg(lambda: F.pad(torch.zeros(2, 0), (1, 1), mode='reflect'))",
    "reflect-zero-ch": "msg(lambda: F.pad(torch.zeros(0, 3), (1, 1), mode='reflect'))",
    "replicate-zero-c": "msg(lambda: F.pad(torch.zeros(2, 0, 3), (1, 1), mode='replicate'))",
    "replicate-zero-2d": "msg(lambda: F.pad(torch.zeros(2, 0, 3, 3), (1, 1, 1, 1), mode='replicate'))",
    "reflect-zero-3d": "msg(lambda: F.pad(torch.zeros(2, 0, 3, 3, 3), (1,) * 6, mode='reflect'))",
    "circular-zero": "msg(lambda: F.pad(torch.zeros(2, 0), (1, 1), mode='circular'))",
    "circular-zero-ok": "msg(lambda: F.pad(torch.zeros(2, 0), (0, 0), mode='circular'))",
    "circular-batch0": "msg(lambda: F.pad(torch.zeros(0, 3, 2), (1, 1), mode='circular'))",
    "bool-empty": "msg(lambda: F.pad(torch.zeros(0, 2, 3, dtype=torch.bool), (1, 1), mode='replicate'))",
}
cases("pad_bad", bad, setup=MSG + "\nF = torch.nn.functional\nx = torch.arange(6.).reshape(2, 3)")

# aten spellings, values
A = "torch.ops.aten."
at = {}
for op, k in [("reflection_pad%dd", 0), ("replication_pad%dd", 0)]:
    for n in (1, 2, 3):
        name = op % n
        shape = [(2, 3, 4), (2, 3, 4, 5), (1, 2, 3, 4, 5)][n - 1]
        numel = eval("*".join(map(str, shape)))
        pads = [2, 1, 1, 2, 0, 2][:2 * n]
        at[name] = "%s%s.default(torch.arange(%d.).reshape%r, %r)" % (A, name, numel, shape, pads)
        at[name + "-nobatch"] = "%s%s.default(torch.arange(%d.).reshape%r, %r)" % (
            A, name, numel // shape[0], shape[1:], [1] * (2 * n))
        at[name + "-int"] = "%s%s.default(torch.arange(%d).reshape%r, %r)" % (A, name, numel, shape, pads)
        at[name + "-neg"] = "%s%s.default(torch.arange(%d.).reshape%r, %r)" % (
            A, name, numel, shape, [-1, 1, 1, -1, 0, -1][:2 * n])
        at[name + "-out"] = ("o = torch.empty(0)\nr = %s%s.out(torch.arange(%d.).reshape%r, %r, out=o)\n"
                             "(r, o, r is o)" % (A, name, numel, shape, pads))
        at[name + "-out-same"] = (
            "x = torch.arange(%d.).reshape%r\no = %s%s.default(x, %r).mT.contiguous().mT\n"
            "r = %s%s.out(x, %r, out=o)\n(o, o.stride(), r is o)" % (numel, shape, A, name, pads, A, name, pads))
        at[name + "-outkw"] = ("o = torch.empty(0, dtype=torch.float64)\n"
                               "torch._C._nn.%s(torch.arange(%d.).reshape%r.double(), %r, out=o)\no"
                               % (name, numel, shape, pads))
        at[name + "-fn"] = "torch._C._nn.%s(torch.arange(%d.).reshape%r, %r)" % (name, numel, shape, pads)
        if n >= 2:
            cl = "channels_last" if len(shape) == 4 else "channels_last_3d"
            at[name + "-cl"] = "%s%s.default(torch.arange(%d.).reshape%r.to(memory_format=torch.%s), %r)" % (
                A, name, numel, shape, cl, pads)
            at[name + "-cl-out"] = (
                "o = torch.empty(0)\n%s%s.out(torch.arange(%d.).reshape%r.to(memory_format=torch.%s), %r, out=o)\n"
                "(o, o.stride())" % (A, name, numel, shape, cl, pads))
at["circ"] = A + "_pad_circular.default(torch.arange(24.).reshape(2, 3, 4), [1, 2])"
at["circ-2d"] = A + "_pad_circular.default(torch.arange(24.).reshape(2, 3, 4), [1, 2, 2, 1])"
at["circ-nobatch-4d"] = A + "_pad_circular.default(torch.arange(24.).reshape(1, 2, 3, 4), [1, 2, 2, 1, 0, 1])"
at["circ-4pad"] = A + "_pad_circular.default(torch.arange(48.).reshape(1, 1, 2, 2, 3, 4), [1, 1, 1, 1, 1, 1, 1, 1])"
at["circ-empty"] = A + "_pad_circular.default(torch.arange(6.).reshape(2, 3), [])"
at["circ-int8"] = A + "_pad_circular.default(torch.arange(24, dtype=torch.int8).reshape(2, 3, 4), [3, -1])"
at["circ-bool"] = A + "_pad_circular.default(torch.arange(24).reshape(2, 3, 4) % 3 == 0, [2, 2])"
at["circ-t"] = A + "_pad_circular.default(torch.arange(24.).reshape(2, 4, 3).transpose(1, 2), [1, 1, 1, 1])"
cases("pad_aten", at, strides=True)

# aten spellings, bad input (message compared)
ab = {}
for n in (1, 2, 3):
    for kind in ("reflection", "replication"):
        name = "%s_pad%dd" % (kind, n)
        f = A + name + ".default"
        good = [(2, 3, 4), (2, 3, 4, 5), (1, 2, 3, 4, 5)][n - 1]
        ab[name + "-lowdim"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good[2:], [1] * (2 * n))
        ab[name + "-highdim"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, (1,) + good, [1] * (2 * n))
        ab[name + "-padlen"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [1] * (2 * n + 1))
        ab[name + "-padlen-short"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [1] * (2 * n - 1))
        ab[name + "-zero"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good[:-1] + (0,), [0] * (2 * n))
        ab[name + "-small"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [-3, -1] * n)
        ab[name + "-negdim"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [-5, -1] + [0] * (2 * n - 2))
        ab[name + "-negdim-first"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [0] * (2 * n - 1) + [-5])
        ab[name + "-emptyout"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [-2, -2] + [0] * (2 * n - 2))
        ab[name + "-big"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [1] * (2 * n - 1) + [good[-n]])
        ab[name + "-big-w"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [good[-1] + 1] + [1] * (2 * n - 1))
        ab[name + "-bool"] = "msg(lambda: %s(torch.zeros%r, %r))" % (f, good, [1] * (2 * n))
        ab[name + "-bool"] = "msg(lambda: %s(torch.zeros(%r, dtype=torch.bool), %r))" % (f, good, [1] * (2 * n))
        fo = A + name + ".out"
        ab[name + "-outdtype"] = "msg(lambda: %s(torch.zeros%r, %r, out=torch.zeros(0, dtype=torch.int64)))" % (
            fo, good, [1] * (2 * n))
        ab[name + "-outdtype-half"] = "msg(lambda: %s(torch.zeros%r, %r, out=torch.zeros(0, dtype=torch.half)))" % (
            fo, good, [1] * (2 * n))
        ab[name + "-bool-outfloat"] = "msg(lambda: %s(torch.zeros(%r, dtype=torch.bool), %r, out=torch.zeros(0)))" % (
            fo, good, [1] * (2 * n))
ab["circ-1d"] = "msg(lambda: %s_pad_circular.default(torch.zeros(3), [1, 1]))" % A
ab["circ-2d"] = "msg(lambda: %s_pad_circular.default(torch.zeros(3, 3), [1, 1, 1, 1]))" % A
ab["circ-6d"] = "msg(lambda: %s_pad_circular.default(torch.zeros(1, 1, 2, 2, 2, 2), [1, 1, 1, 1]))" % A
ab["circ-wrap"] = "msg(lambda: %s_pad_circular.default(torch.zeros(2, 3, 3), [4, 1, 4, 1]))" % A
ab["circ-neg"] = "msg(lambda: %s_pad_circular.default(torch.zeros(2, 3, 3), [-4, 0, -4, -1]))" % A
cases("pad_aten_bad", ab, setup=MSG)

# out= layouts upstream keeps (rank-3 input to the 2-d ops, 1-d ops) and the threaded path
cases("pad_out_layout", {
    "refl2d-3d-keep": """
        x = torch.arange(24.).reshape(2, 3, 4)
        o = torch.empty(2, 7, 5).mT.contiguous().mT
        r = torch.ops.aten.reflection_pad2d.out(x, [0, 1, 2, 2], out=o)
        (o, o.stride(), r is o)""",
    "rep2d-3d-keep": """
        x = torch.arange(24.).reshape(2, 3, 4)
        o = torch.empty(2, 7, 5).mT.contiguous().mT
        torch.ops.aten.replication_pad2d.out(x, [0, 1, 2, 2], out=o)
        (o, o.stride())""",
    "rep1d-view-out": """
        base = torch.zeros(4, 2, 10)
        o = base[:, :, 2:9][::2]
        torch.ops.aten.replication_pad1d.out(torch.arange(10.).reshape(2, 5), [1, 1], out=o[0])
        base""",
    "large": "torch.nn.functional.pad(torch.randn(2, 8, 64, 64, generator=torch.Generator().manual_seed(3)), (2, 3, 1, 2), mode='reflect')",
    "large-circ": "torch.nn.functional.pad(torch.randn(2, 8, 64, 64, generator=torch.Generator().manual_seed(4)), (2, 3, 1, 2), mode='circular')",
    "large-rep": "torch.nn.functional.pad(torch.randn(2, 8, 64, 64, generator=torch.Generator().manual_seed(5)).half(), (2, 3, 1, 2), mode='replicate')",
}, strides=True)

# ---- _pad_circular under autograd: upstream's composite (new_empty, slices, copy_), recorded as
# CopySlices / SliceBackward0 nodes; gradients and graphs compared
from harness.autograd import F64, grads  # noqa: E402

grads("grad_pad_circular", {
    "1d": "ps = leaves((2, 3, 5)); out = torch.nn.functional.pad(ps[0], (2, 1), mode='circular') * torch.arange(8.)",
    "1d_unbatched": "ps = leaves((3, 5)); out = torch.nn.functional.pad(ps[0], (1, 3), mode='circular').pow(2)",
    "1d_neg": "ps = leaves((2, 3, 5)); out = torch.nn.functional.pad(ps[0], (-2, 1), mode='circular') * torch.arange(4.)",
    "2d": "ps = leaves((1, 2, 3, 4)); out = torch.nn.functional.pad(ps[0], (2, 1, -1, 2), mode='circular') * torch.arange(28.).view(4, 7)",
    "2d_corners": "ps = leaves((2, 1, 3, 3)); out = torch.nn.functional.pad(ps[0], (1, 1, 2, 2), mode='circular').pow(2)",
    "3d": "ps = leaves((1, 2, 2, 3, 4)); out = torch.nn.functional.pad(ps[0], (1, 2, 0, 1, 1, 1), mode='circular').pow(2)",
    "3d_unbatched": "ps = leaves((2, 2, 3, 4)); out = torch.nn.functional.pad(ps[0], (1, 0, 2, 1, 1, 0), mode='circular').pow(2)",
    "zero_pad": "ps = leaves((2, 3, 5)); out = torch.nn.functional.pad(ps[0], (0, 0), mode='circular').pow(2)",
    "aten": "ps = leaves((2, 3, 5)); out = torch.ops.aten._pad_circular.default(ps[0], [1, 2]).pow(2)",
    "noncontig": "ps = leaves((2, 5, 3)); out = torch.nn.functional.pad(ps[0].transpose(1, 2), (2, 2), mode='circular').pow(2)",
    "module": "ps = leaves((1, 2, 3, 4)); out = torch.nn.CircularPad2d((1, 2, 1, 0))(ps[0]).pow(2)",
    "f64": "ps = leaves((2, 3, 5), dtype=torch.float64); out = torch.nn.functional.pad(ps[0], (3, 2), mode='circular').pow(2)",
})
grads("grad_pad_circular_f64_exact", {
    "2d_f64": "ps = leaves((1, 2, 3, 4), dtype=torch.float64); out = torch.nn.functional.pad(ps[0], (2, 1, 1, 2), mode='circular') * 3",
}, tol=F64)
cases("grad_pad_circular_bad", {
    "wrap": "x = torch.randn(1, 2, 3, requires_grad=True)\ntorch.nn.functional.pad(x, (4, 0), mode='circular')",
    "neg_empty": "x = torch.randn(1, 2, 3, requires_grad=True)\ntorch.nn.functional.pad(x, (-2, -2), mode='circular')",
    "bad_len": "x = torch.randn(1, 2, 3, requires_grad=True)\ntorch.nn.functional.pad(x, (1,) * 6, mode='circular')",
    "overlap": "x = torch.randn(1, 1, 3, requires_grad=True)\ntorch.nn.functional.pad(x, (-1, 3), mode='circular')",
    "opstream": """
from torch.utils._python_dispatch import TorchDispatchMode
class M(TorchDispatchMode):
    def __init__(self):
        super().__init__(); self.seen = []
    def __torch_dispatch__(self, f, types, args, kwargs=None):
        self.seen.append((str(f), [tuple(a.shape) if isinstance(a, torch.Tensor) else a for a in args], sorted((kwargs or {}).items(), key=str).__repr__()))
        return f(*args, **(kwargs or {}))
x = torch.randn(1, 2, 3, 4)
with M() as m:
    torch.nn.functional.pad(x, (2, 1, -1, 2), mode='circular')
m.seen""",
    "value_zero": "x = torch.randn(1, 2, 3, requires_grad=True)\ntorch.nn.functional.pad(x, (1, 2), mode='circular', value=0.0).sum().backward()\nx.grad",
    "value_nonzero": "x = torch.randn(1, 2, 3, requires_grad=True)\ntorch.nn.functional.pad(x, (1, 2), mode='reflect', value=1.0)",
    "rank_mismatch": "x = torch.randn(2, 3, requires_grad=True)\ntorch.nn.functional.pad(x, (1, 1, 1, 1, 1, 1), mode='replicate')",
})
