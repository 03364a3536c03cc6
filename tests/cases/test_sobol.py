"""torch.quasirandom.SobolEngine and its four operators (_sobol_engine_initialize_state_,
_sobol_engine_scramble_, _sobol_engine_draw, _sobol_engine_ff_) against upstream: the full
21201-dimension direction-number state (ops/sobol_table.h, from Joe & Kuo's table), draws bit for
bit, unscrambled and scrambled with a seed, float32 and float64, fast_forward, reset,
draw_base2, out=, and the operators' errors (docs/outdev.md "Fourth round")."""
from harness import cases

SETUP = """
import hashlib
def digest(t):
    t = t.contiguous()
    return [str(t.dtype), list(t.shape), hashlib.sha1(t.numpy().tobytes()).hexdigest()]
def err(f):
    try:
        r = f()
        return ("ok", digest(r) if isinstance(r, torch.Tensor) else [digest(x) for x in r])
    except Exception as e:
        return (type(e).__name__, str(e).split("\\n")[0])
z = lambda *s, dt=torch.long: torch.zeros(*s, dtype=dt)
SE = torch.quasirandom.SobolEngine
"""

c = {
    "state_21201": "digest(SE(21201).sobolstate)",
    "state_rows": "SE(8).sobolstate.tolist()",
    "state_scrambled": "digest(SE(300, scramble=True, seed=11).sobolstate)",
    "shift_scrambled": "SE(30, scramble=True, seed=3).shift.tolist()",
}
for dim in (1, 2, 7, 64, 1111, 21201):
    for scr in (False, True):
        n = 37 if dim < 2000 else 3
        c[f"draw_{dim}_{scr}"] = (f"e = SE({dim}, scramble={scr}, seed=5); "
                                  f"[digest(e.draw({n})), digest(e.draw(5, dtype=torch.float64)), digest(e.quasi)]")
c["draw_first_point"] = "e = SE(4, scramble=True, seed=1); [e.draw().tolist(), e.draw().tolist(), e.draw(2).tolist()]"
c["draw_default_dtype"] = "torch.set_default_dtype(torch.float64); e = SE(3); r = e.draw(4); torch.set_default_dtype(torch.float32); digest(r)"
c["fast_forward"] = "e = SE(6, scramble=True, seed=9); e.fast_forward(13); a = e.draw(3); e.fast_forward(4); [digest(a), digest(e.draw(7))]"
c["fast_forward_first"] = "e = SE(6); e.fast_forward(1); e.draw(2).tolist()"
c["reset"] = "e = SE(5, scramble=True, seed=2); a = e.draw(6); e.reset(); [digest(a), digest(e.draw(6))]"
c["draw_base2"] = "e = SE(9, scramble=True, seed=4); [digest(e.draw_base2(5)), digest(e.draw_base2(5)), err(lambda: e.draw_base2(3))]"
c["draw_out"] = "e = SE(3); o = torch.empty(0, dtype=torch.float64); e.draw(4, out=o); digest(o)"
c["unseeded_shapes"] = "e = SE(4, scramble=True); r = e.draw(3); [list(r.shape), bool(((r >= 0) & (r < 1)).all())]"
c["engine_bad_dims"] = "[err(lambda: SE(0)), err(lambda: SE(21202))]"
c["repr"] = "repr(SE(3, scramble=True, seed=1))"
cases("sobol_engine", c, setup=SETUP)

# the operators called directly: values and upstream's errors (calls where upstream reads or
# writes outside the tensors are not compared: upstream's memory is corrupted there)
cases("sobol_ops", {
    "init": "s = z(4, 30); r = torch._sobol_engine_initialize_state_(s, 4); [r is s, s.tolist()]",
    "init_fewer_dims": "s = z(5, 30); torch._sobol_engine_initialize_state_(s, 2); s.tolist()",
    "init_dim0": "s = z(3, 30); torch._sobol_engine_initialize_state_(s, 0); s.tolist()",
    "init_strided": "s = z(30, 3).t(); torch._sobol_engine_initialize_state_(s, 3); [s.tolist(), s.stride()]",
    "init_prefilled": "s = torch.full((3, 30), 5); torch._sobol_engine_initialize_state_(s, 2); s.tolist()",
    "init_float": "err(lambda: torch._sobol_engine_initialize_state_(z(3, 30, dt=torch.float), 3))",
    "init_int32": "err(lambda: torch._sobol_engine_initialize_state_(z(3, 30, dt=torch.int32), 3))",
    "init_1d": "err(lambda: torch._sobol_engine_initialize_state_(z(30), 1))",
    "init_3d": "err(lambda: torch._sobol_engine_initialize_state_(z(1, 2, 30), 1))",
    "init_wide": "s = z(3, 40); [err(lambda: torch._sobol_engine_initialize_state_(s, 3)), s.tolist()]",
    "draw": "s = SE(3).sobolstate; r, q = torch._sobol_engine_draw(z(3), 6, s, 3, 0, None); [r.tolist(), q.tolist()]",
    "draw_f64": "s = SE(3).sobolstate; r, q = torch._sobol_engine_draw(torch.tensor([5, 7, 9]), 4, s, 3, 2, torch.float64); [r.tolist(), q.tolist()]",
    "draw_quasi_untouched": "s = SE(2).sobolstate; q0 = z(2); torch._sobol_engine_draw(q0, 3, s, 2, 0, None); q0.tolist()",
    "draw_n0": "s = SE(3).sobolstate; err(lambda: torch._sobol_engine_draw(z(3), 0, s, 3, 0, None))",
    "draw_quasi2d": "s = SE(3).sobolstate; r, q = torch._sobol_engine_draw(z(3, 1), 2, s, 3, 0, None); [r.tolist(), q.tolist(), q.shape]",
    "draw_neg_gen": "s = SE(2).sobolstate; torch._sobol_engine_draw(z(2), 3, s, 2, -3, None)[0].tolist()",
    "draw_nneg": "s = SE(3).sobolstate; err(lambda: torch._sobol_engine_draw(z(3), -1, s, 3, 0, None))",
    "draw_dtype_int": "s = SE(3).sobolstate; err(lambda: torch._sobol_engine_draw(z(3), 2, s, 3, 0, torch.int64))",
    "draw_dtype_half": "s = SE(3).sobolstate; err(lambda: torch._sobol_engine_draw(z(3), 2, s, 3, 0, torch.half))",
    "draw_dtype_bf16": "s = SE(3).sobolstate; err(lambda: torch._sobol_engine_draw(z(3), 2, s, 3, 0, torch.bfloat16))",
    "draw_quasi_float": "err(lambda: torch._sobol_engine_draw(z(3, dt=torch.float), 2, z(3, 30), 3, 0, None))",
    "draw_state_float": "err(lambda: torch._sobol_engine_draw(z(3), 2, z(3, 30, dt=torch.float), 3, 0, None))",
    "ff": "s = SE(3).sobolstate; q = z(3); r = torch._sobol_engine_ff_(q, 5, s, 3, 0); [r is q, q.tolist()]",
    "ff_strided": "s = SE(3).sobolstate; q = z(3, 2)[:, 1]; torch._sobol_engine_ff_(q, 5, s, 3, 1); q.tolist()",
    "ff_n0": "s = SE(3).sobolstate; q = z(3); torch._sobol_engine_ff_(q, 0, s, 3, 0); q.tolist()",
    "ff_quasi_float": "err(lambda: torch._sobol_engine_ff_(z(3, dt=torch.float), 2, z(3, 30), 3, 0))",
    "ff_state_float": "err(lambda: torch._sobol_engine_ff_(z(3), 2, z(3, 30, dt=torch.float), 3, 0))",
    "scramble": ("g = torch.Generator().manual_seed(0); s = SE(4).sobolstate.clone(); "
                 "ltm = torch.randint(2, (4, 30, 30), generator=g).tril(); r = torch._sobol_engine_scramble_(s, ltm, 4); "
                 "[r is s, s.tolist()]"),
    "scramble_full_ltm": ("g = torch.Generator().manual_seed(1); s = SE(3).sobolstate.clone(); "
                          "torch._sobol_engine_scramble_(s, torch.randint(2, (3, 30, 30), generator=g), 3); s.tolist()"),
    "scramble_int32": ("g = torch.Generator().manual_seed(2); s = SE(3).sobolstate.clone(); "
                       "torch._sobol_engine_scramble_(s, torch.randint(2, (3, 30, 30), generator=g, dtype=torch.int32).tril(), 3); s.tolist()"),
    "scramble_wide_ltm": ("g = torch.Generator().manual_seed(3); s = SE(2).sobolstate.clone(); "
                          "torch._sobol_engine_scramble_(s, torch.randint(2, (2, 30, 31), generator=g), 2); s.tolist()"),
    "scramble_float": "err(lambda: torch._sobol_engine_scramble_(z(3, 30, dt=torch.float), z(3, 30, 30), 3))",
    "scramble_ltm_float": "err(lambda: torch._sobol_engine_scramble_(z(3, 30), z(3, 30, 30, dt=torch.float), 3))",
    "scramble_ltm_2d": "err(lambda: torch._sobol_engine_scramble_(z(3, 30), z(30, 30), 3))",
    "scramble_state_1d": "err(lambda: torch._sobol_engine_scramble_(z(30), z(3, 30, 30), 3))",
    "aten_spellings": ("s = torch.ops.aten._sobol_engine_initialize_state_.default(z(2, 30), 2); "
                       "q = torch.ops.aten._sobol_engine_ff_.default(z(2), 3, s, 2, 0); "
                       "r = torch.ops.aten._sobol_engine_draw.default(q, 2, s, 2, 3, None); "
                       "s2 = torch.ops.aten._sobol_engine_scramble_.default(s.clone(), torch.ones(2, 30, 30, dtype=torch.long).tril(), 2); "
                       "[s.tolist(), q.tolist(), r[0].tolist(), s2.tolist()]"),
}, setup=SETUP)
