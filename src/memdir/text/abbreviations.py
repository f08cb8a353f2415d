"""The short forms engineers write and the words they stand for: ``prod`` and production, ``db``
and database, ``k8s`` and Kubernetes, ``PG`` and Postgres, ``DLQ`` and dead letter queue.

Notes are written in haste (``prod DB 切到 PG 16``, ``3 msgs in the DLQ``), and questions, by a
person or an agent, often in full ("How long was the production database down?"), or the other
way round. FTS5 stems ``production`` to ``product`` and holds ``prod`` as another word, so the
two never meet. :func:`abbreviation_bridges` gives each word or phrase of the question the
other forms; search keeps those memory holds (:func:`memdir.search.keyword.query_profile`), as
it does the other language's words (:mod:`memdir.text.bilingual`).

The table is written by hand and kept to forms that stand for one thing in engineering notes:
not ``ts`` (TypeScript, or the ``ts`` of ``event_ts``), ``min`` (minimum or minute), ``py``
(Python, or a file's ``.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["ABBREVIATIONS", "FORMS", "abbreviation_bridges"]

ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "prod": ("production",),
    "dev": ("development",),
    "stg": ("staging",),
    "db": ("database",),
    "dbs": ("databases",),
    "pg": ("postgres", "postgresql"),
    "postgres": ("postgresql",),
    "k8s": ("kubernetes",),
    "repo": ("repository",),
    "repos": ("repositories",),
    "env": ("environment",),
    "envs": ("environments",),
    "config": ("configuration",),
    "configs": ("configurations",),
    "cfg": ("config", "configuration"),
    "auth": ("authentication", "authorization"),
    "infra": ("infrastructure",),
    "perf": ("performance",),
    "impl": ("implementation",),
    "dep": ("dependency",),
    "deps": ("dependencies",),
    "docs": ("documentation",),
    "app": ("application",),
    "apps": ("applications",),
    "msg": ("message",),
    "msgs": ("messages",),
    "admin": ("administrator",),
    "mgmt": ("management",),
    "async": ("asynchronous",),
    "avg": ("average",),
    "approx": ("approximately",),
    "tz": ("timezone", "time zone"),
    "js": ("javascript",),
    "gh": ("github",),
    "hc": ("headcount",),
    "mins": ("minutes",),
    "secs": ("seconds",),
    "hrs": ("hours",),
    "pr": ("pull request",),
    "prs": ("pull requests",),
    "mr": ("merge request",),
    "dlq": ("dead letter queue",),
    "ci": ("continuous integration",),
    "lb": ("load balancer",),
    "vm": ("virtual machine",),
    "vms": ("virtual machines",),
    "ttl": ("time to live",),
    "sla": ("service level agreement",),
    "slo": ("service level objective",),
    "oom": ("out of memory",),
    "eol": ("end of life",),
    "pto": ("paid time off",),
    "ooo": ("out of office",),
    "wfh": ("work from home",),
}
"""Each short form (lower case) and what it stands for; a long form may itself be short for a
longer one (``postgres``, ``config``)."""


def _forms() -> dict[str, list[str]]:
    """Every form of the table and the other forms it may stand for, both ways."""
    others: dict[str, list[str]] = {}
    for short, longs in ABBREVIATIONS.items():
        for long in longs:
            others.setdefault(short, []).append(long)
            others.setdefault(long, []).append(short)
    for forms in list(others.values()):  # postgres ↔ postgresql, both short for pg
        for form in forms:
            others[form] = list(dict.fromkeys([*others[form], *(f for f in forms if f != form)]))
    return others


FORMS = _forms()
"""Every form of :data:`ABBREVIATIONS` and the forms it may stand for, both ways."""
_PHRASE = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    + "|".join(
        sorted((re.escape(f).replace(r"\ ", r"[\s-]+") for f in FORMS if " " in f), key=len)[::-1]
    )
    + r")(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def abbreviation_bridges(query: str, terms: Sequence[str]) -> dict[str, list[str]]:
    """The other forms of each word or phrase of ``query`` the table holds, by the query term
    they bridge (terms as :func:`memdir.text.fts_query_terms` makes them): ``production`` →
    ``prod``; ``dlq`` → the phrase ``dead letter queue``; and each word of "dead letter queue"
    the question writes → ``dlq`` (a chunk holding ``DLQ`` holds each of them)."""
    found: dict[str, list[str]] = {}
    held = set(terms)
    for term in terms:
        if term in FORMS:
            found[term] = [f for f in FORMS[term] if f not in held]
    for m in _PHRASE.finditer(query):
        phrase = " ".join(re.split(r"[\s-]+", m[0].lower()))
        others = [f for f in FORMS.get(phrase, ()) if f not in held and " " not in f]
        for word in phrase.split():
            if word in held and others:
                found[word] = list(dict.fromkeys([*found.get(word, ()), *others]))
    return {t: ws for t, ws in found.items() if ws}
