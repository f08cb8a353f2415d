"""Pure helpers of memdir.embed.base: truncation, batching, normalisation, identity keys."""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np
import pytest

from memdir.embed.base import (
    Embedder,
    batch_by_bytes,
    check_not_blank,
    is_secret_header,
    l2_normalize,
    provider_key,
    public_headers,
    to_valid_utf8,
    truncate_utf8,
    utf8_len,
)
from memdir.errors import UsageError

EMOJI = "\U0001f600"  # 😀, 4 UTF-8 bytes
EXT_B = "\U00020000"  # 𠀀, CJK Extension B, 4 UTF-8 bytes
CJK = "中"  # 3 UTF-8 bytes


def _assert_clean_prefix(original: str, cut: str, max_bytes: int) -> None:
    assert original.startswith(cut)
    assert utf8_len(cut) <= max_bytes
    assert "\ufffd" not in cut
    cut.encode("utf-8")  # a valid string: no half code point left behind


class TestTruncateUtf8:
    def test_short_text_is_returned_unchanged(self) -> None:
        assert truncate_utf8("hello", 5) == "hello"
        assert truncate_utf8("", 10) == ""

    def test_ascii_is_cut_at_the_byte_limit(self) -> None:
        # spec case 71: 9000 "x" against 8192
        assert truncate_utf8("x" * 9000, 8192) == "x" * 8192

    @pytest.mark.parametrize("char", [EMOJI, EXT_B, CJK, "é"])
    def test_never_splits_a_code_point(self, char: str) -> None:
        text = "a" + char * 10
        width = utf8_len(char)
        for limit in range(0, utf8_len(text) + 2):
            cut = truncate_utf8(text, limit)
            _assert_clean_prefix(text, cut, limit)
            # the cut is as long as possible: one more code point would not fit
            if cut != text:
                assert utf8_len(cut) > limit - width - 1 or limit < 1

    def test_emoji_document_of_spec_case_72(self) -> None:
        text = EMOJI * 2100 + "\n" + EMOJI * 2100
        cut = truncate_utf8(text, 8192)
        _assert_clean_prefix(text, cut, 8192)
        assert cut == EMOJI * 2048

    def test_cjk_extension_b_mixed_with_text(self) -> None:
        text = ("記憶" + EXT_B + " memory ") * 300
        cut = truncate_utf8(text, 1001)
        _assert_clean_prefix(text, cut, 1001)
        assert utf8_len(cut) >= 1001 - 3

    def test_non_positive_limit_gives_empty(self) -> None:
        assert truncate_utf8("abc", 0) == ""
        assert truncate_utf8("abc", -5) == ""

    def test_lone_surrogate_does_not_crash(self) -> None:
        text = "ab\ud800cd"
        assert truncate_utf8(text, 5) == "ab\ud800"


class TestBatchByBytes:
    def test_spec_case_36(self) -> None:
        assert batch_by_bytes(["a" * 4200, "b" * 4200], 8000) == [[0], [1]]
        assert batch_by_bytes(["c" * 120] * 4, 8000) == [[0, 1, 2, 3]]

    def test_oversized_text_goes_alone_and_order_is_kept(self) -> None:
        texts = ["a" * 100, "b" * 9000, "c" * 100, "d" * 100]
        assert batch_by_bytes(texts, 8000) == [[0], [1], [2, 3]]

    def test_exact_fit_stays_in_one_group(self) -> None:
        assert batch_by_bytes(["a" * 4000, "b" * 4000, "c"], 8000) == [[0, 1], [2]]

    def test_counts_utf8_bytes_not_characters(self) -> None:
        # 3000 CJK characters are 9000 bytes
        assert batch_by_bytes([CJK * 1500, CJK * 1500], 8000) == [[0], [1]]

    def test_item_cap(self) -> None:
        assert batch_by_bytes(["x"] * 5, 8000, max_items=2) == [[0, 1], [2, 3], [4]]

    def test_empty_input(self) -> None:
        assert batch_by_bytes([]) == []

    def test_every_index_once_and_within_limits(self) -> None:
        rng = random.Random(7)
        texts = ["y" * rng.randint(1, 3000) for _ in range(300)]
        groups = batch_by_bytes(texts, 8000, max_items=16)
        assert [i for g in groups for i in g] == list(range(len(texts)))
        for group in groups:
            assert len(group) <= 16
            assert len(group) == 1 or sum(len(texts[i]) for i in group) <= 8000

    def test_rejects_non_positive_limits(self) -> None:
        with pytest.raises(UsageError):
            batch_by_bytes(["a"], 0)


class TestL2Normalize:
    def test_unit_length_float32(self) -> None:
        out = l2_normalize([3.0, 4.0])
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, [0.6, 0.8], rtol=1e-6)

    def test_rows_are_normalised_independently(self) -> None:
        out = l2_normalize(np.array([[3.0, 4.0], [0.0, 2.0]]))
        np.testing.assert_allclose(np.linalg.norm(out, axis=1), [1.0, 1.0], rtol=1e-6)

    def test_non_finite_become_zero(self) -> None:
        out = l2_normalize([np.nan, 3.0, np.inf, -np.inf, 4.0])
        np.testing.assert_allclose(out, [0.0, 0.6, 0.0, 0.0, 0.8], rtol=1e-6)

    def test_tiny_and_zero_vectors_are_left_alone(self) -> None:
        out = l2_normalize([[0.0, 0.0], [1e-12, 0.0], [0.0, 5.0]])
        np.testing.assert_array_equal(out[0], [0.0, 0.0])
        np.testing.assert_array_equal(out[1], np.array([1e-12, 0.0], dtype=np.float32))
        np.testing.assert_allclose(out[2], [0.0, 1.0])

    def test_input_is_not_modified(self) -> None:
        arr = np.array([3.0, 4.0], dtype=np.float32)
        l2_normalize(arr)
        np.testing.assert_array_equal(arr, [3.0, 4.0])

    def test_empty(self) -> None:
        assert l2_normalize(np.zeros((0, 3))).shape == (0, 3)


class _Named:
    provider = "x"
    model = "m"
    max_input_bytes = 10

    def __init__(self, ident: dict[str, str]) -> None:
        self._ident = ident

    def identity(self) -> dict[str, str]:
        return self._ident

    def embed_documents(self, texts: object) -> np.ndarray:
        return np.zeros((0, 1), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.zeros(1, np.float32)


def test_provider_key_is_sha256_of_canonical_identity() -> None:
    a = _Named({"provider": "x", "model": "m", "dims": ""})
    b = _Named({"dims": "", "model": "m", "provider": "x"})
    expected = hashlib.sha256(
        json.dumps({"dims": "", "model": "m", "provider": "x"}, separators=(",", ":")).encode()
    ).hexdigest()
    assert isinstance(a, Embedder)
    assert provider_key(a) == provider_key(b) == expected
    assert provider_key(_Named({"provider": "x", "model": "m2", "dims": ""})) != expected


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "x-api-key",
        "X-Goog-Api-Key",
        "api-key",
        "Cookie",
        "X-Auth-Token",
        "Proxy-Authorization",
    ],
)
def test_secret_headers(name: str) -> None:
    assert is_secret_header(name)
    assert public_headers({name: "s3cret", "X-Team": "blue"}) == {"x-team": "blue"}


def test_check_not_blank() -> None:
    check_not_blank(["a", " b "])
    with pytest.raises(UsageError, match="item 1"):
        check_not_blank(["a", " \n\t"])


def test_to_valid_utf8() -> None:
    assert to_valid_utf8("plain 中文 😀") == "plain 中文 😀"
    assert to_valid_utf8("a\udcffb\ud800") == "a\ufffdb\ufffd"
