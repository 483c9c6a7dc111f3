# Two commands for a newcomer (see README), and a third for while you edit:
#   make serve   install what previewing needs, then serve the public site with live reload (it builds once);
#                TEACHER=1 serves the teacher site, PORT=8001 another port
#   make test    install everything (Chromium and CJK fonts too), run every test and `build.py check`
#   make test-fast  the tests not marked slow, without a browser: under a minute
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

# The Nu Html Checker; tests/browser/test_validator.py pins the same version.
VNU_VERSION := 26.9.27

# uv installs the same pins as pip in a fraction of the time (7.6 s against 97 s from a fresh clone here):
# the one on PATH, else one installed with pip into the user's cache (a single wheel, kept for the next
# clone); pip when neither works. --compile-bytecode does what pip does by default: without it, where
# PYTHONDONTWRITEBYTECODE is set (container images often set it; these machines do), every process compiled
# numpy, matplotlib and the rest anew: about 2 CPU-s more for each process importing them.
UV_VERSION := 0.13.8
UV_TOOL := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/verified-lessons/uv-$(UV_VERSION)
FIND_UV = command -v uv || { test -x $(UV_TOOL)/bin/uv || $(PYTHON) -m pip install --quiet \
	--disable-pip-version-check --target $(UV_TOOL) uv==$(UV_VERSION) >/dev/null 2>&1; \
	test -x $(UV_TOOL)/bin/uv && echo $(UV_TOOL)/bin/uv; } || true

.PHONY: setup serve build test test-fast check fonts system-deps test-deps clean

# What building and previewing need: the pinned site packages (--seed: pip in .venv too, for troubleshooting).
$(VENV)/.installed-site: requirements.txt
	@uv=$$($(FIND_UV)); if [ -n "$$uv" ]; then \
		echo "$$uv venv $(VENV) && $$uv pip install -r requirements.txt"; \
		$$uv venv --quiet --seed --allow-existing --python $(PYTHON) $(VENV) && \
		$$uv pip install --quiet --compile-bytecode --python $(PY) -r requirements.txt; \
	else \
		echo "$(PYTHON) -m venv $(VENV) && $(PY) -m pip install -r requirements.txt"; \
		$(PYTHON) -m venv $(VENV) && $(PY) -m pip install --quiet --upgrade pip && \
		$(PY) -m pip install --quiet -r requirements.txt; \
	fi
	touch $@

# What the tests need on top: pytest, Playwright, the notebook runner, the font tools.
$(VENV)/.installed: $(VENV)/.installed-site requirements-test.txt
	@uv=$$($(FIND_UV)); if [ -n "$$uv" ]; then \
		$$uv pip install --quiet --compile-bytecode --python $(PY) -r requirements-test.txt; \
	else \
		$(PY) -m pip install --quiet -r requirements-test.txt; \
	fi
	touch $@

# Debian's CJK fonts: the figures' and pages' Chinese labels.
fonts:
	@if [ -z "$$(fc-list :lang=zh 2>/dev/null)" ]; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq fonts-noto-cjk >/dev/null && \
		rm -f $$HOME/.cache/matplotlib/fontlist-*.json; \
	fi

# Chromium for the browser tests (and the fonts).
system-deps: fonts
	@if ! command -v chromium >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

# Java and npm for the Nu Html Checker (npm vnu-jar) and axe-core, which the tests install into .cache/npm.
test-deps: system-deps
	@if ! command -v java >/dev/null || ! command -v npm >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq default-jre-headless npm >/dev/null; \
	fi
	@test -f .cache/npm/node_modules/vnu-jar/build/dist/vnu.jar || \
		npm install --prefix .cache/npm --no-audit --no-fund --silent vnu-jar@$(VNU_VERSION)

# What `python build.py …` needs (it runs itself under .venv/ from any Python once this made it).
setup: $(VENV)/.installed-site fonts

build: $(VENV)/.installed-site fonts
	$(PY) build.py

# exec: the server replaces the recipe's shell, so Ctrl-C (or a signal to the recipe) reaches it directly.
# TEACHER=1 serves the teacher site (with the teacher notes and presenting mode).
serve: $(VENV)/.installed-site fonts
	@exec env VERIFIED_LESSONS_STARTED_BY="make serve" $(PY) build.py serve --port $(PORT)$(if $(TEACHER), --teacher)

# One pytest-xdist worker per core, each taking whole test files (--dist loadscope): a file's module fixtures
# (a project copy, a course built twice, a fresh venv) are made once, not once per worker. More workers than cores
# gained nothing here (2 cores: 13 min 50 s with three against 13 min 51 s with two): while a worker waits, the
# builds and the Chromium it started keep the cores busy (a tab on a slowed CPU spins rather than sleeps). The
# files go out in the order tests/conftest.py gives them (the longest first), not xdist's own. What every worker
# needs (the real course's browser sites, .cache/npm) is made once per run (tests/shared.py).
XDIST := -n auto --dist loadscope --no-loadscope-reorder
# Where PYTHONDONTWRITEBYTECODE is set (these machines set it), every process the tests start compiled the project
# anew and each worker rewrote the asserts of every test file anew: 5.8 s against 2.9 s to collect the suite in a
# fresh clone. The tests keep Python's default: compiled files in the (ignored) __pycache__ folders.
TEST_ENV := env PYTHONDONTWRITEBYTECODE=

test: $(VENV)/.installed test-deps
	$(TEST_ENV) $(PY) -m pytest $(XDIST)
	$(PY) build.py check

# No Chromium, Java or npm needed: the browser tests and the slow ones (pyproject.toml's markers) are left out.
test-fast: $(VENV)/.installed fonts
	$(TEST_ENV) $(PY) -m pytest -m "not slow" --ignore=tests/browser $(XDIST)

clean:
	rm -rf _site _site-teacher .cache
