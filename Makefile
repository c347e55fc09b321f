# accelgui — `make run` opens the app, `make test` runs the test suite.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEBS   := $(shell grep -v '^\#' packaging/debian-packages.txt)
SUDO   := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: run test lint probe bench fuzz package check-install clean system-deps help

help:
	@echo "make run      open the desktop app"
	@echo "make test     run the test suite (installs what it needs first), ruff and the import contracts included"
	@echo "make lint     ruff and the import contracts alone"
	@echo "make probe    print the headless report of this machine"
	@echo "make bench    run the benchmark scripts (figures against the C reference)"
	@echo "make fuzz     random mutations of the recorded trees through every probe (10 min, one core), then of the monitor's inputs"
	@echo "make package  build a wheel and a PyInstaller one-folder bundle into dist/"
	@echo "make check-install  install the wheel in a fresh venv and run it from elsewhere"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[gui,bench,test]'
	@# byte-compile now: the headless probe should not pay for compiling on every run
	$(BIN)/python -m compileall -q accelgui probes knowledge resources >/dev/null
	@touch $@

# Qt's runtime libraries and fonts come from the system; install the missing ones.
system-deps:
	@missing=$$(for p in $(DEBS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] || command -v sudo >/dev/null 2>&1; then \
	    echo "installing system packages: $$missing"; \
	    $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else echo "warning: missing system packages (install them as root): $$missing"; fi; \
	fi

run: system-deps $(STAMP)
	$(BIN)/accelgui

probe: $(STAMP)
	$(BIN)/accelgui --probe --format text

test: system-deps $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/python -m pytest -q tests/test_checks.py

bench: $(STAMP)
	$(BIN)/python tests/benchmarks/bench_probe.py
	$(BIN)/python tests/benchmarks/bench_kernels.py

# not part of make test: FUZZ_ARGS="--minutes 1" for a short run
fuzz: $(STAMP)
	nice -n 10 $(BIN)/python tests/benchmarks/fuzz_trees.py $(FUZZ_ARGS)
	nice -n 10 $(BIN)/python tests/benchmarks/fuzz_monitor.py $(FUZZ_ARGS)

package: $(STAMP)
	$(BIN)/python -m pip install --quiet build pyinstaller
	rm -rf dist/*.whl build/stage
	$(BIN)/python -m build --wheel --outdir dist .
	$(BIN)/python -m pip install --quiet --no-deps --target build/stage dist/accelgui-*.whl
	QT_QPA_PLATFORM=offscreen $(BIN)/pyinstaller --noconfirm --log-level WARN \
	  --distpath dist --workpath build/pyinstaller packaging/accelgui.spec
	dist/accelgui/accelgui --probe --format text >/dev/null && echo "bundle: dist/accelgui/accelgui"


check-install:
	PYTHON=$(PYTHON) bash packaging/check-install.sh

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
