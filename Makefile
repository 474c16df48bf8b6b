# Two commands do all set-up on a fresh machine (Python 3.11, Debian):
#   make report   install into .venv, then run the main job on the bundled samples
#   make test     install into .venv and .venv-keras (and Chromium for the HTML test), then run the whole suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# --target keras runs its TensorFlow 2.21 children with a second interpreter (tf.estimator ends with 2.15)
KERAS_VENV  := .venv-keras
KERAS_STAMP := $(KERAS_VENV)/.installed

.PHONY: report test install keras browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[tf,dev,corpus]"
	touch $(STAMP)

install: $(STAMP)

$(KERAS_STAMP): pyproject.toml
	$(PYTHON) -m venv $(KERAS_VENV)
	$(KERAS_VENV)/bin/pip install -q --upgrade pip
	$(KERAS_VENV)/bin/pip install -q -e ".[keras]"
	touch $(KERAS_STAMP)

keras: $(KERAS_STAMP)

browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || echo "note: install Debian's chromium for the HTML report test"

report: $(STAMP)
	@# exit 1 = the report found migration work (the samples are legacy code on purpose); 2 = a real error
	$(BIN)/tfmigrate report samples/ --validate --html tfmigrate-report.html || [ $$? -eq 1 ]

test: $(STAMP) $(KERAS_STAMP) browser
	@# whole files to each worker, in tests/conftest.py's order (files with slow tests first), not xdist's (by test count)
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=20
