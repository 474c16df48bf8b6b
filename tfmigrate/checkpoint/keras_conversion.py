"""What ``ckpt convert --to keras`` answers (canned models, :mod:`keras`; lowered model_fns, :mod:`keras_model_fn`),
and where it writes."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfmigrate.checkpoint import index
from tfmigrate.checkpoint.index import CheckpointError
from tfmigrate.results import ModelRef


@dataclass
class LayerTransfer:
    """One Keras layer and the checkpoint tensors its weights come from."""

    keras_layer: str  # hiddenlayer_0 ... logits, or an embedding column's name
    checkpoint_names: list[str]
    checkpoint_shapes: list[list[int] | None]
    op: str  # copy | add centered_bias_weight | stack columns | 2-class softmax -> sigmoid logit ...
    keras_shapes: list[list[int]] | None = None  # the layer's weights in the Keras model
    status: str = "match"  # match | shape_mismatch | missing_from_checkpoint | missing_from_model


@dataclass
class KerasConversion:
    """A checkpoint converted to the Keras model ``--target keras`` generates, verified by equal
    predictions (``ckpt convert --to keras --format json`` is this object, with ``schema`` and ``to``)."""

    checkpoint: str
    model: ModelRef  # target: ``file.py:LINE DNNClassifier``; model_dir: where canned_keras_model restores OUT from
    out: str | None  # the .weights.h5 written (None: nothing written)
    compatible: bool  # written, restored by the Keras model, and its predictions equal the checkpoint's
    verdict: str  # one line
    layers: list[LayerTransfer] = field(default_factory=list)
    not_carried: dict[str, str] = field(default_factory=dict)  # checkpoint model tensor -> why
    max_abs_diff: float | None = None  # Keras predict vs the numpy forward pass of the checkpoint's arrays
    rows: int = 0  # inputs compared
    step: int | None = None  # the checkpoint's global step (the optimizer's iterations in the file)
    writer: str | None = None
    notes: list[str] = field(default_factory=list)

    def report_fields(self, model: str | None = None) -> dict[str, Any]:
        """The report's ``tfmigrate.results.KerasConversion(**fields)`` (h/val): checkpoint, model (as
        the user names it; default the target), passed, verdict, out, max_difference, notes."""
        return {"checkpoint": self.checkpoint, "model": model or self.model.target, "passed": self.compatible,
                "verdict": self.verdict, "out": self.out, "max_difference": self.max_abs_diff, "notes": list(self.notes)}


def conversion_from_json(data: dict[str, Any]) -> KerasConversion:
    """A ``ckpt convert --to keras --format json`` object."""
    model = dict(data.get("model") or {})
    return KerasConversion(
        checkpoint=str(data.get("checkpoint", "?")),
        model=ModelRef(target=str(model.get("target", "?")), kind=model.get("kind"), cls=model.get("cls"), api=model.get("api"),
                       model_dir=model.get("model_dir")),
        out=data.get("out"), compatible=bool(data.get("compatible")), verdict=str(data.get("verdict", "")),
        layers=[LayerTransfer(**layer) for layer in data.get("layers") or []],
        not_carried=dict(data.get("not_carried") or {}), max_abs_diff=data.get("max_abs_diff"), rows=int(data.get("rows") or 0),
        step=data.get("step"), writer=data.get("writer"), notes=[str(n) for n in data.get("notes") or []],
    )



def out_path(out: str | os.PathLike[str], step: int | None, ck: index.Checkpoint) -> tuple[Path, str | None]:
    """(the .weights.h5 file to write, the model_dir canned_keras_model restores it from, or None)."""
    p = Path(out)
    if p.name.endswith(".weights.h5"):
        if p.exists():
            raise CheckpointError(f"{p}: exists: convert never writes over anything")
        if not p.parent.is_dir():
            raise CheckpointError(f"{p.parent}: no such directory")
        return p, None
    if p.exists() and (not p.is_dir() or any(p.iterdir())):
        raise CheckpointError(f"{p}: exists and is not an empty directory: convert never writes over anything "
                              f"(give a new model_dir, or a file named *.weights.h5)")
    if p.resolve() in {Path(f).resolve().parent for f in ck.files}:
        raise CheckpointError(f"{p}: is the input checkpoint's directory: convert never writes over its input")
    return p / f"model.ckpt-{step or 0}.weights.h5", str(p)


def run_child(command: list[str], request: dict[str, Any], workdir: str, what: str, timeout: float) -> dict[str, Any]:
    """Run a checkpoint child (``command``: tfmigrate's module under a TensorFlow interpreter, warm where
    ``$TFMIGRATE_WARM`` names a server) on ``request`` (JSON on stdin); its last JSON line, or CheckpointError
    (one line: ``what`` names the child)."""
    from tfmigrate.childproc import child_env, json_answer
    from tfmigrate.warm import run

    env = child_env(dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", ABSL_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore"), tmpdir=workdir)
    try:
        proc = run(command, input=json.dumps(request), capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise CheckpointError(f"{what} child process took longer than {timeout:.0f} s") from None
    except OSError as exc:
        raise CheckpointError(f"{command[0]}: cannot run: {exc.strerror or exc}") from None
    return json_answer(proc, what, CheckpointError)
