"""Shared test fixtures. Area-specific helpers live beside their tests (tests/helpers_*.py)."""

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def smollm2():
    """The real smollm2-135m stand-in in fp32 on CPU, loaded once per test session."""
    from apply_engine.models import load_model

    return load_model("smollm2-135m", device="cpu", dtype="float32")
