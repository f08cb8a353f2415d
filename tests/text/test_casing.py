"""A name in one case style and asked in another (:mod:`memdir.text.casing`)."""

from __future__ import annotations

import pytest

from memdir.text.casing import MAX_RUN, camel_words, word_runs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("maxReplicas", [("maxreplicas", "max replicas")]),
        ("what is MaxAckPending?", [("maxackpending", "max ack pending")]),
        ("XMLHttpRequest", [("xmlhttprequest", "xml http request")]),
        ("getHTTPResponse", [("gethttpresponse", "get http response")]),
        ("eventsRawV2 的分区", [("eventsrawv2", "events raw v2")]),
        ("autoscaling.maxReplicas", [("maxreplicas", "max replicas")]),
        ("ackWait ackWait", [("ackwait", "ack wait")]),
        # no lower-case letter before a capital: no camelCase
        ("PG16 OKR max_inflight hello", []),
        ("NATS", []),
    ],
)
def test_camel_case_words_and_their_parts(text: str, expected: list[tuple[str, str]]) -> None:
    assert camel_words(text) == expected


def test_runs_of_words_typed_apart() -> None:
    assert word_runs("max ack pending 默认多少") == [
        ["max", "ack"],
        ["ack", "pending"],
        ["max", "ack", "pending"],
    ]
    # a hyphen joins a run too; other punctuation and CJK end it
    assert word_runs("max-inflight, events raw v2") == [
        ["max", "inflight"],
        ["events", "raw"],
        ["raw", "v2"],
        ["events", "raw", "v2"],
    ]
    # a word and a number, and one-letter words, are no run (PG 16 is a code typed apart)
    assert word_runs("PG 16 a b") == []
    long = word_runs("one two three four five six")
    assert max(map(len, long)) == MAX_RUN
    assert ["one", "two", "three", "four"] in long and ["three", "four", "five", "six"] in long
