"""Warnings upstream's kernels give, compared with upstream 2.13.0: torch.triangular_solve's
deprecation (a TORCH_WARN_ONCE: one UserWarning per process, after the argument checks, whatever
the warnings filter). Each case runs a fresh interpreter, since the harness's workers are shared."""
from harness import cases

RUN = '''
import subprocess, sys
CODE = """
import torch, warnings
A = torch.tensor([[2., 0.], [1., 3.]]); b = torch.ones(2, 1)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    %s
print(repr([(x.category.__name__, str(x.message)) for x in w]))
"""
def run(body):
    p = subprocess.run([sys.executable, "-c", CODE % body], capture_output=True, text=True, timeout=120)
    return p.stdout.strip()
'''

cases("triangular_solve_deprecated", {
    "twice": RUN + "run('torch.triangular_solve(b, A, upper=False); torch.triangular_solve(b, A)')",
    "method_then_function": RUN + "run('b.triangular_solve(A); torch.triangular_solve(b, A)')",
    "bad_input_first": RUN + """run('''
    try:
        torch.triangular_solve(b, A.double())
    except RuntimeError:
        pass
    torch.triangular_solve(b, A)''')""",
    "solve_triangular_silent": RUN + "run('torch.linalg.solve_triangular(A, b, upper=False)')",
})
