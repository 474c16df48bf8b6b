"""A pure-Python reader of TensorFlow checkpoint indexes (no TensorFlow import).

A V2 checkpoint (TF >= 0.12) is ``PREFIX.index`` plus ``PREFIX.data-NNNNN-of-MMMMM`` shards. The
index is a LevelDB-format table: a 48-byte footer (metaindex and index ``BlockHandle`` varints,
padding, the little-endian magic ``0xdb4775248b80fb57``), blocks that end in a 5-byte trailer
(compression type: 0 none, 1 snappy; masked crc32c of contents + type), prefix-compressed entries
and restart points. Key ``""`` holds a ``BundleHeaderProto``; every other key a
``BundleEntryProto``. Partitioned variables add slice keys that start with ``\\x00``: they are
kept apart (``Checkpoint.slices``) and their bytes are added to the full variable.

A V1 checkpoint (before 0.12) is one table file per shard whose ``""`` key holds a
``SavedTensorSlices`` with the metadata of every tensor in that shard.

Only the index is read: the work does not grow with the size of the data files (they are only
``stat``-ed). Every problem is a :class:`CheckpointError` whose message is one line naming the file.
"""

from __future__ import annotations

import os
import re
import stat
import struct
from dataclasses import dataclass, field
from pathlib import Path

from tfmigrate.regular_files import NotRegular, kind, open_regular as open_any_regular

MAGIC = 0xDB4775248B80FB57
FOOTER_LEN = 48
MAX_INDEX_BYTES = 512 << 20  # an index larger than this is not an index
MAX_BLOCK_BYTES = 256 << 20

DTYPES: dict[int, tuple[str, int]] = {  # DataType enum -> (name, bytes per element; 0 = variable)
    1: ("float32", 4), 2: ("float64", 8), 3: ("int32", 4), 4: ("uint8", 1), 5: ("int16", 2),
    6: ("int8", 1), 7: ("string", 0), 8: ("complex64", 8), 9: ("int64", 8), 10: ("bool", 1),
    11: ("qint8", 1), 12: ("quint8", 1), 13: ("qint32", 4), 14: ("bfloat16", 2), 15: ("qint16", 2),
    16: ("quint16", 2), 17: ("uint16", 2), 18: ("complex128", 16), 19: ("float16", 2),
    20: ("resource", 0), 21: ("variant", 0), 22: ("uint32", 4), 23: ("uint64", 8),
    24: ("float8_e5m2", 1), 25: ("float8_e4m3fn", 1), 29: ("int4", 1), 30: ("uint4", 1),
}


class CheckpointError(Exception):
    """A checkpoint cannot be read or resolved. ``str(error)`` is one line that names the file."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class MetaOnly(CheckpointError):
    """Only ``PREFIX.meta`` is there: no variables to read. ``prefix`` names it (the graph in the
    ``.meta`` still lists the variables' names, shapes and dtypes: :mod:`tfmigrate.checkpoint.meta`)."""

    def __init__(self, message: str, prefix: str) -> None:
        super().__init__(message)
        self.prefix = prefix


def _not_regular(path: str | os.PathLike[str], mode: int) -> CheckpointError:
    return CheckpointError(f"{os.fspath(path)}: {kind(mode)}, not a regular file: not opened (a checkpoint file must be a regular file)")


def open_regular(path: str | os.PathLike[str]):
    """``open(path, "rb")`` for a checkpoint file, never blocking (:func:`tfmigrate.regular_files.open_regular`).
    Raises CheckpointError (not a regular file) or OSError (cannot open)."""
    try:
        return open_any_regular(path)
    except NotRegular as exc:
        raise _not_regular(path, exc.mode) from None


def is_regular(path: str | os.PathLike[str]) -> bool:
    """Whether a checkpoint file is there (False when absent); CheckpointError when something that is not a
    regular file (a FIFO, a socket, a device) has its name: reading it could block for ever."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    if stat.S_ISREG(mode):
        return True
    raise _not_regular(path, mode)


# The files of a checkpoint (or of a Keras model_dir) that tfmigrate or TensorFlow opens.
_CHECKPOINT_FILE_RE = re.compile(
    r"^(checkpoint|.*\.index|.*\.data-\d{5}-of-\d{5}|.*\.meta|.*-\d{5}-of-\d{5}|.*\.tempstate\d*|.*\.weights\.h5|.*\.keras)$")


def refuse_special_files(path: str | os.PathLike[str]) -> None:
    """Before TensorFlow opens a checkpoint (a model_dir, a prefix or one of its files): CheckpointError,
    one line naming it, for a checkpoint file that is a FIFO, socket or device (TensorFlow would wait
    on it for ever). Only ``stat``: nothing is opened."""
    text = os.fspath(path)
    if os.path.isdir(text):
        directory, names = text, None
    else:
        directory = os.path.dirname(text) or "."
        names = os.path.basename(text)
        if os.path.lexists(text):
            is_regular(text)
    try:
        entries = os.listdir(directory)
    except OSError:
        return  # TensorFlow says what is wrong with it
    for name in sorted(entries):
        if names is not None and not name.startswith(names):
            continue
        if _CHECKPOINT_FILE_RE.match(name):
            full = os.path.join(directory, name)
            try:
                mode = os.stat(full).st_mode
            except OSError:
                continue
            if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
                raise _not_regular(full, mode)


@dataclass
class Entry:
    """One tensor of a checkpoint, as its index describes it."""

    name: str
    dtype: str
    shape: list[int]
    bytes: int
    shard: int = 0
    offset: int = 0
    partitioned: bool = False

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass
class Slice:
    """A slice entry of a partitioned variable (key starting with ``\\x00``)."""

    key: bytes
    name: str  # the full variable's name, decoded from the key ("" when it cannot be decoded)
    shard: int
    offset: int
    bytes: int


@dataclass
class Checkpoint:
    prefix: str
    format: str  # "v1" | "v2"
    entries: list[Entry] = field(default_factory=list)
    slices: list[Slice] = field(default_factory=list)
    num_shards: int = 1
    files: list[str] = field(default_factory=list)  # the index/table files that were read

    def by_name(self) -> dict[str, Entry]:
        return {e.name: e for e in self.entries}


# --------------------------------------------------------------------------------------------
# low-level decoding


class _Corrupt(Exception):
    """Internal: raised by the decoders, turned into a CheckpointError naming the file."""


def read_varint(buf: bytes | memoryview, pos: int, end: int | None = None) -> tuple[int, int]:
    end = len(buf) if end is None else end
    result = shift = 0
    while True:
        if pos >= end:
            raise _Corrupt("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise _Corrupt("varint longer than 10 bytes")


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE: list[int] = []


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC-32C (Castagnoli), as LevelDB and TensorFlow use it."""
    if not _CRC_TABLE:
        _CRC_TABLE.extend(_crc_table())
    c = crc ^ 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def mask_crc(c: int) -> int:
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def snappy_decompress(data: bytes, limit: int = MAX_BLOCK_BYTES) -> bytes:
    """Decompress a raw snappy block (the format LevelDB tables use). Bounded: never allocates
    more than the declared length, which itself must be plausible."""
    n, pos = read_varint(data, 0)
    if n > limit or n > 64 * len(data) + 64:
        raise _Corrupt(f"snappy block claims {n} uncompressed bytes from {len(data)}")
    out = bytearray()
    end = len(data)
    while pos < end:
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:  # literal
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                if pos + extra > end:
                    raise _Corrupt("truncated snappy literal length")
                length = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            length += 1
            if pos + length > end:
                raise _Corrupt("truncated snappy literal")
            out += data[pos:pos + length]
            pos += length
        else:
            if kind == 1:
                length = 4 + ((tag >> 2) & 7)
                if pos + 1 > end:
                    raise _Corrupt("truncated snappy copy")
                offset = ((tag >> 5) << 8) | data[pos]
                pos += 1
            else:
                width = 2 if kind == 2 else 4
                length = (tag >> 2) + 1
                if pos + width > end:
                    raise _Corrupt("truncated snappy copy")
                offset = int.from_bytes(data[pos:pos + width], "little")
                pos += width
            if offset == 0 or offset > len(out):
                raise _Corrupt("snappy copy offset out of range")
            start = len(out) - offset
            for i in range(length):  # overlapping copies repeat the pattern
                out.append(out[start + i])
        if len(out) > n:
            raise _Corrupt("snappy block longer than declared")
    if len(out) != n:
        raise _Corrupt(f"snappy block decompressed to {len(out)} bytes, header says {n}")
    return bytes(out)


def parse_fields(buf: bytes, start: int = 0, end: int | None = None) -> list[tuple[int, int, object]]:
    """Minimal protobuf decoding: [(field number, wire type, int value or bytes)]."""
    end = len(buf) if end is None else end
    out: list[tuple[int, int, object]] = []
    pos = start
    while pos < end:
        key, pos = read_varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Corrupt("protobuf field number 0")
        if wire == 0:
            value, pos = read_varint(buf, pos, end)
            out.append((number, wire, value))
        elif wire == 1:
            if pos + 8 > end:
                raise _Corrupt("truncated fixed64")
            out.append((number, wire, int.from_bytes(buf[pos:pos + 8], "little")))
            pos += 8
        elif wire == 2:
            length, pos = read_varint(buf, pos, end)
            if pos + length > end:
                raise _Corrupt("length-delimited field runs past its message")
            out.append((number, wire, bytes(buf[pos:pos + length])))
            pos += length
        elif wire == 5:
            if pos + 4 > end:
                raise _Corrupt("truncated fixed32")
            out.append((number, wire, int.from_bytes(buf[pos:pos + 4], "little")))
            pos += 4
        else:
            raise _Corrupt(f"unsupported protobuf wire type {wire}")
    return out


def _signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _one(fields, number: int, default=0):
    for n, _w, v in reversed(fields):
        if n == number:
            return v
    return default


def parse_shape(data: bytes) -> list[int]:
    fields = parse_fields(data)
    if _one(fields, 3, 0):
        raise _Corrupt("shape of unknown rank")
    dims = []
    for n, w, v in fields:
        if n == 2 and w == 2:
            size = _signed64(_one(parse_fields(v), 1, 0))  # type: ignore[arg-type]
            if size < 0:
                raise _Corrupt(f"negative dimension {size}")
            dims.append(size)
    if len(dims) > 254:
        raise _Corrupt(f"{len(dims)} dimensions")
    return dims


# --------------------------------------------------------------------------------------------
# the table


class Table:
    """The entries of one LevelDB-format table file (read whole: indexes are small)."""

    def __init__(self, path: Path, data: bytes) -> None:
        self.path = path
        self.data = data

    @classmethod
    def open(cls, path: Path) -> Table:
        try:
            size = path.stat().st_size
            if size > MAX_INDEX_BYTES:
                raise CheckpointError(f"{path}: {size} bytes is too large for a checkpoint index")
            with open_regular(path) as fh:
                data = fh.read()
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot read: {exc.strerror or exc}") from None
        return cls(path, data)

    def fail(self, message: str) -> CheckpointError:
        return CheckpointError(f"{self.path}: {message}")

    def _handle(self, buf: bytes, pos: int) -> tuple[int, int, int]:
        offset, pos = read_varint(buf, pos)
        size, pos = read_varint(buf, pos)
        return offset, size, pos

    def block(self, offset: int, size: int) -> bytes:
        data = self.data
        if size > MAX_BLOCK_BYTES or offset + size + 5 > len(data) - FOOTER_LEN:
            raise _Corrupt(f"block at offset {offset} (size {size}) runs past the end of the file (truncated index?)")
        contents = data[offset:offset + size]
        kind = data[offset + size]
        (stored,) = struct.unpack_from("<I", data, offset + size + 1)
        actual = mask_crc(crc32c(data[offset:offset + size + 1]))
        if stored != actual:
            raise _Corrupt(f"crc32c mismatch in block at offset {offset} (stored {stored:#010x}, computed {actual:#010x}): corrupt index")
        if kind == 0:
            return contents
        if kind == 1:
            return snappy_decompress(contents)
        raise _Corrupt(f"block at offset {offset} has unknown compression type {kind}")

    @staticmethod
    def block_entries(block: bytes) -> list[tuple[bytes, bytes]]:
        if len(block) < 4:
            raise _Corrupt("block shorter than its restart count")
        (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
        limit = len(block) - 4 - 4 * num_restarts
        if num_restarts == 0 or limit < 0:
            raise _Corrupt(f"block has a bad restart count ({num_restarts})")
        entries: list[tuple[bytes, bytes]] = []
        key = b""
        pos = 0
        while pos < limit:
            shared, pos = read_varint(block, pos, limit)
            non_shared, pos = read_varint(block, pos, limit)
            value_len, pos = read_varint(block, pos, limit)
            if shared > len(key) or pos + non_shared + value_len > limit:
                raise _Corrupt("block entry runs past its block")
            key = key[:shared] + block[pos:pos + non_shared]
            pos += non_shared
            entries.append((key, block[pos:pos + value_len]))
            pos += value_len
        return entries

    def footer(self) -> tuple[int, int, int, int]:
        data = self.data
        if len(data) < FOOTER_LEN:
            raise _Corrupt(f"{len(data)} bytes is shorter than a table footer (truncated or not an index)")
        (magic,) = struct.unpack_from("<Q", data, len(data) - 8)
        if magic != MAGIC:
            raise _Corrupt(f"bad table magic {magic:#018x} (expected {MAGIC:#018x}): not a checkpoint index, or truncated")
        foot = data[len(data) - FOOTER_LEN:]
        meta_off, meta_size, pos = self._handle(foot, 0)
        index_off, index_size, _ = self._handle(foot, pos)
        return meta_off, meta_size, index_off, index_size

    def items(self, first_only: bool = False) -> list[tuple[bytes, bytes]]:
        try:
            _, _, index_off, index_size = self.footer()
            index = self.block_entries(self.block(index_off, index_size))
            out: list[tuple[bytes, bytes]] = []
            for _key, handle in index:
                off, size, _ = self._handle(handle, 0)
                out.extend(self.block_entries(self.block(off, size)))
                if first_only and out:
                    break
            return out
        except _Corrupt as exc:
            raise self.fail(str(exc)) from None


# --------------------------------------------------------------------------------------------
# bundle (V2) and SavedTensorSlices (V1)


def _dtype(code: int, where: str) -> tuple[str, int]:
    if code not in DTYPES:
        raise _Corrupt(f"{where}: unknown dtype enum {code}")
    return DTYPES[code]


def decode_slice_name(key: bytes) -> str:
    """The tensor name inside an ordered-code slice key (``\\x00`` + escaped name + ``\\x00\\x01`` ...)."""
    out = bytearray()
    pos = 1
    while pos < len(key):
        b = key[pos]
        if b == 0 and pos + 1 < len(key):
            nxt = key[pos + 1]
            if nxt == 1:
                return out.decode("utf-8", "replace")
            if nxt == 0xFF:
                out.append(0)
                pos += 2
                continue
        if b == 0xFF and pos + 1 < len(key) and key[pos + 1] == 0:
            out.append(0xFF)
            pos += 2
            continue
        out.append(b)
        pos += 1
    return ""


def _size_text(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB", "EB"):
        if n < 1000:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n:.1f} ZB"


def read_v2(prefix: str, check_data: bool = True) -> Checkpoint:
    index_path = Path(prefix + ".index")
    table = Table.open(index_path)
    ckpt = Checkpoint(prefix=prefix, format="v2", files=[str(index_path)])
    items = table.items()
    try:
        if not items or items[0][0] != b"":
            raise _Corrupt("no bundle header (key \"\"): not a V2 checkpoint index")
        header = parse_fields(items[0][1])
        ckpt.num_shards = _one(header, 1, 1)  # type: ignore[assignment]
        if not 1 <= ckpt.num_shards <= 1_000_000:
            raise _Corrupt(f"bundle header claims {ckpt.num_shards} shards")
        if _one(header, 2, 0) != 0:
            raise _Corrupt("big-endian bundle: not supported")
        for key, value in items[1:]:
            fields = parse_fields(value)
            shard = _one(fields, 3, 0)
            offset = _one(fields, 4, 0)
            size = _one(fields, 5, 0)
            if key.startswith(b"\x00"):
                ckpt.slices.append(Slice(bytes(key), decode_slice_name(key), shard, offset, size))  # type: ignore[arg-type]
                continue
            name = key.decode("utf-8", "replace")
            dtype, width = _dtype(_one(fields, 1, 0), name)  # type: ignore[arg-type]
            shape_raw = _one(fields, 2, b"")
            shape = parse_shape(shape_raw) if shape_raw else []  # type: ignore[arg-type]
            partitioned = any(n == 7 for n, _w, _v in fields)
            entry = Entry(name, dtype, shape, size, shard, offset, partitioned)  # type: ignore[arg-type]
            if not partitioned and width and entry.num_elements * width != size:
                raise _Corrupt(
                    f"entry {name!r} claims shape {shape} ({entry.num_elements:.3g} elements, "
                    f"{_size_text(entry.num_elements * width)}) but holds {size} bytes: corrupt index"
                )
            if shard >= ckpt.num_shards:  # type: ignore[operator]
                raise _Corrupt(f"entry {name!r} is in shard {shard} of {ckpt.num_shards}")
            ckpt.entries.append(entry)
    except _Corrupt as exc:
        raise table.fail(str(exc)) from None
    if ckpt.slices:
        totals: dict[str, int] = {}
        for s in ckpt.slices:
            totals[s.name] = totals.get(s.name, 0) + s.bytes
        for e in ckpt.entries:
            if e.partitioned:
                e.bytes = totals.get(e.name, 0)
    if check_data:
        check_data_files(ckpt)
    return ckpt


def data_file(prefix: str, shard: int, num_shards: int) -> Path:
    return Path(f"{prefix}.data-{shard:05d}-of-{num_shards:05d}")


def check_data_files(ckpt: Checkpoint) -> None:
    """Every data shard exists and is long enough for the entries that point into it (stat only)."""
    need: dict[int, int] = {}
    for item in [*ckpt.entries, *ckpt.slices]:
        if isinstance(item, Entry) and item.partitioned:
            continue
        need[item.shard] = max(need.get(item.shard, 0), item.offset + item.bytes)
    for shard in range(ckpt.num_shards):
        path = data_file(ckpt.prefix, shard, ckpt.num_shards)
        try:
            st = path.stat()
        except OSError:
            raise CheckpointError(f"{path}: data shard {shard} of {ckpt.num_shards} is missing (index {ckpt.prefix}.index)") from None
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        size = st.st_size
        if size < need.get(shard, 0):
            raise CheckpointError(f"{path}: data shard is {size} bytes but the index needs {need[shard]}: truncated data file")


def data_problem(ckpt: Checkpoint) -> str | None:
    """Why the values of a checkpoint read with ``check_data=False`` cannot be read (a missing or
    truncated data shard: one line), or None. Names, shapes and dtypes come from the index alone."""
    if ckpt.format != "v2":
        return None  # a V1 table holds its own data
    try:
        check_data_files(ckpt)
    except CheckpointError as exc:
        return str(exc)
    return None


def read_v1(files: list[Path], prefix: str) -> Checkpoint:
    ckpt = Checkpoint(prefix=prefix, format="v1", num_shards=len(files), files=[str(f) for f in files])
    seen: dict[str, Entry] = {}
    for shard, path in enumerate(files):
        table = Table.open(path)
        items = table.items(first_only=True)
        try:
            if not items or items[0][0] != b"":
                raise _Corrupt("no SavedTensorSlices metadata (key \"\"): not a V1 checkpoint")
            meta = _one(parse_fields(items[0][1]), 1, None)
            if meta is None:
                raise _Corrupt("SavedTensorSlices without metadata")
            for n, w, tensor in parse_fields(meta):  # type: ignore[arg-type]
                if n != 1 or w != 2:
                    continue
                tf = parse_fields(tensor)  # type: ignore[arg-type]
                name = _one(tf, 1, b"").decode("utf-8", "replace")  # type: ignore[union-attr]
                shape_raw = _one(tf, 2, b"")
                shape = parse_shape(shape_raw) if shape_raw else []  # type: ignore[arg-type]
                dtype, width = _dtype(_one(tf, 3, 0), name)  # type: ignore[arg-type]
                entry = Entry(name, dtype, shape, 0, shard, 0, False)
                entry.bytes = entry.num_elements * width
                if entry.num_elements > 1 << 40:
                    raise _Corrupt(f"entry {name!r} claims shape {shape} ({entry.num_elements:.3g} elements): corrupt index")
                seen.setdefault(name, entry)
        except _Corrupt as exc:
            raise table.fail(str(exc)) from None
    ckpt.entries = list(seen.values())
    return ckpt


# --------------------------------------------------------------------------------------------
# resolving PATH

_STATE_RE = re.compile(r'^\s*model_checkpoint_path\s*:\s*"((?:[^"\\]|\\.)*)"\s*$', re.M)
_V1_SHARD_RE = re.compile(r"^(?P<prefix>.*)-\d{5}-of-(?P<n>\d{5})$")
_DATA_RE = re.compile(r"^(?P<prefix>.*)\.data-\d{5}-of-\d{5}$")


_META_ONLY = ("the graph without the variables (their V1 table, or the .index and .data-* of a V2 checkpoint, "
              "is missing: large files are often left out of repositories)")


def _foreign(path: str) -> str:
    """What a file named like a checkpoint is, when its first bytes say (PyTorch saves zip or pickle files)."""
    try:
        with open_regular(path) as fh:
            head = fh.read(2)
    except (OSError, CheckpointError):
        return ""
    if head == b"PK":
        return "; it is a zip archive (a PyTorch / Lightning torch.save file?), not TensorFlow's"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "; it is a Python pickle (a PyTorch torch.save file?), not TensorFlow's"
    return ""


def _unescape(s: str) -> str:
    try:
        return s.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return s


def _is_table(path: Path) -> bool:
    try:
        with open_regular(path) as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() < FOOTER_LEN:
                return False
            fh.seek(-8, os.SEEK_END)
            return struct.unpack("<Q", fh.read(8))[0] == MAGIC
    except OSError:
        return False


def _prefix_kind(prefix: str) -> tuple[str, list[Path]] | None:
    """("v2", [index]) | ("v1", shard files) | None."""
    if is_regular(prefix + ".index"):
        return "v2", [Path(prefix + ".index")]
    p = Path(prefix)
    if not p.is_dir() and is_regular(p) and _is_table(p):
        m = _V1_SHARD_RE.match(p.name)
        if m:  # one shard named: read all of them
            shards = sorted(p.parent.glob(f"{m.group('prefix')}-?????-of-{m.group('n')}"))
            return "v1", shards
        return "v1", [p]
    shards = sorted(p.parent.glob(f"{p.name}-?????-of-?????")) if p.parent.is_dir() else []
    shards = [s for s in shards if not s.name.endswith(".tempstate") and _V1_SHARD_RE.match(s.name)]
    if shards:
        return "v1", shards
    return None


def _step(name: str) -> int:
    m = re.search(r"-(\d+)$", name)
    return int(m.group(1)) if m else -1


def state_file_prefix(directory: Path) -> str:
    """The newest checkpoint prefix of a model_dir, from its ``checkpoint`` state file."""
    state = directory / "checkpoint"
    if not is_regular(state):
        indexes = sorted(directory.glob("*.index"), key=lambda p: (_step(p.name[:-6]), p.name))
        if indexes:
            return str(indexes[-1])[:-6]
        # a V1 table (TF <= 0.11 wrote one file, often committed without its state file): *.ckpt / *.ckpt-N
        tables = sorted((p for p in directory.iterdir() if re.search(r"\.ckpt(-\d+)?$", p.name) and p.is_file() and _is_table(p)),
                        key=lambda p: (_step(p.name), p.name))
        if tables:
            return str(tables[-1])
        raise CheckpointError(f"{directory}: no checkpoint here (no `checkpoint` state file, no *.index file and no V1 *.ckpt table)")
    try:
        with open_regular(state) as fh:
            text = fh.read(MAX_INDEX_BYTES).decode("utf-8", errors="replace")
    except OSError as exc:
        raise CheckpointError(f"{state}: cannot read: {exc.strerror or exc}") from None
    m = _STATE_RE.search(text)
    if not m:
        raise CheckpointError(f"{state}: no `model_checkpoint_path: \"...\"` line in the checkpoint state file")
    target = _unescape(m.group(1))
    prefix = target if os.path.isabs(target) else str(directory / target)
    if _prefix_kind(prefix) is None:
        local = directory / Path(target).name
        hint = ""
        if str(local) != prefix and _prefix_kind(str(local)) is not None:
            hint = f"; {local} exists here (model_dir moved?): pass that prefix"
        if not hint and is_regular(prefix + ".meta"):
            raise MetaOnly(f"{state}: points to {target}, which is not a checkpoint; only {Path(prefix).name}.meta is here: "
                           f"{_META_ONLY}", prefix)
        raise CheckpointError(f"{state}: points to {target}, which is not a checkpoint{hint}")
    return prefix


def resolve(path: str | os.PathLike[str]) -> tuple[str, str, list[Path]]:
    """PATH (prefix, ``.index`` file, data shard or model_dir) -> (prefix, format, files to read)."""
    text = os.fspath(path)
    p = Path(text)
    if p.is_dir():
        text = state_file_prefix(p)
    elif text.endswith(".index") and is_regular(p):
        text = text[: -len(".index")]
    elif _DATA_RE.match(text):
        text = _DATA_RE.match(text).group("prefix")  # type: ignore[union-attr]
    elif text.endswith(".meta") and is_regular(p):
        text = text[: -len(".meta")]
    kind = _prefix_kind(text)
    if kind is None:
        if is_regular(text + ".meta") and not Path(text).exists():
            raise MetaOnly(f"{text}: only {Path(text).name}.meta is here: {_META_ONLY}", text)
        if not p.exists() and not Path(text + ".index").exists():
            raise CheckpointError(f"{text}: no such checkpoint (looked for {text}.index, a V1 file and a model_dir)")
        raise CheckpointError(f"{text}: not a checkpoint (no .index file, and not a V1 checkpoint table){_foreign(text)}")
    return text, kind[0], kind[1]


def read(path: str | os.PathLike[str], check_data: bool = True) -> Checkpoint:
    """Read the checkpoint at PATH (see :func:`resolve`). Raises :class:`CheckpointError`."""
    prefix, fmt, files = resolve(path)
    try:
        if fmt == "v2":
            return read_v2(prefix, check_data=check_data)
        return read_v1(files, prefix)
    except CheckpointError:
        raise
    except (RecursionError, MemoryError, ValueError, IndexError, struct.error) as exc:  # belt and braces
        raise CheckpointError(f"{files[0]}: corrupt checkpoint index ({type(exc).__name__}: {exc})") from None
