"""The katakana loanword table (memdir.text.loanwords) and the script that builds it."""

from __future__ import annotations

import gzip
import importlib.util
import sys
from pathlib import Path

import pytest

from memdir.text import loanwords

ROOT = Path(__file__).resolve().parents[2]


def test_english_words_give_their_katakana_spellings() -> None:
    assert loanwords.katakana_for("release")[0] == "リリース"
    assert "コンピューター" in loanwords.katakana_for("computer")
    assert "コンピュータ" in loanwords.katakana_for("computer")
    assert len(loanwords.katakana_for("computer")) <= _builder().MAX_SPELLINGS
    assert loanwords.katakana_for("review")[0] == "レビュー"  # the lemma's spelling first
    assert loanwords.katakana_for("pickup") == ["ピックアップ"]  # pick-up, hyphen dropped
    assert loanwords.katakana_for("zzzz") == []


def test_a_querys_katakana_gives_its_english_to_each_bigram() -> None:
    found = loanwords.english_words("atlas のパッケージ管理")
    assert found == {g: ["package"] for g in ("パッ", "ッケ", "ケー", "ージ")}
    # half-width katakana is read as full-width
    assert loanwords.english_words("ﾎﾞﾀﾝ") == {"ボタ": ["button"], "タン": ["button"]}
    assert loanwords.english_words("東京に行く") == {}


def test_a_compound_is_read_as_the_words_it_is_written_with() -> None:
    assert loanwords.words_in("ユーザーテスト") == ["ユーザー", "テスト"]
    assert loanwords.words_in("プラン") == ["プラン"]


def test_a_loanword_is_held_only_as_a_word_of_its_own() -> None:
    assert loanwords.holds("新しいリリースです", "リリース")
    assert loanwords.holds("ユーザーテストをした", "テスト")
    assert not loanwords.holds("来週のプラン", "ラン")
    assert not loanwords.holds("ランチは駅前", "ラン")
    assert not loanwords.holds("データ", "デー")
    assert loanwords.holds("プランとラン", "ラン")  # the second, standalone one


def test_a_missing_or_damaged_table_means_no_loanwords_and_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "loanwords.tsv.gz"
    broken.write_bytes(b"not gzip")
    for path in (tmp_path / "missing.tsv.gz", broken):
        monkeypatch.setattr(loanwords, "_DATA", path)
        monkeypatch.setattr(loanwords, "_loaded", None)
        with caplog.at_level("WARNING", logger="memdir.text.loanwords"):
            assert loanwords.katakana_for("release") == []
            assert loanwords.english_words("パッケージ") == {}
        assert f"katakana loanwords unavailable ({path}" in caplog.text
        caplog.clear()


def test_the_shipped_table_is_sorted_for_binary_search() -> None:
    table = loanwords._tables()
    forward, backward = table.forward, table.backward
    assert loanwords.spellings() == len(forward) > 40_000
    for part in (forward, backward):
        keys = [line.split("\t", 1)[0] for line in part]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        assert all("\t" in line and not line.endswith("\t") for line in part)


def _builder():
    spec = importlib.util.spec_from_file_location(
        "build_loanwords", ROOT / "scripts" / "build_loanwords.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_loanwords"] = module
    spec.loader.exec_module(module)
    return module


def test_the_builder_reads_loanword_lemmas_from_unidic_features() -> None:
    build = _builder()
    features = [
        # pos…, lemma reading, lemma (with its source word), spelling, pron, base spelling, …
        "名詞,普通名詞,一般,*,*,*,リリース,リリース-release,リリース,リリース,リリース,リリース,外",
        "名詞,普通名詞,一般,*,*,*,コンピューター,コンピューター-computer,コンピュータ,コンピュータ,コンピュータ,コンピュータ,外",
        "名詞,普通名詞,一般,*,*,*,ピックアップ,ピックアップ-pick-up,ピックアップ,ピックアップ,ピックアップ,ピックアップ,外",
        # a word of Japanese origin, and a lemma whose source is not in Latin letters
        "名詞,普通名詞,一般,*,*,*,タイミング,時-とき,時,トキ,時,トキ,和",
        "名詞,普通名詞,一般,*,*,*,パン,パン-pão,パン,パン,パン,パン,外",
    ]
    assert build.loanwords(features) == {
        "リリース": {"release"},
        "コンピューター": {"computer"},
        "コンピュータ": {"computer"},
        "ピックアップ": {"pickup"},
    }


def test_the_builder_reads_a_mecab_dictionarys_feature_section(tmp_path: Path) -> None:
    build = _builder()
    blob = "名詞,x\x00動詞,y\x00".encode()
    header = bytearray(72)
    header[24:36] = (
        (3).to_bytes(4, "little") + (5).to_bytes(4, "little") + len(blob).to_bytes(4, "little")
    )
    path = tmp_path / "sys.dic"
    path.write_bytes(bytes(header) + b"d" * 3 + b"t" * 5 + blob)
    assert build.features(path) == ["名詞,x", "動詞,y"]


def test_the_shipped_table_names_its_licence() -> None:
    data = ROOT / "src" / "memdir" / "text" / "data"
    assert "UniDic Consortium" in (data / "UNIDIC-LICENSE").read_text(encoding="utf-8")
    with gzip.open(data / "loanwords.tsv.gz", "rt", encoding="utf-8") as fh:
        assert fh.readline().count("\t") == 1
