"""torch.distributions' samplers (src/ops/random_dist.c, docs/breadth_more2.md "Distribution
samplers"): _standard_gamma, _standard_gamma_grad, _sample_dirichlet, poisson, binomial. Values
are bit-identical to upstream for the same seed (the harness seeds torch.manual_seed(0) before
each case); each sampling case also returns the next `torch.rand(3)` of the default generator,
so the number of draws a call consumes is compared too."""
from harness import cases
from harness.autograd import F32, F64, grads

SETUP = """
def run(f):
    try:
        r = f()
    except Exception as e:
        r = (type(e).__name__, str(e))
    return r, torch.rand(3)
def full(v, n=64, dt=torch.float32):
    return torch.full((n,), v, dtype=dt)
"""

ALPHAS = ["1e-30", "1e-8", "1e-3", "0.1", "0.5", "0.999", "1.0", "1.0001", "2.5", "8.0", "9.5", "30.", "1e6",
          "float('inf')", "float('nan')", "-1.0", "0.0"]

a = "torch.ops.aten."
gamma = {}
for dt in ("float32", "float64"):
    for i, al in enumerate(ALPHAS):
        gamma["%s_%d" % (dt, i)] = "run(lambda: torch._standard_gamma(full(%s, 64, torch.%s)))" % (al, dt)
    gamma[dt + "_mixed"] = "run(lambda: torch._standard_gamma(torch.rand(20, 30, dtype=torch.%s) * 6))" % dt
    gamma[dt + "_small"] = "run(lambda: torch._standard_gamma(torch.rand(500, dtype=torch.%s) * 0.2))" % dt
    gamma[dt + "_transposed"] = "run(lambda: torch._standard_gamma((torch.rand(6, 5, dtype=torch.%s) * 3).t()))" % dt
gamma.update({
    "0dim": "run(lambda: torch._standard_gamma(torch.tensor(2.0)))",
    "empty": "run(lambda: torch._standard_gamma(torch.empty(0, 3)))",
    "generator": "run(lambda: torch._standard_gamma(torch.rand(10) * 3, generator=torch.Generator().manual_seed(7)))",
    "after_randn": "run(lambda: (torch.randn(3, dtype=torch.float64), torch._standard_gamma(torch.rand(9) * 3)))",
    "keeps_normal_cache": "run(lambda: (torch._standard_gamma(torch.full((3,), 2.0)), torch.randn(3, dtype=torch.float64)))",
    "aten": "run(lambda: " + a + "_standard_gamma.default(torch.tensor([0.5, 4.0])))",
    "out": "run(lambda: " + a + "_standard_gamma.out(torch.tensor([0.5, 4.0]), out=torch.empty(2)))",
    "out_resize": "run(lambda: " + a + "_standard_gamma.out(torch.tensor([0.5, 4.0]), out=torch.empty(0)))",
    "out_dtype": "run(lambda: " + a + "_standard_gamma.out(torch.tensor([0.5]), out=torch.empty(1, dtype=torch.float64)))",
    "half": "run(lambda: torch._standard_gamma(torch.ones(2, dtype=torch.float16)))",
    "bfloat16": "run(lambda: torch._standard_gamma(torch.ones(2, dtype=torch.bfloat16)))",
    "int": "run(lambda: torch._standard_gamma(torch.tensor([1, 2])))",
    "int_empty": "run(lambda: torch._standard_gamma(torch.empty(0, dtype=torch.int64)))",
    "complex": "run(lambda: torch._standard_gamma(torch.ones(2, dtype=torch.complex64)))",
    "meta": "run(lambda: torch._standard_gamma(torch.ones(2, 3, device='meta')))",
    "meta_transposed": "run(lambda: torch._standard_gamma(torch.ones(2, 3, device='meta').t()))",
    "meta_int": "run(lambda: torch._standard_gamma(torch.ones(2, 3, device='meta', dtype=torch.int64)))",
    "meta_out": "run(lambda: " + a + "_standard_gamma.out(torch.ones(2, device='meta'), out=torch.empty(0, device='meta')))",
})
cases("standard_gamma", gamma, setup=SETUP, strides=True)

cases("standard_gamma_grad", {
    "float32": "torch.manual_seed(1); x = torch.rand(300) * 20 + 0.01; torch._standard_gamma_grad(x, torch._standard_gamma(x))",
    "float64": "x = torch.rand(300, dtype=torch.float64) * 20 + 0.01; torch._standard_gamma_grad(x, torch._standard_gamma(x))",
    "regions": """
al = torch.tensor([0.5, 2., 7.9, 8.5, 10., 10., 10., 40., 3., 0.01, 1e-4], dtype=torch.float64)
x = torch.tensor([0.3, 1., 0.79, 0.9, 9.5, 12., 5., 30., 0.8, 1e-30, 2.], dtype=torch.float64)
(torch._standard_gamma_grad(al, x), torch._standard_gamma_grad(al.float(), x.float()))""",
    "broadcast": "torch._standard_gamma_grad(torch.tensor([0.5]), torch.tensor([0.3, 1.]))",
    "broadcast_other": "torch._standard_gamma_grad(torch.tensor([[0.5], [3.]]), torch.tensor([0.3, 1.]))",
    "bad_shape": "torch._standard_gamma_grad(torch.tensor([0.5, 2]), torch.tensor([0.3, 1., 3]))",
    "dtype_mismatch": "torch._standard_gamma_grad(torch.tensor([0.5]), torch.tensor([0.3], dtype=torch.float64))",
    "half": "torch._standard_gamma_grad(torch.tensor([0.5]).half(), torch.tensor([0.3]).half())",
    "out": a + "_standard_gamma_grad.out(torch.tensor([0.5, 9.]), torch.tensor([0.3, 9.]), out=torch.empty(0))",
    "meta": "torch._standard_gamma_grad(torch.ones(2, device='meta'), torch.ones(2, device='meta'))",
}, strides=True)

dirichlet = {}
for dt in ("float32", "float64"):
    dirichlet.update({
        dt: "run(lambda: torch._sample_dirichlet(torch.rand(20, 7, dtype=torch.%s) * 3))" % dt,
        dt + "_tiny": "run(lambda: torch._sample_dirichlet(torch.rand(20, 7, dtype=torch.%s) * 0.01))" % dt,
        dt + "_long_rows": "run(lambda: torch._sample_dirichlet(torch.rand(3, 100, dtype=torch.%s) + 0.5))" % dt,
        dt + "_transposed": "run(lambda: torch._sample_dirichlet((torch.rand(7, 20, dtype=torch.%s) * 3).t()))" % dt,
    })
dirichlet.update({
    "3d": "run(lambda: torch._sample_dirichlet(torch.rand(2, 3, 4) * 2))",
    "0dim": "run(lambda: torch._sample_dirichlet(torch.tensor(2.)))",
    "zeros": "run(lambda: torch._sample_dirichlet(torch.tensor([0., 0.])))",
    "empty": "run(lambda: torch._sample_dirichlet(torch.empty(3, 0)))",
    "generator": "run(lambda: torch._sample_dirichlet(torch.ones(4, 3), generator=torch.Generator().manual_seed(3)))",
    "out": "run(lambda: " + a + "_sample_dirichlet.out(torch.tensor([1., 2.]), out=torch.empty(2)))",
    "out_dtype": "run(lambda: " + a + "_sample_dirichlet.out(torch.tensor([1., 2.]), out=torch.empty(2, dtype=torch.float64)))",
    "int": "run(lambda: torch._sample_dirichlet(torch.tensor([1, 2])))",
    "half": "run(lambda: torch._sample_dirichlet(torch.tensor([1., 2.]).half()))",
    "meta": "run(lambda: torch._sample_dirichlet(torch.ones(2, 3, device='meta')))",
})
cases("sample_dirichlet", dirichlet, setup=SETUP, strides=True)

poisson = {}
for dt in ("float32", "float64", "float16", "bfloat16"):
    for i, lam in enumerate(["0.0", "0.1", "1.0", "4.5", "9.99", "10.0", "20.5", "1e4"]):
        poisson["%s_%d" % (dt, i)] = "run(lambda: torch.poisson(full(%s, 64, torch.%s)))" % (lam, dt)
    poisson[dt + "_mixed"] = "run(lambda: torch.poisson(torch.rand(20, 30, dtype=torch.%s) * 30))" % dt
poisson.update({
    "large": "run(lambda: torch.poisson(torch.tensor([1e7, 1e9], dtype=torch.float64)))",
    "transposed": "run(lambda: torch.poisson((torch.rand(20, 30) * 30).t()))",
    "0dim": "run(lambda: torch.poisson(torch.tensor(3.)))",
    "empty": "run(lambda: torch.poisson(torch.empty(0)))",
    "generator": "run(lambda: torch.poisson(torch.full((5,), 3.), generator=torch.Generator().manual_seed(3)))",
    "negative_after_draws": "run(lambda: torch.poisson(torch.tensor([5., 20., -1., 3.])))",
    "nan": "run(lambda: torch.poisson(torch.tensor([2., float('nan')])))",
    "int": "run(lambda: torch.poisson(torch.tensor([1, 2])))",
    "out": "run(lambda: " + a + "poisson.out(torch.tensor([2., 30.]), out=torch.empty(2)))",
    "out_dtype": "run(lambda: " + a + "poisson.out(torch.tensor([2.]), out=torch.empty(1, dtype=torch.float64)))",
    "meta": "run(lambda: torch.poisson(torch.ones(2, device='meta')))",
    "meta_transposed_int": "run(lambda: torch.poisson(torch.ones(2, 3, device='meta', dtype=torch.int32).t()))",
})
cases("poisson", poisson, setup=SETUP, strides=True)

binomial = {}
for dt in ("float32", "float64"):
    for i, (n, p) in enumerate([(0, .5), (1, .5), (10, .3), (10, .7), (40, .25), (40, .75), (1000, .01), (1000, .5),
                                (1e6, .3), (37, .99), (5, 1.), (5, 0.), (123.4, .4), (17, .5), (-3, .5), (5, -.2),
                                (5, 1.5), (5, float("nan"))]):
        binomial["%s_%d" % (dt, i)] = ("run(lambda: torch.binomial(full(%r, 64, torch.%s), full(%r, 64, torch.%s)))"
                                       % (float(n), dt, p, dt))
    binomial[dt + "_mixed"] = ("run(lambda: torch.binomial(torch.randint(0, 200, (20, 30)).to(torch.%s), "
                               "torch.rand(20, 30, dtype=torch.%s)))" % (dt, dt))
binomial.update({
    "broadcast_prob": "run(lambda: torch.binomial(torch.randint(0, 200, (20, 1)).float(), torch.rand(30)))",
    "broadcast_count": "run(lambda: torch.binomial(torch.tensor([10., 20.]), torch.tensor([0.5])))",
    "transposed": "run(lambda: torch.binomial(torch.full((30, 20), 50.).t(), torch.rand(20, 30)))",
    "generator": "run(lambda: torch.binomial(torch.full((5,), 30.), torch.full((5,), .4), generator=torch.Generator().manual_seed(2)))",
    "bad_shape": "run(lambda: torch.binomial(torch.ones(2), torch.ones(3)))",
    "int_count": "run(lambda: torch.binomial(torch.tensor([10]), torch.tensor([0.5])))",
    "int_prob": "run(lambda: torch.binomial(torch.tensor([10.]), torch.tensor([1])))",
    "dtype_mismatch": "run(lambda: torch.binomial(torch.tensor([10.]), torch.tensor([0.5], dtype=torch.float64)))",
    "half": "run(lambda: torch.binomial(torch.tensor([10.]).half(), torch.tensor([0.5]).half()))",
    "out": "run(lambda: " + a + "binomial.out(torch.tensor([10., 40.]), torch.tensor([0.5, 0.4]), out=torch.empty(2)))",
    "out_dtype": "run(lambda: " + a + "binomial.out(torch.tensor([10.]), torch.tensor([0.5]), out=torch.empty(1, dtype=torch.float64)))",
    "meta": "run(lambda: torch.binomial(torch.ones(2, device='meta'), torch.ones(2, device='meta')))",
})
cases("binomial", binomial, setup=SETUP, strides=True)

# torch.distributions on top of them, as a user calls it
DSETUP = SETUP + "import torch.distributions as D\n"
cases("distributions", {
    "gamma": "run(lambda: D.Gamma(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 2.0])).sample((3,)))",
    "gamma_f64": "run(lambda: D.Gamma(torch.tensor([2.0, 0.5], dtype=torch.float64), 1.5).rsample((4,)))",
    "gamma_log_prob": "run(lambda: (lambda d: d.log_prob(d.sample((5,))))(D.Gamma(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 2.0]))))",
    "beta": "run(lambda: D.Beta(torch.tensor([2.0]), torch.tensor([3.0])).sample((4,)))",
    "beta_log_prob": "run(lambda: (lambda d: d.log_prob(d.sample((5,))))(D.Beta(torch.tensor([2.0, 0.3]), torch.tensor([3.0, 0.7]))))",
    "dirichlet": "run(lambda: D.Dirichlet(torch.tensor([1.0, 2.0, 3.0])).sample((2,)))",
    "dirichlet_log_prob": "run(lambda: (lambda d: d.log_prob(d.sample((4,))))(D.Dirichlet(torch.tensor([0.5, 2.0, 3.0]))))",
    "chi2": "run(lambda: D.Chi2(torch.tensor([3.0])).sample((3,)))",
    "student_t": "run(lambda: D.StudentT(torch.tensor([3.0])).sample((3,)))",
    "poisson": "run(lambda: D.Poisson(torch.tensor([4.0, 0.5, 25.])).sample((3,)))",
    "poisson_log_prob": "run(lambda: (lambda d: d.log_prob(d.sample((4,))))(D.Poisson(torch.tensor([4.0, 0.5, 25.]))))",
    "binomial": "run(lambda: D.Binomial(10, torch.tensor([0.3, 0.7])).sample((3,)))",
    "binomial_log_prob": "run(lambda: (lambda d: d.log_prob(d.sample((4,))))(D.Binomial(50, torch.tensor([0.3, 0.7]))))",
    "negative_binomial": "run(lambda: D.NegativeBinomial(5, torch.tensor([0.4])).sample((3,)))",
    "lkj_cholesky": "run(lambda: D.LKJCholesky(3, 0.5).sample())",
    "lkj_cholesky_batch": "run(lambda: D.LKJCholesky(4, torch.tensor([0.5, 2.0])).sample((2,)))",
    "wishart": "run(lambda: D.Wishart(torch.eye(2) * 2, df=torch.tensor(3.0)).sample())",
    "inverse_gamma": "run(lambda: D.InverseGamma(torch.tensor([2.0]), torch.tensor([1.0])).sample((3,)))",
    "kumaraswamy_free": "run(lambda: D.FisherSnedecor(torch.tensor([3.0]), torch.tensor([5.0])).sample((3,)))",
}, setup=DSETUP, tol="float")

G = "import torch.distributions as D\n"
grads("gamma_rsample_grad", {
    "concentration": G + "ps = [leaf([2.0, 0.5, 12.0, 0.05])]\nout = D.Gamma(ps[0], torch.ones(4)).rsample((3,))",
    "both": G + "ps = [leaf([2.0, 0.5]), leaf([1.0, 3.0])]\nout = D.Gamma(ps[0], ps[1]).rsample((5,))",
    "chi2": G + "ps = [leaf([3.0, 9.0])]\nout = D.Chi2(ps[0]).rsample((4,))",
    "f64": G + "ps = [leaf([2.0, 0.5, 30.0], dtype=torch.float64)]\nout = D.Gamma(ps[0], 2.0).rsample((3,))",
}, tol=F32)
grads("gamma_grad_f64", {
    "direct": "ps = [leaf([2.0, 0.5, 30.0, 8.5], dtype=torch.float64)]\nout = torch._standard_gamma(ps[0]) * 2",
}, tol=F64)

# _dirichlet_grad: every branch of upstream's dirichlet_grad_one (Taylor near 0 and 1, saddle point
# for large alpha and beta, the rational correction), bit-exact
DG = """
def dg_inputs(dt):
    torch.manual_seed(3)
    al = torch.cat([torch.rand(200, dtype=dt) * 0.5, torch.rand(200, dtype=dt) * 12 + 0.01, torch.rand(200, dtype=dt) * 3])
    tot = al + torch.cat([torch.rand(200, dtype=dt) * 0.5, torch.rand(200, dtype=dt) * 12 + 0.01, torch.rand(200, dtype=dt) * 20])
    x = torch.cat([torch.rand(200, dtype=dt) * 0.01, 1 - torch.rand(200, dtype=dt) * 0.01, torch.rand(200, dtype=dt)])
    return x, al, tot
"""
cases("dirichlet_grad", {
    "float32": "torch._dirichlet_grad(*dg_inputs(torch.float32))",
    "float64": "torch._dirichlet_grad(*dg_inputs(torch.float64))",
    "at_mean": "x, al, tot = dg_inputs(torch.float32); torch._dirichlet_grad(al / tot, al, tot)",
    "at_mean_f64": "x, al, tot = dg_inputs(torch.float64); torch._dirichlet_grad(al / tot, al, tot)",
    "values": "torch._dirichlet_grad(torch.tensor([0.2, 0.8, 1e-8, 0.5]), torch.tensor([1., 2., 0.1, 7.]), torch.tensor([3., 3., 0.3, 15]))",
    "broadcast": "torch._dirichlet_grad(torch.tensor([0.2, 0.8]), torch.tensor([1.]), torch.tensor([[3.], [5.]]))",
    "bad_shape": "torch._dirichlet_grad(torch.ones(2) / 2, torch.ones(3), torch.ones(2))",
    "dtype_mismatch": "torch._dirichlet_grad(torch.tensor([0.2]), torch.tensor([1.], dtype=torch.float64), torch.tensor([3.]))",
    "dtype_mismatch_total": "torch._dirichlet_grad(torch.tensor([0.2]), torch.tensor([1.]), torch.tensor([3.], dtype=torch.float64))",
    "half": "torch._dirichlet_grad(torch.tensor([0.2]).half(), torch.tensor([1.]).half(), torch.tensor([3.]).half())",
    "out": a + "_dirichlet_grad.out(torch.tensor([0.2, 0.8]), torch.tensor([1., 2.]), torch.tensor([3., 3.]), out=torch.empty(0))",
    "out_dtype": a + "_dirichlet_grad.out(torch.tensor([0.2]), torch.tensor([1.]), torch.tensor([3.]), out=torch.empty(1, dtype=torch.float64))",
    "meta": "torch._dirichlet_grad(torch.ones(2, device='meta'), torch.ones(2, device='meta'), torch.ones(2, device='meta'))",
}, setup=DG, strides=True)

grads("dirichlet_rsample_grad", {
    "dirichlet": G + "ps = [leaf([0.5, 2.0, 3.0, 9.0])]\nout = D.Dirichlet(ps[0]).rsample((5,)) * torch.arange(4.)",
    "beta": G + "ps = [leaf([0.5, 2.0, 8.0]), leaf([1.5, 0.3, 9.0])]\nout = D.Beta(ps[0], ps[1]).rsample((4,))",
    "beta_f64": G + "ps = [leaf([0.5, 2.0, 8.0], dtype=torch.float64), leaf([1.5, 0.3, 9.0], dtype=torch.float64)]\n"
                "out = D.Beta(ps[0], ps[1]).rsample((4,))",
}, tol=F32)

# autograd around the samplers: poisson's zeros_like gradient, binomial / _sample_dirichlet outputs
# (no formula upstream: backward refuses with upstream's message)
cases("sampler_autograd", {
    "poisson_grad": "x = torch.tensor([2., 30.], requires_grad=True); y = torch.poisson(x); y.sum().backward(); (y, x.grad)",
    "binomial_requires_grad": "p = torch.tensor([0.3, 0.6], requires_grad=True); y = torch.binomial(torch.tensor([10., 20.]), p); (y, y.requires_grad)",
    "dirichlet_requires_grad": "p = torch.tensor([0.3, 0.6], requires_grad=True); y = torch._sample_dirichlet(p); (y, y.requires_grad)",
    "dirichlet_backward": "p = torch.tensor([0.3, 0.6], requires_grad=True)\ntry:\n    torch._sample_dirichlet(p).sum().backward(); result = None\n"
                          "except Exception as e:\n    result = (type(e).__name__, str(e))",
}, strides=False)

cases("distributions_more", {
    "kumaraswamy": "run(lambda: D.Kumaraswamy(torch.tensor([2.0]), torch.tensor([3.0])).rsample((3,)))",
    "fisher_snedecor": "run(lambda: D.FisherSnedecor(torch.tensor([3.0]), torch.tensor([5.0])).rsample((3,)))",
    "inverse_gamma_rsample": "run(lambda: D.InverseGamma(torch.tensor([2.0]), torch.tensor([3.0])).rsample((3,)))",
    "student_t_rsample": "run(lambda: D.StudentT(torch.tensor([3.0, 30.])).rsample((3,)))",
    "lkj_log_prob": "run(lambda: (lambda d: d.log_prob(d.sample((3,))))(D.LKJCholesky(3, torch.tensor(2.0))))",
    "kl_gamma": "run(lambda: D.kl_divergence(D.Gamma(torch.tensor([2.0]), 1.0), D.Gamma(torch.tensor([3.0]), 2.0)))",
    "kl_dirichlet": "run(lambda: D.kl_divergence(D.Dirichlet(torch.tensor([2.0, 1.0])), D.Dirichlet(torch.tensor([3.0, 2.0]))))",
}, setup=DSETUP, tol="float")

# vmap: upstream's unary_pointwise_random_batch_rule for _standard_gamma, _sample_dirichlet, poisson,
# bernoulli, normal(Tensor, float), normal(float, Tensor): one call on the whole batch ('different'
# expands an unbatched tensor to [batch, *shape]); 'same' refuses a batched tensor, 'error' refuses
VSETUP = SETUP + "from torch.func import vmap\ntorch.manual_seed(42)\nx = torch.rand(3, 2) * 3\ntorch.manual_seed(0)\n"
vm = {}
for rnd in ("different", "same", "error"):
    vm.update({
        "gamma_batched_" + rnd: "run(lambda: vmap(torch._standard_gamma, randomness=%r)(x))" % rnd,
        "gamma_unbatched_" + rnd: "run(lambda: vmap(lambda y: torch._standard_gamma(x[0]) + y, randomness=%r)(x))" % rnd,
        "gamma_in_dims1_" + rnd: "run(lambda: vmap(torch._standard_gamma, in_dims=1, randomness=%r)(x))" % rnd,
        "poisson_batched_" + rnd: "run(lambda: vmap(torch.poisson, randomness=%r)(x))" % rnd,
        "poisson_unbatched_" + rnd: "run(lambda: vmap(lambda y: torch.poisson(x[0]) + y, randomness=%r)(x))" % rnd,
        "dirichlet_batched_" + rnd: "run(lambda: vmap(torch._sample_dirichlet, randomness=%r)(x))" % rnd,
        "dirichlet_unbatched_" + rnd: "run(lambda: vmap(lambda y: torch._sample_dirichlet(x[0]) + y, randomness=%r)(x))" % rnd,
        "bernoulli_batched_" + rnd: "run(lambda: vmap(torch.bernoulli, randomness=%r)(x / 3))" % rnd,
        "bernoulli_unbatched_" + rnd: "run(lambda: vmap(lambda y: torch.bernoulli(x[0] / 3) + y, randomness=%r)(x))" % rnd,
        "bernoulli_p_" + rnd: "run(lambda: vmap(lambda y: torch.bernoulli(y, 0.3), randomness=%r)(x))" % rnd,
        "normal_tensor_float_" + rnd: "run(lambda: vmap(lambda y: torch.normal(y, 2.0), randomness=%r)(x))" % rnd,
        "normal_float_tensor_" + rnd: "run(lambda: vmap(lambda y: torch.normal(2.0, y), randomness=%r)(x))" % rnd,
        "normal_float_tensor_unbatched_" + rnd: "run(lambda: vmap(lambda y: torch.normal(2.0, x[0]) + y, randomness=%r)(x))" % rnd,
    })
vm["binomial_different"] = "run(lambda: vmap(lambda c: torch.binomial(c, torch.full((2,), 0.4)), randomness='different')(x.round()))"
vm["binomial_different_both"] = "run(lambda: vmap(torch.binomial, randomness='different')(x.round() * 10, x / 3))"
vm["binomial_same"] = "run(lambda: vmap(lambda c: torch.binomial(c, torch.full((2,), 0.4)), randomness='same')(x.round()))"
vm["binomial_error"] = "run(lambda: vmap(lambda c: torch.binomial(c, torch.full((2,), 0.4)), randomness='error')(x.round()))"
cases("vmap_samplers", vm, setup=VSETUP, strides=False)
