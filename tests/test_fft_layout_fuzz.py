"""Upstream's FFT output layout over random inputs (docs/fft_layout.md): tools/fft_layout_fuzz.py
runs 2,000 random calls of _fft_c2c / _fft_r2c / _fft_c2r (ndim 1-5, sizes 0-6, permuted and
narrowed inputs, random dim lists) under the reference and the subject; every result's shape,
strides and storage offset, or the exception type, must agree. This process never imports torch."""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "fft_layout_fuzz.py")


def _run(python):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p = subprocess.run([python, TOOL, "2000", "2"], capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def test_fft_layout_matches_upstream():
    ref = _run(os.path.join(ROOT, ".venv-ref", "bin", "python"))
    sub = _run(os.environ.get("TN_SUBJECT_PYTHON", os.path.join(ROOT, ".venv", "bin", "python")))
    assert len(ref) == len(sub) == 2000
    computed = sum("out" in r for r in ref)
    assert computed > 1000   # the fuzz must mostly compute, not only raise
    bad = [(r, s) for r, s in zip(ref, sub) if r != s]
    assert not bad, "%d of 2000 differ; first: ref %s, subject %s" % (len(bad), bad[0][0], bad[0][1])
