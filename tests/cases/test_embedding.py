"""nn.Embedding as models train it, compared with upstream: padding_idx (its gradient row stays
zero, its forward row is read as is), max_norm (embedding_renorm_ rescales the looked-up rows of
the weight in place, under no_grad, before the lookup), scale_grad_by_freq, dense gradients
(sparse=False), from_pretrained, F.embedding, dtypes, repeated indices, and bad input."""
from harness import cases
from harness.autograd import grads

W = "torch.manual_seed(0)\n"
I = "i = torch.tensor([[1, 2, 2, 7], [3, 1, 9, 2]])\n"

cases("embedding_module", {
    "padding_idx_forward": W + I + "m = torch.nn.Embedding(10, 3, padding_idx=2)\n(m(i), m.weight[2])",
    "padding_idx_negative": W + I + "m = torch.nn.Embedding(10, 3, padding_idx=-1)\n(m.padding_idx, m(i), m.weight[9])",
    "max_norm": W + I + "m = torch.nn.Embedding(10, 3, max_norm=1.0)\ny = m(i)\n(y, m.weight)",
    "max_norm_p1": W + I + "m = torch.nn.Embedding(10, 5, max_norm=0.5, norm_type=1.0)\ny = m(i)\n(y, m.weight)",
    "max_norm_inf": W + I + "m = torch.nn.Embedding(10, 5, max_norm=0.5, norm_type=float('inf'))\ny = m(i)\n(y, m.weight)",
    "max_norm_f64": W + I + "m = torch.nn.Embedding(10, 4, max_norm=1.5, dtype=torch.float64)\ny = m(i)\n(y, m.weight)",
    "max_norm_bf16": W + I + "m = torch.nn.Embedding(10, 4, max_norm=1.0, dtype=torch.bfloat16)\ny = m(i)\n(y, m.weight)",
    "from_pretrained": "w = torch.arange(12.).view(4, 3)\nm = torch.nn.Embedding.from_pretrained(w, padding_idx=0, max_norm=5.0)\n(m(torch.tensor([0, 2, 2])), m.weight, m.weight.requires_grad)",
    "functional": W + I + "w = torch.randn(10, 3)\ntorch.nn.functional.embedding(i, w, padding_idx=1, max_norm=1.0), w",
    "int32_indices": W + "w = torch.randn(5, 3)\ntorch.nn.functional.embedding(torch.tensor([4, 0], dtype=torch.int32), w, max_norm=0.5), w",
    "bad_padding_idx": "torch.nn.Embedding(4, 3, padding_idx=4)",
    "bad_index": W + "torch.nn.Embedding(4, 3)(torch.tensor([4]))",
    "float_indices": W + "torch.nn.Embedding(4, 3)(torch.tensor([1.0]))",
}, tol="float")

cases("embedding_renorm_", {
    "basic": W + "w = torch.randn(6, 4)\nr = torch.embedding_renorm_(w, torch.tensor([0, 3, 3, 5]), 1.0, 2.0)\n(r is w, w)",
    "f64_int32": W + "w = torch.randn(6, 4, dtype=torch.float64)\ntorch.embedding_renorm_(w, torch.tensor([[5, 1]], dtype=torch.int32), 0.5, 1.0)",
    "bf16": W + "w = torch.randn(6, 4).bfloat16()\ntorch.embedding_renorm_(w, torch.tensor([2]), 0.5, 2.0)",
    "negative_index": W + "w = torch.randn(6, 4)\ntorch.embedding_renorm_(w, torch.tensor([-1]), 0.5, 2.0)",
    "below_max": "w = torch.full((3, 2), 0.1)\ntorch.embedding_renorm_(w, torch.tensor([0, 1, 2]), 1.0, 2.0)",
    "empty_indices": W + "w = torch.randn(3, 2)\ntorch.embedding_renorm_(w, torch.tensor([], dtype=torch.long), 0.1, 2.0)",
    "noncontiguous": W + "w = torch.randn(4, 6).t()\ntorch.embedding_renorm_(w, torch.tensor([1, 4]), 0.5, 2.0)\nw",
    "aten": W + "w = torch.randn(6, 4)\ntorch.ops.aten.embedding_renorm_.default(w, torch.tensor([1]), 0.5, 2.0)",
    "bad_dim": "torch.embedding_renorm_(torch.ones(3), torch.tensor([0]), 1., 2.)",
    "bad_index_dtype": "torch.embedding_renorm_(torch.ones(3, 2), torch.tensor([0.]), 1., 2.)",
    "out_of_range": "torch.embedding_renorm_(torch.ones(3, 2), torch.tensor([5]), 1., 2.)",
    "int_weight": "torch.embedding_renorm_(torch.ones(3, 2, dtype=torch.long), torch.tensor([0]), 1., 2.)",
    "leaf_requires_grad": "torch.embedding_renorm_(torch.ones(3, 2, requires_grad=True), torch.tensor([0]), 1., 2.)",
}, tol="float")

E = "torch.manual_seed(0)\nm = torch.nn.Embedding(10, 3{kw})\nps = [m.weight]\n" + I
grads("embedding_grad", {
    "dense": E.format(kw="") + "out = m(i) * torch.arange(3.)",
    "padding_idx": E.format(kw=", padding_idx=2") + "out = m(i).pow(2)",
    "padding_idx_negative": E.format(kw=", padding_idx=-3") + "out = m(i).pow(2)",
    "scale_grad_by_freq": E.format(kw=", scale_grad_by_freq=True") + "out = m(i) * 3",
    "scale_grad_by_freq_padding": E.format(kw=", scale_grad_by_freq=True, padding_idx=1") + "out = m(i).tanh()",
    "max_norm": E.format(kw=", max_norm=1.0") + "out = m(i).pow(2)",
    "max_norm_scale_freq": E.format(kw=", max_norm=0.7, scale_grad_by_freq=True, padding_idx=9") + "out = m(i).exp()",
    "functional_padding": "torch.manual_seed(0)\nps = [torch.randn(6, 2, requires_grad=True)]\nout = torch.nn.functional.embedding(torch.tensor([0, 5, 5, 1]), ps[0], padding_idx=5)",
})

cases("embedding_train_steps", {
    # three SGD steps: the padding row never moves, max_norm keeps looked-up rows within the norm
    "sgd_padding_max_norm": "torch.manual_seed(0)\nm = torch.nn.Embedding(8, 4, padding_idx=0, max_norm=1.0)\n"
                            "opt = torch.optim.SGD(m.parameters(), lr=0.5)\ni = torch.tensor([[0, 1, 3], [3, 5, 0]])\n"
                            "for _ in range(3):\n    opt.zero_grad()\n    m(i).sum().backward()\n    opt.step()\n"
                            "(m.weight, m.weight.grad)",
}, tol="float")
