"""Issue 26: file names in reports. A name that is not UTF-8 (b"caf\\xe9.py") crashed all four report
writers (none was written); now its bytes are written out (``caf\\xe9.py``) in every format, the
terminal too, and every file stays valid UTF-8. SARIF's ``artifactLocation.uri`` is an RFC 3986
reference: a space, ``#``, ``?``, ``:`` or non-ASCII character is percent-encoded, a non-UTF-8 byte
as itself."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

import pytest

from .helpers import LEGACY, run_tfmigrate as tfm

NAMES = [b"caf\xe9.py", "a b#?é.py".encode(), b"x:y%41.py"]
SHOWN = {b"caf\xe9.py": "caf\\xe9.py", "a b#?é.py".encode(): "a b#?é.py", b"x:y%41.py": "x:y%41.py"}
URI = re.compile(r"^(?:[A-Za-z0-9\-._~/]|%[0-9A-F]{2})+$")  # unreserved characters, "/" and percent-encodings


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    for name in NAMES:
        with open(os.path.join(os.fsencode(tmp_path), name), "wb") as handle:
            handle.write(LEGACY)
    return tmp_path


def test_every_report_writer_handles_a_name_that_is_not_utf8(tree: Path) -> None:
    proc = tfm("report", ".", "--json", "r.json", "--sarif", "r.sarif", "--markdown", "r.md", "--markdown-full", "r-full.md",
               "--html", "r.html", cwd=tree)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    texts = {name: (tree / name).read_bytes().decode("utf-8") for name in ("r.json", "r.sarif", "r.md", "r-full.md", "r.html")}  # strict UTF-8
    data = json.loads(texts["r.json"])
    assert sorted(f["path"] for f in data["files"]) == sorted(SHOWN.values())
    # the comment names no file here (no manual work); the full Markdown and the HTML name each
    assert "caf\\xe9.py" in texts["r-full.md"] and "caf\\xe9.py" in texts["r.html"]
    sarif = json.loads(texts["r.sarif"])
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in sarif["runs"][0]["results"] for loc in result["locations"]}
    assert uris == {"caf%E9.py", "a%20b%23%3F%C3%A9.py", "x%3Ay%2541.py"}
    for uri in uris:
        assert URI.match(uri)
        parts = urlsplit(uri)
        assert (parts.scheme, parts.netloc, parts.query, parts.fragment) == ("", "", "", "")
        assert unquote_to_bytes(uri) in NAMES  # the name's own bytes, back


def test_the_terminal_writes_the_bytes_out(tree: Path) -> None:
    proc = tfm("rewrite", "--check", ".", cwd=tree)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "caf\\xe9.py:3:5: TFM501" in proc.stdout
    assert "\ufffd" not in proc.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif", "markdown"])
def test_rewrite_formats_handle_a_name_that_is_not_utf8(tree: Path, fmt: str) -> None:
    proc = tfm("rewrite", "--check", "--format", fmt, "-o", "out", ".", cwd=tree)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    text = (tree / "out").read_bytes().decode("utf-8")
    assert ("caf%E9.py" if fmt == "sarif" else "caf\\xe9.py") in text.replace("\\\\", "\\")
