# Two commands for a newcomer (see README):
#   make serve   install what is needed, build both sites, serve the public one with live reload
#   make test    install what is needed (Chromium and CJK fonts too), run every test and `build.py check`
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

# The Nu Html Checker; tests/browser/test_validator.py pins the same version.
VNU_VERSION := 26.9.27

.PHONY: serve build test check system-deps test-deps clean

$(VENV)/.installed: requirements.txt requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $@

# Debian packages: CJK fonts for figures and pages, Chromium for the browser tests, Java and npm for
# the Nu Html Checker (npm vnu-jar) and axe-core, which the tests install into .cache/npm.
system-deps:
	@if [ -z "$$(fc-list :lang=zh 2>/dev/null)" ] || ! command -v chromium >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq fonts-noto-cjk chromium >/dev/null && \
		rm -f $$HOME/.cache/matplotlib/fontlist-*.json; \
	fi

test-deps: system-deps
	@if ! command -v java >/dev/null || ! command -v npm >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq default-jre-headless npm >/dev/null; \
	fi
	@test -f .cache/npm/node_modules/vnu-jar/build/dist/vnu.jar || \
		npm install --prefix .cache/npm --no-audit --no-fund --silent vnu-jar@$(VNU_VERSION)

build: $(VENV)/.installed system-deps
	$(PY) build.py

serve: $(VENV)/.installed system-deps
	$(PY) build.py
	$(PY) build.py serve

test: $(VENV)/.installed test-deps
	$(PY) -m pytest
	$(PY) build.py check

clean:
	rm -rf _site _site-teacher .cache
