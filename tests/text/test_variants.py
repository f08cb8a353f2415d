"""Han variants folded to one form for search (memdir.text.variants)."""

from __future__ import annotations

import pytest

from memdir.text import (
    TOKENIZER_VERSION,
    cedict,
    fts_document,
    fts_query_terms,
    term_surfaces,
    variants,
)


def test_japanese_traditional_and_simplified_forms_are_one() -> None:
    assert variants.fold("佐々木美穂") == "佐佐木美穗" == variants.fold("佐佐木美穗")
    assert variants.fold("発熱") == variants.fold("發熱") == "发热"
    assert variants.fold("歯の治療") == "齿の治疗"
    assert variants.fold("電腦 东京 東京") == "电脑 东京 东京"


def test_folding_keeps_every_offset() -> None:
    text = "佐々木さん々 から発熱、ＡＢＣ"
    assert len(variants.fold(text)) == len(text)


def test_characters_chinese_writes_as_they_are_stay() -> None:
    # 著 and 於 are simplified forms themselves; 芸 is the Japanese 藝 but also Chinese (芸芸)
    assert variants.fold("著作 於是 芸芸") == "著作 於是 芸芸"
    assert variants.fold("々") == "々"  # no character before it to repeat


def test_the_index_and_queries_write_both_forms_alike() -> None:
    assert (
        fts_document("佐々木美穂が発熱").split()[:8] == fts_document("佐佐木美穗が發熱").split()[:8]
    )
    assert "发热" in fts_document("38度の発熱")
    assert "东京" in fts_query_terms("東京に来た")


def test_a_term_is_shown_as_the_query_writes_it() -> None:
    query = "佐々木美穂はいつ来る？"
    terms = fts_query_terms(query)
    assert "美穗" in terms
    surfaces = dict(zip(terms, term_surfaces(query, terms), strict=True))
    assert surfaces["美穗"] == "美穂" and surfaces["佐佐"] == "佐々"


def test_without_the_dictionary_only_the_repeat_mark_is_written_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cedict, "data_file", lambda: None)
    monkeypatch.setattr(variants, "_loaded", None)
    monkeypatch.setattr(variants, "_pattern", None)
    assert variants.fold("佐々木の発熱") == "佐佐木の発熱"


def test_okurigana_spellings_of_one_word_share_its_bigram() -> None:
    # 受け取り and 受取, 申し込み and 申込, 引っ越し and 引越: one word, with or without its kana
    for written, other in (("受け取り", "受取"), ("申し込み", "申込"), ("引っ越し", "引越")):
        assert other in fts_document(f"{written}の日").split()
        assert other in fts_query_terms(f"{written}はいつ？")
        assert other in fts_query_terms(f"{other}はいつ？")


def test_a_particle_between_two_words_makes_no_bigram() -> None:
    assert "京会" not in fts_document("東京の会議").split()
    assert "藤在" not in fts_document("佐藤さん在神田").split()
    assert "入送" not in fts_document("入れて送る").split()  # two kana: an inflection


def test_a_lone_surrogate_is_kept_as_it_is() -> None:
    # text decoded with surrogateescape, or a JSON escape, may hold one
    assert variants.fold("發\ud800熱") == "发\ud800热"


def test_characters_beyond_the_bmp_are_folded_too() -> None:
    pairs = variants.table()
    astral = next(k for k in pairs if ord(k) > 0xFFFF)
    assert variants.fold(f"發{astral}熱😀") == f"发{pairs[astral]}热😀"
    assert variants.fold("𠀋") == "𠀋"  # Extension B, no variant: as it is


def test_the_tokenizer_version_names_the_dictionary_the_fold_comes_from() -> None:
    # another CC-CEDICT release may fold other characters: its indexes must be rebuilt
    path = cedict.data_file()
    assert path is not None
    assert f"fold{variants._FORMAT}-{path.stat().st_size}" == variants.TAG
    assert variants.TAG in TOKENIZER_VERSION
