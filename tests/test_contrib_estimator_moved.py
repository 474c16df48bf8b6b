"""tf.contrib.estimator's names that moved to core unchanged (TFM601): add_metrics, InMemoryEvaluatorHook,
make_stop_at_checkpoint_step_hook, call_logit_fn, build_raw_supervised_input_receiver_fn.

Each name in every import form and scope, through a name, an attribute of a module alias, an
attribute of ``self`` and a parameter default, in positional and keyword call forms: rewritten to its
TF 2.15 name with the arguments untouched, no ``tensorflow.contrib`` left, and a fixed point. That the
TF 2.15 names exist is checked by ``tests/test_contrib.py``'s run of every RENAMES target.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.contrib import tables as T

ALL = load_catalog().selected(None)

MOVED = {
    "add_metrics": ("tf.estimator.add_metrics", "(est, metric_fn)"),
    "InMemoryEvaluatorHook": ("tf.estimator.experimental.InMemoryEvaluatorHook", "(est, input_fn, every_n_iter=50)"),
    "make_stop_at_checkpoint_step_hook": ("tf.estimator.experimental.make_stop_at_checkpoint_step_hook",
                                          "(est, last_step=100, wait_after_file_check_secs=1)"),
    "call_logit_fn": ("tf.estimator.experimental.call_logit_fn", "(logit_fn, features, mode, params, config)"),
    "build_raw_supervised_input_receiver_fn": ("tf.estimator.experimental.build_raw_supervised_input_receiver_fn",
                                               "(features, labels, default_batch_size=None)"),
}

# (import lines, how the name is reached)
IMPORTS = {
    "tf": ("import tensorflow as tf", "tf.contrib.estimator.{name}"),
    "tf_full": ("import tensorflow", "tensorflow.contrib.estimator.{name}"),
    "from_contrib": ("import tensorflow as tf\nfrom tensorflow.contrib import estimator as ce", "ce.{name}"),
    "import_as": ("import tensorflow as tf\nimport tensorflow.contrib.estimator as ce", "ce.{name}"),
    "from_module": ("import tensorflow as tf\nfrom tensorflow.contrib.estimator import {name}", "{name}"),
    "from_as": ("import tensorflow as tf\nfrom tensorflow.contrib.estimator import {name} as alias", "alias"),
    "module_alias": ("import tensorflow as tf\nCE = tf.contrib.estimator", "CE.{name}"),
}

SCOPES = {
    "module": "x = {call}\n",
    "function": "def build(est, input_fn, metric_fn):\n    return {call}\n",
    "method": "class Trainer:\n    def build(self):\n        self.x = {call}\n        return self.x\n",
    "main": 'if __name__ == "__main__":\n    x = {call}\n',
}


def _cases():
    """Every name in every import form; the scopes taken in turn, so that each name meets each scope and each
    form meets each scope (the scope is the renames machinery's, shared by every name: all 140 combinations
    would test it 35 times over)."""
    scopes = list(SCOPES)
    for i, name in enumerate(MOVED):
        for j, form in enumerate(IMPORTS):
            scope = scopes[(i + j) % len(scopes)]
            yield pytest.param(name, form, scope, id=f"{name}-{form}-{scope}")


def test_the_table_holds_them():
    for name, (target, _) in MOVED.items():
        assert T.RENAMES[f"estimator.{name}"] == target.removeprefix("tf.")


@pytest.mark.parametrize(("name", "form", "scope"), list(_cases()))
def test_moved_in_every_form(name: str, form: str, scope: str) -> None:
    target, args = MOVED[name]
    imports, reach = IMPORTS[form]
    call = reach.format(name=name) + args
    source = imports.format(name=name) + "\n" + SCOPES[scope].format(call=call)
    result = rewrite_source(source.encode(), ALL, path="t.py")
    new = result.new.decode()
    expected_call = (target if form != "tf_full" else "tensorflow." + target.removeprefix("tf.")) + args
    assert expected_call in new, new
    assert "contrib" not in new, new
    ast.parse(new)
    rules = {f.rule for f in result.findings}
    assert "TFM601" in rules and "TFM503" not in rules, result.findings
    again = rewrite_source(result.new, ALL, path="t.py")
    assert again.new == result.new
