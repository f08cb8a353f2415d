"""Text handling shared across memdir: tokens for FTS5 and chunk sizing, keywords, similarity."""

from memdir.text.tokens import (
    FTS_TOKENIZE,
    TOKENIZER_VERSION,
    bridge_term,
    fts_document,
    fts_match,
    fts_query,
    fts_query_terms,
    identifier_spans,
    is_utf8_encodable,
    match_text,
    named_words,
    replace_surrogates,
    term_matcher,
    term_surfaces,
    weighted_length,
    word_tokens,
)

__all__ = [
    "FTS_TOKENIZE",
    "TOKENIZER_VERSION",
    "bridge_term",
    "fts_document",
    "fts_match",
    "fts_query",
    "fts_query_terms",
    "identifier_spans",
    "is_utf8_encodable",
    "match_text",
    "named_words",
    "replace_surrogates",
    "term_matcher",
    "term_surfaces",
    "weighted_length",
    "word_tokens",
]
