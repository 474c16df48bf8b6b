"""Reports and ``--output`` files are written atomically: a temporary file in the same directory
renamed over the target, so a reader (or a crash) sees the old report or the new one, never half
of one, and no temporary file is left behind."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tfmigrate.codemod.files import write_output

from .helpers import LEGACY, run_tfmigrate as tfm


@pytest.mark.parametrize("args, name", [
    (("rewrite", "src.py", "--check", "--format", "json", "-o", "out/report.json"), "report.json"),
    (("rewrite", "src.py", "--check", "--format", "sarif", "--output", "out/report.sarif"), "report.sarif"),
    (("report", "src.py", "--json", "out/report.json"), "report.json"),
    (("report", "src.py", "--markdown", "out/report.md"), "report.md"),
    (("report", "src.py", "--html", "out/report.html"), "report.html"),
    (("report", "src.py", "--sarif", "out/report.sarif"), "report.sarif"),
])
def test_an_existing_report_is_replaced_in_one_step(tmp_path: Path, args: tuple[str, ...], name: str) -> None:
    (tmp_path / "src.py").write_bytes(LEGACY)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / name
    target.write_text("OLD REPORT\n")
    os.chmod(target, 0o640)
    reader = open(target, "rb")  # a reader of the old report keeps reading it whole  # noqa: SIM115
    inode = os.stat(target).st_ino
    try:
        proc = tfm(*args, cwd=tmp_path)
        assert proc.returncode in (0, 1), proc.stderr
        assert reader.read() == b"OLD REPORT\n"
    finally:
        reader.close()
    assert os.stat(target).st_ino != inode  # renamed over, not truncated and rewritten
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # the existing file's mode kept
    text = target.read_text()
    assert "OLD REPORT" not in text and len(text) > 100
    if name.endswith((".json", ".sarif")):
        json.loads(text)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [name]  # no temporary file left


def test_a_new_report_gets_the_usual_mode_and_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "src.py").write_bytes(LEGACY)
    proc = tfm("report", "src.py", "--json", "new.json", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o666 & ~umask
    json.loads((tmp_path / "new.json").read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json", "src.py"]


def test_a_failed_write_leaves_the_old_report_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text('{"old": true}\n')


    def failing() -> None:  # a write that fails half-way (a full disk): the old report stays
        original = os.fsync

        def fsync(fd: int) -> None:
            raise OSError(28, "No space left on device")

        os.fsync = fsync
        try:
            write_output(target, b'{"new": ' + b"1" * 100_000 + b"}\n")
        finally:
            os.fsync = original

    with pytest.raises(OSError):
        failing()
    assert target.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_an_output_in_a_missing_directory_exits_2(tmp_path: Path) -> None:
    (tmp_path / "src.py").write_bytes(LEGACY)
    proc = tfm("rewrite", "src.py", "--check", "--format", "json", "-o", "nowhere/out.json", cwd=tmp_path)
    assert proc.returncode == 2 and "cannot write" in proc.stderr
    assert (tmp_path / "src.py").read_bytes() == LEGACY
