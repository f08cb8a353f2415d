"""People named by their role: "my manager", 我老板, 上司, the PM, 设计师, as the notes declare
them (``- Manager: 周岚 (Zhou Lan)``, ``上司: 王蕾（Wang Lei）``, ``陈卓（Chen Zhuo）: PM``).

A question asks "What did my manager say about the HC?" or 上司对我的沟通方式提了什么意见？ of
notes that write the person's name and never the role. ``MEMORY.md`` or a people note declares
who holds it once; :func:`asked_roles` finds a role the question names for the asker (not
青橙老板, a client's boss, nor "the manager of the relay team"), :func:`declared_roles` the
names a text declares for each role, and search bridges the one to the other
(:func:`memdir.search.keyword.query_profile`).
"""

from __future__ import annotations

import re

__all__ = ["ROLES", "asked_role_spans", "asked_roles", "declared_roles", "role_words"]

ROLES: dict[str, tuple[str, ...]] = {
    "manager": (
        "manager",
        "boss",
        "line manager",
        "经理",
        "老板",
        "上司",
        "领导",
        "主管",
        "头儿",
        "上長",
        "マネージャー",
        "매니저",
        "상사",
        "팀장",
    ),
    "pm": ("pm", "product manager", "产品经理", "プロダクトマネージャー"),
    "designer": ("designer", "设计师", "デザイナー", "디자이너"),
}
"""Each role and the words for it, in lower case."""

_HAN_NAME = r"[\u4e00-\u9fff\u3005]{2,4}(?:\s[\u4e00-\u9fff]{1,3})?"
_LATIN_NAME = r"[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2}"
_ALIAS = r"(?:\s*[（(][^()（）\n]{1,40}[)）])?"


def _alternatives(words: tuple[str, ...] | list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_ROLE_OF = {w: role for role, words in ROLES.items() for w in words}
_ANY_ROLE = _alternatives(list(_ROLE_OF))
_DECLARED = re.compile(
    # Manager: 周岚 (Zhou Lan); 上司: 王蕾（Wang Lei）
    rf"(?m)(?:^|[\s,;，；。.|*-])(?i:(?P<role>{_ANY_ROLE}))\s*[:：]\s*"
    rf"(?P<name>{_HAN_NAME}|{_LATIN_NAME})"
    # 陈卓（Chen Zhuo）: PM、…
    rf"|(?:^|[\s,;，；。.|*-])(?P<name2>{_HAN_NAME}|{_LATIN_NAME}){_ALIAS}\s*[:：]\s*"
    rf"(?i:(?P<role2>{_ANY_ROLE}))(?![A-Za-z])"
)
_ASKED = re.compile(rf"(?i)(?P<role>{_ANY_ROLE})(?![A-Za-z])")
_MINE_BEFORE = re.compile(
    r"(?i)(?:\b(?:my|our)\s+|我的|我们的|我們的|我|咱们的?|私の|うちの|제\s?|저희\s?|우리\s?|\bthe\s+)$"
)
_NOTHING_BEFORE = re.compile(r"(?:^|[\s\W])$")


def role_words(role: str) -> tuple[str, ...]:
    """The words for ``role`` (:data:`ROLES`)."""
    return ROLES[role]


def asked_roles(query: str) -> list[tuple[str, str]]:
    """``(word, role)`` for each role the question names for the asker: "my manager", "the
    PM", 我老板, 上司 at the start of a clause; not a role qualified by a name or a word (青橙
    老板, "the relay team's manager", "the manager of …"), nor part of a name (cert-manager)."""
    return [(query[a:b].lower(), role) for a, b, role in asked_role_spans(query)]


def asked_role_spans(query: str) -> list[tuple[int, int, str]]:
    """``(start, end, role)`` of each role :func:`asked_roles` finds."""
    found = []
    for m in _ASKED.finditer(query):
        before = query[: m.start()]
        if m.start() and query[m.start() - 1].isalpha() and query[m.start() - 1].isascii():
            continue  # inside an English word
        if m[0].isascii() and m.end() < len(query) and query[m.end()].isalnum():
            continue
        if before[-1:] in ("-", "_", ".", "/") or query[m.end() : m.end() + 1] in ("-", "_"):
            continue  # cert-manager, pm_tool: a part of a name
        if not (_MINE_BEFORE.search(before) or _NOTHING_BEFORE.search(before)):
            continue  # 青橙老板: another's
        if re.match(r"\s+of\b", query[m.end() :]):
            continue  # the manager of the relay team
        found.append((m.start(), m.end(), _ROLE_OF[m[0].lower()]))
    return found


def declared_roles(text: str) -> dict[str, list[str]]:
    """The names ``text`` declares for each role: ``- Manager: 周岚 (Zhou Lan)`` → manager:
    周岚; ``陈卓（Chen Zhuo）: PM`` → pm: 陈卓."""
    found: dict[str, list[str]] = {}
    for m in _DECLARED.finditer(text):
        role = (m["role"] or m["role2"]).lower()
        name = m["name"] or m["name2"]
        found.setdefault(_ROLE_OF[role], []).append(name)
    return {r: list(dict.fromkeys(ns)) for r, ns in found.items()}
