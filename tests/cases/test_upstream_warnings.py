"""Warnings upstream's kernels give, compared with upstream 2.13.0: torch.triangular_solve's
deprecation (a TORCH_WARN_ONCE: one UserWarning per process, after the argument checks, whatever
the warnings filter); the sparse factories' "Sparse invariant checks are implicitly disabled"
(once per process, for a factory called with check_invariants=None while the global setting was
never set) and the compressed layouts' "Sparse CSR tensor support is in beta state" (once per
process, whichever layout and however the tensor is made). Each case runs a fresh interpreter,
since the harness's workers are shared."""
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
}, traced=False)   # each case runs in a fresh interpreter: nothing here for the dispatch trace to see

SP = "I = torch.tensor([[0, 1]]); V = torch.tensor([1., 2.]); "


def run_case(body):
    """a case running `body` (continuation lines indented by four) in a fresh interpreter"""
    return RUN + "run(%r)" % body


cases("sparse_factory_warnings", {
    "coo_twice": run_case(SP + "torch.sparse_coo_tensor(I, V, (3,)); torch.sparse_coo_tensor(I, V)"),
    "coo_explicit_then_implicit": run_case(SP + "torch.sparse_coo_tensor(I, V, (3,), check_invariants=False); "
                                                "torch.sparse_coo_tensor(I, V, (3,))"),
    "coo_explicit_true": run_case(SP + "torch.sparse_coo_tensor(I, V, (3,), check_invariants=True)"),
    "global_set_in_context": run_case(SP + "\n    with torch.sparse.check_sparse_tensor_invariants(enable=False): "
                                           "torch.sparse_coo_tensor(I, V, (3,))\n    torch.sparse_coo_tensor(I, V, (3,))"),
    "global_disable": run_case(SP + "torch.sparse.check_sparse_tensor_invariants.disable(); "
                                    "torch.sparse_coo_tensor(I, V, (3,))"),
    "is_enabled_reads_silently": run_case(SP + "torch.sparse.check_sparse_tensor_invariants.is_enabled(); "
                                               "torch.sparse_coo_tensor(I, V, (3,))"),
    "aten_overload_silent": run_case(SP + "torch.ops.aten.sparse_coo_tensor.indices_size(I, V, [3])"),
    "to_sparse_silent": run_case("torch.ones(3).to_sparse()"),
    "csr_then_csc": run_case("torch.sparse_csr_tensor([0, 1, 2], [0, 1], [1., 2.], (2, 2)); "
                             "torch.sparse_csc_tensor([0, 1, 2], [0, 1], [1., 2.], (2, 2))"),
    "bsr": run_case("torch.sparse_bsr_tensor([0, 1], [0], torch.ones(1, 2, 2), (2, 2))"),
    "compressed_explicit": run_case("torch.sparse_compressed_tensor([0, 1, 2], [0, 1], [1., 2.], (2, 2), "
                                    "layout=torch.sparse_csc, check_invariants=False)"),
    "to_sparse_csr_mm": run_case("torch.eye(2).to_sparse_csr() @ torch.ones(2, 2)"),
}, traced=False)   # each case runs in a fresh interpreter: nothing here for the dispatch trace to see
