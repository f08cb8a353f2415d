"""Transcripts a Session writes are indexed (with ``sources = ["memory", "sessions"]``) with
their secrets masked, while the transcript itself keeps every word."""

from __future__ import annotations

from memdir.chunking import flatten_session
from memdir.redact import Redactor

from .conftest import MakeMemory, MakeSession, talk

KEY = "sk-proj-4f9Qx7LmZ2pR8tVb3nKc6WdYhJ1sA0eU"


def test_indexed_transcripts_are_redacted_and_the_file_is_not(
    make_memory: MakeMemory, make_session: MakeSession
) -> None:
    mem = make_memory(sources=["memory", "sessions"])
    session = make_session(memory=mem, session_id="secret")
    talk(
        session,
        (f"The quokka service reads OPENAI_API_KEY={KEY} from its env.", "Understood, quokka."),
    )
    assert KEY in session.path.read_text(encoding="utf-8")  # the transcript as it was said

    mem.sync()
    hits = mem.search("quokka service key")
    [hit] = [h for h in hits.results if h.source == "sessions"]
    assert hit.path == "sessions/secret.jsonl" and (hit.start_line, hit.end_line) == (2, 3)
    assert "OPENAI_API_KEY=[REDACTED:openai_api_key]" in hit.snippet and KEY not in hit.snippet
    assert not [h for h in mem.search(KEY).results if h.source == "sessions"]
    got = mem.get(hit.citation)
    assert "[REDACTED:openai_api_key]" in got.text and KEY not in got.text


def test_flatten_session_redacts_each_message() -> None:
    raw = (
        '{"type":"message","message":{"role":"user","content":"token: ghp_'
        + "a" * 36
        + '  and\\nmore"}}\n'
    )
    flat = flatten_session(raw, redact=Redactor().redact)
    assert flat.text == "User: token: [REDACTED:github_token] and more"
    assert flatten_session(raw).text.startswith("User: token: ghp_aaaa")
