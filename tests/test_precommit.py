"""The real `pre-commit` runs our hooks against a git repository of legacy code, configured as README's
"Use it on your own project" says: `repo:` a clone of this repository (its files as they are now), `rev:`
the release tag README names, the hook ids of `.pre-commit-hooks.yaml`. Both hooks share one
environment, installed once for every test of a pytest process (one store: the precommit_hooks fixture)."""

import json
import subprocess

import pytest

from tests.precommit_repo import ROOT, new_repo, pre_commit as find_pre_commit

LEGACY = "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, shape=[None, 4])\nsess = tf.Session()\n"
NOTEBOOK = json.dumps(
    {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
               for source in (["import tensorflow as tf"], ["sess = tf.Session()"])],
     "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
    indent=1, sort_keys=True,
) + "\n"


def run(cmd, cwd, env):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)


def config(clone, tag: str) -> str:
    """README's configuration, with this clone as the repository."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("```yaml\nrepos:")
    block = readme[start + len("```yaml\n"):readme.index("```", start + 3)]
    assert f"rev: {tag}" in block and "repo: URL" in block, block
    return block.replace("repo: URL", f"repo: {clone}").replace("# - id: tfmigrate-fix", "- id: tfmigrate-fix")


@pytest.mark.slow
def test_pre_commit_hooks_fail_on_legacy_code_then_fix_it(tmp_path, precommit_hooks):
    pre_commit = find_pre_commit()
    repo, env = new_repo(tmp_path, precommit_hooks)
    clone, tag, _ = precommit_hooks  # this checkout, tagged with the release tag
    (repo / ".pre-commit-config.yaml").write_text(config(clone, tag))
    (repo / "train.py").write_text(LEGACY)
    (repo / "explore.ipynb").write_text(NOTEBOOK)
    run(["git", "add", ".pre-commit-config.yaml", "train.py", "explore.ipynb"], repo, env)

    check = run([pre_commit, "run", "tfmigrate", "--all-files"], repo, env)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "train.py:3:5: TFM501" in check.stdout
    assert "explore.ipynb:cell 2:1:8: TFM501" in check.stdout  # notebooks are hooked too (types_or: jupyter)
    assert "tfmigrate rewrite" in check.stdout  # the failure says what applies the fixes
    assert (repo / "train.py").read_text() == LEGACY
    assert (repo / "explore.ipynb").read_text() == NOTEBOOK

    fix = run([pre_commit, "run", "tfmigrate-fix", "--all-files"], repo, env)
    assert fix.returncode == 1, fix.stdout + fix.stderr  # files were modified by this hook
    fixed = (repo / "train.py").read_text()
    assert "tf.compat.v1.placeholder" in fixed and "tf.compat.v1.Session()" in fixed
    cells = [cell["source"] for cell in json.loads((repo / "explore.ipynb").read_text())["cells"]]
    assert cells == [["import tensorflow as tf\n", "tf.compat.v1.disable_eager_execution()"], ["sess = tf.compat.v1.Session()"]]
    run(["git", "add", "train.py", "explore.ipynb"], repo, env)

    again = run([pre_commit, "run", "--all-files"], repo, env)  # both hooks
    assert again.returncode == 0, again.stdout + again.stderr
