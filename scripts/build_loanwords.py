"""Build ``src/memdir/text/data/loanwords.tsv.gz``: katakana loanwords and the English words they
come from, read from UniDic (``pip install unidic-lite``; BSD licence, see the data folder).

    python scripts/build_loanwords.py [path/to/sys.dic]

UniDic gives each loanword a lemma naming its source word (``リリース-release``,
``アクセシビリティ-accessibility``) and lists the spellings it is written in (コンピューター,
コンピュータ). This keeps the katakana spellings of two characters or more whose source is
written in ASCII letters, with the English lower-cased and hyphens dropped (pick-up → pickup).
The output is one line per spelling, ``katakana<TAB>english|english``, then an empty line and
one line per English word, ``english<TAB>katakana|katakana``, each part sorted, so that memdir
finds a word by binary search without building a table: rebuilding from the same dictionary
gives the same bytes. A development tool: memdir reads the file it writes
and never needs UniDic itself.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import struct
import sys
from pathlib import Path

OUT = (
    Path(__file__).resolve().parent.parent / "src" / "memdir" / "text" / "data" / "loanwords.tsv.gz"
)
MAX_SPELLINGS = 6
"""At most this many katakana spellings are kept for an English word, the usual ones first
(most have one or two: コンピューター, コンピュータ); memdir asks memory which it holds."""
_KATAKANA = re.compile("[\u30a1-\u30fa\u30fc]{2,}")
_LEMMA = re.compile("([\u30a1-\u30fa\u30fc\u30fb]+)-([A-Za-z][A-Za-z' -]*)")


def features(sys_dic: Path) -> list[str]:
    """The feature strings of a MeCab system dictionary: a 72-byte header (magic, version, type,
    lexicon size, left and right sizes, then the sizes of the double array, the token table and
    the feature blob, a spare word and a 32-byte charset), the three sections, in that order."""
    data = sys_dic.read_bytes()
    dsize, tsize, fsize = struct.unpack_from("<3I", data, 24)
    start = 72 + dsize + tsize
    blob = data[start : start + fsize]
    return [s.decode("utf-8", "replace") for s in blob.split(b"\x00") if s]


def loanwords(lines: list[str], lemmas: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """``{katakana spelling: English words}`` from UniDic feature lines; ``lemmas``, when given,
    collects ``{English word: the spellings its lemmas are written in}`` (the usual ones)."""
    out: dict[str, set[str]] = {}
    for line in lines:
        if "-" not in line:
            continue
        fields = next(csv.reader(io.StringIO(line)))
        if len(fields) < 11 or (m := _LEMMA.fullmatch(fields[7])) is None:
            continue
        english = " ".join(m.group(2).replace("-", "").lower().split())
        if not english:
            continue
        for spelling in {m.group(1), fields[8], fields[10]}:
            spelling = spelling.replace("・", "")
            if _KATAKANA.fullmatch(spelling):
                out.setdefault(spelling, set()).add(english)
        lemma = m.group(1).replace("・", "")
        if lemmas is not None and _KATAKANA.fullmatch(lemma):
            lemmas.setdefault(english, set()).add(lemma)
    return out


def main() -> int:
    if len(sys.argv) > 1:
        sys_dic = Path(sys.argv[1])
    else:
        import unidic_lite  # type: ignore[import-not-found]

        sys_dic = Path(unidic_lite.DICDIR) / "sys.dic"
    lemmas: dict[str, set[str]] = {}
    table = loanwords(features(sys_dic), lemmas)
    reverse: dict[str, set[str]] = {}
    for spelling, words in table.items():
        for word in words:
            reverse.setdefault(word, set()).add(spelling)
    forward = "".join(f"{k}\t{'|'.join(sorted(v))}\n" for k, v in sorted(table.items()))
    # the lemma's spelling first (レビュー, not リヴュー), then the shortest
    backward = "".join(
        f"{w}\t{'|'.join(sorted(v, key=lambda k: (k not in lemmas.get(w, ()), len(k), k))[:MAX_SPELLINGS])}\n"
        for w, v in sorted(reverse.items())
    )
    text = f"{forward}\n{backward}"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
        fh.write(text.encode("utf-8"))
    print(f"{len(table):,} spellings -> {OUT} ({OUT.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
