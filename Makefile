# `make test` and `make demo` work from a fresh clone: they create .venv when it is missing,
# install Focal into it (again whenever setup.py, pyproject.toml or the compiled segmenter
# models/segment.pyx changes: pip compiles it in place), then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-focal
PYTEST_ARGS ?=
# Reports are checked in headless Chromium, and their Chinese text needs a CJK font: Debian's
# packages, installed when missing and this user may (root, or sudo without a password).
BROWSER_PACKAGES := chromium chromium-driver fonts-wqy-microhei

.PHONY: install bytecode browser test demo clean

install: $(STAMP)

# Machines of this kind set PYTHONDONTWRITEBYTECODE=1, so every process (a crawl, each Beam worker,
# each test subprocess) would compile Focal's modules from source again: ~0.2 CPU-s, 6% of a small
# round. compileall writes their bytecode, skipping what is up to date.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q models transforms pipelines runners sandbox benchmarks

browser:
	@missing=$$(command -v dpkg-query >/dev/null && for package in $(BROWSER_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$package 2>/dev/null | grep -q 'install ok installed' || echo $$package; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then sudo=; elif sudo -n true 2>/dev/null; then sudo='sudo -n'; \
	  else echo "note: cannot install $$missing (not root): the report checks in headless Chromium will be skipped"; exit 0; fi; \
	  echo "installing $$missing (Debian packages) ..."; \
	  $$sudo apt-get install -y -q --no-install-recommends $$missing >/dev/null 2>&1 \
	  || { $$sudo apt-get update -q >/dev/null 2>&1 && $$sudo apt-get install -y -q --no-install-recommends $$missing >/dev/null 2>&1; } \
	  || echo "note: installing $$missing failed: the report checks in headless Chromium will be skipped"; \
	fi

$(STAMP): setup.py pyproject.toml models/segment.pyx
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

test: $(STAMP) bytecode browser
	$(BIN)/python -m pytest $(PYTEST_ARGS)

demo: $(STAMP) bytecode browser
	$(BIN)/focal demo

clean:
	rm -rf $(VENV) .demo *.egg-info build models/segment.c models/segment.*.so
