"""The variables of a graph, from a ``.meta`` file alone (a ``MetaGraphDef``; no TensorFlow import).

Repositories often commit ``model.ckpt.meta`` but not the checkpoint itself (a V1 ``model.ckpt``
or a ``.data-*`` shard of several MB). The graph still says which variables the program made: each
``Variable`` / ``VariableV2`` / ``VarHandleOp`` node, its ``dtype`` and ``shape`` attributes. A
default ``tf.train.Saver`` saves each under its op name, which is what :func:`read` lists.

MetaGraphDef: 1 meta_info_def, 2 graph_def, 3 saver_def. GraphDef: 1 node (NodeDef: 1 name, 2 op,
5 attr map entries: 1 key, 2 AttrValue: 6 type, 7 shape).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tfmigrate.checkpoint.index import (
    DTYPES, MAX_INDEX_BYTES, Checkpoint, CheckpointError, Entry, _Corrupt, _one, open_regular, parse_fields, parse_shape, read_varint,
)

MAX_META_SCAN = 1 << 30  # a .meta larger than this is not looked into
MAX_GRAPH_BYTES = 256 << 20
VARIABLE_OPS = {b"Variable", b"VariableV2", b"VarHandleOp"}


def fields_of(path: Path, wanted: set[int], limit: int = MAX_INDEX_BYTES) -> dict[int, bytes]:
    """The top-level length-delimited fields ``wanted`` of a protobuf file, skipping the others
    (a ``graph_def`` can be large: it is seeked over, never read). Raises _Corrupt / OSError."""
    out: dict[int, bytes] = {}
    with open_regular(path) as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size > MAX_META_SCAN:
            raise _Corrupt(f"{size} bytes")
        pos = 0
        while pos < size:
            fh.seek(pos)
            head = fh.read(20)
            key, n = read_varint(head, 0)
            number, wire = key >> 3, key & 7
            if wire != 2 or number == 0:
                raise _Corrupt(f"top-level field {number} has wire type {wire}: not a MetaGraphDef")
            length, n = read_varint(head, n)
            start = pos + n
            if start + length > size:
                raise _Corrupt("field runs past the end of the file (truncated .meta?)")
            if number in wanted:
                if length > limit:
                    raise _Corrupt(f"field {number} of {length} bytes")
                fh.seek(start)
                out[number] = fh.read(length)
            pos = start + length
    return out



def read(prefix: str) -> Checkpoint:
    """A :class:`Checkpoint` (format ``meta-only``) of the variables the graph in ``PREFIX.meta`` makes.
    Raises CheckpointError (one line) when the file is not a readable MetaGraphDef."""
    path = Path(prefix + ".meta")
    try:
        graph = fields_of(path, {2}, limit=MAX_GRAPH_BYTES).get(2)
        if graph is None:
            raise _Corrupt("no graph_def")
        entries = []
        for number, wire, node in parse_fields(graph):
            if number != 1 or wire != 2:
                continue
            fields = parse_fields(node)  # type: ignore[arg-type]
            if _one(fields, 2, b"") not in VARIABLE_OPS:
                continue
            name = _one(fields, 1, b"").decode("utf-8", "replace")  # type: ignore[union-attr]
            dtype, width, shape = "unknown", 0, []
            for n, w, entry in fields:
                if n != 5 or w != 2:
                    continue
                kv = parse_fields(entry)  # type: ignore[arg-type]
                key, value = _one(kv, 1, b""), _one(kv, 2, b"")
                attr = parse_fields(value) if value else []  # type: ignore[arg-type]
                if key == b"dtype":
                    code = _one(attr, 6, 0)
                    dtype, width = DTYPES.get(code % 100, (f"enum {code}", 0))  # type: ignore[operator]
                elif key == b"shape":
                    raw = _one(attr, 7, b"")
                    try:
                        shape = parse_shape(raw) if raw else []  # type: ignore[arg-type]
                    except _Corrupt:  # unknown rank (validate_shape=False): listed without a shape
                        shape = []
            e = Entry(name, dtype, shape, 0)
            e.bytes = e.num_elements * width
            entries.append(e)
    except (_Corrupt, OSError, ValueError, IndexError) as exc:
        raise CheckpointError(f"{path}: not readable as a MetaGraphDef ({exc})") from None
    if not entries:
        raise CheckpointError(f"{path}: the graph in this .meta makes no variables")
    return Checkpoint(prefix=prefix, format="meta-only", entries=_join_partitions(entries), num_shards=0, files=[str(path)])


_PART_RE = re.compile(r"^(?P<base>.+)/part_(?P<i>\d+)(?P<tail>/.+)?$")  # tail: a slot of a part (x/part_0/Adagrad)


def _join_partitions(entries: list[Entry]) -> list[Entry]:
    """``x/part_0``, ``x/part_1``... (a partitioned variable: a Saver saves it as ``x``; its slots
    ``x/part_0/Adagrad`` as ``x/Adagrad``) as one entry; the partitioners the legacy Estimators use split the first axis, whose lengths add up."""
    out: list[Entry] = []
    parts: dict[str, list[Entry]] = {}
    for e in entries:
        m = _PART_RE.match(e.name)
        if m:
            parts.setdefault(m.group("base") + (m.group("tail") or ""), []).append(e)
        else:
            out.append(e)
    for base, group in parts.items():
        rest = {tuple(e.shape[1:]) for e in group}
        if len(rest) != 1 or any(not e.shape for e in group):  # not split along the first axis: left as they are
            out.extend(group)
            continue
        shape = [sum(e.shape[0] for e in group), *group[0].shape[1:]]
        out.append(Entry(base, group[0].dtype, shape, sum(e.bytes for e in group), partitioned=True))
    return out
