"""Text from the user's files (paths, tensor names, messages, code) made safe to show on a terminal.

At the bottom (imports nothing of tfmigrate, no rich): the rewriter (diff headers) and every renderer use it.
"""

from __future__ import annotations

import re

# C0 and C1 control characters, DEL, and the bidirectional overrides that reorder what a terminal
# shows: a file or tensor name can hold any of them (ESC sequences, a newline forging a line).
# Lone surrogates too: a file name that is not UTF-8 (b"caf\xe9.py") reaches Python as
# "caf\udce9.py" (surrogateescape), which no UTF-8 output can hold.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(match: re.Match[str]) -> str:
    c = match.group()
    if 0xDC80 <= ord(c) <= 0xDCFF:  # the byte surrogateescape stood in for
        return f"\\x{ord(c) - 0xDC00:02x}"
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def undecodable_written_out(text: str) -> str:
    """``text`` with the bytes of a name that is not UTF-8 written out (``caf\\xe9.py``), and only
    those: what a UTF-8 file (JSON, SARIF, HTML, Markdown) can hold. Control characters are kept
    for the format's own escaping."""
    return _SURROGATE.sub(_shown, text)


def visible(text: str) -> str:
    """``text`` with every control character written out (``\\x1b``, ``\\n``): what a terminal
    shows is exactly what the text holds, on one line."""
    return _CONTROL.sub(_shown, text)


def visible_block(text: str) -> str:
    """Several lines (a diff): each line made visible, its tabs and line ending kept."""
    out = []
    for line in text.split("\n"):
        end = "\r" if line.endswith("\r") else ""
        out.append("\t".join(visible(part) for part in line[: len(line) - len(end)].split("\t")) + end)
    return "\n".join(out)
