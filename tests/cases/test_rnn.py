"""Recurrent layers (issues #11, #9; docs/rnn.md), compared with upstream: nn.RNN / LSTM / GRU and
their cells, the aten composites they reach (rnn_tanh / rnn_relu / lstm / gru .input and packed
.data, the *_cell ops), pack_padded_sequence / pad_packed_sequence, every option (layers,
bidirectional, batch_first, dropout in train mode, proj_size, bias=False, h0/c0, unbatched),
float32 and float64, gradients of weights and inputs, and bad input.

Upstream runs float32 LSTM without projections as one mkldnn_rnn_layer per layer and direction
(oneDNN) while torch.backends.mkldnn.enabled; so do we (the layer computed by the decomposition,
its backward by upstream's differentiable formula), and the graphs match. The grad_f32 / grad_f64
cases switch oneDNN off (torch.backends.mkldnn.enabled = False: upstream's decomposition, node by
node); grad_mkldnn keeps it on. Results of the GEMMs inside take tol="float" or the fixed rule."""
from harness import cases
from harness.autograd import grads, F32, F64

W = "torch.manual_seed(0)\n"
# nomkl(f): f() with oneDNN off (upstream's decomposition for float32 LSTM), the setting restored
# after (cases share worker processes; torch._C's setter, as torch.backends' may be frozen by
# an earlier case's disable_global_flags())
NOMKL = ("def nomkl(f):\n    was = torch._C._get_mkldnn_enabled()\n    torch._C._set_mkldnn_enabled(False)\n"
         "    try:\n        return f()\n    finally:\n        torch._C._set_mkldnn_enabled(was)\n")


def mod(cls, args, x, dt="torch.float32", call="m(x)", train=False):
    # float64 modules are built with dtype= (the float rule's widening re-run cannot .to() parameters)
    ctor = args + (", dtype=torch.float64" if dt == "torch.float64" else "")
    return (W + "m = torch.nn.%s(%s)\n%s" % (cls, ctor, "" if train else "m.eval()\n") +
            "x = %s.to(%s)\n" % (x, dt) + ("torch.manual_seed(5)\n" if train else "") + call)


# Module cases: the float rule's float64 re-run cannot build an RNN module (upstream's own
# RNNBase raises under the widening mode: "Cannot assign non-leaf Tensor to parameter"), so they
# take the gradient cases' fixed rule (harness/autograd.py: F32 / F64), which covers the GEMMs'
# host-dependent summation order.
def mcases(name, body):
    f64 = {k: v for k, v in body.items() if "f64" in k}
    cases(name, {k: v for k, v in body.items() if k not in f64}, tol=F32)
    if f64:
        cases(name + "_f64", f64, tol=F64)


# ---- modules: forward values ----
for cls in ("RNN", "LSTM", "GRU"):
    body = {}
    for dtn, dt in (("f32", "torch.float32"), ("f64", "torch.float64")):
        body["base_" + dtn] = mod(cls, "3, 4", "torch.randn(5, 2, 3)", dt)
        body["layers_bidir_" + dtn] = mod(cls, "3, 4, num_layers=2, bidirectional=True", "torch.randn(4, 3, 3)", dt)
        body["batch_first_nobias_" + dtn] = mod(cls, "3, 4, batch_first=True, bias=False", "torch.randn(2, 5, 3)", dt)
        body["unbatched_" + dtn] = mod(cls, "3, 4, num_layers=2", "torch.randn(6, 3)", dt)
        body["dropout_train_" + dtn] = mod(cls, "3, 4, num_layers=3, dropout=0.4", "torch.randn(5, 2, 3)", dt, train=True)
    body["bidir_batch_first_dropout_train"] = mod(cls, "3, 5, num_layers=2, bidirectional=True, batch_first=True, dropout=0.5",
                                                  "torch.randn(3, 4, 3)", train=True)
    body["dropout_eval"] = mod(cls, "3, 4, num_layers=2, dropout=0.9", "torch.randn(5, 2, 3)")
    body["noncontig_input"] = mod(cls, "3, 4", "torch.randn(2, 5, 3).transpose(0, 1)")
    body["seq1_batch1"] = mod(cls, "2, 3", "torch.randn(1, 1, 2)")
    if cls == "LSTM":
        h = "(torch.randn(2, 2, 4), torch.randn(2, 2, 4))"
        body["h0_c0"] = mod(cls, "3, 4, num_layers=2", "torch.randn(5, 2, 3)", call="m(x, %s)" % h)
        body["h0_c0_f64"] = mod(cls, "3, 4, num_layers=2", "torch.randn(5, 2, 3)", "torch.float64",
                                call="m(x, (torch.randn(2, 2, 4, dtype=torch.float64), torch.randn(2, 2, 4, dtype=torch.float64)))")
        body["proj"] = mod(cls, "3, 5, proj_size=2", "torch.randn(4, 2, 3)")
        body["proj_layers_bidir_f64"] = mod(cls, "3, 5, num_layers=2, bidirectional=True, proj_size=3", "torch.randn(4, 2, 3)", "torch.float64")
        body["proj_unbatched"] = mod(cls, "3, 5, proj_size=2, batch_first=True", "torch.randn(4, 3)")
        body["nomkldnn"] = NOMKL + mod(cls, "3, 4, num_layers=2, bidirectional=True", "torch.randn(4, 3, 3)", call="nomkl(lambda: m(x))")
    else:
        body["h0"] = mod(cls, "3, 4, num_layers=2, bidirectional=True", "torch.randn(5, 2, 3)",
                         call="m(x, torch.randn(4, 2, 4))")
        body["h0_unbatched"] = mod(cls, "3, 4", "torch.randn(5, 3)", call="m(x, torch.randn(1, 4))")
    if cls == "RNN":
        body["relu"] = mod(cls, "3, 4, nonlinearity='relu', num_layers=2", "torch.randn(5, 2, 3)")
        body["relu_f64_bidir"] = mod(cls, "3, 4, nonlinearity='relu', bidirectional=True", "torch.randn(5, 2, 3)", "torch.float64")
    mcases("module_" + cls.lower(), body)

# ---- cells: forward values, every spelling ----
for cls, op in (("RNNCell", "rnn_tanh_cell"), ("LSTMCell", "lstm_cell"), ("GRUCell", "gru_cell")):
    hx = "(torch.randn(2, 4), torch.randn(2, 4))" if cls == "LSTMCell" else "torch.randn(2, 4)"
    hx_arg = "[torch.randn(2, 4), torch.randn(2, 4)]" if cls == "LSTMCell" else "torch.randn(2, 4)"
    gates = {"RNNCell": 1, "LSTMCell": 4, "GRUCell": 3}[cls]
    WS = W + "x = torch.randn(2, 3)\nw_ih = torch.randn(%d, 3)\nw_hh = torch.randn(%d, 4)\nb_ih = torch.randn(%d)\nb_hh = torch.randn(%d)\n" % (
        4 * gates, 4 * gates, 4 * gates, 4 * gates)
    mcases("cell_" + op, {
        "module": mod(cls, "3, 4", "torch.randn(2, 3)"),
        "module_hx": mod(cls, "3, 4", "torch.randn(2, 3)", call="m(x, %s)" % hx),
        "module_f64": mod(cls, "3, 4", "torch.randn(2, 3)", "torch.float64"),
        "module_nobias": mod(cls, "3, 4, bias=False", "torch.randn(2, 3)"),
        "module_unbatched": mod(cls, "3, 4", "torch.randn(3)"),
        "torch_fn": WS + "torch.%s(x, %s, w_ih, w_hh, b_ih, b_hh)" % (op, hx_arg),
        "torch_fn_nobias": WS + "torch.%s(x, %s, w_ih, w_hh)" % (op, hx_arg),
        "aten": WS + "torch.ops.aten.%s.default(x, %s, w_ih, w_hh, b_ih, b_hh)" % (op, hx_arg),
        "noncontig": WS + "torch.%s(torch.randn(3, 2).t(), %s, w_ih, w_hh, b_ih, b_hh)" % (op, hx_arg),
    })
mcases("cell_rnn_relu_cell", {
    "module": mod("RNNCell", "3, 4, nonlinearity='relu'", "torch.randn(2, 3)"),
    "module_f64": mod("RNNCell", "3, 4, nonlinearity='relu'", "torch.randn(5, 3)", "torch.float64"),
    "aten": W + "torch.ops.aten.rnn_relu_cell.default(torch.randn(2, 3), torch.randn(2, 4), torch.randn(4, 3), torch.randn(4, 4))",
    "torch_fn": W + "torch.rnn_relu_cell(torch.randn(2, 3), torch.randn(2, 4), torch.randn(4, 3), torch.randn(4, 4), torch.randn(4), torch.randn(4))",
})

# ---- the aten composites, spelled directly ----
P1 = W + "x = torch.randn(4, 2, 3)\nps = [torch.randn(%d, 3), torch.randn(%d, 4), torch.randn(%d), torch.randn(%d)]\n"
cases("aten_rnn", {
    "rnn_tanh": P1 % (4, 4, 4, 4) + "torch.rnn_tanh(x, torch.zeros(1, 2, 4), ps, True, 1, 0.0, False, False, False)",
    "rnn_tanh_aten": P1 % (4, 4, 4, 4) + "torch.ops.aten.rnn_tanh.input(x, torch.zeros(1, 2, 4), ps, True, 1, 0.0, False, False, False)",
    "rnn_relu_aten": P1 % (4, 4, 4, 4) + "torch.ops.aten.rnn_relu.input(x, torch.randn(1, 2, 4), ps, True, 1, 0.0, False, False, False)",
    "rnn_relu_nobias": P1 % (4, 4, 4, 4) + "torch.rnn_relu(x, torch.randn(1, 2, 4), ps[:2], False, 1, 0.0, False, False, False)",
    "gru_aten": P1 % (12, 12, 12, 12) + "torch.ops.aten.gru.input(x, torch.randn(1, 2, 4), ps, True, 1, 0.0, False, False, False)",
    "gru_batch_first": P1 % (12, 12, 12, 12) + "torch.gru(x, torch.randn(1, 4, 4), ps, True, 1, 0.0, False, False, True)",
    "lstm_aten": P1 % (16, 16, 16, 16) + "torch.ops.aten.lstm.input(x, [torch.randn(1, 2, 4), torch.randn(1, 2, 4)], ps, True, 1, 0.0, False, False, False)",
    "lstm_batch_first": P1 % (16, 16, 16, 16) + "torch.lstm(x, [torch.randn(1, 4, 4), torch.randn(1, 4, 4)], ps, True, 1, 0.0, False, False, True)",
    "lstm_train_dropout_one_layer": P1 % (16, 16, 16, 16) + "torch.lstm(x, [torch.randn(1, 2, 4), torch.randn(1, 2, 4)], ps, True, 1, 0.7, True, False, False)",
}, tol="float")
D = W + "data = torch.randn(6, 3)\nbs = torch.tensor([3, 2, 1])\nps = [torch.randn(%d, 3), torch.randn(%d, 4), torch.randn(%d), torch.randn(%d)]\n"
cases("aten_rnn_data", {
    "rnn_tanh": D % (4, 4, 4, 4) + "torch.ops.aten.rnn_tanh.data(data, bs, torch.randn(1, 3, 4), ps, True, 1, 0.0, False, False)",
    "rnn_relu": D % (4, 4, 4, 4) + "torch.ops.aten.rnn_relu.data(data, bs, torch.randn(1, 3, 4), ps, True, 1, 0.0, False, False)",
    "rnn_tanh_bidir": D % (4, 4, 4, 4) + "torch.rnn_tanh(data, bs, torch.randn(2, 3, 4), ps + [p + 1 for p in ps], True, 1, 0.0, False, True)",
    "gru": D % (12, 12, 12, 12) + "torch.ops.aten.gru.data(data, bs, torch.randn(1, 3, 4), ps, True, 1, 0.0, False, False)",
    "lstm": D % (16, 16, 16, 16) + "torch.ops.aten.lstm.data(data, bs, [torch.randn(1, 3, 4), torch.randn(1, 3, 4)], ps, True, 1, 0.0, False, False)",
    "lstm_bidir": D % (16, 16, 16, 16) + "torch.lstm(data, bs, [torch.randn(2, 3, 4), torch.randn(2, 3, 4)], ps + [p * 2 for p in ps], True, 1, 0.0, False, True)",
}, tol="float")

# ---- packed sequences through the modules ----
PK = "from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pack_sequence\n"
for cls in ("RNN", "LSTM", "GRU"):
    mcases("packed_" + cls.lower(), {
        "sorted": PK + mod(cls, "3, 4", "torch.randn(5, 3, 3)", call="p = pack_padded_sequence(x, torch.tensor([5, 3, 2]))\n"
                           "o, h = m(p)\n(o.data, o.batch_sizes, h, pad_packed_sequence(o))"),
        "unsorted_bidir_layers": PK + mod(cls, "3, 4, num_layers=2, bidirectional=True", "torch.randn(5, 4, 3)",
                                          call="p = pack_padded_sequence(x, torch.tensor([2, 5, 1, 3]), enforce_sorted=False)\n"
                                               "o, h = m(p)\n(o.data, h, pad_packed_sequence(o, total_length=7))"),
        "batch_first_f64": PK + mod(cls, "3, 4, batch_first=True", "torch.randn(3, 4, 3)", "torch.float64",
                                    call="p = pack_padded_sequence(x, torch.tensor([4, 4, 1]), batch_first=True)\n"
                                         "o, h = m(p)\n(h, pad_packed_sequence(o, batch_first=True, padding_value=-1.5))"),
        "dropout_train": PK + mod(cls, "3, 4, num_layers=2, dropout=0.5", "torch.randn(4, 3, 3)", train=True,
                                  call="o, h = m(pack_sequence([x[:, 0], x[:3, 1], x[:1, 2]]))\n(o.data, h)"),
    })
mcases("packed_lstm_proj", {
    "proj": PK + mod("LSTM", "3, 5, proj_size=2, num_layers=2, bidirectional=True", "torch.randn(5, 3, 3)",
                     call="o, (h, c) = m(pack_padded_sequence(x, torch.tensor([5, 3, 2])))\n(o.data, h, c)"),
})

# ---- the packed-sequence ops ----
cases("pack_padded_sequence", {
    "basic": PK + W + "pack_padded_sequence(torch.randn(4, 3, 2), torch.tensor([4, 2, 1]))",
    "batch_first": PK + W + "pack_padded_sequence(torch.randn(3, 4, 2), torch.tensor([4, 4, 2]), batch_first=True)",
    "unsorted": PK + W + "pack_padded_sequence(torch.randn(4, 3), torch.tensor([1, 4, 2]), enforce_sorted=False)",
    "list_lengths_int": PK + W + "pack_padded_sequence(torch.randn(4, 2, 1, 2).double(), [3, 2])",
    "aten": W + "torch.ops.aten._pack_padded_sequence.default(torch.randn(3, 2, 2), torch.tensor([3, 1]), False)",
    "aten_bf": W + "torch._pack_padded_sequence(torch.randn(2, 3, 2), torch.tensor([3, 1]), True)",
    "int_data": "torch._pack_padded_sequence(torch.arange(12).view(3, 2, 2), torch.tensor([3, 2]), False)",
    "pack_sequence": PK + W + "pack_sequence([torch.randn(3, 2), torch.randn(5, 2), torch.randn(1, 2)], enforce_sorted=False)",
    "bad_unsorted": PK + "pack_padded_sequence(torch.randn(4, 3), torch.tensor([1, 4, 2]))",
    "bad_zero_length": PK + "pack_padded_sequence(torch.randn(4, 2), torch.tensor([4, 0]))",
    "bad_lengths_count": "torch._pack_padded_sequence(torch.randn(4, 2), torch.tensor([4, 3, 1]), False)",
    "bad_lengths_dtype": "torch._pack_padded_sequence(torch.randn(4, 2), torch.tensor([4, 3], dtype=torch.int32), False)",
    "bad_empty": "torch._pack_padded_sequence(torch.randn(0, 2), torch.tensor([1, 1]), False)",
})
cases("pad_packed_sequence", {
    "basic": PK + W + "pad_packed_sequence(pack_padded_sequence(torch.randn(4, 3, 2), torch.tensor([4, 2, 1])))",
    "aten": W + "torch.ops.aten._pad_packed_sequence.default(torch.randn(6, 2), torch.tensor([3, 2, 1]), False, 0.5, 5)",
    "batch_first": W + "torch._pad_packed_sequence(torch.randn(5, 2), torch.tensor([2, 2, 1]), True, -1, -1)",
    "int_data": "torch._pad_packed_sequence(torch.arange(5), torch.tensor([2, 2, 1]), False, 7, 0)",
    "bad_total_length": "torch._pad_packed_sequence(torch.randn(6, 2), torch.tensor([3, 2, 1]), False, 0.0, 2)",
    "bad_batch_sizes_dtype": "torch._pad_packed_sequence(torch.randn(6, 2), torch.tensor([3., 2., 1.]), False, 0.0, 0)",
})
cases("pad_sequence", {
    "basic": W + "torch.nn.utils.rnn.pad_sequence([torch.randn(3, 2), torch.randn(5, 2), torch.randn(1, 2)])",
    "batch_first_value": W + "torch.nn.utils.rnn.pad_sequence([torch.randn(3), torch.randn(4)], batch_first=True, padding_value=-2.0)",
    "left": W + "torch.nn.utils.rnn.pad_sequence([torch.randn(2, 3), torch.randn(4, 3)], padding_side='left')",
    "left_batch_first_f64": W + "torch._C._nn.pad_sequence([torch.randn(2, 1, 2).double(), torch.randn(3, 1, 2).double()], True, 1.5, 'left')",
    "aten": W + "torch.ops.aten.pad_sequence.default([torch.randn(2), torch.randn(5)], False, 0.0, 'right')",
    "int": "torch.nn.utils.rnn.pad_sequence([torch.arange(3), torch.arange(2)], batch_first=True, padding_value=9)",
    "noncontig": W + "torch.nn.utils.rnn.pad_sequence([torch.randn(2, 4).t(), torch.randn(3, 2)])",
    "bad_side": "torch._C._nn.pad_sequence([torch.ones(2)], False, 0.0, 'middle')",
    "bad_empty": "torch._C._nn.pad_sequence([], False, 0.0)",
    "bad_trailing": "torch._C._nn.pad_sequence([torch.ones(2, 3), torch.ones(1, 4)])",
})
grads("grad_pad_sequence", {
    "f32": W + "ps = [torch.randn(3, 2, requires_grad=True), torch.randn(5, 2, requires_grad=True)]\n"
           "out = torch.nn.utils.rnn.pad_sequence(ps, batch_first=True, padding_side='left').pow(2)",
})
cases("pack_padded_sequence_backward", {
    "aten": W + "torch.ops.aten._pack_padded_sequence_backward.default(torch.randn(6, 2), [4, 3, 2], torch.tensor([3, 2, 1]), False)",
    "batch_first": W + "torch.ops.aten._pack_padded_sequence_backward(torch.randn(5, 2), [3, 3, 2], torch.tensor([3, 2]), True)",
})

# ---- gradients (graph + leaf gradients) ----
G = NOMKL + W


def gbody(cls, args, x, dt="torch.float32", call="m(x)", extra="", outexpr=None):
    return (G + "m = torch.nn.%s(%s).to(%s)\nx = %s.to(%s).requires_grad_()\n%s" % (cls, args, dt, x, dt, extra) +
            "ps = list(m.parameters()) + [x]\nr = nomkl(lambda: %s)\n" % call +
            "out = %s" % (outexpr or "(r[0] * torch.linspace(-1, 1, r[0].numel()).view(r[0].shape)).sum() + r[1].sum() * 0.5"))


LSTM_OUT = "(r[0] * torch.linspace(-1, 1, r[0].numel()).view(r[0].shape)).sum() + r[1][0].sum() * 0.5 + r[1][1].sum() * 0.25"
for dtn, dt, tol in (("f32", "torch.float32", None), ("f64", "torch.float64", F64)):
    body = {}
    for cls in ("RNN", "GRU", "LSTM"):
        oe = LSTM_OUT if cls == "LSTM" else None
        body[cls + "_base"] = gbody(cls, "3, 4", "torch.randn(4, 2, 3)", dt, outexpr=oe)
        body[cls + "_layers_bidir"] = gbody(cls, "3, 4, num_layers=2, bidirectional=True", "torch.randn(3, 2, 3)", dt, outexpr=oe)
        body[cls + "_batch_first_nobias"] = gbody(cls, "3, 4, batch_first=True, bias=False", "torch.randn(2, 3, 3)", dt, outexpr=oe)
        body[cls + "_dropout_train"] = gbody(cls, "3, 4, num_layers=2, dropout=0.5", "torch.randn(3, 2, 3)", dt,
                                             extra="torch.manual_seed(3)\n", outexpr=oe)
        body[cls + "_packed"] = gbody(cls, "3, 4, num_layers=2, bidirectional=True", "torch.randn(4, 3, 3)", dt,
                                      call="m(torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor([4, 2, 1])))",
                                      outexpr="r[0].data.pow(2).sum() + " + ("r[1][0].sum() * 0.5 + r[1][1].sum() * 0.25" if cls == "LSTM" else "r[1].sum() * 0.5"))
    body["RNN_relu"] = gbody("RNN", "3, 4, nonlinearity='relu'", "torch.randn(4, 2, 3)", dt)
    body["LSTM_proj"] = gbody("LSTM", "3, 5, proj_size=2, num_layers=2", "torch.randn(3, 2, 3)", dt, outexpr=LSTM_OUT)
    body["LSTM_h0_c0"] = (G + "m = torch.nn.LSTM(3, 4).to(%s)\nx = torch.randn(3, 2, 3, dtype=%s, requires_grad=True)\n"
                          "h = torch.randn(1, 2, 4, dtype=%s, requires_grad=True)\nc = torch.randn(1, 2, 4, dtype=%s, requires_grad=True)\n"
                          "ps = list(m.parameters()) + [x, h, c]\nr = nomkl(lambda: m(x, (h, c)))\nout = %s" % (dt, dt, dt, dt, LSTM_OUT))
    body["GRU_h0_unbatched"] = (G + "m = torch.nn.GRU(3, 4).to(%s)\nx = torch.randn(3, 3, dtype=%s, requires_grad=True)\n"
                                "h = torch.randn(1, 4, dtype=%s, requires_grad=True)\nps = list(m.parameters()) + [x, h]\n"
                                "r = nomkl(lambda: m(x, h))\nout = r[0].sum() + r[1].sum()" % (dt, dt, dt))
    for cls in ("RNNCell", "LSTMCell", "GRUCell"):
        body[cls] = gbody(cls, "3, 4", "torch.randn(2, 3)", dt, outexpr=(
            "r[0].sum() + (r[1] * 0.5).sum()" if cls == "LSTMCell" else "(r * torch.linspace(-1, 1, 8).view(2, 4)).sum()"))
    grads("grad_" + dtn, body, **({"tol": tol} if tol else {}))

# float32 LSTM through mkldnn_rnn_layer (oneDNN on, upstream's default)
MK = "assert torch._C._get_mkldnn_enabled()  # oneDNN on, upstream's default\n" + W
grads("grad_mkldnn", {
    "base": MK + "m = torch.nn.LSTM(3, 4)\nx = torch.randn(4, 2, 3, requires_grad=True)\nps = list(m.parameters()) + [x]\n"
            "r = m(x)\nout = " + LSTM_OUT,
    "layers_bidir_batch_first": MK + "m = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)\n"
                                "x = torch.randn(2, 3, 3, requires_grad=True)\nps = list(m.parameters()) + [x]\nr = m(x)\nout = " + LSTM_OUT,
    "nobias_dropout_train": MK + "m = torch.nn.LSTM(3, 4, num_layers=2, bias=False, dropout=0.5)\n"
                            "x = torch.randn(3, 2, 3, requires_grad=True)\nps = list(m.parameters()) + [x]\ntorch.manual_seed(3)\nr = m(x)\nout = " + LSTM_OUT,
    "h0_c0_only_hy": MK + "m = torch.nn.LSTM(3, 4)\nx = torch.randn(3, 2, 3, requires_grad=True)\n"
                     "h = torch.randn(1, 2, 4, requires_grad=True)\nc = torch.randn(1, 2, 4, requires_grad=True)\n"
                     "ps = list(m.parameters()) + [x, h, c]\nr = m(x, (h, c))\nout = r[1][0].sum()",
    "double_backward": MK + "m = torch.nn.LSTM(3, 4)\nx = torch.randn(3, 2, 3, requires_grad=True)\nps = [x] + list(m.parameters())\n"
                       "r = m(x)\ng, = torch.autograd.grad(r[0].pow(2).sum(), x, create_graph=True)\nout = g.pow(2).sum()",
})

# the layer op pair spelled directly (the workspace, oneDNN's opaque buffer, is not compared)
ML = (W + "x = torch.randn(4, 2, 3)\nw = [torch.randn(16, 3), torch.randn(16, 4), torch.randn(16), torch.randn(16)]\n"
      "h, c = torch.randn(2, 4), torch.randn(2, 4)\n"
      "o, hy, cy, ws = torch.ops.aten.mkldnn_rnn_layer.default(x, *w, h, c, %s, [], 2, 4, 1, True, False, False, True)\n")
cases("mkldnn_rnn_layer", {
    "forward": ML % "False" + "(o, hy, cy)",
    "forward_reverse": ML % "True" + "(o, hy, cy)",
    "backward": ML % "False" + "torch.ops.aten.mkldnn_rnn_layer_backward.default(x, *w, h, c, o, hy, cy, torch.randn(4, 2, 4), "
                               "torch.randn(2, 4), torch.randn(2, 4), False, 2, 4, 1, True, True, False, [], False, ws)",
    "backward_reverse_no_grad_cy": ML % "True" + "torch.ops.aten.mkldnn_rnn_layer_backward.default(x, *w, h, c, o, hy, cy, "
                                                 "torch.randn(4, 2, 4), None, None, True, 2, 4, 1, True, True, False, [], False, ws)",
}, tol=F32, vars=False)

# packed-sequence ops' own gradients
grads("grad_pack_pad", {
    "roundtrip": PK + W + "ps = [torch.randn(4, 3, 2, requires_grad=True)]\n"
                 "o, l = pad_packed_sequence(pack_padded_sequence(ps[0], torch.tensor([4, 3, 1])))\nout = (o * torch.arange(24.).view(4, 3, 2)).sum()",
    "batch_first": PK + W + "ps = [torch.randn(3, 4, 2, requires_grad=True)]\n"
                   "out = pack_padded_sequence(ps[0], torch.tensor([4, 2, 2]), batch_first=True).data.pow(2)",
})

# ---- bad input ----
cases("rnn_bad_input", {
    "module_2d_input_wrong_size": mod("RNN", "3, 4", "torch.randn(5, 2)"),
    "module_4d_input": mod("GRU", "3, 4", "torch.randn(5, 2, 3, 1)"),
    "module_hx_wrong_shape": mod("GRU", "3, 4", "torch.randn(5, 2, 3)", call="m(x, torch.randn(1, 3, 4))"),
    "module_lstm_c0_wrong": mod("LSTM", "3, 4", "torch.randn(5, 2, 3)", call="m(x, (torch.randn(1, 2, 4), torch.randn(1, 2, 5)))"),
    "module_dtype_mismatch": mod("RNN", "3, 4", "torch.randn(5, 2, 3)", call="m(x.double())"),
    "cell_wrong_input_size": W + "torch.rnn_tanh_cell(torch.randn(2, 5), torch.randn(2, 4), torch.randn(4, 3), torch.randn(4, 4))",
    "cell_wrong_batch": W + "torch.gru_cell(torch.randn(2, 3), torch.randn(3, 4), torch.randn(12, 3), torch.randn(12, 4))",
    "cell_wrong_hidden": W + "torch.rnn_relu_cell(torch.randn(2, 3), torch.randn(2, 5), torch.randn(4, 3), torch.randn(4, 4))",
    "cell_wrong_weight": W + "torch.lstm_cell(torch.randn(2, 3), [torch.randn(2, 4), torch.randn(2, 4)], torch.randn(12, 3), torch.randn(16, 4))",
    "cell_lstm_one_hidden": W + "torch.lstm_cell(torch.randn(2, 3), [torch.randn(2, 4)], torch.randn(16, 3), torch.randn(16, 4))",
    "cell_lstm_c_hidden": W + "torch.lstm_cell(torch.randn(2, 3), [torch.randn(2, 4), torch.randn(2, 3)], torch.randn(16, 3), torch.randn(16, 4))",
    "cell_module_3d": mod("GRUCell", "3, 4", "torch.randn(2, 2, 3)"),
    "lstm_one_hidden": P1 % (16, 16, 16, 16) + "torch.lstm(x, [torch.randn(1, 2, 4)], ps, True, 1, 0.0, False, False, False)",
    "lstm_hidden_2d": P1 % (16, 16, 16, 16) + "torch.lstm(x, [torch.randn(2, 4), torch.randn(2, 4)], ps, True, 1, 0.0, False, False, False)",
    # float64: upstream's float32 path (oneDNN) ignores the extra layer of hidden state
    "lstm_layers_mismatch_f64": P1 % (16, 16, 16, 16) + "torch.lstm(x.double(), [torch.randn(2, 2, 4, dtype=torch.float64), "
                                "torch.randn(2, 2, 4, dtype=torch.float64)], [p.double() for p in ps], True, 1, 0.0, False, False, False)",
    "lstm_hidden_batch_mismatch_f64": P1 % (16, 16, 16, 16) + "torch.lstm(x.double(), [torch.randn(1, 3, 4, dtype=torch.float64), "
                                      "torch.randn(1, 3, 4, dtype=torch.float64)], [p.double() for p in ps], True, 1, 0.0, False, False, False)",
    "rnn_param_count": P1 % (4, 4, 4, 4) + "torch.rnn_tanh(x, torch.zeros(1, 2, 4), ps[:3], True, 1, 0.0, False, False, False)",
    "rnn_hidden_count": P1 % (4, 4, 4, 4) + "torch.rnn_tanh(x, torch.zeros(2, 2, 4), ps, True, 1, 0.0, False, False, False)",
    "rnn_bidir_odd": P1 % (4, 4, 4, 4) + "torch.rnn_tanh(x, torch.zeros(1, 2, 4), ps, True, 1, 0.0, False, True, False)",
    "rnn_empty_seq": P1 % (4, 4, 4, 4) + "torch.rnn_tanh(x[:0], torch.zeros(1, 2, 4), ps, True, 1, 0.0, False, False, False)",
})
