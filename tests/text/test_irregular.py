"""English irregular verb forms are indexed and queried as their base form."""

from __future__ import annotations

import sqlite3

from memdir.text import FTS_TOKENIZE, fts_document, fts_query
from memdir.text.irregular import BASE_FORMS


def test_forms_become_their_base_form_whatever_their_case() -> None:
    assert fts_document("We Chose PostgreSQL; she WENT home.") == "we choose postgresql she go home"
    assert fts_document("chosen, gone: written!") == "choose go write"
    assert fts_document("the chosenone goes") == "the chosenone goes"  # whole words only
    assert fts_document("Zoë chose") == "zoë choose"


def test_words_that_are_often_something_else_are_left_alone() -> None:
    for word in ("saw", "left", "felt", "rose", "ground", "bound", "fed", "led", "lay", "bit"):
        assert word not in BASE_FORMS
    assert fts_document("Turn left at the rose garden") == "turn left at the rose garden"


def _match(document: str, query: str) -> bool:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{FTS_TOKENIZE}')")
    conn.execute("INSERT INTO t(body) VALUES (?)", (fts_document(document),))
    match = fts_query(query)
    assert match is not None
    return bool(conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (match,)).fetchone()[0])


def test_a_past_tense_note_is_found_by_a_present_tense_question_and_back() -> None:
    assert _match("2026-10-02: We chose PostgreSQL 16 over MySQL.", "which one do we choose")
    assert _match("Caroline went to the support group yesterday.", "when does Caroline go")
    assert _match("I will choose the blue one.", "what was chosen")
    assert not _match("We chose PostgreSQL 16 over MySQL.", "where did they go")
