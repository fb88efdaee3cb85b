# Matchbox: `make sim` opens the box in the terminal simulator, `make test` runs every check.
# Both bootstrap a local .venv from pyproject.toml first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all venv sim test typecheck bench package-json clean

all: test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m host_tools.device.build --check
	$(BIN)/pyright -p pyrightconfig.json
	$(BIN)/pytest

typecheck: $(STAMP)
	$(BIN)/pyright -p pyrightconfig.json

sim: $(STAMP)
	$(BIN)/matchbox sim

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

# After adding or removing a firmware file: refresh the mip manifest (a test checks it).
package-json: $(STAMP)
	$(BIN)/python -m host_tools.device.build --package-json

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
