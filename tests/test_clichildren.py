"""tests/clichildren.py's ``run_cli`` is ``python -m tfmigrate``: for each kind of run the tests make through it
(help, a colour terminal's rule text, findings with exit 1, a usage error on stderr, a rewrite that writes files,
a new file under the caller's umask, stderr merged into stdout), a fork of the warm CLI server and a fresh interpreter
print the same bytes, exit with the same status and leave the same files. Each case is one fresh process."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests import clichildren
from tests.clichildren import run_cli

LEGACY = "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, shape=[None, 4])\nsess = tf.Session()\n"

CASES = {
    "help": (["rewrite", "--help"], {"COLUMNS": "100"}),
    "colour terminal": (["rules", "TFM501"], {"COLUMNS": "80", "FORCE_COLOR": "1"}),
    "findings": (["rewrite", "--check", "--no-cache", "."], {"NO_COLOR": "1"}),
    "usage error": (["rewrite", "--jobs", "zero", "."], {}),
    "rewrite writes": (["rewrite", "--format", "json", "."], {}),
    "new file, umask 027": (["report", ".", "--json", "r.json"], {"UMASK": "027"}),
}


def project(root: Path) -> Path:
    root.mkdir()
    (root / "legacy.py").write_text(LEGACY)
    (root / "sub").mkdir()
    (root / "sub" / "b.py").write_text(LEGACY.replace("x =", "y ="))
    return root


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
            for p in sorted(root.rglob("*")) if p.is_file() and ".tfmigrate_cache" not in p.parts}


@pytest.mark.parametrize("case", list(CASES))
def test_a_fork_prints_and_writes_what_a_fresh_process_does(case: str, tmp_path: Path) -> None:
    args, extra = CASES[case]
    extra = dict(extra)
    umask = int(extra.pop("UMASK", "022"), 8)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "NO_COLOR")} | extra
    run_cli(["--version"])  # the server started under the suite's umask: a fork must take the caller's
    old = os.umask(umask)
    try:
        fresh_dir = project(tmp_path / "p")
        fresh = subprocess.run([sys.executable, "-m", "tfmigrate", *args], cwd=fresh_dir, env=env, capture_output=True)
        fresh_files = files(fresh_dir)
        fresh_dir.rename(tmp_path / "fresh")
        fork_dir = project(tmp_path / "p")  # the same path: outputs that name it agree
        forked = run_cli(args, cwd=fork_dir, env=env, text=False)
    finally:
        os.umask(old)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert files(fork_dir) == fresh_files
    assert fresh.stdout or fresh.stderr
    if case == "rewrite writes":
        assert fresh_files["legacy.py"][0] != LEGACY.encode(), fresh_files
    if case == "new file, umask 027":
        assert fresh_files["r.json"][1] == 0o640, fresh_files


def test_stderr_into_stdout_and_text_mode_as_subprocess_gives_them(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120")
    args = ["rewrite", "--check", "--no-cache", "legacy.py", "missing.py"]
    fresh = subprocess.run([sys.executable, "-m", "tfmigrate", *args], cwd=root, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    forked = run_cli(args, cwd=root, env=env, stderr_to_stdout=True)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, None)
    assert "missing.py" in fresh.stdout and "TFM501" in fresh.stdout


def test_a_setting_read_at_start_up_gets_a_fresh_process() -> None:
    """What the interpreter or tfmigrate's modules read when they start (PYTHON*, the locale, the program
    limits) is the server's in a fork: a call that sets one differently runs as a real subprocess."""
    if os.environ.get("TFMIGRATE_CLI_FRESH") or os.environ.get("TFMIGRATE_SUITE_FRESH"):
        pytest.skip("the suite runs the CLI fresh: no server to compare with")
    base = dict(os.environ)
    clichildren.run_cli(["--version"], env=base)  # the server runs
    assert not clichildren._fresh(base)
    for name, value in (("TFMIGRATE_PROGRAM_LIMIT", "7"), ("PYTHONWARNINGS", "error"), ("LC_ALL", "C"),
                        ("PYTHONPATH", "/nowhere")):
        assert clichildren._fresh({**base, name: value}), name
    assert not clichildren._fresh({**base, "COLUMNS": "33", "NO_COLOR": "1"})  # read when the command runs
    here = os.pathsep.join(p for p in (base.get("PYTHONPATH"), str(clichildren.ROOT)) if p)
    assert not clichildren._fresh({**base, "PYTHONPATH": here})  # this checkout, where tfmigrate comes from already
