"""Compare TypeError texts for random bad calls on both sides (docs/arg_errors.md, "Measured").

usage: python tools/fuzz_arg_errors.py [--seeds 1,2,3] [--calls 1500] [--show 20]
Runs the same seeded calls of torch functions and Tensor methods with random bad arguments under
.venv (ours) and .venv-ref (upstream) and prints how many TypeErrors there were and which texts
differ."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import torch, random, sys, json
random.seed(int(sys.argv[1]))
t = torch.ones(2, 2)
vals = [lambda: None, lambda: 'a', lambda: 1.5, lambda: 2, lambda: True, lambda: [1, 'a'], lambda: (1, 2),
        lambda: t, lambda: (t,), lambda: [t, t], lambda: torch.float32, lambda: 1j, lambda: torch.device('cpu')]
names = sorted(n for n in dir(torch._C._VariableFunctions) if not n.startswith('__'))
mnames = sorted(n for n in dir(torch.Tensor) if not n.startswith('_') and callable(getattr(torch.Tensor, n, None)))
skip = {'tensor', 'as_tensor', 'to', 'new_tensor', 'type', 'backward', 'register_hook', 'apply_', 'map_', 'map2_',
        'share_memory_', 'pin_memory', 'cuda', 'numpy', 'tolist', 'storage', 'untyped_storage', 'set_', 'resize_',
        'resize_as_', 'from_file', 'save', 'load', 'empty', 'empty_like', 'new_empty', 'empty_strided',
        'new_empty_strided', 'randint', 'randperm'}
out = []
for it in range(int(sys.argv[3])):
    meth = random.random() < 0.5
    name = random.choice(mnames if meth else names)
    if name in skip or name.startswith('_foreach'):
        continue
    args = [random.choice(vals)() for _ in range(random.randint(0, 3))]
    kw = {}
    if random.random() < 0.3:
        kw[random.choice(['dim', 'foo', 'out', 'dtype', 'keepdim', 'alpha', 'input'])] = random.choice(vals)()
    try:
        f = getattr(t.clone(), name) if meth else getattr(torch._C._VariableFunctions, name)
        f(*args, **kw)
        r = 'ok'
    except TypeError as e:
        r = 'TypeError: ' + str(e)
    except Exception as e:
        r = type(e).__name__
    out.append([('Tensor.' if meth else 'torch.') + name, repr(args)[:80], repr(kw)[:60], r])
json.dump(out, open(sys.argv[2], 'w'))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--calls", type=int, default=1500)
    ap.add_argument("--show", type=int, default=20)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tot = diff = 0
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "child.py")
        open(script, "w").write(CHILD)
        for seed in a.seeds.split(","):
            res = []
            for venv in (".venv", ".venv-ref"):
                path = os.path.join(d, f"{venv}-{seed}.json")
                subprocess.run([os.path.join(root, venv, "bin", "python"), script, seed, path, str(a.calls)],
                               check=True, stderr=subprocess.DEVNULL)
                res.append(json.load(open(path)))
            for ours, ref in zip(*res):
                if ours[:3] != ref[:3]:
                    break  # a call changed state differently on the two sides: stop comparing this seed
                if ours[3].startswith("TypeError") or ref[3].startswith("TypeError"):
                    tot += 1
                    if ours[3] != ref[3]:
                        diff += 1
                        if diff <= a.show:
                            print(ours[0], ours[1], ours[2])
                            print("  ours:", ours[3][:200].replace("\n", "|"))
                            print("  ref: ", ref[3][:200].replace("\n", "|"))
    print(f"{tot} TypeErrors, {diff} texts differ")


if __name__ == "__main__":
    sys.exit(main())
