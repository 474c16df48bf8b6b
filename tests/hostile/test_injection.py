"""Probe 7 of issue 17: names, messages and code from the user's files cannot inject Markdown or
terminal control sequences, and a newline in a file name cannot forge a finding line."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tfmigrate.report.markdown import _cell, _code, _fence
from tfmigrate.visible import visible

from .helpers import LEGACY, run_tfmigrate as tfm

NAMES = ["e\x1b[31mred\x1b[0m.py", "n\nok.py:1:1: TFM999 forged.py", "bidi\u202eyp.py", "`x` <img src=x onerror=alert(1)> |.py"]
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def tree(tmp_path: Path) -> Path:
    for name in NAMES:
        (tmp_path / name).write_bytes(LEGACY + b"s = '```</code></summary><script>alert(1)</script>'\n")
    return tmp_path


def test_terminal_output_shows_control_characters(tmp_path: Path) -> None:
    root = tree(tmp_path)
    for args in (("rewrite", "--check", "-q", "."), ("rewrite", "--diff", "-q", "."), ("report", ".")):
        proc = tfm(*args, cwd=root)
        out = proc.stdout + proc.stderr
        assert "\x1b" not in out and "\u202e" not in out, args
        assert "e\\x1b[31mred\\x1b[0m.py" in out and "bidi\\u202eyp.py" in out
        lines = out.splitlines()
        assert not any(ln.startswith("ok.py:1:1: TFM999") for ln in lines), args  # no forged line
        assert not any(ln.startswith(("--- a/ok.py", "+++ b/ok.py")) for ln in lines)
    proc = tfm("rewrite", "--check", "-q", ".", cwd=root)
    findings = [ln for ln in proc.stdout.splitlines() if " TFM" in ln]
    assert len(findings) == 2 * len(NAMES) and all(ln.count(" TFM") <= 2 for ln in findings)


def test_markdown_report_is_inert(tmp_path: Path) -> None:
    root = tree(tmp_path)
    proc = tfm("rewrite", "--check", "--format", "markdown", "-o", "../r.md", ".", cwd=root)
    assert proc.returncode == 1, proc.stderr
    md = (tmp_path.parent / "r.md").read_text()
    (tmp_path.parent / "r.md").unlink()
    outside_code = re.sub(r"^(`{3,})diff\n.*?\n\1$", "", md, flags=re.S | re.M)  # fenced diffs
    outside_code = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", outside_code)  # code spans: shown literally
    assert "<script>" not in outside_code and "<img" not in outside_code and "\x1b" not in md
    for block in re.findall(r"<details><summary><code>(.*?)</code></summary>\n\n(`{3,})diff\n(.*?)\n\2\n\n</details>", md, re.S):
        name, fence, body = block
        assert "<" not in name and len(fence) > max(len(m) for m in re.findall("`+", body))
    assert md.count("<details><summary><code>") == len(NAMES)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_visible_leaves_no_control_character(text: str) -> None:
    shown = visible(text)
    assert not CONTROL.search(shown) and "\n" not in shown and "\r" not in shown and "\t" not in shown


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_markdown_escapes_cannot_be_closed(text: str) -> None:
    code = _code(text)
    ticks = re.match("`+", code).group()
    assert code.endswith(ticks) and ticks not in code[len(ticks):-len(ticks)]
    cell = _cell(text)
    assert "<" not in cell and "\n" not in cell and not re.search(r"(?<!\\)\|", cell.replace("\\\\", ""))
    fence = _fence(text)
    assert fence not in text and len(fence) >= 3


def test_ckpt_inspect_shows_control_characters_in_tensor_names(tmp_path: Path) -> None:
    import shutil

    from click.testing import CliRunner

    from tests.ckpt_factory import table_entries, write_table
    from tfmigrate.cli.ckpt import ckpt

    samples = Path(__file__).resolve().parents[2] / "samples" / "checkpoints" / "contrib1x"
    src = next(samples.glob("*.index")).with_suffix("")
    evil = b"\x1b]0;pwned\x07\x1b[2J\n[bold]fake"
    entries = table_entries(f"{src}.index")
    victim = next(k for k, _ in entries if k.startswith(b"dnn/logits/"))
    entries = sorted((k + evil if k == victim else k, v) for k, v in entries)
    out = tmp_path / "ck"
    out.mkdir()
    (out / "model.ckpt-1.index").write_bytes(write_table(entries))
    shutil.copy(f"{src}.data-00000-of-00001", out / "model.ckpt-1.data-00000-of-00001")
    result = CliRunner().invoke(ckpt, ["inspect", str(out / "model.ckpt-1")], terminal_width=300)
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert victim.decode() + "\\x1b]0;pwned\\x07\\x1b[2J\\n[bold]" in result.output  # markup shown as text
