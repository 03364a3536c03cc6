"""The kernel-variant tests' runner (tests/kernels): one snippet in a fresh interpreter with one
kernel variant forced by its environment variable, so its output can be compared with another
variant's. Never imports torch itself."""
import os
import subprocess


def run_snippet(python, snippet, env_extra, threads=1, unset=None, args=(), timeout=600):
    """stdout lines of `python -c snippet *args` with OMP_NUM_THREADS=threads, the variable `unset`
    removed (the run-time choice, whatever the caller's environment forced) unless env_extra sets
    it, and env_extra on top; asserts that the process succeeded."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if unset:
        env.pop(unset, None)
    env.update(env_extra)
    r = subprocess.run([python, "-c", snippet, *args], env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.splitlines()
