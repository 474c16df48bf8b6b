"""Tensor values of a checkpoint, read without TensorFlow (numpy arrays).

V2 bundles: a tensor is ``size`` little-endian bytes at ``offset`` in data shard ``shard`` (its
``BundleEntryProto``; :mod:`tfmigrate.checkpoint.index` has read them). A partitioned variable has
no bytes of its own: its entry lists its slices (field 7, ``TensorSliceProto``) and each slice is a
key of its own (``\\x00`` + ordered-code name and extents); the slices are put together by their
extents. A V1 table (TF < 0.12) keeps each tensor (or slice) as a ``SavedSlice`` whose
``TensorProto`` holds the values (``float_val``... or ``tensor_content``).

Only numeric dtypes are read. Errors are :class:`~tfmigrate.checkpoint.index.CheckpointError` (one line).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from tfmigrate.checkpoint import index
from tfmigrate.checkpoint.index import Checkpoint, CheckpointError, _Corrupt, _one, parse_fields

NUMPY = {"float32": "<f4", "float64": "<f8", "int32": "<i4", "int64": "<i8", "int16": "<i2", "int8": "i1", "uint8": "u1",
         "uint16": "<u2", "uint32": "<u4", "uint64": "<u8", "float16": "<f2", "bool": "?"}
# TensorProto repeated value fields (packed, or one value a field) -> what they hold
_VALUE_FIELDS = {5: "float", 6: "double", 7: "int", 10: "int64", 11: "bool", 13: "half"}


def _np() -> Any:
    try:
        import numpy as np  # noqa: PLC0415
    except ImportError:  # pragma: no cover - numpy comes with TensorFlow
        raise CheckpointError("reading checkpoint values needs numpy (pip install numpy)") from None
    return np


def _extents(slice_proto: bytes, shape: list[int]) -> list[tuple[int, int]]:
    """A TensorSliceProto as [(start, length)] per dimension (length of a full extent filled in)."""
    out = []
    extents = [v for n, _w, v in parse_fields(slice_proto) if n == 1]
    for dim, size in enumerate(shape):
        if dim < len(extents):
            fields = parse_fields(extents[dim])  # type: ignore[arg-type]
            start = index._signed64(_one(fields, 1, 0))  # type: ignore[arg-type]
            has_len = any(n == 2 for n, _w, _v in fields)
            length = index._signed64(_one(fields, 2, 0)) if has_len else size - start  # type: ignore[arg-type]
        else:
            start, length = 0, size
        out.append((start, length))
    return out


def _read_bytes(ck: Checkpoint, shard: int, offset: int, size: int) -> bytes:
    path = index.data_file(ck.prefix, shard, ck.num_shards)
    try:
        with index.open_regular(path) as fh:
            fh.seek(offset)
            data = fh.read(size)
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) != size:
        raise CheckpointError(f"{path}: truncated data file ({len(data)} of {size} bytes at offset {offset})")
    return data


def _v2_entry_fields(ck: Checkpoint) -> dict[bytes, list]:
    table = index.Table.open(Path(ck.prefix + ".index"))
    return {key: parse_fields(value) for key, value in table.items()[1:]}


def _v2_arrays(ck: Checkpoint, names: list[str]) -> dict[str, Any]:
    np = _np()
    by_name = ck.by_name()
    out: dict[str, Any] = {}
    fields_by_key: dict[bytes, list] | None = None
    for name in names:
        e = by_name[name]
        dt = _dtype(e.dtype, name, ck)
        if not e.partitioned:
            out[name] = np.frombuffer(_read_bytes(ck, e.shard, e.offset, e.bytes), dtype=dt).reshape(e.shape).copy()
            continue
        if fields_by_key is None:
            fields_by_key = _v2_entry_fields(ck)
        entry_fields = fields_by_key[name.encode("utf-8")]
        extents = sorted(_extents(v, e.shape) for n, _w, v in entry_fields if n == 7)  # type: ignore[arg-type]
        keys = sorted(s.key for s in ck.slices if s.name == name)
        slices = {s.key: s for s in ck.slices}
        if len(keys) != len(extents):
            raise CheckpointError(f"{ck.prefix}.index: {name} lists {len(extents)} slices but the index holds {len(keys)}")
        full = np.zeros(e.shape, dtype=dt)
        for ext, key in zip(extents, keys):  # ordered-code keys sort as their extents do
            s = slices[key]
            part_shape = [length for _start, length in ext]
            part = np.frombuffer(_read_bytes(ck, s.shard, s.offset, s.bytes), dtype=dt)
            if part.size != int(np.prod(part_shape)):
                raise CheckpointError(f"{ck.prefix}.index: a slice of {name} holds {part.size} values, its extent {ext} {int(np.prod(part_shape))}")
            full[tuple(slice(start, start + length) for start, length in ext)] = part.reshape(part_shape)
        out[name] = full
    return out


def _dtype(dtype: str, name: str, ck: Checkpoint) -> str:
    if dtype not in NUMPY:
        raise CheckpointError(f"{ck.prefix}: {name} is {dtype}: only numeric tensors are read")
    return NUMPY[dtype]


def _tensor_values(proto: bytes, dtype: str) -> Any:
    """The values of a TensorProto (flat)."""
    np = _np()
    fields = parse_fields(proto)
    content = _one(fields, 4, None)
    if content:
        return np.frombuffer(content, dtype=NUMPY[dtype])
    values: list[Any] = []
    for n, w, v in fields:
        if n not in _VALUE_FIELDS:
            continue
        kind = _VALUE_FIELDS[n]
        if w == 2:  # packed
            if kind == "float":
                values.extend(struct.unpack(f"<{len(v) // 4}f", v))  # type: ignore[arg-type]
            elif kind == "double":
                values.extend(struct.unpack(f"<{len(v) // 8}d", v))  # type: ignore[arg-type]
            else:
                pos = 0
                while pos < len(v):  # type: ignore[arg-type]
                    x, pos = index.read_varint(v, pos)  # type: ignore[arg-type]
                    values.append(x)
        elif w == 5:
            values.append(struct.unpack("<f", int(v).to_bytes(4, "little"))[0])  # type: ignore[call-overload]
        elif w == 1:
            values.append(struct.unpack("<d", int(v).to_bytes(8, "little"))[0])  # type: ignore[call-overload]
        else:
            values.append(v)
    arr = np.asarray(values)
    if dtype.startswith("int") or dtype.startswith("uint"):
        arr = np.asarray([index._signed64(int(x)) for x in values], dtype=np.int64)
        if dtype == "int32":
            arr = ((arr + (1 << 31)) % (1 << 32) - (1 << 31))  # int32 varints are sign-extended to 64 bits
    if dtype == "float16":  # half_val holds the bits as int32s
        arr = np.asarray(values, dtype=np.uint16).view(np.float16)
    return arr.astype(NUMPY[dtype])


def _v1_arrays(ck: Checkpoint, names: list[str]) -> dict[str, Any]:
    np = _np()
    by_name = ck.by_name()
    wanted = set(names)
    out: dict[str, Any] = {}
    for path in ck.files:
        table = index.Table.open(Path(path))
        try:
            for key, value in table.items()[1:]:
                saved = _one(parse_fields(value), 2, None)
                if saved is None:
                    continue
                sf = parse_fields(saved)  # type: ignore[arg-type]
                name = _one(sf, 1, b"").decode("utf-8", "replace")  # type: ignore[union-attr]
                if name not in wanted:
                    continue
                e = by_name[name]
                dt = _dtype(e.dtype, name, ck)
                ext = _extents(_one(sf, 2, b""), e.shape)  # type: ignore[arg-type]
                part = _tensor_values(_one(sf, 3, b""), e.dtype)  # type: ignore[arg-type]
                part_shape = [length for _s, length in ext]
                if part.size != int(np.prod(part_shape, dtype=np.int64)):
                    raise _Corrupt(f"a slice of {name} holds {part.size} values, its extent {part_shape}")
                full = out.setdefault(name, np.zeros(e.shape, dtype=dt))
                if e.shape:
                    full[tuple(slice(s, s + n) for s, n in ext)] = part.reshape(part_shape)
                else:
                    out[name] = part.reshape([]).astype(dt)
        except _Corrupt as exc:
            raise table.fail(str(exc)) from None
    missing = [n for n in names if n not in out]
    if missing:
        raise CheckpointError(f"{ck.prefix}: no values for {missing[0]} in the V1 checkpoint")
    return out


def read_arrays(ck: Checkpoint | str, names: list[str] | None = None) -> dict[str, Any]:
    """``{name: numpy array}`` for ``names`` (default: every numeric tensor) of a checkpoint."""
    if not isinstance(ck, Checkpoint):
        ck = index.read(ck)
    by_name = ck.by_name()
    if names is None:
        names = [e.name for e in ck.entries if e.dtype in NUMPY]
    for n in names:
        if n not in by_name:
            raise CheckpointError(f"{ck.prefix}: no tensor {n}")
    try:
        return _v2_arrays(ck, names) if ck.format == "v2" else _v1_arrays(ck, names)
    except _Corrupt as exc:
        raise CheckpointError(f"{ck.prefix}: {exc}") from None
    except (ValueError, IndexError, struct.error) as exc:
        raise CheckpointError(f"{ck.prefix}: corrupt checkpoint data ({type(exc).__name__}: {exc})") from None
