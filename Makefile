# The two commands: `make demo` and `make test`. Each creates .venv and installs what it needs first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: demo test lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e '.[all,dev,examples]'
	touch $@

demo: $(VENV)/.installed
	@for f in examples/gradient_tape_demo.py examples/gradient_tape_walkthrough.py; do \
		echo "== $$f"; (cd examples && ../$(PY) $$(basename $$f)) || exit 1; done
	@echo "== examples/train_digits.py"; cd examples && ../$(PY) train_digits.py

test: $(VENV)/.installed
	$(PY) -m pytest

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check src tests tools benchmarks

bench: $(VENV)/.installed
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) build src/*.egg-info
