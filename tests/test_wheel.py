"""The catalog lives in the top-level rules/ folder and still ships: a wheel built from a copy of
the sources, installed into a fresh virtual environment, lists every rule of the catalog; so does
an editable install (which maps tfmigrate.rules onto the checkout's rules/).

Offline: the wheel is built with this environment's setuptools (no build isolation), installed
with no index, and the fresh environment reaches tfmigrate's dependencies (libcst, click, rich, ...)
through a .pth file naming this environment's site-packages, written after the install so that pip
never sees them. tfmigrate itself comes from the wheel: the test checks where it is imported from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.codemod.rule import load_catalog

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("tfmigrate", "rules", "pyproject.toml", "setup.py", "README.md")

pytestmark = pytest.mark.slow


def _sources(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, src / name)
    return src


def _fresh_venv(tmp_path: Path, wheel: Path) -> Path:
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
    )
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip())
    dependencies = [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]
    (site / "_tfmigrate_test_dependencies.pth").write_text("\n".join(dependencies) + "\n")
    return venv


def _run(venv: Path, *args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(list(args), cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("kind", ["wheel", "editable"])
def test_an_installed_tfmigrate_lists_the_whole_catalog(tmp_path, kind):
    src = _sources(tmp_path)
    dist = tmp_path / "dist"
    if kind == "wheel":
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
             "-w", str(dist), str(src)],
            check=True,
        )
    else:  # what `pip install -e .` builds (PEP 660), made with this environment's setuptools
        subprocess.run(
            [sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_editable({str(dist)!r})"],
            cwd=src, check=True, capture_output=True,
        )
    (wheel,) = dist.glob("*.whl")
    venv = _fresh_venv(tmp_path, wheel)
    work = tmp_path / "elsewhere"
    work.mkdir()

    where = json.loads(_run(
        venv, str(venv / "bin" / "python"), "-c",
        "import json, tfmigrate, tfmigrate.codemod.rule as r; print(json.dumps([tfmigrate.__file__, str(r.CATALOG_DIR)]))",
        cwd=work,
    ))
    package, catalog_dir = (Path(p) for p in where)
    if kind == "wheel":
        assert package.is_relative_to(venv) and catalog_dir == package.parent / "rules"
    else:
        assert package.is_relative_to(src / "tfmigrate") and catalog_dir == src / "rules"

    listed = json.loads(_run(venv, str(venv / "bin" / "tfmigrate"), "rules", "--format", "json", cwd=work))
    assert [r["id"] for r in listed] == list(load_catalog().rules)
