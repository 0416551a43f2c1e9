# The Transformer, Executed: set-up, book, tests.
#   make book     set up .venv, execute every chapter, build the HTML book into _build/html
#   make test     set up .venv, run unit tests, strict nbval on every chapter, build with warnings as errors
#   make execute  re-execute every chapter in place (after a library change), then commit the outputs;
#                 one chapter: make execute NOTEBOOKS=book/ch03_scaling.ipynb
#   make lab      open the chapters in JupyterLab from the same environment
#   make bench    print speed ratios against torch.nn (not part of the tests)

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2
NOTEBOOKS ?= $(sort $(wildcard book/*.ipynb))
# One thread per kernel: results stay identical across machines, and xdist runs two kernels on two cores.
export OMP_NUM_THREADS := 1
# AVX2 kernels in ATen and oneDNN on every x86-64 CPU, AVX-512 ones included, so that outputs committed on one
# machine reproduce on another (tl.deterministic sets the same in each chapter; see tl.portable_numerics).
export ATEN_CPU_CAPABILITY := avx2
export ONEDNN_MAX_CPU_ISA := AVX2
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: setup book test unit nbval build execute lab bench lint clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --requirement requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --editable .
	touch $(STAMP)

book: setup execute build

test: setup lint unit nbval build

lint: setup
	$(BIN)/ruff check transformer_lib tests benchmarks

unit: setup
	$(BIN)/python -m pytest -n $(JOBS) --timeout=900 tests

nbval: setup
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile --nbval --nbval-current-env --timeout=1200 \
		--nbval-sanitize-with book/sanitize.cfg -o testpaths=book book

build: setup
	rm -rf _build/html _build/.doctrees
	$(BIN)/jupyter-book build . --warningiserror --keep-going

# Execute in place (two at a time), then merge split stream outputs so re-runs give identical files.
execute: setup
	printf '%s\n' $(NOTEBOOKS) | xargs -P $(JOBS) -I{} $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.timeout=600 --ExecutePreprocessor.record_timing=False \
		--ExecutePreprocessor.kernel_name=python3 {}
	$(BIN)/jupyter nbconvert --to notebook --inplace --CoalesceStreamsPreprocessor.enabled=True $(NOTEBOOKS)

lab: setup
	$(BIN)/jupyter lab book/

bench: setup
	$(BIN)/python benchmarks/attention_speed.py

clean:
	rm -rf _build .pytest_cache .hypothesis
