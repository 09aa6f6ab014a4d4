"""`python -m lsp`: the language server on stdio (the same as `fastapply lsp`)."""

from lsp.server import run_lsp

run_lsp()
