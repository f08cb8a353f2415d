"""Fixtures for the embedding tests: a scripted HTTP server and hosted embedders aimed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .fakes import FakeServer, Hosted


@pytest.fixture
def hosted(server: FakeServer) -> Iterator[Hosted]:
    maker = Hosted(server)
    yield maker
    for embedder in maker.made:
        embedder.close()
