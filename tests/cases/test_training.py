"""Training compared with upstream step by step: each snippet seeds, builds a model, runs ten
steps of forward + loss + backward + optimizer.step() and returns the list of losses and the
final parameters (and optimizer state where it says so).

Exact (bit for bit), where every kernel involved is: an elementwise model (relu(x * w1 + b1) *
w2 + b2, MSE) trained with SGD (default, foreach, fused; momentum, nesterov, dampening, weight
decay, maximize), and with Adam, AdamW (amsgrad) and Adagrad in their fused mode (upstream's
fused kernels use an exactly rounded vector sqrt).

Tolerance TOL = (atol 1e-6, rtol 64 * eps(float32)):
  - the MLP (8 -> 16 -> 3, tanh, MSE): Linear runs matrix products, which upstream sums in a
    CPU-dependent order (MKL), and tanh is upstream's vectorised polynomial; gradients differ in
    the last bits from the first step;
  - Adam / AdamW / Adagrad / RMSprop / ... in the default and foreach modes even on the
    elementwise model: they call torch.sqrt, and upstream's float32 sqrt on AVX2 / AVX-512 hosts
    is not correctly rounded (ours is), so the denominators differ by an ulp now and then.
"""
from harness import cases

TOL = (1e-6, 64 * 2.0 ** -23)

PRE = """
O = torch.optim
def ew_run(make, steps=10, state=False):
    torch.manual_seed(0)
    x = torch.randn(4, 6); y = torch.randn(4, 6)
    ps = [torch.randn(6, requires_grad=True) for _ in range(4)]
    opt = make(ps)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        h = torch.relu(x * ps[0] + ps[1])
        loss = ((h * ps[2] + ps[3] - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    out = (losses, [p.detach() for p in ps])
    if state:
        out += ([sorted((k, v) for k, v in opt.state[p].items()) for p in ps],)
    return out
def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
def mlp_run(make, steps=10, sched=None, clip=None, closure=False):
    m = mlp()
    torch.manual_seed(1)
    x = torch.randn(12, 8); y = torch.randn(12, 3)
    opt = make(m.parameters())
    s = sched(opt) if sched else None
    losses, lrs, norms = [], [], []
    for _ in range(steps):
        if closure:
            def cl():
                opt.zero_grad()
                l = ((m(x) - y) ** 2).mean()
                l.backward()
                return l
            losses.append(opt.step(cl).item())
            continue
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        if clip:
            norms.append(clip(m.parameters()))
        opt.step()
        if s:
            s.step()
            lrs.append(s.get_last_lr())
        losses.append(loss.item())
    return losses, [p.detach() for p in m.parameters()], lrs, norms
"""

MODES = {"default": "", "foreach": ", foreach=True", "fused": ", fused=True"}

exact = {}
for mode, kw in MODES.items():
    exact[f"sgd_nesterov-{mode}"] = f"ew_run(lambda p: O.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01{kw}), state=True)"
    exact[f"sgd_damp-{mode}"] = f"ew_run(lambda p: O.SGD(p, lr=0.1, momentum=0.9, dampening=0.1{kw}), state=True)"
    exact[f"sgd_plain_max-{mode}"] = f"ew_run(lambda p: O.SGD(p, lr=0.05, maximize=True, weight_decay=0.1{kw}))"
for opt in ("Adam(p, lr=0.01, weight_decay=0.01", "AdamW(p, lr=0.01, amsgrad=True", "AdamW(p, lr=0.02, maximize=True, betas=(0.5, 0.9)",
            "Adagrad(p, lr=0.1, weight_decay=0.01, lr_decay=0.01"):
    name = opt.split("(")[0].lower() + ("_" + str(len(opt)))
    exact[f"{name}-fused"] = f"ew_run(lambda p: O.{opt}, fused=True), state=True)"
cases("train_exact", exact, setup=PRE, vars=False)

tol = {}
for mode, kw in MODES.items():
    tol[f"mlp_sgd_momentum-{mode}"] = f"mlp_run(lambda p: O.SGD(p, lr=0.1, momentum=0.9{kw}))"
    tol[f"mlp_adam-{mode}"] = f"mlp_run(lambda p: O.Adam(p, lr=0.01{kw}))"
    tol[f"mlp_adamw-{mode}"] = f"mlp_run(lambda p: O.AdamW(p, lr=0.01, weight_decay=0.05{kw}))"
    tol[f"mlp_adamw_amsgrad-{mode}"] = f"mlp_run(lambda p: O.AdamW(p, lr=0.01, amsgrad=True{kw}))"
    tol[f"mlp_adagrad-{mode}"] = f"mlp_run(lambda p: O.Adagrad(p, lr=0.05{kw}))"
for mode, kw in list(MODES.items())[:2]:
    tol[f"ew_adam-{mode}"] = f"ew_run(lambda p: O.Adam(p, lr=0.01, weight_decay=0.01{kw}), state=True)"
    tol[f"ew_adamw_amsgrad-{mode}"] = f"ew_run(lambda p: O.AdamW(p, lr=0.01, amsgrad=True, maximize=True{kw}), state=True)"
    for opt in ("Adamax(p, lr=0.01, weight_decay=0.01", "NAdam(p, lr=0.01, weight_decay=0.01", "RAdam(p, lr=0.01",
                "RAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True",
                "RMSprop(p, lr=0.01, momentum=0.5, centered=True, weight_decay=0.01", "Adadelta(p, lr=1.0, weight_decay=0.01",
                "ASGD(p, lr=0.01, weight_decay=0.01", "Rprop(p, lr=0.01", "Adagrad(p, lr=0.05, lr_decay=0.01"):
        tol[f"mlp_{opt.split('(')[0].lower()}_{len(opt)}-{mode}"] = f"mlp_run(lambda p: O.{opt}{kw}))"
tol.update({
    "mlp_lbfgs": "mlp_run(lambda p: O.LBFGS(p, lr=0.5, max_iter=5), steps=4, closure=True)",
    "sched_linear": "mlp_run(lambda p: O.SGD(p, lr=0.1, momentum=0.9), sched=lambda o: O.lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=4))",
    "sched_step": "mlp_run(lambda p: O.Adam(p, lr=0.01), sched=lambda o: O.lr_scheduler.StepLR(o, step_size=3, gamma=0.5))",
    "sched_cosine": "mlp_run(lambda p: O.AdamW(p, lr=0.01, foreach=True), sched=lambda o: O.lr_scheduler.CosineAnnealingLR(o, T_max=6))",
    "sched_lambda": "mlp_run(lambda p: O.SGD(p, lr=0.1), sched=lambda o: O.lr_scheduler.LambdaLR(o, lambda e: 0.9 ** e))",
    "sched_onecycle": "mlp_run(lambda p: O.SGD(p, lr=0.1, momentum=0.9), sched=lambda o: O.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=10))",
    "clip_norm": "mlp_run(lambda p: O.SGD(p, lr=0.1), clip=lambda ps: torch.nn.utils.clip_grad_norm_(ps, 0.5))",
    "clip_norm_foreach": "mlp_run(lambda p: O.Adam(p, lr=0.01), clip=lambda ps: torch.nn.utils.clip_grad_norm_(ps, 0.5, foreach=True))",
    "clip_norm_inf": "mlp_run(lambda p: O.SGD(p, lr=0.1), clip=lambda ps: torch.nn.utils.clip_grad_norm_(ps, 0.05, norm_type='inf'))",
    "clip_norm_1": "mlp_run(lambda p: O.SGD(p, lr=0.1), clip=lambda ps: torch.nn.utils.clip_grad_norm_(ps, 0.5, norm_type=1.0, foreach=False))",
    "clip_value": "mlp_run(lambda p: O.SGD(p, lr=0.1), clip=lambda ps: torch.nn.utils.clip_grad_value_(ps, 0.01))",
    "clip_value_foreach": "mlp_run(lambda p: O.SGD(p, lr=0.1), clip=lambda ps: torch.nn.utils.clip_grad_value_(ps, 0.01, foreach=True))",
    "state_dict_roundtrip": "m = mlp(); opt = O.Adam(m.parameters(), lr=0.01, amsgrad=True)\n"
                            "for _ in range(3):\n    opt.zero_grad(); m(torch.ones(2, 8)).pow(2).sum().backward(); opt.step()\n"
                            "sd = opt.state_dict()\nm2 = mlp(); opt2 = O.Adam(m2.parameters(), lr=0.5)\nopt2.load_state_dict(sd)\n"
                            "opt2.zero_grad(); m2(torch.ones(2, 8)).pow(2).sum().backward(); opt2.step()\n"
                            "(sd['param_groups'], sorted(sd['state'][0].items()), opt2.state_dict()['param_groups'], [p.detach() for p in m2.parameters()])",
    "sched_state_dict": "m = mlp(); opt = O.SGD(m.parameters(), lr=0.1); s = O.lr_scheduler.StepLR(opt, 2)\n"
                        "for _ in range(3): opt.step(); s.step()\nsd = s.state_dict()\n"
                        "opt2 = O.SGD(mlp().parameters(), lr=0.1); s2 = O.lr_scheduler.StepLR(opt2, 5); s2.load_state_dict(sd)\n"
                        "(sorted(sd.items()), s2.get_last_lr(), s2.step_size)",
})
cases("train_tol", tol, setup=PRE, tol=TOL, vars=False)

cases("train_bad_input", {
    "non_leaf": "p = torch.randn(3, requires_grad=True)\nO.SGD([p * 2], lr=0.1)",
    "tensor_twice_warns": "import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter('error')\n    p = torch.randn(3, requires_grad=True)\n    O.SGD([p, p], lr=0.1)",
    "tensor_two_groups": "p = torch.randn(3, requires_grad=True)\nO.Adam([{'params': [p]}, {'params': [p]}])",
    "not_iterable": "O.SGD(torch.randn(3, requires_grad=True), lr=0.1)",
    "empty": "O.SGD([], lr=0.1)",
    "bad_lr": "O.Adam([torch.randn(3, requires_grad=True)], lr=-1)",
    "bad_betas": "O.Adam([torch.randn(3, requires_grad=True)], betas=(1.5, 0.9))",
    "fused_and_foreach": "O.Adam([torch.randn(3, requires_grad=True)], fused=True, foreach=True)",
    "load_mismatched_size": "p = torch.randn(3, requires_grad=True); o = O.Adam([p]); p.grad = torch.ones(3); o.step()\n"
                            "q = torch.randn(4, requires_grad=True); o2 = O.Adam([q]); o2.load_state_dict(o.state_dict())\n"
                            "q.grad = torch.ones(4); o2.step()",
    "load_mismatched_groups": "p = torch.randn(3, requires_grad=True); o = O.Adam([p]); p.grad = torch.ones(3); o.step()\n"
                              "O.Adam([p, torch.randn(2, requires_grad=True)]).load_state_dict(o.state_dict())",
    "fused_int_param": "O.Adam([torch.zeros(3, dtype=torch.float64).requires_grad_()], fused=True).step()",
}, setup=PRE, vars=False)
