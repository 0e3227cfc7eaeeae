# `make test` and `make demo` work from a fresh clone: they create .venv when it is missing,
# install Focal into it (again whenever setup.py changes), then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-focal
PYTEST_ARGS ?=

.PHONY: install test demo clean

install: $(STAMP)

$(STAMP): setup.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

demo: $(STAMP)
	$(BIN)/focal demo

clean:
	rm -rf $(VENV) .demo *.egg-info
