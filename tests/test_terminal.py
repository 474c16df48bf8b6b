"""What a person sees in a terminal: complete help texts, code and paths never cropped or folded,
piped output plain with no width limit (issue 19)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import click

from tests.clichildren import run_cli
from tfmigrate.cli import cli
from tfmigrate.codemod.rule import load_catalog

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def tfmigrate(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "NO_COLOR")}
    return run_cli(args, cwd=cwd, env={**base, **env}, timeout=300)  # a fork of the warm CLI server (tests/clichildren.py)


def commands() -> list[tuple[str, click.Command]]:
    ctx = click.Context(cli)
    out = []

    def walk(cmd: click.Command, path: str) -> None:
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), f"{path} {name}".strip())
        else:
            out.append((path, cmd))

    walk(cli, "")
    return out


def test_every_option_of_every_command_is_described() -> None:
    missing = [f"{path} {p.opts[0]}" for path, cmd in commands() for p in cmd.params if isinstance(p, click.Option) and not p.help]
    assert not missing
    assert {path for path, _ in commands()} >= {"rewrite", "rules", "report", "validate", "ckpt inspect", "ckpt diff", "ckpt convert"}


def test_help_gives_exit_codes_formats_and_target_forms() -> None:
    rewrite = " ".join(tfmigrate("rewrite", "--help").stdout.split())
    assert "Exit codes: 0 nothing left to do 1 with --check/--diff: a file would change or a finding remains" in rewrite
    assert "2 an error" in rewrite and "json: the results (schema 2, see the README)" in rewrite and "sarif:" in rewrite
    assert "fixed (rewritten in this run), fixable (--check/--diff: would be fixed by rewrite) or manual" in rewrite
    validate = tfmigrate("validate", "--help").stdout
    assert "file.py:LINE" in validate and "file.py:function" in validate and "Exit 0 passed, 1 a stage failed, 2 could not run" in validate
    for args in (("report", "--help"), ("ckpt", "diff", "--help"), ("ckpt", "convert", "--help")):
        assert re.search(r"Exit 0 .*1 .*2", " ".join(tfmigrate(*args).stdout.split())), args
    assert "--max-chars" in tfmigrate("report", "--help").stdout


def test_rules_at_80_columns_show_every_line_of_example_code_whole() -> None:
    proc = tfmigrate("rules", "TFM101", COLUMNS="80", FORCE_COLOR="1")  # a colour terminal 80 columns wide
    assert proc.returncode == 0 and "\x1b[" in proc.stdout
    shown = {ANSI.sub("", line).rstrip() for line in proc.stdout.splitlines()}
    code = [line.rstrip() for e in load_catalog().rules["TFM101"].examples for text in (e.before, e.after or "")
            for line in text.splitlines() if line.strip()]
    assert max(map(len, code)) > 80  # the case that was cropped ("learning_rate=0.1, glob")
    assert not [line for line in code if line not in shown]


def test_piped_output_is_plain_and_never_wrapped(tmp_path: Path) -> None:
    name = "a_directory_name_that_is_long_enough/" * 3
    (tmp_path / name).mkdir(parents=True)
    (tmp_path / name / "m.py").write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\nsess = tf.Session()\n")
    for args in (("rewrite", "--check", "."), ("report", ".")):
        proc = tfmigrate(*args, cwd=tmp_path, COLUMNS="40")  # a narrow terminal setting changes nothing when piped
        text = proc.stdout + proc.stderr
        assert "\x1b" not in text
        if args[0] == "rewrite":
            finding = f"{name}m.py:2:5: TFM501 tf.placeholder does not exist in TensorFlow 2.15: use tf.compat.v1.placeholder"
            assert finding in text.splitlines()[0], text
        else:
            assert f"│ {name}m.py │" in text, text  # the files table keeps the path whole
