"""Text from the user's files (paths, tensor names, messages, code) made safe to show on a terminal.

At the bottom (imports nothing of tfmigrate, no rich): the rewriter (diff headers) and every renderer use it.
"""

from __future__ import annotations

import re

# C0 and C1 control characters, DEL, and the bidirectional overrides that reorder what a terminal
# shows: a file or tensor name can hold any of them (ESC sequences, a newline forging a line).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(match: re.Match[str]) -> str:
    c = match.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


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
