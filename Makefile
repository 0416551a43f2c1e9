# The Transformer, Executed: set-up, book, tests.
#   make book     set up .venv, execute the chapters whose code changed into a cache under _build (never into
#                 the sources: `git status` stays clean), build the HTML book into _build/html, with the
#                 library's wheel that the chapters' install cell downloads (tools/install_cell.py)
#   make test     set up .venv, lint, run unit tests, strict nbval on every chapter (on this CPU, then as if on
#                 two other CPUs: nbval-emulated), build the committed outputs (no execution) with warnings as errors,
#                 and the wheel, into _build/html: what the Pages workflow publishes
#   make execute  re-execute every chapter in place (after a library change), then commit the outputs;
#                 one chapter: make execute NOTEBOOKS=book/ch03_scaling.ipynb
#   make nbval-emulated  strict nbval as on two other CPUs, emulated (part of make test: see CONTRIBUTING)
#   make pdf      the whole book as one PDF, _build/latex/book.pdf, failing on LaTeX errors, missing characters and
#                 overfull boxes (needs TeX Live: the Debian packages README.md lists)
#   make lab      open the chapters in JupyterLab from the same environment
#   make bench    print speed ratios against torch.nn (not part of the tests)

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Workers for strict nbval and the unit tests: one per core (at least 2, at most 8); each kernel runs one thread.
JOBS ?= $(shell $(PYTHON) tools/make_helpers.py jobs 2>/dev/null || echo 2)
NOTEBOOKS ?= $(sort $(wildcard book/*.ipynb))
# One thread per kernel: results stay identical across machines, and xdist runs two kernels on two cores.
export OMP_NUM_THREADS := 1
# AVX2 kernels in ATen and oneDNN on every x86-64 CPU, AVX-512 ones included, so that outputs committed on one
# machine reproduce on another (bk.deterministic sets the same in each chapter; see tl.portable_numerics).
export ATEN_CPU_CAPABILITY := avx2
export ONEDNN_MAX_CPU_ISA := AVX2
export PYDEVD_DISABLE_FILE_VALIDATION := 1

# torch: requirements.txt pins the version; on Linux the wheel of that version on PyPI pulls about 3 GB of CUDA
# libraries, so the CPU build (torch==X+cpu, on PyTorch's CPU index) goes in first, without dependencies.
# Tried first on the configured indexes (a pip that finds it locally needs no network), then on PyTorch's index.
TORCH_VERSION := $(shell sed -n 's/^torch==//p' requirements.txt)
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
# make book's execution cache: one per state of the library, the book's apparatus and the pins, so that a change
# of either package re-executes every chapter while an edit of one chapter re-executes only that chapter (the cache
# keys notebooks by their code).
BOOK_KEY = $(shell $(BIN)/python tools/make_helpers.py book-key)
BOOK_CACHE = _build/.jupyter_cache/$(BOOK_KEY)
BOOK_CONFIG := _build/_config_book.yml
NBVAL := $(BIN)/python -m pytest -p no:cacheprovider -n $(JOBS) --dist loadfile --nbval --nbval-current-env \
	--timeout=1200 --nbval-sanitize-with book/sanitize.cfg -o testpaths=book
# one strict nbval pass over the book, its cell times in _build/test-costs/NAME.xml (tools/test_costs.py)
NBVAL_PASS = $(NBVAL) --junitxml=_build/test-costs/$(1).xml book

.PHONY: setup book test unit nbval nbval-emulated build execute execute-cache lab bench lint pdf clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	if [ "$$(uname -s)" = Linux ] && ! $(BIN)/python -c "import torch" 2>/dev/null; then \
		$(BIN)/python -m pip install --quiet --no-deps "torch==$(TORCH_VERSION)+cpu" 2>/dev/null || \
		$(BIN)/python -m pip install --quiet --no-deps "torch==$(TORCH_VERSION)+cpu" --index-url $(TORCH_CPU_INDEX); fi
	$(BIN)/python -m pip install --quiet --requirement requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --editable .
	touch $(STAMP)

# Sources are only read: outputs come from the cache (execute-cache), and Sphinx rebuilds only the pages that
# changed. _config.yml renders the committed outputs (execute_notebooks: off, what make test checks); make book
# builds with a copy of it that renders the cache instead.
book: setup execute-cache
	$(BIN)/python tools/make_helpers.py book-config "$(abspath $(BOOK_CACHE))" $(BOOK_CONFIG)
	$(BIN)/jupyter-book build . --config $(BOOK_CONFIG) --keep-going
	$(BIN)/python tools/make_helpers.py site-wheel _build/html

execute-cache: setup
	mkdir -p _build
	$(BIN)/python tools/execute_cache.py --cache $(BOOK_CACHE) --jobs $(JOBS) $(NOTEBOOKS)

# The stages one after another, each timed (tools/test_costs.py stages: the seconds of each, and of every
# notebook in every nbval pass, are printed at the end and kept in _build/test-costs/).
test:
	$(PYTHON) tools/test_costs.py stages setup lint unit nbval nbval-emulated build
	$(BIN)/python tools/test_costs.py report

# ruff: lint rules and formatting; mypy: types of the two packages and tools/ (configured in pyproject.toml [tool.mypy]).
lint: setup
	$(BIN)/ruff check transformer_lib book_support tests benchmarks tools conftest.py
	$(BIN)/ruff format --check transformer_lib book_support tests benchmarks tools conftest.py
	$(BIN)/python -m mypy

# Every test folder, and the examples in the library's docstrings as doctests (tl and torch in their namespace:
# conftest.py; tests/test_docstrings.py fails on a public function or class without one).
unit: setup
	$(BIN)/python -m pytest -n $(JOBS) --timeout=900 --doctest-modules transformer_lib tests

nbval: setup
	$(call NBVAL_PASS,plain)

# Other CPUs, emulated on this one (CONTRIBUTING, "Other CPUs, emulated"), two passes: an x86-64 CPU with SSE2
# only (ATen's kernels at the default, non-vectorised ISA level, and oneMKL's SSE2 code path, together, as such
# a CPU runs them); and oneMKL with the kernels it runs on the other x86 vendor's CPUs (Intel's on an AMD CPU,
# the others' on an Intel one), by a preloaded library that tools/mkl_other_vendor.py builds and checks first.
# Where the machine cannot run that one (not x86-64 Linux, no C compiler) it says why and skips it. Every run
# executes; the target fails if any fails.
MKL_OTHER_VENDOR := _build/mkl_other_vendor.so
nbval-emulated: setup
	status=0; \
	ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE $(call NBVAL_PASS,sse2) || status=1; \
	$(BIN)/python tools/mkl_other_vendor.py $(MKL_OTHER_VENDOR) --check; vendor=$$?; \
	if [ $$vendor -eq 0 ]; then LD_PRELOAD=$(abspath $(MKL_OTHER_VENDOR)) $(call NBVAL_PASS,mkl-other-vendor) || status=1; \
	elif [ $$vendor -ne 3 ]; then status=1; fi; \
	exit $$status

build: setup
	rm -rf _build/html _build/.doctrees
	$(BIN)/jupyter-book build . --warningiserror --keep-going
	$(BIN)/python tools/make_helpers.py site-wheel _build/html

# The whole book as one PDF, from the committed outputs (xelatex; the Debian packages are listed in README.md).
# Fails on a LaTeX error, a missing character or an overfull box over 5 pt (tools/check_latex_log.py); its own
# doctrees (_build/.doctrees-latex), so that make pdf and the HTML builds do not re-read every page after each other.
pdf: setup
	rm -rf _build/latex
	$(BIN)/python tools/build_pdf.py --out _build/latex --doctrees _build/.doctrees-latex

# Execute in place (two at a time), then merge split stream outputs so re-runs give identical files.
execute: setup
	printf '%s\n' $(NOTEBOOKS) | xargs -P $(JOBS) -I{} $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.timeout=600 --ExecutePreprocessor.record_timing=False \
		--ExecutePreprocessor.kernel_name=python3 {}
	$(BIN)/jupyter nbconvert --to notebook --inplace --CoalesceStreamsPreprocessor.enabled=True $(NOTEBOOKS)

lab: setup
	$(BIN)/jupyter lab book/

# Every benchmarks/*.py (not the _helpers), one after another; what they print (the ratios) also goes to
# benchmarks/results.txt, replaced only when every script succeeded (the numbers are this machine's).
# Quick look: make bench BENCH_ARGS="--rounds 3"
BENCH_ARGS ?=
bench: setup
	$(BIN)/python tools/make_helpers.py bench $(BENCH_ARGS)

clean:
	rm -rf _build .pytest_cache .hypothesis
