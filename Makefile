# The two commands of the README: `make book` and `make test`. Both create .venv on first use.
# Python >= 3.11 is needed (override with `make PYTHON=python3.12 ...`).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.setlab-installed
PORT   ?= 8000
BOOK_FLAGS := --all -W -n --keep-going

.PHONY: book test test-fresh check lab serve lint reference lock clean help

help:
	@echo "make book       build the HTML book (every chapter executed) into _build/html"
	@echo "make test       run the whole test suite on both cores (unit, live Redis, book builds, browser)"
	@echo "make test-fresh the same from empty caches: every page executed, every figure computed"
	@echo "make check      the fast loop: lint + unit tests on both cores (no book builds, no browser, no live Redis, no slow installs)"
	@echo "make serve      serve the built book on http://127.0.0.1:$(PORT)"
	@echo "make lab        build the book, then open its chapters as notebooks in JupyterLab"
	@echo "make lint       ruff check + format check"
	@echo "make reference  re-measure every src/setlab/data/*.json on a real Redis (reference/measure_*.py)"

$(STAMP): pyproject.toml constraints.txt Makefile
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "setlab needs Python >= 3.11 (try: make PYTHON=python3.11 ...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[book,live,binder,dev,servers]'
	@touch $@

# With REDIS_URL set, `setlab backend --check` connects first: a malformed or unreachable URL
# stops the build in one line (exit 2) instead of failing every chapter's first cell.
book: $(STAMP)
	@backend=$$($(BIN)/setlab backend $${REDIS_URL:+--check}) || exit 2; \
	echo "Building the book on backend: $$backend"; \
	SETLAB_BACKEND=$$backend $(BIN)/jupyter-book build . $(BOOK_FLAGS) && \
	echo "Built on backend '$$backend'. Open _build/html/index.html (or run: make serve)"

# Both cores, three pytest-xdist workers: a good part of the suite waits on kernels, servers and
# the browser (measured: 597 s cold with 3 workers, 693 s with 2, 631 s with 4). Executed pages,
# figures and built sites are kept in _build/.cache under fingerprints of what produced them, so
# a second run re-executes only what changed.
test: $(STAMP)
	$(BIN)/python -m pytest -n 3 --dist loadgroup --durations=20

# The book's builds and tests start ~100 Python processes (kernels, runners, builds), each
# importing setlab: let them keep its bytecode (src/**/__pycache__, ignored by git, the
# fingerprints and the wheel) even where the environment says PYTHONDONTWRITEBYTECODE, or
# every one compiles the package from source again (0.7 s of a full import here).
book test: export PYTHONDONTWRITEBYTECODE :=

# Every cache emptied first: what CI's fresh clone does. Run it after changing something the
# fingerprints cannot see (the system's Chromium, a kernel setting), and before a release.
test-fresh:
	rm -rf _build/.cache
	$(MAKE) test

check: lint
	$(BIN)/python -m pytest -q -n 2 -m "not book and not live and not slow"

# JupyterLab at the repository root on the chapters as notebooks: `make book` writes each executed
# chapter in plain Markdown, with the build's numbers in its prose, to _build/lab/ (a cached
# build takes about 20 s). binder/jupyter holds the settings, also for the Binder image: a
# double-click opens a MyST source in book/ as a notebook (jupytext). The kernel is this .venv's
# Python, so `import setlab` is this checkout.
lab: book
	JUPYTER_CONFIG_PATH="$(CURDIR)/binder/jupyter$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  $(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" _build/lab/index.ipynb

serve:
	@test -f _build/html/index.html || { echo "no book yet: run make book first"; exit 1; }
	@echo "Serving http://127.0.0.1:$(PORT)/ (Ctrl-C to stop)"
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory _build/html $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check src tests reference benchmarks book/_ext
	$(BIN)/ruff format --check src tests reference benchmarks book/_ext

reference: $(STAMP)
	@for script in reference/measure_*.py; do echo "== $$script"; start=$$(date +%s); \
	   $(BIN)/python $$script || exit 1; echo "== $$script: $$(( $$(date +%s) - start )) s"; done

clean:
	rm -rf _build .pytest_cache .hypothesis

lock: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[book,live,dev,binder,servers]'
	@{ echo "# The lock: exact versions of the whole toolchain (Python 3.11, Linux x86-64), used as pip"; \
	   echo "# constraints by the Makefile so a rebuild next year gives the same book. Regenerate: make lock"; \
	   $(BIN)/python -m pip freeze --all --exclude-editable | grep -v -e '^setlab' -e '^pip=='; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
