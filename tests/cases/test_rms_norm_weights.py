"""rms_norm with a weight of another dtype than its input, or a channels-last input, compared with
upstream 2.13.0 (value, dtype, strides): upstream's rms_norm takes its composite there (the input
in its op-math type times rsqrt(mean(x^2) + eps), times the weight with promotion -- an integer or
bool weight too -- then cast back to the input's dtype; a channels-last input keeps its format),
warning once per process "Mismatch dtype between input and weight ..." for the dtype case (the
warning cases run a fresh interpreter, since the harness's workers are shared)."""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
def geo(r):
    return (r, r.dtype, r.stride())
x = torch.tensor([[1.5, -2.0, 7.25], [0.5, 3.0, -8.0]])
ws = [torch.tensor([1, -2, 3]), torch.tensor([True, False, True]), torch.tensor([0.5, 2.0, -1.0], dtype=torch.float64),
      torch.tensor([0.5, 2.0, -1.0], dtype=torch.bfloat16), torch.tensor([2, 3, 4], dtype=torch.int8),
      torch.tensor([0.5, 2.0, -1.0], dtype=torch.float16), torch.tensor([0.5, 2.0, -1.0])]
"""

cases("rms_norm_weight_dtypes", {
    "float32_input": "[geo(torch.nn.functional.rms_norm(x, [3], w)) for w in ws]",
    "bfloat16_input": "[geo(torch.rms_norm(x.to(torch.bfloat16), [3], w, 1e-3)) for w in ws]",
    "float64_input": "[geo(torch.rms_norm(x.double(), [3], w)) for w in ws]",
    "float16_input_2d_weight": "[geo(torch.rms_norm(x.half(), [2, 3], w.expand(2, 3), 0.25)) for w in ws]",
    "channels_last": "xc = torch.arange(24.).reshape(1, 2, 3, 4).to(memory_format=torch.channels_last) - 11.5; "
                     "[geo(torch.rms_norm(xc, [4], w)) for w in (None, torch.ones(4), torch.arange(4))] + "
                     "[geo(torch.rms_norm(xc, [3, 4], torch.ones(3, 4, dtype=torch.float64)))]",
    "autograd": "out = []\nfor xd, w in ((torch.float32, ws[2]), (torch.bfloat16, ws[3]), (torch.bfloat16, ws[6]), (torch.float16, ws[5]), "
                "(torch.float32, ws[6])):\n    xa = x.to(xd).requires_grad_(); wa = w.clone().requires_grad_(); y = torch.rms_norm(xa, [3], wa)\n"
                "    (y.float() * torch.tensor([1.0, -2.0, 0.5])).sum().backward(); out += [geo(y.detach()), y.grad_fn.name(), xa.grad, wa.grad]\nout",
    "integer_input_still_refused": "err(lambda: torch.rms_norm(x.long(), [3], ws[2]))",
}, setup=SETUP, tol="float")   # the same-dtype case runs our kernel, an ulp from upstream's composite

RUN = '''
import subprocess, sys
CODE = """
import torch, warnings
x = torch.tensor([[1.5, -2.0, 7.25], [0.5, 3.0, -8.0]])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    %s
print(repr([(x.category.__name__, str(x.message)) for x in w]))
"""
def run(body):
    p = subprocess.run([sys.executable, "-c", CODE % body], capture_output=True, text=True, timeout=120)
    return p.stdout.strip(), p.stderr.strip()[-300:]
'''

cases("rms_norm_weight_warning", {
    "once_per_process": RUN + "run('torch.rms_norm(x, [3], torch.ones(3, dtype=torch.float64)); "
                              "torch.rms_norm(x.half(), [3], torch.ones(3, dtype=torch.long))')",
    "same_dtype_silent": RUN + "run('torch.rms_norm(x, [3], torch.ones(3))')",
    "complex_silent": RUN + "run('torch.rms_norm(x.to(torch.complex64), [3], torch.ones(3))')",
    "channels_last_silent": RUN + "run('torch.rms_norm(torch.ones(1, 2, 3, 4).to(memory_format=torch.channels_last), [4], "
                                  "torch.ones(4, dtype=torch.float64))')",
    "integer_input_warns_then_refuses": RUN + "run('''\n    try:\n        torch.rms_norm(x.long(), [3], torch.ones(3))\n"
                                              "    except NotImplementedError as e:\n        print(e)''')",
}, traced=False)
