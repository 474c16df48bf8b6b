"""benchmarks/census.py (issue 27, the census of use) on two real git repositories made here.

The census reads each repository's Python files at its pinned commit straight from git (a later
commit's uses must not count), counts legacy uses and using repositories per symbol through
legacy_refs.py's visitor (a name the repository adds to TensorFlow in one module is its own in all),
and counts a file Python 3 cannot parse instead of stopping. With
``--rewrite`` it runs the real tfmigrate rewrite on each file and classifies every legacy use as
rewritten away, reported (a finding on its line) or silent; the per-file log is reused, not rerun.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import census  # noqa: E402

A_MAIN = """\
import tensorflow as tf

a = tf.contrib.learn.DNNClassifier(hidden_units=[3])
b = tf.contrib.learn.DNNClassifier(hidden_units=[4])
s = tf.scalar_summary("loss", 1.0)
c = tf.constant(1)
"""
A_PKG = """\
from tensorflow.contrib import learn

def build():
    return learn.DNNClassifier(hidden_units=[5])
"""
A_PY2 = 'print "a Python 2 file"\n'
A_LATER = "import tensorflow as tf\nx = tf.contrib.learn.DNNClassifier()\ny = tf.mul(1, 2)\n"
B_MAIN = """\
import skflow
import tensorflow as tf

m = skflow.TensorFlowDNNClassifier(hidden_units=[3])
d = tf.contrib.learn.DNNClassifier(hidden_units=[3])
z = tf.contrib.nosuchmodule.thing()
k = tf.get_collection(tf.GraphKeys.MINE)
"""
B_KEYS = """\
import tensorflow as tf

tf.GraphKeys.MINE = "mine"  # the repo adds this name to TensorFlow: its own, in every module
"""


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env).stdout.strip()


def _commit(repo: Path, files: dict[str, str]) -> str:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "files")
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def fixture(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    commits = {}
    for name, files in (
        ("a", {"main.py": A_MAIN, "pkg/model.py": A_PKG, "old.py": A_PY2, "README.md": "tf.contrib.learn.DNNClassifier\n"}),
        ("b", {"main.py": B_MAIN, "keys.py": B_KEYS}),
    ):
        repo = tmp_path / name
        repo.mkdir()
        _git(repo, "init", "-q")
        commits[name] = _commit(repo, files)
    _commit(tmp_path / "a", {"later.py": A_LATER})  # after the pinned commit: not counted
    toml = tmp_path / "repos.toml"
    toml.write_text("".join(
        f'[[repo]]\nrepo = "owner/{n}"\ncommit = "{c}"\ngit = "{tmp_path / n / ".git"}"\n\n' for n, c in commits.items()
    ))
    return toml, commits


def _run(tmp_path: Path, toml: Path, *extra: str) -> dict:
    out = tmp_path / "census.json"
    assert census.main(["--repos", str(toml), "--out", str(out), "--rewrite-log", str(tmp_path / "rw.jsonl"), *extra]) == 0
    return json.loads(out.read_text())


def test_counts_uses_and_repos_at_the_pinned_commit(tmp_path: Path, fixture) -> None:
    toml, commits = fixture
    data = _run(tmp_path, toml)
    repos = {r["repo"]: r for r in data["repos"]}
    assert repos["owner/a"]["commit"] == commits["a"]
    assert (repos["owner/a"]["files"], repos["owner/a"]["unparsable"]) == (3, 1)  # README.md is no Python file
    assert repos["owner/a"]["lines"] == sum(t.count("\n") for t in (A_MAIN, A_PKG, A_PY2))
    assert (repos["owner/b"]["files"], repos["owner/b"]["unparsable"]) == (2, 0)
    assert repos["owner/b"]["defined"] == ["tensorflow.GraphKeys.MINE"]
    symbols = data["symbols"]
    # 2 in a/main.py, 1 through `from tensorflow.contrib import learn` in a/pkg/model.py, 1 in b; not later.py's
    assert symbols["tensorflow.contrib.learn.DNNClassifier"] == {"uses": 4, "repos": 2}
    assert symbols["tensorflow.contrib.learn"] == {"uses": 1, "repos": 1}  # the from-import itself
    assert symbols["tensorflow.scalar_summary"] == {"uses": 1, "repos": 1}
    assert symbols["skflow.TensorFlowDNNClassifier"] == {"uses": 1, "repos": 1}
    assert symbols["tensorflow.contrib.nosuchmodule.thing"] == {"uses": 1, "repos": 1}
    assert "tensorflow.mul" not in symbols  # only in the commit after the pin
    assert "tensorflow.constant" not in symbols  # TF 2.15 has it: not legacy
    assert "tensorflow.GraphKeys.MINE" not in symbols  # assigned in b/keys.py, read in b/main.py
    assert symbols["tensorflow.get_collection"] == {"uses": 1, "repos": 1}
    assert list(symbols) == sorted(symbols, key=lambda n: (-symbols[n]["uses"], n))  # ordered by frequency
    assert data["unparsable"] == {"owner/a": ["old.py"]}
    table = census.markdown(data)
    assert "| 1 | `tf.contrib.learn.DNNClassifier` | 4 | 2 |" in table
    assert "| tf.contrib.learn | 2 | 5 | 2 |" in table  # DNNClassifier x4 and the module x1, in both repos


def test_unparsable_files_are_counted_not_fatal(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q")
    commit = _commit(repo, {"a.py": "def f(:\n", "b.py": "exec 'x'\n", "c.py": "import tensorflow as tf\ntf.mul(1, 2)\n"})
    toml = tmp_path / "repos.toml"
    toml.write_text(f'[[repo]]\nrepo = "o/r"\ncommit = "{commit}"\ngit = "{repo / ".git"}"\n')
    data = _run(tmp_path, toml)
    assert data["repos"][0]["files"] == 3
    assert data["repos"][0]["unparsable"] == 2
    assert data["symbols"] == {"tensorflow.mul": {"uses": 1, "repos": 1}}


def test_rewrite_classifies_each_use_and_is_not_rerun(tmp_path: Path, fixture) -> None:
    toml, _ = fixture
    data = _run(tmp_path, toml, "--rewrite")
    outcome = data["rewrite"]["symbols"]
    assert outcome["tensorflow.scalar_summary"]["rewritten"] == 1  # renamed to its compat.v1 form
    assert outcome["tensorflow.scalar_summary"]["silent"] == 0
    # a name TF 2.15 lacks, no replacement: left, with a finding on its line
    assert outcome["tensorflow.contrib.nosuchmodule.thing"] == {"rewritten": 0, "reported": 1, "silent": 0, "added": 0}
    for name, o in outcome.items():  # every use is accounted for once
        assert o["rewritten"] + o["reported"] + o["silent"] - o["added"] + o.get("in_refused_files", 0) == data["symbols"][name]["uses"], name
    log = (tmp_path / "rw.jsonl").read_text().splitlines()
    assert len(log) == 3  # a/main.py, a/pkg/model.py, b/main.py: the files with a legacy use
    assert data["rewrite"]["files"] == 3
    again = _run(tmp_path, toml, "--rewrite")
    assert (tmp_path / "rw.jsonl").read_text().splitlines() == log  # read back, not rerun
    assert again["rewrite"]["symbols"] == outcome
