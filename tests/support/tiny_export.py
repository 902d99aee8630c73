"""A tiny ONNX export that stands in for the model's, made in a second (no PyTorch, no model files).

Its tokenizer reads characters and its graph averages a fixed random vector per character over the real tokens
and normalises the mean: an embedder as the ONNX backend runs it, with vectors that differ from text to text.
It is made with `onnx`, a build tool the serving process never imports.

`python -m tests.support.tiny_export MODEL DIRECTORY [--quantize]` takes the place of `python -m bot.embedding.export`
(`bot.embedding.backends.EXPORTER`); `EXPORTED` in the environment names a file it appends a line to.
"""

from __future__ import annotations

import argparse
import os
import string
import sys
from pathlib import Path

import numpy as np

from bot.embedding.onnx_backend import (
    EXPORT_FORMAT,
    MODEL_FILE,
    OUTPUT,
    TOKENIZER_FILE,
    ExportRecord,
    sha256_of,
)

ELSEWHERE = "/models/not-on-this-machine"  # a model whose files are not here: its export stands for it
DIMENSION = 16
PAD, UNKNOWN = "[PAD]", "[UNK]"


def write_tiny_export(directory: Path, *, model: str = ELSEWHERE, backend: str = "onnx") -> ExportRecord:
    directory.mkdir(parents=True, exist_ok=True)
    vocabulary = {PAD: 0, UNKNOWN: 1} | {c: i + 2 for i, c in enumerate(string.printable)}
    _write_tokenizer(vocabulary, directory / TOKENIZER_FILE)
    _write_graph(len(vocabulary), directory / MODEL_FILE)
    record = ExportRecord(
        format=EXPORT_FORMAT, backend=backend, model=model, model_id="tiny@1", dimension=DIMENSION,
        max_seq_length=128, pad_token=PAD, sources={"tiny": "0" * 64},
        files={name: sha256_of(directory / name) for name in (MODEL_FILE, TOKENIZER_FILE)},
    )
    record.write(directory)
    return record


def _write_tokenizer(vocabulary: dict[str, int], target: Path) -> None:
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token=UNKNOWN))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tokenizer.save(str(target))


def _write_graph(tokens: int, target: Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    table = np.random.default_rng(7).standard_normal((tokens, DIMENSION)).astype(np.float32)
    ids = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
           for name in ("input_ids", "attention_mask", "token_type_ids")]
    output = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", DIMENSION])
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["vectors"]),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask", "last"], ["mask3"]),
        helper.make_node("Mul", ["vectors", "mask3"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "second"], ["total"], keepdims=0),
        helper.make_node("ReduceSum", ["mask3", "second"], ["count"], keepdims=0),
        helper.make_node("Max", ["count", "one"], ["divisor"]),
        helper.make_node("Div", ["total", "divisor"], ["mean"]),
        helper.make_node("LpNormalization", ["mean"], [OUTPUT], axis=1, p=2),
    ]
    constants = [
        numpy_helper.from_array(table, "table"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "last"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "second"),
        numpy_helper.from_array(np.array([1.0], dtype=np.float32), "one"),
    ]
    graph = helper.make_graph(nodes, "tiny", ids, [output], initializer=constants)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--quantize", action="store_true")
    args = parser.parse_args(argv)
    try:
        write_tiny_export(args.directory, model=args.model, backend="onnx-int8" if args.quantize else "onnx")
    except OSError as exc:
        print(f"cannot write the export in {args.directory} ({exc.strerror or exc})", file=sys.stderr)
        return 1
    if "EXPORTED" in os.environ:
        with open(os.environ["EXPORTED"], "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {args.directory}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
