"""Check the agent-memory benchmark's questions against its workspace.

    python bench/agentmem/check.py [--memory engineer|designer] [--show ID ...]

Every question must have a known type and language, a unique id and a split; every gold range
must name a file of the workspace and lines that exist and are not blank; a multi-hop question
needs two groups in two different files, a negative none, a latest-state question its stale
statements; and a paraphrase question may share no content word with its gold lines. Exits 1
with one line per defect. ``--show`` prints the gold lines of the given questions.

The checker is independent of memdir's code: it must not share the tokenizer it is judging.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE / "workspace"
QUESTIONS = HERE / "questions.jsonl"
MEMORIES = {
    "engineer": (WORKSPACE, QUESTIONS),
    "designer": (HERE / "designer" / "workspace", HERE / "designer" / "questions.jsonl"),
}
"""The hand-written memories, each a workspace and its questions: an engineer's and a
designer's, each with a tuning half and a held-out test half."""


def add_memory_option(parser: argparse.ArgumentParser) -> None:
    """The ``--memory`` option of the bench's scripts: which of :data:`MEMORIES` to run on."""
    parser.add_argument(
        "--memory",
        choices=sorted(MEMORIES),
        default="engineer",
        help="which hand-written memory: the engineer's (default) or the designer's",
    )


def results_name(memory: str, what: str = "") -> str:
    """The stem of a results file: ``agentmem[-designer][-<what>]`` (the engineer's memory
    keeps the names its results had before there was a second one)."""
    parts = ["agentmem", *([memory] if memory != "engineer" else []), *([what] if what else [])]
    return "-".join(parts)


TYPES = ("exact", "paraphrase", "latest", "crosslingual", "multihop", "negative")
LANGS = ("en", "zh", "ja")
SPLITS = ("tune", "test")

_LATIN = re.compile(r"[a-z0-9][a-z0-9_\-./=]*", re.I)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
_KATAKANA = re.compile(r"[\u30a0-\u30ff]+")
_HIRAGANA = re.compile(r"[\u3040-\u309f]+")
_SCRIPT_RUN = re.compile(r"[\u30a0-\u30ff]+|[\u3040-\u309f]+|[^\u3040-\u30ff]+")
# Words that carry no content, in questions or notes. Small on purpose: the check is about
# content words, and a paraphrase should avoid even borderline ones.
_EN_STOP = set(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "done",
        "have",
        "has",
        "had",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "we",
        "our",
        "us",
        "you",
        "your",
        "i",
        "me",
        "my",
        "he",
        "she",
        "they",
        "them",
        "their",
        "his",
        "her",
        "not",
        "no",
        "yes",
        "if",
        "then",
        "than",
        "so",
        "about",
        "into",
        "over",
        "after",
        "before",
        "again",
        "any",
        "all",
        "some",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "just",
        "also",
        "very",
        "more",
        "most",
        "much",
        "many",
        "one",
        "ever",
        "still",
        "now",
        "yet",
        "out",
        "up",
        "down",
        "off",
        "only",
        "own",
        "same",
        "such",
        "too",
        "via",
        "per",
        "vs",
        "get",
        "got",
        "make",
        "made",
        "use",
        "used",
        "using",
        "did",
        "ask",
        "asked",
        "tell",
        "told",
        "say",
        "said",
        "any",
        "anything",
        "something",
        "thing",
        "things",
    ]
)
_ZH_FUNCTION = set(
    [
        "什么",
        "怎么",
        "哪个",
        "哪些",
        "哪里",
        "哪儿",
        "哪天",
        "多少",
        "为什",
        "么时",
        "什么时",
        "时候",
        "是不",
        "不是",
        "是否",
        "有没",
        "没有",
        "我们",
        "他们",
        "你们",
        "这个",
        "那个",
        "这次",
        "那次",
        "一下",
        "一个",
        "的是",
        "了吗",
        "是什",
        "么的",
        "当时",
        "之前",
        "之后",
        "现在",
        "目前",
        "最近",
        "如今",
        "以前",
        "后来",
        "是谁",
        "谁的",
        "的时",
        "候的",
        "还是",
        "可以",
        "需要",
        "应该",
        "因为",
        "所以",
        "然后",
        "就是",
        "已经",
        "以及",
        "还有",
        "关于",
        "对于",
    ]
)


def content_words(text: str) -> set[str]:
    """Latin words (crudely stemmed) and CJK bigrams that carry content."""
    words: set[str] = set()
    for raw in _LATIN.findall(text.lower()):
        for part in re.split(r"[\-./=]", raw):
            if len(part) < 2 or part in _EN_STOP:
                continue
            words.add(_stem(part))
    for run in _CJK.findall(text):
        # Han runs as bigrams (no word boundaries to go by), katakana words whole (ツール and
        # メール share only a suffix), hiragana not at all (particles and inflection).
        for piece in _SCRIPT_RUN.findall(run):
            if _KATAKANA.fullmatch(piece):
                words.add(piece)
            elif not _HIRAGANA.fullmatch(piece):
                for i in range(len(piece) - 1):
                    gram = piece[i : i + 2]
                    if gram not in _ZH_FUNCTION:
                        words.add(gram)
    return words


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def load(path: Path = QUESTIONS) -> list[dict]:
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                questions.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{path.name}:{number}: not JSON: {exc}") from None
    return questions


def _lines(
    path: str, cache: dict[str, list[str] | None], workspace: Path = WORKSPACE
) -> list[str] | None:
    if path not in cache:
        file = workspace / path
        cache[path] = file.read_text(encoding="utf-8").split("\n") if file.is_file() else None
    return cache[path]


def check(questions: list[dict], workspace: Path = WORKSPACE) -> list[str]:
    defects: list[str] = []
    files: dict[str, list[str] | None] = {}
    ids = Counter(q.get("id") for q in questions)
    for q in questions:
        qid = q.get("id", "?")
        say = lambda msg, qid=qid: defects.append(f"{qid}: {msg}")  # noqa: E731
        if ids[qid] > 1:
            say("duplicate id")
        if q.get("type") not in TYPES:
            say(f"unknown type {q.get('type')!r}")
        if q.get("lang") not in LANGS:
            say(f"unknown lang {q.get('lang')!r}")
        if q.get("split") not in SPLITS:
            say(f"split must be one of {SPLITS}")
        if not str(q.get("question", "")).strip():
            say("empty question")
        groups = q.get("gold")
        if not isinstance(groups, list):
            say("gold must be a list of groups")
            continue
        ranges = [r for group in groups for r in group] + list(q.get("stale", []))
        for r in ranges:
            lines = _lines(str(r.get("path")), files, workspace)
            if lines is None:
                say(f"no such file {r.get('path')!r}")
                continue
            start, end = r.get("start"), r.get("end")
            if not (isinstance(start, int) and isinstance(end, int) and 1 <= start <= end):
                say(f"bad range {start}-{end} in {r['path']}")
            elif end > len(lines):
                say(f"{r['path']} has {len(lines)} lines, range ends at {end}")
            elif not any(line.strip() for line in lines[start - 1 : end]):
                say(f"{r['path']}:{start}-{end} is blank")
        kind = q.get("type")
        if kind == "negative" and groups:
            say("a negative question has no gold")
        if kind != "negative" and not groups:
            say("no gold")
        if any(not group for group in groups):
            say("empty gold group")
        if kind == "multihop":
            paths = {r["path"] for group in groups for r in group}
            if len(groups) < 2 or len(paths) < 2:
                say("multihop needs two groups in two files")
        if kind == "latest" and not q.get("stale"):
            say("latest needs its stale statements")
        if kind == "paraphrase":
            asked = content_words(q["question"])
            for r in ranges:
                lines = _lines(r["path"], files, workspace) or []
                shared = asked & content_words("\n".join(lines[r["start"] - 1 : r["end"]]))
                if shared:
                    say(f"paraphrase shares {sorted(shared)} with {r['path']}:{r['start']}")
    return defects


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_memory_option(parser)
    parser.add_argument("--workspace", type=Path, default=None, help="default: --memory's")
    parser.add_argument("--questions", type=Path, default=None, help="default: --memory's")
    parser.add_argument("--show", nargs="*", default=None, help="print these questions' gold lines")
    args = parser.parse_args()
    workspace = args.workspace or MEMORIES[args.memory][0]
    questions = load(args.questions or MEMORIES[args.memory][1])
    if args.show is not None:
        files: dict[str, list[str] | None] = {}
        for q in questions:
            if args.show and q["id"] not in args.show:
                continue
            print(f"== {q['id']} [{q['type']}/{q['lang']}] {q['question']}  → {q.get('answer')}")
            for group in q["gold"]:
                for r in group:
                    lines = _lines(r["path"], files, workspace) or []
                    for n in range(r["start"], r["end"] + 1):
                        print(f"   {r['path']}:{n}: {lines[n - 1] if n <= len(lines) else '?'}")
        return 0
    defects = check(questions, workspace)
    for defect in defects:
        print(defect)
    counts = Counter((q.get("split"), q.get("type")) for q in questions)
    files = sorted(p for p in workspace.rglob("*") if p.is_file())
    print(f"{len(questions)} questions, {len(files)} files; {len(defects)} defects")
    for split in SPLITS:
        print(f"  {split}: " + ", ".join(f"{t} {counts[(split, t)]}" for t in TYPES))
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
