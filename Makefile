# Matchbox: `make sim` opens the box in the terminal simulator, `make test` runs every check.
# Both bootstrap a local .venv from pyproject.toml first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all venv sim test typecheck bench soak-records package-json clean

all: test

# setuptools ends every editable install of mapped package folders (tycoon lives in
# firmware/lib) with a general notice ("Editable installation. Please be careful with
# folders ... of the same name"), not about this configuration: that one notice is filtered.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install -q -e '.[dev]'
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

# The record fuzz of `make test` at scale: SOAK inputs (default 100 000) through the one
# record reader on CPython and MicroPython; prints the counts, fails on any difference.
SOAK ?= 100000
soak-records: $(STAMP)
	$(BIN)/python tests/record_fuzz.py $(SOAK)

# After adding or removing a firmware file: refresh the mip manifest (a test checks it).
package-json: $(STAMP)
	$(BIN)/python -m host_tools.device.build --package-json

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
