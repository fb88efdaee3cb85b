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
# The hall page's MQTT client (npm's mqtt, its browser build), pinned by its lockfile; without
# npm `matchbox hall serve` gets it from the registry at first use.
HALL_NPM := host_tools/hall/npm
HALL_STAMP := $(HALL_NPM)/node_modules/.installed

# The emulated Pico's Node part (rp2040js from its lockfile); skipped when node is absent.
PICO_JS := host_tools/virtual/rp2040js
NPM_STAMP := $(PICO_JS)/node_modules/.installed

.PHONY: all venv sim web web-deps test typecheck bench bench-hall bench-audience soak-records soak-typed soak-hall soak-hall-attacks package-json clean pico-js power-cuts-pico dist

all: test

# The venv has the dev tools and the enclosure's CAD extra (its tests run in `make test`).
# setuptools ends every editable install of mapped package folders (tycoon lives in
# firmware/lib) with a general notice ("Editable installation. Please be careful with
# folders ... of the same name"), not about this configuration: that one notice is filtered.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install -q -e '.[dev,enclosure]'
	touch $(STAMP)

venv: $(STAMP)

$(WEB_STAMP): $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund
	touch $(WEB_STAMP)

$(HALL_STAMP): $(HALL_NPM)/package.json $(HALL_NPM)/package-lock.json
	cd $(HALL_NPM) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(HALL_STAMP)

web-deps: $(WEB_STAMP) $(HALL_STAMP)

$(NPM_STAMP): $(PICO_JS)/package-lock.json
	cd $(PICO_JS) && npm ci --no-audit --no-fund --loglevel=error
	touch $(NPM_STAMP)

# npm ci when node is here; without node the emulated-Pico tests skip and say why.
pico-js:
	@if command -v node >/dev/null 2>&1; then $(MAKE) --no-print-directory $(NPM_STAMP); fi

# pytest runs 3 workers on 2 cores: many tests wait on a server, a browser or a MicroPython
# process of their own, so a third worker keeps the cores busy.
test: $(STAMP) pico-js $(if $(NPM),$(WEB_STAMP) $(HALL_STAMP))
	$(BIN)/python -m host_tools.device.build --check
	$(BIN)/pyright -p pyrightconfig.json
	$(BIN)/pytest -n 3

typecheck: $(STAMP)
	$(BIN)/pyright -p pyrightconfig.json

sim: $(STAMP)
	$(BIN)/matchbox sim

web: $(STAMP) $(if $(NPM),$(WEB_STAMP))
	$(BIN)/matchbox web

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

# The hall at scale alone (bench/bench_hall.py, also run by `make bench`): 50, 100, 200 and 500
# simulated tables at ten times a human pace into one `matchbox hall serve` on 127.0.0.1, each
# size a fixed time; prints latency to the page, the hall's CPU and memory (docs/hall-reference.md#scale).
# About 10 minutes here. HALL_BENCH passes options, e.g. HALL_BENCH="--broker mosquitto".
HALL_BENCH ?=
bench-hall: $(STAMP)
	$(BIN)/python bench/bench_hall.py $(HALL_BENCH)

# The hall's audience at scale (bench/bench_audience.py): 200 tables at ten times a human pace
# into `matchbox hall serve` and 5000 viewers following the page's topics through the audience
# broker (nats-server, MQTT over WebSockets); prints whether every viewer got every update, the
# latency from a line written to each viewer, the processes' CPU and memory
# (docs/hall-reference.md#the-audience-at-scale). A few minutes here. BENCH_AUDIENCE passes options, e.g.
# BENCH_AUDIENCE="--tables 20 --viewers 200 --seconds 15".
BENCH_AUDIENCE ?=
bench-audience: $(STAMP) $(if $(NPM),$(HALL_STAMP))
	$(BIN)/python bench/bench_audience.py $(BENCH_AUDIENCE)

# The record fuzz of `make test` at scale: SOAK inputs (default 100 000) through the one
# record reader on CPython and MicroPython; prints the counts, fails on any difference.
SOAK ?= 100000
soak-records: $(STAMP)
	$(BIN)/python tests/record_fuzz.py $(SOAK)

# The typed-records property test of `make test` at scale: TYPED records typed by hand as people
# write them (default 2000), each put on the box, played on and powered off and on (cut at random
# flash steps), on CPython and MicroPython; prints the counts, fails on any session that fails.
TYPED ?= 2000
soak-typed: $(STAMP)
	$(BIN)/python tests/test_typed_records.py $(TYPED)

# The package a maker installs: the sdist and the wheel (built from the sdist) in dist/, with the
# firmware and the pin map (not the page's WebAssembly build: `matchbox web` gets it from npm).
dist: $(STAMP)
	$(BIN)/python -m build --no-isolation

# The hall's chaos test of `make test` at scale, on the embedded broker and on Mosquitto:
# HALL_BOXES virtual boxes (default 6) play two random games each into a hall killed with
# SIGKILL HALL_KILLS times (default 12); prints the counts (lines, kills, power cuts, dropped
# connections; lost, doubled, out of order).
HALL_BOXES ?= 6
HALL_KILLS ?= 12
soak-hall: $(STAMP)
	MATCHBOX_HALL_CHAOS_BOXES=$(HALL_BOXES) MATCHBOX_HALL_CHAOS_KILLS=$(HALL_KILLS) \
	MATCHBOX_HALL_CHAOS_TIMEOUT=3600 $(BIN)/pytest tests/test_hall_chaos.py -p no:cacheprovider -q

# The hall under hostile clients at scale, on the embedded broker and on Mosquitto: a 200 MB
# PUBLISH, 10 000 bad messages, 1 500 idle connections, 70 slow clients for a minute, refused
# CONNECTs with taken client ids; on the audience broker 10 000 publishes and 4 subscriptions
# from the spectator's account, 1 500 idle connections; prints the counts (tests/hall_attacks.py).
soak-hall-attacks: $(STAMP)
	$(BIN)/python tests/hall_attacks.py

# After adding or removing a firmware file: refresh the mip manifest (a test checks it).
package-json: $(STAMP)
	$(BIN)/python -m host_tools.device.build --package-json

# Soak: 1000 power cuts between flash operations on the emulated Pico, as two runs of 500 with
# seeds of their own side by side (one a core: about half an hour); each prints how many
# struck and how many the box survived, and the target fails if either run does. Needs the
# MicroPython UF2 and the boot ROM given (MATCHBOX_PICO_UF2, MATCHBOX_PICO_BOOTROM:
# docs/emulated-pico.md); without them the runs skip and say so.
CUT_RUN = $(BIN)/pytest tests/test_emulated_pico.py -k power_cuts -p no:cacheprovider -q
power-cuts-pico: $(STAMP) pico-js
	MATCHBOX_PICO_CUTS=500 MATCHBOX_PICO_CUT_SEED=7 $(CUT_RUN) & first=$$!; \
	MATCHBOX_PICO_CUTS=500 MATCHBOX_PICO_CUT_SEED=8 $(CUT_RUN); second=$$?; \
	wait $$first; first=$$?; \
	echo "power-cuts-pico: seed 7 run exit $$first, seed 8 run exit $$second"; \
	test $$first = 0 && test $$second = 0

clean:
	rm -rf $(VENV) build dist matchbox.egg-info .pytest_cache .hypothesis $(WEB)/node_modules $(HALL_NPM)/node_modules $(PICO_JS)/node_modules
