PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench bench-locomo bench-perf clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gieok demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench-locomo: $(STAMP)
	$(BIN)/python bench/locomo.py

bench-perf: $(STAMP)
	$(BIN)/python bench/perf.py

bench: bench-locomo bench-perf

clean:
	rm -rf $(VENV) build *.egg-info
