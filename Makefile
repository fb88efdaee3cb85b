# Matchbox: `make sim` opens the box in the terminal simulator, `make web` in a browser,
# `make test` runs every check.
# Both bootstrap a local .venv from pyproject.toml first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The page of `matchbox web`: the MicroPython WebAssembly build from npm (pinned by its lockfile).
# Without npm the browser tests are skipped (they say how to install what is missing).
WEB := host_tools/webpage
WEB_STAMP := $(WEB)/node_modules/.installed
NPM := $(shell command -v npm 2>/dev/null)

.PHONY: all venv sim web web-deps test typecheck bench soak-records package-json clean

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

$(WEB_STAMP): $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $(WEB_STAMP)

web-deps: $(WEB_STAMP)

test: $(STAMP) $(if $(NPM),$(WEB_STAMP))
	$(BIN)/python -m host_tools.device.build --check
	$(BIN)/pyright -p pyrightconfig.json
	$(BIN)/pytest

typecheck: $(STAMP)
	$(BIN)/pyright -p pyrightconfig.json

sim: $(STAMP)
	$(BIN)/matchbox sim

web: $(STAMP) $(WEB_STAMP)
	$(BIN)/matchbox web

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
	rm -rf $(VENV) build .pytest_cache .hypothesis $(WEB)/node_modules
