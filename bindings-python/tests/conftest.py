"""Fixtures: every test works in its own temporary memory root."""

from __future__ import annotations

import pathlib

import pytest

import memory_core


@pytest.fixture
def root(tmp_path: pathlib.Path) -> pathlib.Path:
    return tmp_path / "memory"


@pytest.fixture
def memory(root: pathlib.Path) -> memory_core.AgentMemory:
    return memory_core.AgentMemory(root)
