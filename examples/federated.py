"""Federated learning with torchnative.nn.federated: a small seeded classifier trained by 3 clients
that never share data, over Flower (real SuperLink / SuperNode processes on 127.0.0.1) or over
torch.distributed (4 gloo ranks).

    .venv/bin/python examples/federated.py flower                 # SuperLink + 3 SuperNodes, this Python
    .venv/bin/python examples/federated.py flower --link-python .venv-ref/bin/python
    .venv/bin/python examples/federated.py flower --aggregator fedprox --secaggplus
    .venv/bin/python examples/federated.py flower --dp-clipping-norm 0.3
    .venv-ref/bin/python examples/federated.py distributed --aggregator fedavg

(the repository root must be importable: run from it, or set PYTHONPATH). The Flower app itself is
examples/federated_app/ (pyproject.toml + tnfed_app.py: one Engine, its ClientApp and ServerApp).
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def accuracy(state):
    import torch
    from torchnative.nn.federated import evaluate, toy
    m = toy.make_model(0)
    m.load_state_dict({k: torch.tensor(v, dtype=torch.float32).reshape(m.state_dict()[k].shape)
                       for k, v in state.items()})
    return evaluate(m, toy.test_set())


def flower(args):
    from torchnative.nn.federated.local import LocalFederation
    py = sys.executable
    rc = {"rounds": args.rounds, "aggregator": args.aggregator, "min-available-nodes": 3}
    if args.aggregator == "fedprox":
        rc["proximal-mu"] = args.proximal_mu
    if args.secaggplus:
        rc["secaggplus"] = True
    if args.dp_clipping_norm > 0:
        rc.update({"dp-clipping-norm": args.dp_clipping_norm, "dp-noise-multiplier": args.dp_noise})
    with LocalFederation(os.path.join(ROOT, "examples", "federated_app"), args.link_python or py, [py] * 3) as fed:
        print("SuperLink on 127.0.0.1:%d, 3 SuperNodes; logs in %s" % (fed.port, fed.dir))
        res = fed.run(rc)
    for r, rep in sorted(res["report"].items(), key=lambda kv: int(kv[0])):
        print("round %s: %s" % (r, {k: v for k, v in rep.items() if k != "global"}))
    loss, acc = accuracy(res["state"])
    print("final global model: test loss %.4f, accuracy %.3f (%.1f s)" % (loss, acc, res["seconds"]))


def distributed(args):
    from torchnative.nn.federated.local import free_port
    worker = os.path.join(ROOT, "tests", "federated", "dist_worker.py")
    port = str(free_port())
    env = dict(os.environ, PYTHONPATH=ROOT)
    procs = [subprocess.Popen([sys.executable, worker, str(r), "4", port, args.aggregator, str(args.rounds), "none"],
                              stdout=subprocess.PIPE, text=True, env=env) for r in range(4)]
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        sys.exit("a rank failed (on torchnative, torch.distributed's gloo group needs issue #13)")
    import json
    res = json.loads(outs[0].strip().splitlines()[-1])
    for h in res["history"]:
        print("round %d: results from ranks %s, %d examples" % (h["round"], h["results"], h["num_examples"]))
    loss, acc = accuracy(res["state"])
    print("final global model: test loss %.4f, accuracy %.3f" % (loss, acc))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("transport", choices=["flower", "distributed"])
    ap.add_argument("--aggregator", default="fedavg", choices=["fedavg", "fedprox", "fedadam", "fedyogi"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--proximal-mu", type=float, default=0.5)
    ap.add_argument("--secaggplus", action="store_true")
    ap.add_argument("--dp-clipping-norm", type=float, default=0.0)
    ap.add_argument("--dp-noise", type=float, default=0.0)
    ap.add_argument("--link-python", default=None, help="Python of the SuperLink (default: this one)")
    a = ap.parse_args()
    (flower if a.transport == "flower" else distributed)(a)
