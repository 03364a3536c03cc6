"""Random ops on meta tensors (docs/outdev.md "Random ops on meta tensors"): upstream's meta
kernels are Python; they draw nothing (the generator is left as it was: each case returns the
next `torch.rand(3)` of the seeded default generator), check only what they check, in their
order, and print numbers as Python does. The result's shape / dtype / device, or the error's type
and message, are compared with upstream."""
from harness import cases

SETUP = """
def M(dt=torch.float32, s=(4, 3)):
    return torch.empty(*s, device="meta", dtype=dt)
def run(f):
    try:
        r = f()
        got = ("ok", tuple(r.shape), r.dtype, r.device.type)
    except Exception as e:
        got = (type(e).__name__, str(e))
    return got, torch.rand(3)
"""

a = "torch.ops.aten."
cases("random_meta", {
    "uniform": "run(lambda: M().uniform_(-2, 2))",
    "uniform_from_gt_to": "run(lambda: M().uniform_(2, 1))",
    "uniform_int": "run(lambda: M(torch.int64).uniform_())",
    "uniform_f16": "run(lambda: M(torch.float16).uniform_())",
    "normal": "run(lambda: M().normal_(1, 2))",
    "normal_c64": "run(lambda: M(torch.complex64).normal_())",
    "normal_std_neg": "run(lambda: M().normal_(0, -1))",
    "normal_std_small": "run(lambda: M().normal_(0, -1e-5))",
    "normal_std_nan": "run(lambda: M().normal_(0, float('nan')))",
    "normal_int": "run(lambda: M(torch.int64).normal_())",
    "normal_int_std_neg": "run(lambda: M(torch.int64).normal_(0, -1))",
    "normal_tensor_float": "run(lambda: torch.normal(M(), 1.0))",
    "normal_tensor_float_neg": "run(lambda: torch.normal(M(), -1.0))",
    "normal_tensor_float_int": "run(lambda: torch.normal(M(torch.int64), 1.0))",
    "normal_tensor_tensor": "run(lambda: torch.normal(M(), M()))",
    "normal_float_tensor": "run(lambda: torch.normal(1.0, M()))",
    "normal_factory": "run(lambda: torch.normal(0.0, 1.0, (3,), device='meta'))",
    "bernoulli_p": "run(lambda: M().bernoulli_(0.5))",
    "bernoulli_p_out_of_range": "run(lambda: M().bernoulli_(2.0))",
    "bernoulli_int": "run(lambda: M(torch.int64).bernoulli_(0.5))",
    "bernoulli_tensor": "run(lambda: M().bernoulli_(M()))",
    "bernoulli": "run(lambda: torch.bernoulli(M()))",
    "bernoulli_float_p": "run(lambda: " + a + "bernoulli.p(M(), -1.0))",
    "dropout": "run(lambda: torch.nn.functional.dropout(M(), 0.5, True))",
    "exponential": "run(lambda: M().exponential_(2))",
    "exponential_neg": "run(lambda: M().exponential_(-1))",
    "exponential_nan": "run(lambda: M().exponential_(float('nan')))",
    "exponential_int_neg": "run(lambda: M(torch.int64).exponential_(-1))",
    "exponential_c64": "run(lambda: M(torch.complex64).exponential_())",
    "random": "run(lambda: M().random_())",
    "random_from_ge_to": "run(lambda: M().random_(5, 2))",
    "random_to": "run(lambda: M(torch.bool).random_(5))",
    "random_c64": "run(lambda: M(torch.complex64).random_())",
    "cauchy": "run(lambda: M().cauchy_())",
    "cauchy_neg": "run(lambda: M().cauchy_(0, -1))",
    "cauchy_int_neg": "run(lambda: M(torch.int64).cauchy_(0, -1))",
    "log_normal": "run(lambda: M().log_normal_())",
    "log_normal_neg": "run(lambda: M().log_normal_(0, -1))",
    "log_normal_empty_neg": "run(lambda: M(s=(0,)).log_normal_(0, -1))",
    "log_normal_int_neg": "run(lambda: M(torch.int64).log_normal_(0, -1))",
    "log_normal_c64": "run(lambda: M(torch.complex64).log_normal_())",
    "geometric": "run(lambda: M().geometric_(0.3))",
    "geometric_int8": "run(lambda: M(torch.int8).geometric_(0.3))",
    "geometric_p": "run(lambda: M().geometric_(2))",
    "geometric_bool_p": "run(lambda: M(torch.bool).geometric_(2))",
    "geometric_c64": "run(lambda: M(torch.complex64).geometric_(0.5))",
    "multinomial": "run(lambda: torch.multinomial(M(), 2))",
    "multinomial_1d_more_than_categories": "run(lambda: torch.multinomial(M(s=(4,)), 5))",
    "multinomial_int": "run(lambda: torch.multinomial(M(torch.int64), 1))",
    "multinomial_3d": "run(lambda: torch.multinomial(M(s=(2, 2, 2)), 1))",
    "multinomial_out": "run(lambda: torch.multinomial(M(), 2, out=torch.empty(0, dtype=torch.int64, device='meta')))",
    "rand_like": "run(lambda: torch.rand_like(M()))",
    "randn_like": "run(lambda: torch.randn_like(M(torch.float64)))",
    "randint_like": "run(lambda: torch.randint_like(M(), 5))",
    "init_trunc_normal": "run(lambda: torch.nn.init.trunc_normal_(M()))",
    "init_kaiming_uniform": "run(lambda: torch.nn.init.kaiming_uniform_(M()))",
    "init_orthogonal": "run(lambda: torch.nn.init.xavier_normal_(M()))",
}, setup=SETUP)

cases("random_meta_module", {   # a module built on the meta device (how transformers loads models)
    "linear_embedding": "with torch.device('meta'):\n    m = torch.nn.Sequential(torch.nn.Embedding(100, 8), torch.nn.Linear(8, 4))\n"
                        "[(n, tuple(p.shape), p.device.type) for n, p in m.named_parameters()], torch.rand(3)",
}, setup=SETUP)
