"""Export a sentence-transformers model to ONNX, and quantize it to int8 where asked: a build step.

This module needs the build tools (`pip install 'eksbot[build]'`: PyTorch, sentence-transformers, onnx); the
serving process never imports it. The export traces the model's transformer followed by its mean pooling
and L2 normalisation, then checks its vectors against the PyTorch model's before it is kept.

`python -m bot.embedding.export MODEL DIRECTORY [--quantize]` runs it as a process of its own, which is how
`bot.embedding.backends` makes an export: on failure it writes one line on stderr and exits with 1.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from bot.embedding.model import go_offline, local_model, model_identity, resolve_model
from bot.embedding.onnx_backend import (
    EXPORT_FORMAT,
    MODEL_FILE,
    OUTPUT,
    TOKENIZER_FILE,
    ExportRecord,
    OnnxEmbedder,
    sha256_of,
)
from bot.errors import ConfigError, EksBotError, IndexArtifactError

OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# Texts the export is checked on: short and long, both languages, one past the length limit.
PROBES = [
    "How do I request EFA devices in a pod spec?",
    "¿Qué variables de entorno necesito para que NCCL use EFA?",
    "FI_PROVIDER=efa",
    "Karpenter NodePool topology.kubernetes.io/zone " * 60,
    "",
]
# Smallest cosine between an export's vector and PyTorch's for the same text.
MIN_COSINE = {False: 0.9999, True: 0.95}

log = logging.getLogger(__name__)


def export_onnx(model: str, directory: Path, *, quantize: bool) -> ExportRecord:
    """Write `model.onnx` (int8 weights when `quantize`), `tokenizer.json` and `export.json` into `directory`."""
    # Before PyTorch and the model are loaded, which takes a while, only to find the directory read-only.
    check_writable(directory)
    go_offline()
    import torch
    from sentence_transformers import SentenceTransformer

    location = resolve_model(model)
    try:
        st: Any = SentenceTransformer(location, device="cpu")
    except OSError as exc:
        raise ConfigError(f"cannot load embedding model {model!r} from local files ({exc.__class__.__name__})") from exc
    st.eval()
    _check_pipeline(st, model)
    transformer, source = st[0], local_model(model)
    if source is None:
        raise ConfigError(f"the files of {model!r} are not on this machine: set EKSBOT_EMBEDDING_MODEL to a directory")
    backend = "onnx-int8" if quantize else "onnx"
    with tempfile.TemporaryDirectory(dir=directory, prefix=".export-") as tmp:
        staging = Path(tmp)
        traced = staging / "traced.onnx"
        _trace(_pooled(transformer.auto_model, torch), transformer.tokenizer, traced, torch)
        if quantize:
            _quantize(traced, staging / MODEL_FILE)
            traced.unlink()
        else:
            traced.rename(staging / MODEL_FILE)
        _write_tokenizer(transformer.tokenizer, source, staging / TOKENIZER_FILE)
        files = {name: sha256_of(staging / name) for name in (MODEL_FILE, TOKENIZER_FILE)}
        record = ExportRecord(
            format=EXPORT_FORMAT, backend=backend, model=model, model_id=model_identity(model),
            dimension=_dimension(st), max_seq_length=int(st.max_seq_length),
            pad_token=str(transformer.tokenizer.pad_token), sources=_sources(source), files=files,
            tools=_tools(quantize), exported_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        record.write(staging)
        _check_against(st, OnnxEmbedder(staging), MIN_COSINE[quantize])
        (directory / "export.json").unlink(missing_ok=True)
        for name in files:
            os.replace(staging / name, directory / name)
        record.write(directory)
    log.info("model exported to ONNX", extra={"backend": backend, "directory": str(directory)})
    return record


def check_writable(directory: Path) -> None:
    """IndexArtifactError naming `directory` when files cannot be made in it (made when missing). Tried with
    a file, since permission bits tell nothing to root or on a read-only mount."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise IndexArtifactError(f"{directory} cannot be written ({exc.strerror or exc})") from exc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.embedding.export",
                                     description="export a sentence-transformers model to ONNX")
    parser.add_argument("model", help="the model's name or directory (EKSBOT_EMBEDDING_MODEL)")
    parser.add_argument("directory", type=Path, help="where the export is written")
    parser.add_argument("--quantize", action="store_true", help="int8 weights (the onnx-int8 backend)")
    args = parser.parse_args(argv)
    try:
        export_onnx(args.model, args.directory, quantize=args.quantize)
    except ImportError as exc:
        print(f"exporting the model to ONNX needs the build tools ({exc.name} is missing): "
              "pip install 'eksbot[build]', or build the index where they are installed", file=sys.stderr)
        return 1
    except EksBotError as exc:
        print(exc, file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"cannot write the export in {args.directory} ({exc.strerror or exc})", file=sys.stderr)
        return 1
    return 0


def _dimension(st: Any) -> int:
    """sentence-transformers 6 renamed the method (the old name warns)."""
    method = getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
    return int(method() or 0)


def _check_pipeline(st: Any, model: str) -> None:
    """The export reproduces transformer -> mean pooling (-> normalisation); other pipelines stay on torch."""
    kinds = [type(module).__name__ for module in st]
    pooling = st[1].get_config_dict() if kinds[1:2] == ["Pooling"] else {}
    modes = {key: value for key, value in pooling.items() if key.startswith("pooling_mode")}
    # sentence-transformers 6 names one mode; earlier versions set one flag per mode.
    mean = modes.get("pooling_mode") == "mean" or (
        modes.get("pooling_mode_mean_tokens") is True and sum(v is True for v in modes.values()) == 1)
    if kinds[0] != "Transformer" or not mean or any(kind != "Normalize" for kind in kinds[2:]):
        raise ConfigError(
            f"{model!r} is not a transformer with mean pooling ({' -> '.join(kinds)}, {modes}), which is what the "
            "ONNX export reproduces: set EKSBOT_EMBEDDING_BACKEND=torch for it"
        )


def _pooled(transformer: Any, torch: Any) -> Any:
    """The module traced: the transformer, then mean pooling over real tokens and L2 normalisation."""

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            tokens = self.transformer(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)[0]
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            mean = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    return Pooled().eval()


def _trace(module: Any, tokenizer: Any, target: Path, torch: Any) -> None:
    sample = tokenizer(PROBES[:2], padding=True, return_tensors="pt")
    axes = {name: {0: "batch", 1: "sequence"} for name in INPUTS}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # the tracer's notes on constant shapes and the exporter's deprecation
        torch.onnx.export(
            module, tuple(sample[name] for name in INPUTS), str(target), input_names=list(INPUTS),
            output_names=[OUTPUT], dynamic_axes={**axes, OUTPUT: {0: "batch"}}, opset_version=OPSET,
            do_constant_folding=True, dynamo=False,
        )


def _quantize(source: Path, target: Path) -> None:
    """Dynamic quantization: int8 weights (one scale per output channel: per-tensor scales cost the vectors
    four times as much), activations quantized per batch at run time."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _quiet_root_logger():
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True)


@contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """The quantizer advises pre-processing on the root logger at every call."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


def _write_tokenizer(tokenizer: Any, source: Path, target: Path) -> None:
    if (source / TOKENIZER_FILE).is_file():
        shutil.copyfile(source / TOKENIZER_FILE, target)
    elif hasattr(tokenizer, "backend_tokenizer"):
        tokenizer.backend_tokenizer.save(str(target))
    else:
        raise ConfigError(f"the model in {source} has no fast tokenizer (tokenizer.json) for the ONNX backends")


def _sources(source: Path) -> dict[str, str]:
    return {
        file.relative_to(source).as_posix(): sha256_of(file)
        for file in sorted(source.rglob("*")) if file.is_file()
    }


def _tools(quantize: bool) -> dict[str, str]:
    names = ["torch", "transformers", "sentence-transformers", "onnxruntime"] + (["onnx"] if quantize else [])
    return {name: version(name) for name in names} | {"opset": str(OPSET)}


def _check_against(st: Any, exported: OnnxEmbedder, min_cosine: float) -> None:
    expected = st.encode(PROBES, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    cosine = float(np.min(np.sum(exported.encode(PROBES) * expected, axis=1)))
    if cosine < min_cosine:
        raise ConfigError(f"the ONNX export's vectors differ from PyTorch's (cosine {cosine:.5f} < {min_cosine})")


if __name__ == "__main__":
    sys.exit(main())
