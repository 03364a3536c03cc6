"""Fuzz of our gloo transport's receive side (src/distributed/gloo.c) under ASan + UBSan.

tools/fuzz/gloo_frames.c includes gloo.c and feeds pair_read / handle_preamble hostile messages
through a socketpair (malformed preambles, lengths past the caps and past posted buffers, unknown
slots, truncation, early EOF) with pairs in random states; it checks that no recv completes past
its posted size, that nothing is written past a posted buffer and that a failed pair holds
nothing, and ASan / LeakSanitizer / UBSan check the memory. `make test` runs 20,000 messages;
`make test-asan` runs 1,000,000 (TN_GLOO_FUZZ_ITERS).
"""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ITERS = int(os.environ.get("TN_GLOO_FUZZ_ITERS", "20000"))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to build the fuzz driver")
def test_gloo_frames_fuzz(tmp_path):
    exe = str(tmp_path / "gloo_frames")
    src = [os.path.join(ROOT, p) for p in ("tools/fuzz/gloo_frames.c", "src/distributed/store.c", "src/distributed/kv.c")]
    subprocess.run(["gcc", "-std=c11", "-D_GNU_SOURCE", "-O1", "-g", "-I" + os.path.join(ROOT, "src"),
                    "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-Wall", "-Wextra", "-Werror",
                    "-Wno-unused-function", "-Wno-unused-parameter", "-Wno-missing-field-initializers",
                    *src, "-o", exe, "-lpthread"], check=True, capture_output=True, text=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    env.pop("LD_PRELOAD", None)
    r = subprocess.run([exe, str(ITERS), "12345"], capture_output=True, text=True, env=env, timeout=1800)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert f"gloo_frames: {ITERS} messages" in r.stdout, r.stdout
    # the corpus reaches every outcome: malformed frames fail the pair, well-formed data completes recvs
    counts = [int(w) for w in r.stdout.split() if w.isdigit()]
    assert counts[1] > 0 and counts[2] > 0 and counts[3] > 0, r.stdout
