"""README's "Use it on your own project", as a newcomer would run it: tfmigrate installed into the
virtualenv of another project (a throwaway one here), from a built wheel and from a git URL at the
release tag README names, and its `tfmigrate` run there on that project's legacy code.

Offline, as tests/test_wheel.py: no build isolation, no index; the fresh virtualenv reaches
tfmigrate's dependencies through a .pth file naming this environment's site-packages, written after
the install. tfmigrate itself comes from the wheel or the git checkout: the test checks where it is
imported from. (pipx is a virtualenv made this way plus a link on PATH; it is not installed here.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.precommit_repo import ROOT, new_repo, release_tag, tagged_clone
from tests.test_wheel import _fresh_venv, _sources

pytestmark = pytest.mark.slow

LEGACY = "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, shape=[None, 4])\n"
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("## Use it on your own project"):README.index("\n## ", README.index("## Use it on your own project") + 5)]


def _project(tmp_path: Path) -> Path:
    """Another project: its own directory and code, nothing of tfmigrate's."""
    project = tmp_path / "my-project"
    project.mkdir()
    (project / "train.py").write_text(LEGACY, encoding="utf-8")
    return project


def _tfmigrate(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin"  # the project's venv first, as after `. .venv/bin/activate`
    return subprocess.run(["tfmigrate", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _used_in_the_project(venv: Path, project: Path, origin: Path) -> None:
    """The venv's `tfmigrate` is the installed one, with its catalog, and migrates the project."""
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import tfmigrate; print(tfmigrate.__file__)"],
                           cwd=project, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(origin), where
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert _tfmigrate(venv, "--version", cwd=project).stdout.strip().endswith(version)
    check = _tfmigrate(venv, "rewrite", "--check", ".", cwd=project)
    assert check.returncode == 1, check.stderr
    assert "train.py:3:5: TFM501" in check.stdout and "(fixable)" in check.stdout
    assert "tfmigrate rewrite ." in check.stderr  # the next step, on the summary's stream
    assert _tfmigrate(venv, "rewrite", ".", cwd=project).returncode == 0
    assert "tf.compat.v1.placeholder" in (project / "train.py").read_text(encoding="utf-8")


def test_the_readme_names_this_version_and_its_tag() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    import tfmigrate

    assert tfmigrate.__version__ == version and release_tag() == f"v{version}"
    assert f"`v{version}` is this release's tag" in SECTION and f"rev: v{version}" in SECTION
    assert f"dist/tfmigrate-{version}-py3-none-any.whl" in SECTION and f'pip install "git+URL@v{version}"' in SECTION
    assert "<tag>" not in README and "<this repository>" not in README  # nothing to guess
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert set(re.findall(r"^- id: (\S+)", hooks, re.M)) == {"tfmigrate", "tfmigrate-fix"}
    assert "- id: tfmigrate " in SECTION and "- id: tfmigrate-fix " in SECTION


def test_a_built_wheel_installed_into_another_projects_venv(tmp_path: Path) -> None:
    src = _sources(tmp_path)
    dist = tmp_path / "dist"
    # README: `pip wheel --no-deps -w dist .` (offline: this environment's setuptools, no index)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(dist), str(src)],
                   check=True)
    (wheel,) = dist.glob("*.whl")
    assert wheel.name == f"tfmigrate-{release_tag()[1:]}-py3-none-any.whl"  # the name README gives
    project = _project(tmp_path)
    venv = _fresh_venv(tmp_path, wheel)
    _used_in_the_project(venv, project, venv)


def test_a_git_url_at_the_release_tag_installed_into_another_projects_venv(tmp_path: Path) -> None:
    _, env = new_repo(tmp_path)
    clone, tag = tagged_clone(tmp_path, env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "after the release"], cwd=clone, env=env, check=True)  # the tag, not HEAD
    (clone / "tfmigrate" / "__init__.py").write_text("raise SystemExit('not the tagged commit')\n")
    subprocess.run(["git", "commit", "-q", "-am", "broken after the release"], cwd=clone, env=env, check=True)
    # README: pip install "git+URL@v<version>", with URL a file:// address here. pip clones the
    # tag, builds a wheel and installs it; the build runs here (this environment's setuptools: offline),
    # the install into the project's fresh venv
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index", "--no-build-isolation", "-w", str(dist),
                    f"git+file://{clone}@{tag}"], check=True, env=env, capture_output=True)
    (wheel,) = dist.glob("*.whl")
    venv = _fresh_venv(tmp_path, wheel)
    _used_in_the_project(venv, _project(tmp_path), venv)
