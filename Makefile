# Two commands for a newcomer (see README):
#   make serve   install what is needed, build both sites, serve the public one with live reload
#   make test    install what is needed (Chromium and CJK fonts too), run every test and `build.py check`
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: serve build test check system-deps clean

$(VENV)/.installed: requirements.txt requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $@

# Debian packages: CJK fonts for figures and pages, Chromium for the browser tests.
system-deps:
	@if [ -z "$$(fc-list :lang=zh 2>/dev/null)" ] || ! command -v chromium >/dev/null; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq fonts-noto-cjk chromium >/dev/null && \
		rm -f $$HOME/.cache/matplotlib/fontlist-*.json; \
	fi

build: $(VENV)/.installed system-deps
	$(PY) build.py

serve: $(VENV)/.installed system-deps
	$(PY) build.py
	$(PY) build.py serve

test: $(VENV)/.installed system-deps
	$(PY) -m pytest
	$(PY) build.py check

clean:
	rm -rf _site _site-teacher .cache
