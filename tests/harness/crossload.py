"""Whole-model runs on both sides with each side loading the other's files (the quantized model
tests: tests/test_quant_dynamic_models.py, tests/test_quant_conv_models.py).

A worker script takes `make OUT` (build its models, write their state and outputs.npz) and
`load OTHER OUT` (load the other side's files, write loaded.npz). `runs(worker)` runs make on both
interpreters, then load crosswise, and returns {"ref", "sub", "ref_loaded", "sub_loaded"}: name ->
array (the *_loaded ones are what that side computed from the other side's files)."""
import os
import subprocess
import tempfile

import numpy as np

from .runner import ref_python, subject_python


def _start(python, worker, *args):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    env.pop("PYTHONPATH", None)
    return subprocess.Popen([python, worker, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _wait(procs):
    for name, p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, "%s worker failed:\n%s" % (name, err[-3000:])


def runs(worker):
    ref, sub = ref_python(), subject_python()
    with tempfile.TemporaryDirectory() as d:
        dirs = {k: os.path.join(d, k) for k in ("ref", "sub", "ref_loaded", "sub_loaded")}
        for v in dirs.values():
            os.makedirs(v)
        _wait([("ref make", _start(ref, worker, "make", dirs["ref"])), ("subject make", _start(sub, worker, "make", dirs["sub"]))])
        _wait([("ref load", _start(ref, worker, "load", dirs["sub"], dirs["ref_loaded"])),
               ("subject load", _start(sub, worker, "load", dirs["ref"], dirs["sub_loaded"]))])
        return {k: dict(np.load(os.path.join(v, "outputs.npz" if k in ("ref", "sub") else "loaded.npz")))
                for k, v in dirs.items()}
