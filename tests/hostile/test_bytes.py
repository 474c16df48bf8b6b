"""Probe 10 of issue 17: bytes outside the edits are never lost (put back, or the file refused)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.files import SourceError
from tfmigrate.codemod.rule import load_catalog

from .helpers import LEGACY

CATALOG = load_catalog()
ENABLED = frozenset(CATALOG.rules)


def rewrite(data: bytes) -> bytes:
    return rewrite_source(data, ENABLED, path="t.py", catalog=CATALOG).new


@pytest.mark.parametrize("tail", [b"y = 1\r", b"y = 1\n\n\n\n   \n", b"y = 1\n \t\x0c\n\n", b"y = 1\r\n\r\n  \r\n"])
def test_tail_libcst_drops_is_kept(tail: bytes) -> None:
    data = LEGACY + tail
    new = rewrite(data)
    assert new != data and b"tf.compat.v1.placeholder" in new
    assert new.endswith(tail)
    assert rewrite(new) == new  # the fixed point holds


def test_form_feed_starting_a_line_of_code_is_refused_not_dropped() -> None:
    with pytest.raises(SourceError, match="losing bytes"):
        rewrite(LEGACY + b"\x0cy = 1\n")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([b"", b" ", b"  ", b"\t", b"\x0c", b"# c"]), max_size=6),
    st.sampled_from([b"\n", b"\r\n", b"\r"]),
    st.booleans(),
)
def test_generated_whitespace_is_kept_or_the_file_refused(pieces: list[bytes], eol: bytes, final: bool) -> None:
    data = LEGACY.replace(b"\n", eol) + eol.join(pieces) + (eol if final else b"")
    try:
        new = rewrite(data)
    except SourceError as exc:
        assert "losing bytes" in str(exc) or "parse" in str(exc)
        return
    old_lines, new_lines = data.splitlines(keepends=True), new.splitlines(keepends=True)
    # every line after the edited placeholder line is kept byte for byte
    assert new_lines[-(len(old_lines) - 3):] == old_lines[3:] if len(old_lines) > 3 else True
    assert new.endswith(data[len(LEGACY.replace(b"\n", eol)):])
