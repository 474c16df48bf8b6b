"""Python API of the checkpoint analyser (what ``tfmigrate ckpt`` and ``tfmigrate report`` call).

    inspect(path) -> dict   # {"schema": 1, "checkpoint", "format", "writer", "era", "era_evidence", "data", "variables": [...]}; no TF
    diff(checkpoint, model, model_result=None) -> dict   # {"schema": 1, "checkpoint", "compatible", "verdict", "pairs", ...}
    convert(checkpoint, out, map="auto", model=None, drop_optimizer=False) -> dict

Errors raise :class:`~tfmigrate.checkpoint.index.CheckpointError` (one line). ``inspect`` and the
checkpoint side of ``diff`` never import TensorFlow; deriving a model's variables and writing a
checkpoint run TensorFlow in a child process.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tfmigrate.checkpoint import classify, index
from tfmigrate.checkpoint.index import CheckpointError

SCHEMA = 1


INDEX_ONLY = "index only: names, shapes and dtypes from the .index; values need the data shards ({why})"
GRAPH_ONLY = ("graph only: the variables of the graph in the .meta (the names a default Saver saves them under), "
              "no checkpoint to read values from ({why})")


def _read_names(path: str | os.PathLike[str]) -> tuple[index.Checkpoint, str | None]:
    """The checkpoint's names, shapes and dtypes from its index; from the graph of its ``.meta`` when
    only that is there. Returns it and why its values cannot be read (None: they can)."""
    from tfmigrate.checkpoint import meta

    try:
        ck = index.read(path, check_data=False)
    except index.MetaOnly as exc:
        return meta.read(exc.prefix), GRAPH_ONLY.format(why=exc)
    problem = index.data_problem(ck)
    return ck, None if problem is None else INDEX_ONLY.format(why=problem)


def inspect(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Names, shapes and dtypes from the index alone: a missing or truncated data shard is said in
    ``data`` (``"complete"`` or ``"index only: ..."``), not an error; only values need the shards."""
    from tfmigrate.checkpoint import era

    ck, problem = _read_names(path)
    dated = era.era(ck)
    return {
        "schema": SCHEMA,
        "checkpoint": ck.prefix,
        "format": ck.format,
        "writer": classify.writer(ck.entries),
        "era": dated["era"],
        "era_evidence": dated["evidence"],
        "data": "complete" if problem is None else problem,
        "variables": [
            {"name": e.name, "dtype": e.dtype, "shape": list(e.shape), "bytes": e.bytes, "kind": classify.kind(e.name)}
            for e in sorted(ck.entries, key=lambda e: e.name)
        ],
    }


def _model(model: str) -> dict[str, Any]:
    from tfmigrate.checkpoint import targets

    return targets.model_variables(targets.parse_target(model))


def diff(checkpoint: str | os.PathLike[str], model: str, *, model_result: dict[str, Any] | None = None) -> dict[str, Any]:
    """Compare CHECKPOINT with the variables MODEL (a TARGET: file.py:function, file.py[:LINE] or a
    checkpoint) will create. ``model_result`` is those variables when the caller already has them
    (``{"model": {...}, "variables": [{"name", "dtype", "shape"}, ...]}``, what
    :func:`tfmigrate.checkpoint.targets.model_variables` returns): then no TF child process runs and
    ``model`` only names the target in the report."""
    ck, problem = _read_names(checkpoint)  # checkpoint errors before any TF process starts
    from tfmigrate.checkpoint import compare

    result = model_result or _model(str(model))
    info = dict(result["model"])
    info.setdefault("target", str(model))
    ck_vars = [{"name": e.name, "dtype": e.dtype, "shape": e.shape} for e in ck.entries]
    out = compare.diff(ck_vars, result["variables"], info, ck.prefix)
    if problem is not None:  # names and shapes suffice for a diff; say when values are absent
        out["notes"] = [problem, *out.get("notes", [])]
    return out


def read_map_file(path: str | os.PathLike[str]) -> tuple[dict[str, str], list[str]]:
    """``map.toml``: an optional top-level ``drop = ["name", ...]`` and a ``[map]`` table of
    ``"old/name" = "new/name"``. Tensors in neither are copied under their own names."""
    import tomllib

    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{p}: cannot read the name map: {exc}") from None
    table = dict(data.get("map", {}))
    drop = data.get("drop", [])
    if isinstance(table.get("drop"), list):  # `drop = [...]` written after the [map] header lands in it
        drop = [*drop, *table.pop("drop")]
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise CheckpointError(f"{p}: [map] must be a table of \"old\" = \"new\" strings")
    if not isinstance(drop, list) or not all(isinstance(x, str) for x in drop):
        raise CheckpointError(f"{p}: drop must be a list of tensor names")
    return table, drop


def convert(checkpoint: str | os.PathLike[str], out: str | os.PathLike[str], map: str = "auto",  # noqa: A002
            model: str | None = None, drop_optimizer: bool = False, *, model_result: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write OUT (a new model_dir: ``OUT/model.ckpt-STEP`` + ``checkpoint`` state file) with renamed
    tensors; verify by reading it back and, with ``model``, by a diff. Never writes over its input.
    With ``model`` and ``map="auto"``, the model's optimizer state is written too: legacy slots renamed,
    the rest as its optimizer initialises them (``global_step`` kept), so ``train()`` goes on from it.
    ``model_result``: the model's variables when the caller has them (as :func:`diff`)."""
    import json

    from tfmigrate.checkpoint import names, targets

    ck = index.read(checkpoint)
    out_dir = Path(out)
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise CheckpointError(f"{out_dir}: exists and is not an empty directory: convert never writes over anything")
    src_dirs = {Path(f).resolve().parent for f in ck.files}
    if out_dir.resolve() in src_dirs:
        raise CheckpointError(f"{out_dir}: is the input checkpoint's directory: convert never writes over its input")
    ck_shapes = {e.name: e.shape for e in ck.entries}
    if model and model_result is None:
        model_result = _model(model)
    target_shapes = {v["name"]: v["shape"] for v in model_result["variables"]} if model_result else None
    if map == "auto":
        init = {v["name"]: v["init"] for v in model_result["variables"] if "init" in v} if model_result else None
        dtypes = {v["name"]: v["dtype"] for v in model_result["variables"]} if model_result else None
        p = names.plan(ck_shapes, target_shapes, drop_optimizer=drop_optimizer, target_init=init, target_dtypes=dtypes)
        ops, not_carried, notes = p.ops, p.not_carried, p.notes
    else:
        table, drop = read_map_file(map)
        unknown = [k for k in [*table, *drop] if k not in ck_shapes]
        if unknown:
            raise CheckpointError(f"{map}: {unknown[0]} is not in {ck.prefix}")
        ops, not_carried, notes = [], {}, []
        for name in ck_shapes:
            if name in drop:
                not_carried[name] = "dropped by the map"
            elif drop_optimizer and classify.kind(name) == "optimizer":
                not_carried[name] = "--drop-optimizer"
            else:
                ops.append({"new": table.get(name, name), "op": "copy", "src": [name]})
    if not ops:
        raise CheckpointError(f"{ck.prefix}: nothing to write (no tensor could be carried)")
    news = [o["new"] for o in ops]
    if len(set(news)) != len(news):
        dup = next(n for n in news if news.count(n) > 1)
        raise CheckpointError(f"name map writes {dup} twice")
    request = {"source": ck.prefix, "out_dir": str(out_dir.resolve()), "ops": ops}
    result = targets.run_child(["convert"], stdin=json.dumps(request))
    prefix = result["prefix"]
    written = index.read(prefix)
    expect = {o["new"] for o in ops}
    got = {e.name for e in written.entries}
    if got != expect:
        raise CheckpointError(f"{prefix}: read-back check failed: wrote {sorted(got ^ expect)[:3]} unexpectedly")
    (out_dir / "checkpoint").write_text(
        f'model_checkpoint_path: "{Path(prefix).name}"\nall_model_checkpoint_paths: "{Path(prefix).name}"\n', encoding="utf-8")
    report: dict[str, Any] = {
        "schema": SCHEMA, "checkpoint": ck.prefix, "out": prefix, "name_map": {o["src"][0]: o["new"] for o in ops if o["src"]},
        "ops": ops, "not_carried": not_carried, "notes": notes, "verified": True,
    }
    if model_result is not None:
        report["diff"] = diff(prefix, str(model), model_result=model_result)
    return report
