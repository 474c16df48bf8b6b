"""The real `pre-commit` runs our hooks from this checkout against a git repository of legacy code (its
`.pre-commit-config.yaml` names them: tests/precommit_repo.py)."""

import json
import subprocess

import pytest

from tests.precommit_repo import new_repo, pre_commit as find_pre_commit

LEGACY = "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, shape=[None, 4])\nsess = tf.Session()\n"
NOTEBOOK = json.dumps(
    {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
               for source in (["import tensorflow as tf"], ["sess = tf.Session()"])],
     "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
    indent=1, sort_keys=True,
) + "\n"


def run(cmd, cwd, env):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)


@pytest.mark.slow
def test_pre_commit_hooks_fail_on_legacy_code_then_fix_it(tmp_path, precommit_hooks):
    pre_commit = find_pre_commit()
    repo, env = new_repo(tmp_path, precommit_hooks)
    (repo / "train.py").write_text(LEGACY)
    (repo / "explore.ipynb").write_text(NOTEBOOK)
    run(["git", "add", "train.py", "explore.ipynb"], repo, env)

    check = run([pre_commit, "run", "tfmigrate", "--all-files"], repo, env)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "train.py:3:5: TFM501" in check.stdout
    assert "explore.ipynb:cell 2:1:8: TFM501" in check.stdout  # notebooks are hooked too (types_or: jupyter)
    assert (repo / "train.py").read_text() == LEGACY
    assert (repo / "explore.ipynb").read_text() == NOTEBOOK

    fix = run([pre_commit, "run", "tfmigrate-fix", "--all-files"], repo, env)
    assert fix.returncode == 1, fix.stdout + fix.stderr  # files were modified by this hook
    fixed = (repo / "train.py").read_text()
    assert "tf.compat.v1.placeholder" in fixed and "tf.compat.v1.Session()" in fixed
    cells = [cell["source"] for cell in json.loads((repo / "explore.ipynb").read_text())["cells"]]
    assert cells == [["import tensorflow as tf\n", "tf.compat.v1.disable_eager_execution()"], ["sess = tf.compat.v1.Session()"]]
    run(["git", "add", "train.py", "explore.ipynb"], repo, env)

    again = run([pre_commit, "run", "tfmigrate", "--all-files"], repo, env)
    assert again.returncode == 0, again.stdout + again.stderr
