"""Shared fixtures: deterministic torch for every test."""

import pytest
import torch


@pytest.fixture(autouse=True)
def _deterministic():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    yield
