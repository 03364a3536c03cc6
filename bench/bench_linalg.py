"""Side-by-side timings of torch.linalg / torch.fft: this interpreter's torch against another's.

    .venv/bin/python bench/bench_linalg.py [--ref .venv-ref/bin/python]

Each op runs in a fresh process per side, alternating, median of several repeats; float64 and
float32, n = 64 and 256. TN_LAPACK chooses the LAPACK torchnative loads (docs/linalg.md)."""
import json, os, subprocess, sys

CODE = r'''
import json, sys, time, torch
torch.manual_seed(0)
res = {}
for dt in (torch.float64, torch.float32):
    for n in (64, 256):
        A = torch.randn(n, n, dtype=dt) + n ** 0.5 * torch.eye(n, dtype=dt)
        S = A @ A.mT
        B = torch.randn(n, 8, dtype=dt)
        ops = {"solve": lambda: torch.linalg.solve(A, B), "inv": lambda: torch.linalg.inv(A),
               "cholesky": lambda: torch.linalg.cholesky(S), "qr": lambda: torch.linalg.qr(A),
               "eigh": lambda: torch.linalg.eigh(S), "svd": lambda: torch.linalg.svd(A),
               "det": lambda: torch.linalg.det(A)}
        for name, f in ops.items():
            f()
            reps = max(3, int(0.2 / max(1e-6, (lambda t0: (f(), time.perf_counter() - t0)[1])(time.perf_counter()))))
            ts = []
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(reps): f()
                ts.append((time.perf_counter() - t0) / reps)
            ts.sort()
            res[f"{name} {str(dt)[6:]} n={n}"] = ts[2]
for n in (1024, 4096, 1000):
    x = torch.randn(64, n)
    for name, f in {"rfft": lambda: torch.fft.rfft(x), "fft": lambda: torch.fft.fft(x)}.items():
        f()
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(5): f()
            ts.append((time.perf_counter() - t0) / 5)
        ts.sort()
        res[f"{name} f32 64x{n}"] = ts[2]
print(json.dumps(res))
'''


def run(py, env=None):
    out = subprocess.run([py, "-c", CODE], capture_output=True, text=True, env={**os.environ, **(env or {})})
    if out.returncode:
        sys.exit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ref = sys.argv[sys.argv.index("--ref") + 1] if "--ref" in sys.argv else ".venv-ref/bin/python"
    sides = {"upstream (MKL)": (ref, None), "torchnative": (sys.executable, None)}
    for extra in os.environ.get("BENCH_LAPACKS", "").split(":"):
        if extra:
            sides["tn TN_LAPACK=" + os.path.basename(os.path.dirname(extra)) + "/" + os.path.basename(extra)] = (sys.executable, {"TN_LAPACK": extra})
    runs = {k: [] for k in sides}
    for _ in range(int(os.environ.get("BENCH_ROUNDS", 2))):
        for k, (py, env) in sides.items():
            runs[k].append(run(py, env))
    keys = list(runs["upstream (MKL)"][0])
    names = list(sides)
    print("%-22s" % "op (ms, median)" + "".join("%24s" % n[:24] for n in names))
    for key in keys:
        vals = [sorted(r[key] for r in runs[n])[len(runs[n]) // 2] * 1e3 for n in names]
        print("%-22s" % key + "".join("%13.3f (x%5.2f)   " % (v, v / vals[0]) for v in vals))


if __name__ == "__main__":
    main()
