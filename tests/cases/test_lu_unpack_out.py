"""lu_unpack.out (issue #11), measured against upstream's structured kernel: P, L and U must each
have exactly LU's dtype (checked P, L, U in turn, unrequested outputs too), wrong-shaped outs are
resized (with upstream's warning when they held elements), non-contiguous outs of the right shape
keep their strides, and the values are written L, U, then P. Each case gives the outs' values,
dtypes and strides, or (type, message), and the warnings raised."""
from harness import cases

SETUP = """
import warnings
torch.manual_seed(0)
LU, piv = torch.randn(2, 3, 3), torch.tensor([[3, 2, 3], [2, 2, 3]], dtype=torch.int32)   # (no LAPACK factorization:
LUw, pivw = torch.randn(2, 3, 5), torch.tensor([[1, 3, 3], [3, 3, 3]], dtype=torch.int32)  # its last bits differ)
E = lambda *s, dt=torch.float32: torch.empty(*s, dtype=dt)
def run(P, L, U, lu=LU, pv=piv, *flags):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = torch.lu_unpack(lu, pv, *flags, out=(P, L, U))
            res = [(t, t.dtype, t.stride(), t is o) for t, o in zip(r, (P, L, U))]
        except Exception as e:
            res = (type(e).__name__, str(e))
    return res, [str(x.message).split(" (Triggered internally")[0] for x in w]
"""

cases("lu_unpack_out", {
    "right": "run(E(2, 3, 3), E(2, 3, 3), E(2, 3, 3))",
    "empty": "run(E(0), E(0), E(0))",
    "resized_warns": "run(E(5), E(2, 3), E(7, 1))",
    "wide": "run(E(0), E(0), E(0), LUw, pivw), run(E(2, 3, 3), E(2, 3, 5), E(2, 3, 5), LUw, pivw)",
    "float64": "run(E(0, dt=torch.float64), E(0, dt=torch.float64), E(0, dt=torch.float64), LU.double())",
    "noncontig_kept": "run(E(2, 3, 3).transpose(1, 2), E(2, 3, 3).transpose(1, 2), E(2, 3, 3))",
    "noncontig_wrong_shape": "run(E(3, 2, 3).transpose(0, 1), E(2, 3, 4)[..., :3], E(2, 3, 3))",
    "flags_resize_to_empty": "run(E(2, 3, 3), E(2, 3, 3), E(2, 3, 3), LU, piv, False, False)",
    "one_tensor_for_all": "o = E(0)\nrun(o, o, o)",
    "err_P_dtype": "run(E(0, dt=torch.float64), E(0), E(0))",
    "err_L_dtype": "run(E(0), E(0, dt=torch.float64), E(0))",
    "err_U_complex": "run(E(0), E(0), E(0, dt=torch.complex64))",
    "err_order": "run(E(0, dt=torch.int64), E(0, dt=torch.float64), E(0, dt=torch.int32)), run(E(0), E(0, dt=torch.float64), E(0, dt=torch.int32))",
    "err_unrequested_checked": "run(E(0), E(0, dt=torch.float64), E(0, dt=torch.int32), LU, piv, False), run(E(0, dt=torch.float64), E(1), E(2, 2), LU, piv, False, False)",
    "err_after_resize_warning": "Ps = [E(4)]   # (P's values: uninitialised)\n(run(Ps[0], E(0, dt=torch.float64), E(0)), Ps[0].shape)",
    "err_outs_float_for_double": "run(E(0), E(0), E(0), LU.double())",
    "err_pivots_before_outs": "run(E(0, dt=torch.float64), E(0), E(0), LU, piv.long())",
    "err_input_requires_grad": "run(E(0), E(0), E(0), LU.clone().requires_grad_())",
    "err_L_requires_grad": "run(E(0), E(0).requires_grad_(), E(0))",
}, setup=SETUP)
