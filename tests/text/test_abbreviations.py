"""Short forms engineers write and the words they stand for (:mod:`memdir.text.abbreviations`)."""

from __future__ import annotations

from memdir.text import fts_query_terms
from memdir.text.abbreviations import ABBREVIATIONS, abbreviation_bridges
from memdir.text.stopwords import STOP_WORDS


def _bridges(query: str) -> dict[str, list[str]]:
    return abbreviation_bridges(query, fts_query_terms(query, stopwords=STOP_WORDS))


def test_a_word_is_bridged_to_its_short_or_long_form() -> None:
    assert _bridges("How long was the production database down during the Postgres upgrade?") == {
        "production": ["prod"],
        "database": ["db"],
        "postgres": ["pg", "postgresql"],
    }
    assert _bridges("prod DB 切到 PG 16") == {
        "prod": ["production"],
        "db": ["database"],
        "pg": ["postgres", "postgresql"],
    }


def test_a_phrase_and_its_short_form() -> None:
    # each word of the phrase the question writes is held through the short form
    assert _bridges("how many messages are in the dead-letter queue?") == {
        "messages": ["msgs"],
        "dead": ["dlq"],
        "letter": ["dlq"],
        "queue": ["dlq"],
    }
    # the short form through the phrase
    assert _bridges("DLQ 里有多少消息") == {"dlq": ["dead letter queue"]}
    assert _bridges("why did it run out of memory?")["memory"] == ["oom"]


def test_a_form_the_question_writes_too_is_no_bridge() -> None:
    assert _bridges("prod (production) config") == {
        "config": ["configuration", "cfg"],
    }
    assert _bridges("the queue is dead") == {}  # not the phrase


def test_the_table_is_lower_case_and_each_form_stands_for_another() -> None:
    for short, longs in ABBREVIATIONS.items():
        assert short == short.lower() and longs
        assert all(long == long.lower() and long != short for long in longs)
