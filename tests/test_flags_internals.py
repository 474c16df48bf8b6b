"""TFM505: TF <= 1.4's ``FLAGS._parse_flags()`` and ``FLAGS.__flags`` (issue 27, item 9).

Generated over import forms x access forms x scopes x usages: each variant is rewritten by the real
engine into absl's form, or flagged on its line (never renamed to ``tf.compat.v1`` and left to crash).
The slow test runs a rewritten program on TensorFlow 2.15 with real command-line flags and compares
its output with TF 1.4's semantics (tensorflow/python/platform/flags.py, r1.4: argparse's
``parse_known_args``; the dict holds the parsed value of each flag the program defined).
"""

from __future__ import annotations

import argparse
import itertools
import os
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

ENABLED = load_catalog().selected(None)
VALUES = ('{{f.name: f.value for m, fs in {F}.flags_by_module_dict().items() '
          'if not m.startswith(("absl.", "tensorflow.")) for f in fs}}')

# (id, header lines, the FLAGS expression as written, the same after the rewrite)
IMPORTS = [
    ("tf.flags", "import tensorflow as tf", "tf.flags.FLAGS", "tf.compat.v1.flags.FLAGS"),
    ("tf.app.flags", "import tensorflow as tf", "tf.app.flags.FLAGS", "tf.compat.v1.app.flags.FLAGS"),
    ("plain_import", "import tensorflow", "tensorflow.flags.FLAGS", "tensorflow.compat.v1.flags.FLAGS"),
    ("alias_tf.flags", "import tensorflow as tf\nflags = tf.flags", "flags.FLAGS", "flags.FLAGS"),
    ("alias_tf.app.flags", "import tensorflow as tf\nflags = tf.app.flags", "flags.FLAGS", "flags.FLAGS"),
    ("from_tensorflow", "from tensorflow import flags", "flags.FLAGS", "flags.FLAGS"),
    ("from_platform", "from tensorflow.python.platform import flags", "flags.FLAGS", "flags.FLAGS"),
    ("from_app", "from tensorflow.compat.v1 import app", "app.flags.FLAGS", "app.flags.FLAGS"),
]
ACCESS = ["direct", "module_alias"]  # FLAGS written out at the use, or `FLAGS = <it>` once in the module
SCOPES = ["module", "function", "method", "main"]
# (id, the use with {F}, the expected line with {F} (the renamed FLAGS) or None: a finding on the line)
USAGES = [
    ("parse_statement", "{F}._parse_flags()", "{F}(sys.argv, known_only=True)"),
    ("parse_value", "rest = {F}._parse_flags()", "rest = {F}(sys.argv, known_only=True)[1:]"),
    ("parse_args", 'rest = {F}._parse_flags(args=["--steps", "3"])',
     'rest = {F}([sys.argv[0], *["--steps", "3"]], known_only=True)[1:]'),
    ("parse_none", "{F}._parse_flags(None)", "{F}(sys.argv, known_only=True)"),
    ("items_loop", "for k, v in {F}.__flags.items(): print(k, v)", "for k, v in " + VALUES + ".items(): print(k, v)"),
    ("sorted", "names = sorted({F}.__flags)", "names = sorted(" + VALUES + ")"),
    ("dict_dunder", 'config = {F}.__dict__["__flags"].copy()', "config = " + VALUES + ".copy()"),
    ("item_read", 'steps = {F}.__flags["steps"]', "steps = " + VALUES + '["steps"]'),
    ("contains", 'ok = "steps" in {F}.__flags', 'ok = "steps" in ' + VALUES),
    ("item_store", '{F}.__flags["steps"] = 3', None),
    ("dunder_store", '{F}.__dict__["__flags"]["steps"] = 3', None),
    ("bound", "d = {F}.__flags", None),
    ("update", "{F}.__flags.update(steps=3)", None),
    ("parse_uncalled", "callback = {F}._parse_flags", None),
]


def _program(header: str, flags: str, access: str, scope: str, use: str) -> tuple[str, int]:
    """The variant's source and the line (1-based) of the use."""
    lines = header.splitlines()
    if access == "module_alias":
        lines.append(f"FLAGS = {flags}")
        flags = "FLAGS"
    use = use.format(F=flags)
    if scope == "module":
        body, indent = [], ""
    elif scope == "function":
        body, indent = ["def main():"], "    "
    elif scope == "method":
        body, indent = ["class Trainer:", "    def run(self):"], "        "
    else:
        body, indent = ['if __name__ == "__main__":'], "    "
    lines += body + [indent + use]
    return "\n".join(lines) + "\n", len(lines)


VARIANTS = list(itertools.product(IMPORTS, ACCESS, SCOPES, USAGES))


@pytest.mark.parametrize(("imp", "access", "scope", "usage"), VARIANTS,
                         ids=[f"{i[0]}-{a}-{s}-{u[0]}" for i, a, s, u in VARIANTS])
def test_variant_rewritten_or_flagged(imp, access, scope, usage):
    _, header, flags, renamed = imp
    _, use, expected = usage
    source, line = _program(header, flags, access, scope, use)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    here = [f for f in result.findings if f.rule == "TFM505" and f.line == line]
    assert here, f"no TFM505 finding on line {line}:\n{new}"
    last = new.splitlines()[-1].strip()
    if expected is None:
        assert not any(f.fixable for f in here)
        assert "__flags" in last or "_parse_flags" in last  # left as written, for the user to port
        assert "known_only=True" in here[0].message or "flags_by_module_dict" in here[0].message
    else:
        F = "FLAGS" if access == "module_alias" else renamed
        assert last == expected.format(F=F)
        assert all(f.fixable for f in here)
        if "sys.argv" in last:
            assert "import sys" in new.splitlines()
        compile(new, "<variant>", "exec")
        # a second run changes nothing
        assert rewrite_source(result.new, ENABLED).new == result.new


def test_other_flags_uses_left_alone():
    source = ("import tensorflow as tf\nflags = tf.app.flags\nflags.DEFINE_integer('steps', 1, 'n')\n"
              "FLAGS = flags.FLAGS\nprint(FLAGS.steps, FLAGS.flag_values_dict())\nclass C:\n"
              "    __flags = {}\n    def m(self):\n        return self.__flags, other.__flags, other._parse_flags()\n")
    result = rewrite_source(source.encode(), ENABLED)
    assert not [f for f in result.findings if f.rule == "TFM505"]
    assert result.new.decode().splitlines()[4:] == source.splitlines()[4:]


LEGACY = '''import sys
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_integer("steps", 100, "training steps")
flags.DEFINE_string("name", "run", "run name")
flags.DEFINE_float("lr", 0.1, "learning rate")
FLAGS = flags.FLAGS


def dump():
    for k, v in sorted(FLAGS.__flags.items()):
        print(k, repr(v))


if __name__ == "__main__":
    rest = FLAGS._parse_flags()
    print("rest", rest)
    dump()
    print("double", FLAGS.__dict__["__flags"]["steps"] * 2)
    print("again", tf.flags.FLAGS._parse_flags(args=["--steps", "3", "--other"]), FLAGS.steps)
'''
ARGS = ["--steps", "7", "--name=abc", "--unknown", "3", "pos"]


def _legacy_output(argv: list[str]) -> str:
    """What TF 1.4's flags.py printed: argparse's parse_known_args over the defined flags."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--name", type=str, default="run")
    parser.add_argument("--lr", type=float, default=0.1)
    values, rest = parser.parse_known_args(argv)
    out = [f"rest {rest}"] + [f"{k} {v!r}" for k, v in sorted(vars(values).items())]
    out.append(f"double {values.steps * 2}")
    again, rest2 = parser.parse_known_args(["--steps", "3", "--other"])
    out.append(f"again {rest2} {again.steps}")
    return "\n".join(out) + "\n"


@pytest.mark.slow
def test_rewritten_program_runs_like_tf14(tmp_path: Path):
    result = rewrite_source(LEGACY.encode(), ENABLED)
    assert "_parse_flags" not in result.new.decode() and "__flags" not in result.new.decode()
    program = tmp_path / "train.py"
    program.write_bytes(result.new)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = run_python([str(program), *ARGS], env=env, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout == _legacy_output(ARGS)


def test_legacy_program_crashed_before():
    """Without TFM505 (the renames of TFM501 only) the program keeps the internals absl lacks."""
    only_rename = rewrite_source(LEGACY.encode(), frozenset({"TFM501"}))
    assert "FLAGS._parse_flags()" in only_rename.new.decode()
