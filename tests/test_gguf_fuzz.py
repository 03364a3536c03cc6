"""Coverage-guided fuzzing of the GGUF reader and loader (issue #12 "Bad input"), with atheris.

tools/fuzz/gguf_fuzz.py feeds mutated files to torchnative.quant.gguf: in reader mode GGUFFile
and then every small tensor through the C kernels (dequantise, QuantLinear), in model mode
load_llama and a forward. The only exception allowed out is ValueError("GGUF: ..."); any other, a
crash or a sanitizer report fails the run. The corpus kept in tests/fuzz/gguf_corpus (seeds from
gguf's writer, tools/fuzz/gguf_seeds.py, plus what earlier runs found, merged) is copied and grown
in a scratch folder. The subject is TN_SUBJECT_PYTHON when set: `make test-asan` runs it with
the sanitizer build (tools/asan/python), with tools/fuzz/cov_forward.c preloaded ahead of libasan
(whose weak coverage stand-ins would otherwise take atheris's counters: no coverage, no guidance;
atheris then warns that coverage symbols come from another library, which is that forwarder).
Executions per mode: TN_GGUF_FUZZ_RUNS (reader, default 20,000) and a tenth of it for model mode;
`make test-asan` runs 50,000. The 1,000,000-execution runs are in docs/quant.md "Fuzzing the GGUF
reader".
"""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "gguf_corpus")
RUNS = int(os.environ.get("TN_GGUF_FUZZ_RUNS", "20000"))
SUBJECT = os.environ.get("TN_SUBJECT_PYTHON") or sys.executable


@pytest.mark.parametrize("mode,runs", [("reader", RUNS), ("model", max(RUNS // 10, 1))])
def test_gguf_fuzz(tmp_path, mode, runs):
    pytest.importorskip("atheris", reason="atheris is installed by make setup")
    env = dict(os.environ, TRANSFORMERS_VERBOSITY="error")
    if os.environ.get("TN_SUBJECT_PYTHON"):  # the sanitizer build: libasan would hide atheris's coverage
        so = str(tmp_path / "cov_forward.so")
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-o", so,
                        os.path.join(ROOT, "tools", "fuzz", "cov_forward.c"), "-ldl"], check=True)
        env["TN_ASAN_FIRST"] = so
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    assert len(os.listdir(corpus)) >= 3, "the kept corpus is missing"
    r = subprocess.run([SUBJECT, os.path.join(ROOT, "tools", "fuzz", "gguf_fuzz.py"), "--mode", mode,
                        "-runs=%d" % runs, "-max_len=16384", "-seed=%d" % (12345 + len(mode)),
                        # libFuzzer's RSS limit reads the peak RSS, which Linux carries over fork + exec
                        # from this (pytest) process: off; a single allocation of 4 GB or more is a finding
                        # where libFuzzer has malloc hooks (the sanitizer build's; not checked without)
                        "-rss_limit_mb=0", "-malloc_limit_mb=4096",
                        "-artifact_prefix=%s/" % tmp_path, str(corpus)],
                       capture_output=True, text=True, timeout=3600, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-6000:]
    assert "Done %d runs" % runs in r.stderr, r.stderr[-3000:]
    # coverage-guided: libFuzzer saw the instrumented reader's coverage once the corpus was read
    inited = [line for line in r.stderr.splitlines() if "\tINITED " in line]
    assert inited and " cov: " in inited[0] and not list(tmp_path.glob("crash-*")), r.stderr[-3000:]
