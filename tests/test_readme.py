"""Every console example of README.md, run as written (issue 19: docs that run).

A ```console block is a sequence of ``$ command`` lines, each followed by the output it shows. The
commands of a block run in order, with bash, in a fresh directory holding a copy of the
repository's ``samples/``, with this interpreter's ``tfmigrate`` and ``python`` first on PATH.
``$ cat FILE`` followed by text is how the README gives a file: the text is written to FILE first
(and cat must print it back). The exit code must be the one the command's comment gives (``exit
N``), else 0. Each output line shown must occur in the output (stdout and stderr, trailing spaces
ignored), in order; a line ``...`` stands for any lines, and ``...`` within a line for any text
(an absolute path of the temporary directory). Blocks of other languages (``sh`` for the
set-up commands that build the environment itself) are not run.

A ``$ python SCRIPT ARGS`` command (the README's migrated program, which imports TensorFlow) runs as that
``python`` would, in a fork of the suite's TensorFlow server (``tests/tfchildren.py``): the same interpreter
(the one bash finds first on PATH), arguments, working directory, environment, exit code and output, without
paying ``import tensorflow`` again.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.tfchildren import run_python
from tests.report_checks import COMMAND as SAMPLES_REPORT
from tests.report_checks import assert_samples_report

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# more to check on a command's run than the README shows: command -> check(stdout, directory it ran in)
CHECKS = {SAMPLES_REPORT: assert_samples_report}
TENSORFLOW = re.compile(r"^(python |tfmigrate (ckpt (diff|convert)|validate|report))")  # these start a TensorFlow child
PYTHON = re.compile(r"python ((?:[\w./-]+ ?)+?)\s*(#.*)?")  # `python SCRIPT ARGS  # comment`: no shell syntax in it


@dataclass
class Command:
    line: str
    exit_code: int = 0
    expected: list[str] = field(default_factory=list)


def fences(text: str) -> list[tuple[str, list[str]]]:
    """Every fenced block: (language, lines)."""
    out: list[tuple[str, list[str]]] = []
    language: str | None = None
    for line in text.splitlines():
        if language is None and line.startswith("```"):
            language, body = line[3:].strip(), []
        elif language is not None and line.rstrip() == "```":
            out.append((language, body))
            language = None
        elif language is not None:
            body.append(line)
    assert language is None, "an unclosed code fence"
    return out


def blocks(text: str) -> list[list[Command]]:
    out = []
    for language, body in fences(text):
        if language != "console":
            continue
        commands: list[Command] = []
        for line in body:
            if line.startswith("$ "):
                code = re.search(r"#.*\bexit (\d+)", line)
                commands.append(Command(line[2:], int(code.group(1)) if code else 0))
            else:
                assert commands, f"output before any command in a console block: {line!r}"
                commands[-1].expected.append(line)
        out.append(commands)
    return out


BLOCKS = blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_console_examples_and_no_prompt_elsewhere() -> None:
    assert len(BLOCKS) >= 4 and sum(len(b) for b in BLOCKS) >= 10
    others = [body for language, body in fences(README.read_text(encoding="utf-8")) if language != "console"]
    assert not [b for b in others if any(line.startswith("$ ") for line in b)], "a `$ command` outside a console block is never run"
    commands = {c.line.split("#")[0].strip() for b in BLOCKS for c in b}
    assert set(CHECKS) <= commands, "a check on a command the README no longer gives would never run"


def in_order(expected: list[str], output: str) -> str | None:
    """The first expected line not found (in order) in ``output``, or None."""
    lines = [ln.rstrip() for ln in output.splitlines()]
    at = 0
    for want in (w.rstrip() for w in expected):
        if want == "...":
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("...")))
        while at < len(lines) and not pattern.search(lines[at]):
            at += 1
        if at == len(lines):
            return want
        at += 1
    return None


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, id=b[0].line.split("#")[0].strip()[:60],
                  marks=[pytest.mark.slow] if any(TENSORFLOW.match(c.line) for c in b) else []) for b in BLOCKS],
)
def test_console_example_runs_as_written(block: list[Command], tmp_path: Path) -> None:
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", "TERM": "dumb"}
    env.pop("COLUMNS", None)
    for command in block:
        cat = re.fullmatch(r"cat (\S+)", command.line.strip())
        if cat:
            (tmp_path / cat.group(1)).write_text("\n".join(command.expected) + "\n", encoding="utf-8")
        python = PYTHON.fullmatch(command.line.strip())
        if python:  # what bash would start: PATH's first python, this interpreter (asserted), in a TensorFlow fork
            assert Path(shutil.which("python", path=env["PATH"]) or "").resolve() == Path(sys.executable).resolve()
            proc = run_python(python.group(1).split(), cwd=tmp_path, env=env, timeout=300)
        else:
            proc = subprocess.run(["bash", "-c", command.line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        output = proc.stdout + proc.stderr
        assert proc.returncode == command.exit_code, f"$ {command.line}\nexit {proc.returncode}\n{output[-3000:]}"
        missing = in_order(command.expected, output)
        assert missing is None, f"$ {command.line}\nnot in the output (in order): {missing!r}\n{output[-5000:]}"
        check = CHECKS.get(command.line.split("#")[0].strip())
        if check:
            check(proc.stdout, tmp_path)
