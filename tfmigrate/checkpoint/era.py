"""Which TensorFlow wrote a checkpoint, from evidence only (no TensorFlow import).

The tensor names say which *program* a checkpoint's names follow (:func:`classify.writer`: skflow,
contrib.learn, Estimator...); they do not say which TensorFlow wrote the file: TF 2.15 writes skflow
names as readily as TF 0.8 did. What does date a file, strongest first:

* the ``PREFIX.meta`` beside it (a ``MetaGraphDef``): ``meta_info_def.tensorflow_version`` is set by
  every ``export_meta_graph`` since TF 0.12 (``meta_graph.create_meta_info_def``); a ``.meta``
  without it was written before 0.12. Its ``saver_def.version`` says V1 or V2.
* the checkpoint format: a V1 table (no ``.index``) is what TF <= 0.11 wrote; TF 0.12 to 2.x
  write V1 only when asked (``Saver(write_version=SaverDef.V1)``). A V2 bundle (``.index`` +
  ``.data-*``) needs TF >= 0.12.
* an object graph (``_CHECKPOINTABLE_OBJECT_GRAPH``): ``tf.train.Checkpoint`` / Keras
  ``save_weights``, TF >= 1.8 (``contrib.eager`` ``checkpointable_utils``).
* a ``graph.pbtxt`` in the model_dir (Estimators write one): its ``versions { producer: N }``.

:func:`era` returns ``{"era": one line, "evidence": [lines]}``; every claim names its evidence.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tfmigrate.checkpoint import classify
from tfmigrate.checkpoint.index import Checkpoint, _Corrupt, open_regular, parse_fields
from tfmigrate.checkpoint.meta import fields_of

_SAVER_VERSIONS = {0: "LEGACY (V1)", 1: "V1", 2: "V2"}


def meta_info(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What a ``.meta`` file says about its writer: ``tensorflow_version``, ``tensorflow_git_version``,
    ``saver_version`` (when present), or ``{"error": one line}``."""
    p = Path(path)
    try:
        top = fields_of(p, {1, 3})
        info: dict[str, Any] = {}
        if 1 not in top:
            raise _Corrupt("no meta_info_def")
        if 1 in top:
            for n, w, v in parse_fields(top[1]):
                if w == 2 and n == 5:
                    info["tensorflow_version"] = v.decode("utf-8", "replace")  # type: ignore[union-attr]
                elif w == 2 and n == 6:
                    info["tensorflow_git_version"] = v.decode("utf-8", "replace")  # type: ignore[union-attr]
        if 3 in top:
            for n, w, v in parse_fields(top[3]):
                if n == 7 and w == 0:
                    info["saver_version"] = _SAVER_VERSIONS.get(v, str(v))  # type: ignore[arg-type]
            info.setdefault("saver_version", "LEGACY (V1)")  # proto3 default: the field is absent for 0
        return info
    except (_Corrupt, OSError, ValueError, IndexError) as exc:
        return {"error": f"{p.name}: not readable as a MetaGraphDef ({exc})"}


_PRODUCER_RE = re.compile(r"^versions\s*\{\s*producer:\s*(\d+)", re.M)


def graph_producer(directory: Path) -> int | None:
    """``versions { producer: N }`` of a model_dir's ``graph.pbtxt`` (the last lines of the file)."""
    p = directory / "graph.pbtxt"
    try:
        with open_regular(p) as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 4096))
            tail = fh.read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    m = _PRODUCER_RE.search(tail)
    return int(m.group(1)) if m else None


def era(ck: Checkpoint) -> dict[str, Any]:
    """``{"era": str, "evidence": [str]}`` for a checkpoint read by :func:`index.read`."""
    evidence: list[str] = []
    names = [e.name for e in ck.entries]
    version = None
    meta = Path(ck.prefix + ".meta")
    if meta.is_file():
        info = meta_info(meta)
        if "error" in info:
            evidence.append(info["error"])
        elif info.get("tensorflow_version"):
            version = info["tensorflow_version"]
            evidence.append(f"{meta.name}: meta_info_def.tensorflow_version = {version!r}"
                            + (f", saver_def.version = {info['saver_version']}" if "saver_version" in info else ""))
        else:
            version = "<0.12"
            evidence.append(f"{meta.name} has no tensorflow_version (every TF >= 0.12 records one)")
    if ck.format == "meta-only":
        evidence.append("only the .meta (the graph): the checkpoint's own files are absent, its format unknown")
    elif ck.format == "v1":
        evidence.append("V1 table format (no .index): the default of TF <= 0.11; later TF writes it only with write_version=V1")
    else:
        evidence.append("V2 bundle format (.index + .data-*): TF >= 0.12")
    object_based = "_CHECKPOINTABLE_OBJECT_GRAPH" in names
    if object_based:
        evidence.append("_CHECKPOINTABLE_OBJECT_GRAPH key: object-based saving, TF >= 1.8")
    producer = graph_producer(Path(ck.prefix).parent)
    if producer is not None:
        evidence.append(f"graph.pbtxt: GraphDef producer {producer}")
    conv = classify.writer(names)
    if conv != "unknown":
        evidence.append(f"tensor names follow {classify.WRITERS[conv]} conventions (names do not date a file)")
    if version and version != "<0.12":
        label = f"TF {version}"
    elif version == "<0.12":
        label = "TF <= 0.11"
    elif object_based:
        label = "TF >= 1.8 (object-based)"
    elif ck.format == "v1":
        label = "TF <= 0.11 (V1 format; or a later TF asked for V1)"
    elif ck.format == "meta-only":
        label = "unknown (only a .meta, without a version)"
    else:
        label = "TF >= 0.12 (V2 format; no .meta to date it further)"
    if conv == "skflow-0.8" and ck.format == "v2":
        evidence.append("skflow 0.8 names in a V2 file: written by TF >= 0.12 under skflow's names, not by skflow 0.8 itself")
    return {"era": label, "evidence": evidence}
