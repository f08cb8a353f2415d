"""Scale: index and query a generated workspace of 10,000 Markdown files (~100k chunks).

    python bench/scale.py [--files 10000] [--seed 1234] [--queries 1000] [--edits 20] [--limit N_FILES]

The workspace is synthetic but prose-like: words drawn from a seeded Zipf vocabulary (common
English function words first, then generated words), sentences with names, ISO and spelled-out
dates and numbers, ``#``/``##`` headings and bullet lists; one file in ten also has Chinese
paragraphs. Files average ~8k weighted characters, i.e. about ten chunks at the default
400-token chunking. The generated files are cached under ``bench/.cache/scale-<seed>-<files>/``
and copied to a scratch folder for every run, so each run starts from the same pristine files.

Measured: full index time (chunks/s), no-change sync, incremental sync after editing one file
(median of ``--edits``), keyword search latency over ``--queries`` vocabulary queries (max 10
results; ``refresh=False``, i.e. the search alone), the same for ``--refresh-queries`` queries
with the API's default ``refresh=True`` (each search first re-checks the workspace), the same
queries behind a path filter as the agent tools search (each held word of the query is then
confirmed in a note that passes it, for ``not_in_memory``), the English queries with their first
word between backticks (looked up as written too, as an agent quotes code), peak RSS
(ru_maxrss) and index size. Goals: incremental sync ≤ 100 ms, search p50 ≤ 5 ms.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from common import (
    CACHE_DIR,
    JsonDict,
    Store,
    base_parser,
    environment,
    index_files,
    latency_summary,
    peak_rss_mb,
    print_table,
    results_path,
    settings,
    store_overrides,
    warn_if_degraded,
    write_results,
)

NAME = "scale"
GENERATOR_VERSION = 1
GOALS = {"incremental_sync_median_ms": 100.0, "search_p50_ms": 5.0}
SEARCH_RESULTS = 10

_FUNCTION_WORDS = (
    "the of and to a in is that for it was on with as be by at this have from or had not are but "
    "an they which you one we all were there their been has will more when would who so no if "
    "about into than them can only other new some could time these two may then do first any my "
    "now such like our over man me even most made after also did many before must through back "
    "years where much your way well down should because each just those people how too little "
    "state good very make world still own see men work long get here between both life being "
    "under never day same another know while last might us great old year off come since against "
    "go came right used take three"
)
_ONSETS = "b c d f g h j k l m n p r s t v w z br ch cl cr dr fl gr pl pr sh sl st th tr"
_VOWELS = "a e i o u a e i o ai ea ou io"
CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "rk", "ng"]
# Common simplified Chinese characters, in rough frequency order.
HANZI = (
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对"
    "可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公"
    "同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正"
    "名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并"
    "内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表"
    "原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风"
    "战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫"
    "连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士"
    "转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像"
    "找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜"
)
_MONTHS = "January February March April May June July August September October November December"
FUNCTION_WORDS = _FUNCTION_WORDS.split()
ONSETS = _ONSETS.split()
VOWELS = _VOWELS.split()
MONTHS = _MONTHS.split()


# --------------------------------------------------------------------------- generator


def zipf_cum_weights(n: int, exponent: float = 1.05) -> list[float]:
    return list(itertools.accumulate(1.0 / (rank**exponent) for rank in range(1, n + 1)))


@dataclass(frozen=True, slots=True)
class Vocabulary:
    words: list[str]  # rank order: function words, then generated words
    word_cw: list[float]
    names: list[str]
    hanzi_words: list[str]
    hanzi_cw: list[float]

    @classmethod
    def build(cls, rng: random.Random, size: int = 30_000) -> Vocabulary:
        words = list(FUNCTION_WORDS)
        seen = set(words)
        while len(words) < size:
            syllables = rng.choices((1, 2, 3, 4), weights=(4, 5, 2, 1))[0]
            word = "".join(
                rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                for _ in range(syllables)
            )
            if word not in seen:
                seen.add(word)
                words.append(word)
        names: list[str] = []
        while len(names) < 400:
            first = (rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)).capitalize()
            last = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) for _ in range(2)).capitalize()
            names.append(f"{first}{rng.choice(VOWELS)} {last}{rng.choice(CODAS)}")
        hanzi_words = list(
            HANZI
        )  # single characters first (most frequent), then two-character words
        hanzi_seen = set(hanzi_words)
        while len(hanzi_words) < 4_000:
            word = rng.choice(HANZI[:300]) + rng.choice(HANZI)
            if word not in hanzi_seen:
                hanzi_seen.add(word)
                hanzi_words.append(word)
        return cls(
            words,
            zipf_cum_weights(len(words)),
            names,
            hanzi_words,
            zipf_cum_weights(len(hanzi_words)),
        )


class Writer:
    """Deterministic prose for one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.vocab = Vocabulary.build(self.rng)
        self.start = dt.date(2020, 1, 1)

    def date(self) -> dt.date:
        return self.start + dt.timedelta(days=self.rng.randrange(6 * 365))

    def sentence(self) -> str:
        rng = self.rng
        words = rng.choices(self.vocab.words, cum_weights=self.vocab.word_cw, k=rng.randint(7, 22))
        roll = rng.random()
        if roll < 0.25:
            words.insert(rng.randrange(len(words)), rng.choice(self.vocab.names))
        elif roll < 0.33:
            day = self.date()
            spelled = f"{day.day} {MONTHS[day.month - 1]} {day.year}"
            words.insert(rng.randrange(len(words)), rng.choice((day.isoformat(), spelled)))
        elif roll < 0.40:
            words.insert(rng.randrange(len(words)), str(rng.randint(2, 5000)))
        text = " ".join(words)
        return text[0].upper() + text[1:] + rng.choice(".....?!")

    def paragraph(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(3, 7)))

    def chinese_paragraph(self) -> str:
        rng = self.rng
        sentences = []
        for _ in range(rng.randint(2, 5)):
            words = rng.choices(
                self.vocab.hanzi_words, cum_weights=self.vocab.hanzi_cw, k=rng.randint(6, 18)
            )
            sentences.append("".join(words) + rng.choice("。。。！？"))
        return "".join(sentences)

    def title(self) -> str:
        words = self.rng.choices(self.vocab.words[100:3000], k=self.rng.randint(2, 5))
        return " ".join(w.capitalize() for w in words)

    def document(self, chinese: bool) -> str:
        rng = self.rng
        target = rng.randint(5_200, 11_400)  # weighted characters; CJK counts 4 (chunk sizing)
        blocks = [f"# {self.title()}", f"Date: {self.date().isoformat()}"]
        size = 0
        while size < target:
            roll = rng.random()
            if roll < 0.12:
                block = f"## {self.title()}"
            elif roll < 0.22:
                block = "\n".join(f"- {self.sentence()}" for _ in range(rng.randint(3, 6)))
            elif chinese and roll < 0.55:
                block = self.chinese_paragraph()
                size += 3 * len(block)
            else:
                block = self.paragraph()
            blocks.append(block)
            size += len(block) + 2
        return "\n\n".join(blocks) + "\n"


def file_path(n: int) -> str:
    return f"memory/notes/{n // 500:02d}/note-{n:05d}.md"


def generate(root: Path, files: int, seed: int) -> JsonDict:
    writer = Writer(seed)
    total_bytes = 0
    chinese_files = 0
    for n in range(files):
        chinese = n % 10 == 7  # exactly one file in ten
        chinese_files += chinese
        text = writer.document(chinese)
        target = root / file_path(n)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        total_bytes += len(text.encode("utf-8"))
    (root / "MEMORY.md").write_text(
        "# Memory\n\nLong-term notes for the scale benchmark.\n", encoding="utf-8"
    )
    return {"markdown_files": files + 1, "chinese_files": chinese_files, "bytes": total_bytes}


def markdown_bytes(root: Path) -> int:
    """Total size of the Markdown files under ``root`` (a cheap check that nobody edited them)."""
    return sum(p.stat().st_size for p in root.rglob("*.md") if ".memdir" not in p.parts)


def cached_workspace(files: int, seed: int) -> tuple[Path, JsonDict]:
    """The pristine generated workspace for (seed, files), generating it on a cache miss."""
    base = CACHE_DIR / f"scale-{seed}-{files}"
    manifest_path = base / "manifest.json"
    expected = {"generator_version": GENERATOR_VERSION, "seed": seed, "files": files}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if all(manifest.get(k) == v for k, v in expected.items()) and markdown_bytes(
            base / "workspace"
        ) == manifest.get("bytes_on_disk"):
            return base / "workspace", manifest
        print("cached workspace is stale or was modified; regenerating")
    shutil.rmtree(base, ignore_errors=True)
    (base / "workspace").mkdir(parents=True)
    print(f"generating {files} files (seed {seed}) into {base} …")
    stats = generate(base / "workspace", files, seed)
    manifest = {**expected, **stats, "bytes_on_disk": markdown_bytes(base / "workspace")}
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return base / "workspace", manifest


def make_queries(seed: int, count: int) -> list[str]:
    """Queries of 1–4 content words (ranks 100–5,000), some with a name; one in ten Chinese."""
    rng = random.Random(seed + 1)
    vocab = Vocabulary.build(random.Random(seed))
    content = vocab.words[100:5000]
    queries = []
    for i in range(count):
        if i % 10 == 9:
            queries.append("".join(rng.choices(vocab.hanzi_words[:1500], k=rng.randint(1, 3))))
            continue
        words = rng.sample(content, rng.randint(1, 4))
        if rng.random() < 0.15:
            words.append(rng.choice(vocab.names))
        queries.append(" ".join(words))
    return queries


# --------------------------------------------------------------------------- measurements


def edit_file(path: Path, rng: random.Random, writer: Writer) -> None:
    """A realistic small edit: append a new sentence to one existing paragraph."""
    lines = path.read_text(encoding="utf-8").split("\n")
    i = rng.choice([n for n, line in enumerate(lines) if len(line) > 200])
    lines[i] = f"{lines[i]} {writer.sentence()}"
    path.write_text("\n".join(lines), encoding="utf-8")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def timing(wall: Sequence[float], cpu: Sequence[float]) -> JsonDict:
    """Median/p95/max of wall time and median CPU time, in ms."""
    summary = latency_summary(wall)
    return {
        "n": len(wall),
        "median_ms": summary["p50_ms"],
        "p95_ms": summary["p95_ms"],
        "max_ms": summary["max_ms"],
        "median_cpu_ms": ms(statistics.median(cpu)),
    }


def measure_index(store: Store) -> JsonDict:
    full = store.sync()
    print(f"full index: {full.files_indexed} files in {full.seconds:.1f} s")
    chunks = store.chunk_count()
    return {
        "seconds": round(full.seconds, 2),
        "cpu_seconds": round(full.cpu_seconds, 2),
        "files_indexed": full.files_indexed,
        "chunks": chunks,
        "chunks_per_second": round(chunks / full.seconds, 1),
        "files_per_second": round(full.files_indexed / full.seconds, 1),
        "peak_rss_mb": peak_rss_mb(),
        "index_files_after_sync": index_files(store.index_path()),
    }


def measure_syncs(store: Store, workspace: Path, files: int, seed: int, edits: int) -> JsonDict:
    """No-change syncs, then ``edits`` syncs each after appending a sentence to one file."""
    noop = [store.sync() for _ in range(5)]
    rng = random.Random(seed + 2)
    writer = Writer(seed + 3)
    edited = []
    for _ in range(edits):
        edit_file(workspace / file_path(rng.randrange(files)), rng, writer)
        edited.append(store.sync())
    # The same edits with the changed file named, as the watcher (and memory_write) do.
    targeted = []
    for _ in range(edits):
        path = workspace / file_path(rng.randrange(files))
        edit_file(path, rng, writer)
        targeted.append(store.sync(paths=[path]))
    return {
        "no_change": timing([s.seconds for s in noop], [s.cpu_seconds for s in noop]),
        "incremental_full_walk": {
            **timing([s.seconds for s in edited], [s.cpu_seconds for s in edited]),
            "files_indexed_per_edit": sorted({s.files_indexed for s in edited}),
        },
        "incremental": {
            **timing([s.seconds for s in targeted], [s.cpu_seconds for s in targeted]),
            "files_indexed_per_edit": sorted({s.files_indexed for s in targeted}),
            "how": "Memory.sync(paths=[edited file]): what the watcher runs after an edit",
        },
        "edit_to_searchable": measure_watch(store, workspace, files, rng, writer),
    }


def measure_watch(
    store: Store, workspace: Path, files: int, rng: random.Random, writer: Writer
) -> JsonDict:
    """Seconds from saving an edit to finding it by search, with the watcher running."""
    mem = store._mem
    mem.start_watching()
    mem.search("warm up", refresh=True)
    delays = []
    try:
        for n in range(5):
            token = f"zqxwatch{n}marker"
            path = workspace / file_path(rng.randrange(files))
            path.write_text(path.read_text(encoding="utf-8") + f"\n{token}\n", encoding="utf-8")
            start = time.perf_counter()
            deadline = start + 10
            while time.perf_counter() < deadline:
                if mem.search(token, refresh=False).results:  # only what the watcher indexed
                    break
                time.sleep(0.02)
            delays.append(time.perf_counter() - start)
    finally:
        mem.stop_watching()
    return {
        "n": len(delays),
        "median_s": round(sorted(delays)[len(delays) // 2], 3),
        "max_s": round(max(delays), 3),
        "debounce_ms": mem.config["sync.watch_debounce_ms"],
    }


def measure_search(store: Store, queries: Sequence[str], refresh_queries: int) -> JsonDict:
    """Search latency with ``refresh=False``, then a few queries with the API default."""
    store.refresh = False
    _, first = store.timed_search(queries[0], SEARCH_RESULTS)  # cold
    for query in queries[:20]:
        store.search(query, SEARCH_RESULTS)  # warm-up
    wall: list[float] = []
    cpu: list[float] = []
    empty = 0
    for query in queries:
        hits, seconds = store.timed_search(query, SEARCH_RESULTS)
        wall.append(seconds)
        cpu.append(store.last_cpu_seconds)
        empty += not hits
    store.refresh = True  # the API default: every search first re-checks the files
    refreshed = [store.timed_search(q, SEARCH_RESULTS)[1] for q in queries[:refresh_queries]]
    store.refresh = False
    # As the agent tools search: behind a path filter (here one that hides nothing), which
    # also makes the search confirm each held word of the query in a note that passes it.
    filtered: list[float] = []
    for query in queries:
        start = time.perf_counter()
        store._mem.search(
            query,
            max_results=SEARCH_RESULTS,
            min_score=0.0,
            mode=store.mode,
            refresh=False,
            path_filter=lambda path, source: True,
        )
        filtered.append(time.perf_counter() - start)
    zh = [i for i in range(len(queries)) if i % 10 == 9]  # make_queries: one in ten is Chinese
    en = [i for i in range(len(queries)) if i % 10 != 9]
    # The English queries with their first word between backticks, as an agent quotes code:
    # the chunks holding it as written are looked up too (memdir.search.quoted).
    quoted = [
        store.timed_search(
            f"`{queries[i].split()[0]}` {' '.join(queries[i].split()[1:])}", SEARCH_RESULTS
        )[1]
        for i in en
    ]
    return {
        "max_results": SEARCH_RESULTS,
        "first_query_ms": ms(first),
        "all": latency_summary(wall),
        "all_cpu": latency_summary(cpu),
        "english": latency_summary([wall[i] for i in en]),
        "chinese": latency_summary([wall[i] for i in zh]),
        "with_refresh": latency_summary(refreshed),
        "behind_a_path_filter": latency_summary(filtered),
        "first_word_quoted": latency_summary(quoted),
        "queries_without_hits": empty,
    }


def main() -> None:
    parser = base_parser(__doc__ or NAME)
    parser.add_argument("--files", type=int, default=10_000, help="Markdown files to generate")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--queries", type=int, default=1000, help="search queries (≥ 500)")
    parser.add_argument("--edits", type=int, default=20, help="single-file edits (≥ 10)")
    parser.add_argument(
        "--refresh-queries",
        type=int,
        default=30,
        help="queries also timed with the API's default refresh-before-search",
    )
    args = parser.parse_args()
    files = args.limit if args.limit is not None else args.files

    pristine, manifest = cached_workspace(files, args.seed)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    rss_before = peak_rss_mb()
    with tempfile.TemporaryDirectory(prefix="scale-run-", dir=CACHE_DIR) as tmp:
        workspace = Path(tmp) / "workspace"
        # Copy the Markdown only: an index someone built inside the cache must not be reused.
        shutil.copytree(pristine, workspace, ignore=shutil.ignore_patterns(".memdir"))
        with Store(workspace, store_overrides(args), args.mode, refresh=False) as store:
            full = measure_index(store)
            syncs = measure_syncs(store, workspace, files, args.seed, args.edits)
            search = measure_search(
                store, make_queries(args.seed, args.queries), args.refresh_queries
            )
            status = store.status()
            db = store.index_path()
            modes = dict(store.effective_modes)
        warn_if_degraded(args.mode, modes)
        closed_files = index_files(db)

    figures: JsonDict = {
        "workspace": manifest,
        "full_index": full,
        "sync": syncs,
        "search": search,
        "memory": {
            "peak_rss_mb_before_index": rss_before,
            "peak_rss_mb_end": peak_rss_mb(),
            "index_mb_after_full_sync": round(
                sum(full["index_files_after_sync"].values()) / 1e6, 1
            ),
            "index_files_after_close": closed_files,
            "index_mb": round(sum(closed_files.values()) / 1e6, 1),
            "workspace_mb": round(manifest["bytes"] / 1e6, 1),
        },
        "effective_modes": modes,
        "status": status,
    }
    measured = {
        "incremental_sync_median_ms": syncs["incremental"]["median_ms"],
        "search_p50_ms": search["all"]["p50_ms"],
    }
    figures["goals"] = {
        key: {"target": GOALS[key], "value": value, "met": value <= GOALS[key]}
        for key, value in measured.items()
    }
    payload = {
        "benchmark": NAME,
        "figures": figures,
        "settings": settings(args, files=files, overrides=store_overrides(args)),
        "environment": environment(),
    }
    print_summary(figures, args.mode)
    write_results(results_path(NAME, args), payload)


def print_summary(figures: JsonDict, mode: str) -> None:
    full, syncs, search, mem = (
        figures["full_index"],
        figures["sync"],
        figures["search"],
        figures["memory"],
    )
    inc, noop = syncs["incremental"], syncs["no_change"]
    print(
        f"\nScale ({mode}): {figures['workspace']['markdown_files']} files, "
        f"{mem['workspace_mb']} MB of Markdown"
    )
    print_table(
        ["measure", "wall", "cpu", "goal"],
        [
            ["full index (s)", full["seconds"], full["cpu_seconds"], ""],
            ["chunks", full["chunks"], "", "~100k"],
            ["chunks/s", full["chunks_per_second"], "", ""],
            ["no-change sync median (ms)", noop["median_ms"], noop["median_cpu_ms"], ""],
            ["edit sync, changed path known (ms)", inc["median_ms"], inc["median_cpu_ms"], "≤ 100"],
            ["edit sync p95 (ms)", inc["p95_ms"], "", ""],
            [
                "edit sync, full walk (ms)",
                syncs["incremental_full_walk"]["median_ms"],
                syncs["incremental_full_walk"]["median_cpu_ms"],
                "",
            ],
            [
                "edit → searchable via watcher (s)",
                syncs["edit_to_searchable"]["median_s"],
                "",
                "~2",
            ],
            ["search p50 (ms)", search["all"]["p50_ms"], search["all_cpu"]["p50_ms"], "≤ 5"],
            ["search p95 (ms)", search["all"]["p95_ms"], search["all_cpu"]["p95_ms"], ""],
            ["search p50 en (ms)", search["english"]["p50_ms"], "", ""],
            ["search p50 zh (ms)", search["chinese"]["p50_ms"], "", ""],
            ["first (cold) query (ms)", search["first_query_ms"], "", ""],
            ["search p50, refresh=True (ms)", search["with_refresh"]["p50_ms"], "", ""],
            [
                "search p50, behind a path filter (ms)",
                search["behind_a_path_filter"]["p50_ms"],
                "",
                "",
            ],
            ["search p50, first word quoted (ms)", search["first_word_quoted"]["p50_ms"], "", ""],
            ["peak RSS (MB)", mem["peak_rss_mb_end"], "", ""],
            ["index MB right after full sync", mem["index_mb_after_full_sync"], "", ""],
            ["index MB after close", mem["index_mb"], "", ""],
        ],
        digits=2,
    )
    for goal, value in figures["goals"].items():
        print(f"goal {goal} ≤ {value['target']}: {'met' if value['met'] else 'MISSED'}")


if __name__ == "__main__":
    main()
