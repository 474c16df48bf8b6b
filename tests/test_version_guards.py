"""TFM140/TFM141: version guards decided against TensorFlow 2.15 (issue 27, item 11).

Generated over guard expressions x import forms x value flows (inline, a name, a parameterless function, a
``self`` attribute, a parameter) x scopes, and try/except guards x scopes: each decided guard is replaced by
the branch TF 2.15 runs (the dead one, holding a legacy name with no replacement, goes, with no finding); an
undecided one (a parameter) is left, and its legacy code is flagged on its line as any code. The slow test
runs every original and rewritten variant on TensorFlow 2.15 in one process and checks that both take the
same branch: the static decision is the real one.
"""

from __future__ import annotations

import itertools

import pytest

from rewrite_once import rewrite_source  # a program rewritten by its variant test and again for the TF child: once
from tests.every_case import grouped
from tests.tfchildren import run_sources
from tfmigrate.codemod.rule import load_catalog

ENABLED = load_catalog().selected(None)

IMPORTS = [
    ("tf", "import tensorflow as tf", "tf"),
    ("plain", "import tensorflow", "tensorflow"),
    ("compat_v1", "import tensorflow.compat.v1 as tf", "tf"),
]
# (id, the guard with {tf}, extra imports, its truth on TF 2.15)
GUARDS = [
    ("dir_v2", '"concat_v2" in dir({tf})', "", False),
    ("dir_concat", '"concat" in dir({tf})', "", True),
    ("hasattr", 'hasattr({tf}, "concat_v2")', "", False),
    ("hasattr_nn", 'hasattr({tf}.nn, "deconv2d")', "", False),
    ("not_contrib", 'not hasattr({tf}, "contrib")', "", True),
    ("getattr_none", 'getattr({tf}, "concat_v2", None) is None', "", True),
    ("getattr_truth", 'getattr({tf}, "concat_v2", None)', "", False),
    ("major_int", "int({tf}.__version__.split('.')[0]) < 1", "", False),
    ("startswith", '{tf}.__version__.startswith("0.")', "", False),
    ("loose", 'LooseVersion({tf}.__version__) >= LooseVersion("1.0")', "from distutils.version import LooseVersion", True),
    ("loose_str", 'LooseVersion({tf}.__version__) < "1.0"', "from distutils.version import LooseVersion", False),
    ("strict", 'StrictVersion({tf}.__version__) < StrictVersion("1.0.0")', "from distutils.version import StrictVersion", False),
    ("map_tuple", 'tuple(map(int, {tf}.__version__.split(".")[:2])) >= (1, 4)', "", True),
    ("float_slice", "float({tf}.__version__[:3]) < 1.0", "", False),
    ("str_compare", '"1.4" <= {tf}.__version__', "", True),
    ("version_module", '{tf}.version.VERSION.split(".")[0] == "2"', "", True),
    ("and_or", 'hasattr({tf}, "estimator") and (hasattr({tf}, "contrib") or "2" in {tf}.__version__)', "", True),
]
FLOWS = ["inline", "name", "function", "self", "parameter"]
SCOPES = ["module", "function", "method", "main"]
DEAD = "{tf}.contrib.ffmpeg.decode_audio(1)"  # no TF 2.15 replacement: a manual finding where it is live code


def _guard_program(header: str, tf: str, guard: str, flow: str, scope: str, truth: bool | None) -> tuple[str, int, int]:
    """(source, line of the guard's `if`, line of the `then` statement). The branch TF 2.15 never runs (both
    where ``truth`` is None) holds a legacy name with no TF 2.15 replacement."""
    lines = header.splitlines()
    guard = guard.format(tf=tf)
    call = None
    if flow == "name":
        lines.append(f"FLAG = {guard}")
        guard = "FLAG"
    elif flow == "function":
        lines += ["", "", "def flag():", '    """Whether to take the first branch."""', f"    return {guard}", ""]
        guard = "flag()"
    if flow == "self" or (scope == "method" and flow != "parameter"):
        lines += ["", "", "class Model:", "    def __init__(self):"]
        if flow == "self":
            lines.append(f"        self.flag = {guard}")
            guard = "self.flag"
        else:
            lines.append("        self.x = 1")
        lines += ["", "    def run(self):"]
        indent, call = "        ", "Model().run()"
    elif flow == "parameter":
        lines += ["", "", f"def run(flag={guard}):"]
        guard, indent, call = "flag", "    ", "run()"
    elif scope == "function":
        lines += ["", "", "def run():"]
        indent, call = "    ", "run()"
    elif scope == "main":
        lines.append('if __name__ == "__main__":')
        indent = "    "
    else:
        indent = ""
    dead = DEAD.format(tf=tf)
    lines.append(f"{indent}# which branch")
    lines.append(f"{indent}if {guard}:")
    if_line = len(lines)
    lines.append(f"{indent}    out = " + (f"{dead} or 'then'" if truth is not True else "'then'"))
    then_line = len(lines)
    lines.append(f"{indent}else:  # the other one")
    lines.append(f"{indent}    out = " + (f"{dead} or 'else'" if truth is not False else "'else'"))
    lines.append(f"{indent}print('BRANCH', out)")
    if call:
        lines.append(call)
    return "\n".join(lines) + "\n", if_line, then_line


GUARD_VARIANTS = [
    (imp, guard, flow, scope)
    for imp, guard, flow, scope in itertools.product(IMPORTS, GUARDS, FLOWS, SCOPES)
    if not (flow in ("self", "parameter") and scope != "method")  # a self attribute / a parameter has its own scope
]


def _ids(variants):
    return ["-".join(p[0] if isinstance(p, tuple) else p for p in v) for v in variants]


@grouped(("imp", "guard", "flow", "scope"), GUARD_VARIANTS, ids=_ids(GUARD_VARIANTS))  # one test per import form
def test_if_guard_variant(imp, guard, flow, scope):
    _, header, tf = imp
    _, expression, extra, truth = guard
    source, if_line, then_line = _guard_program("\n".join(filter(None, [header, extra])), tf, expression, flow, scope,
                                                None if flow == "parameter" else truth)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    compile(new, "<variant>", "exec")
    if flow == "parameter":  # undecided: migrated as any code, the legacy name flagged on its line
        assert not [f for f in result.findings if f.rule == "TFM140"]
        flagged = {f.line for f in result.findings if not f.fixable}
        assert {then_line, then_line + 2} <= flagged, (new, result.findings)
        return
    guard_findings = [f for f in result.findings if f.rule == "TFM140"]
    assert [f.line for f in guard_findings] == [if_line], (source, new, result.findings)
    assert not [f for f in result.findings if not f.fixable], (new, result.findings)  # the dead branch reports nothing
    assert "contrib" not in new.replace('"contrib"', "")
    kept = "then" if truth else "else"
    assert f"'{kept}'" in new and f"'{'else' if truth else 'then'}'" not in new
    assert "# which branch" in new and ("# the other one" in new) == (not truth)
    assert rewrite_source(result.new, ENABLED).new == result.new  # a second run changes nothing


# (id, the try statement's lines with {tf}, the branch TF 2.15 runs: "body", "handler" or None (left as written),
#  whether a finding must remain on the legacy line when left as written)
TRIES = [
    ("attr", ["try:", "    s = {tf}.image_summary", "    out = 'then'", "except AttributeError:", "    s = {tf}.summary.image",
              "    out = 'else'"], "handler"),
    ("bare", ["try:", "    s = {tf}.image_summary", "    out = 'then'", "except:", "    out = 'else'"], "handler"),
    ("exception_tuple", ["try:", "    f = {tf}.nn.deconv2d", "    out = 'then'", "except (NameError, AttributeError):",
                         "    out = 'else'"], "handler"),
    ("second_handler", ["try:", "    f = {tf}.concat_v2", "    out = 'then'", "except ValueError:", "    out = 'never'",
                        "except Exception:", "    out = 'else'"], "handler"),
    ("from_contrib", ["try:", "    from tensorflow.contrib import rnn", "    out = 'then'", "except ImportError:",
                      "    out = 'else'"], "handler"),
    ("import_contrib", ["try:", "    import tensorflow.contrib.slim as slim", "    out = 'then'",
                        "except ModuleNotFoundError:", "    out = 'else'"], "handler"),
    ("from_tensorflow", ["try:", "    from tensorflow import contrib", "    out = 'then'", "except ImportError:",
                         "    out = 'else'"], "handler"),
    ("getattr_call", ["try:", "    f = getattr({tf}, 'concat_v2')", "    out = 'then'", "except AttributeError:",
                      "    out = 'else'"], "handler"),
    ("call_first", ["try:", "    x = {tf}.pack([1, 2])", "    out = 'then'", "except AttributeError:", "    out = 'else'"],
     "handler"),
    ("finally", ["try:", "    s = {tf}.merge_all_summaries", "    out = 'then'", "except AttributeError:", "    out = 'else'",
                 "finally:", "    print('finally')"], "handler"),
    ("safe_body", ["try:", "    s = {tf}.summary.scalar", "    out = 'then'", "except AttributeError:",
                   "    s = {tf}.scalar_summary", "    out = 'else'"], "body"),
    ("safe_else", ["try:", "    import tensorflow.compat.v1 as v1", "except ImportError:", "    v1 = {tf}.contrib.framework",
                   "    out = 'else'", "else:", "    out = 'then'"], "body"),
    ("as_name", ["try:", "    s = {tf}.image_summary", "    out = 'then'", "except AttributeError as e:", "    print(type(e).__name__)",
                 "    out = 'else'"], None),
    ("failing_fallback", ["try:", "    x = {tf}.nn.relu(1.0)", "    out = 'then'",
                          "except AttributeError:", "    x = {tf}.nn.deconv2d", "    out = 'else'"], None),
]
TRY_VARIANTS = list(itertools.product(IMPORTS, TRIES, SCOPES))


def _try_program(header: str, tf: str, lines: list[str], scope: str) -> tuple[str, int]:
    out = header.splitlines()
    indent = ""
    if scope == "function":
        out += ["", "", "def run():"]
        indent = "    "
    elif scope == "method":
        out += ["", "", "class Model:", "    def run(self):"]
        indent = "        "
    elif scope == "main":
        out.append('if __name__ == "__main__":')
        indent = "    "
    out.append(f"{indent}# a guard")
    first = len(out) + 1
    out += [indent + line.format(tf=tf) for line in lines]
    out.append(f"{indent}print('BRANCH', out)")
    if scope == "function":
        out.append("run()")
    elif scope == "method":
        out.append("Model().run()")
    return "\n".join(out) + "\n", first


@grouped(("imp", "case", "scope"), TRY_VARIANTS, ids=_ids(TRY_VARIANTS))  # one test per import form
def test_try_guard_variant(imp, case, scope):
    _, header, tf = imp
    _, lines, live = case
    source, first = _try_program(header, tf, lines, scope)
    result = rewrite_source(source.encode(), ENABLED)
    new = result.new.decode()
    compile(new, "<variant>", "exec")
    assert not [f for f in result.findings if not f.fixable], (new, result.findings)  # dead code reports nothing
    if live is None:  # left as written: the dead block untouched, no finding in it
        assert not [f for f in result.findings if f.rule == "TFM140"]
        kept = [line.format(tf=tf) for line in lines]
        assert all(line.strip() in new for line in kept if "legacy" not in line), new
        assert not [f for f in result.findings if f.line > first + 2 and f.line < first + len(lines)], result.findings
        return
    assert [f.rule for f in result.findings if f.rule == "TFM140"] == ["TFM140"], (new, result.findings)
    assert "try:" not in new and "except" not in new
    assert ("'then'" in new) == (live == "body") and ("'else'" in new) == (live == "handler")
    assert "'never'" not in new and "# a guard" in new
    assert rewrite_source(result.new, ENABLED).new == result.new


def test_undecided_try_is_migrated_as_any_code():
    """Not caught: the original fails there on TF 2.15 either way, so the body is migrated as any code; the
    migrated body raises nothing, and the next pass finds its handler dead (the guard's truth after the rewrite)."""
    source = "import tensorflow as tf\ntry:\n    s = tf.image_summary\nexcept ImportError:\n    s = None\n"
    result = rewrite_source(source.encode(), ENABLED)
    assert result.new.decode() == "import tensorflow as tf\ns = tf.compat.v1.summary.image\n"
    assert sorted(f.rule for f in result.findings) == ["TFM140", "TFM540"]


def test_non_tensorflow_conditions_are_not_guards():
    source = ("import tensorflow as tf\nimport sys\nDEBUG = False\nif DEBUG:\n    x = tf.contrib.ffmpeg.decode_audio(1)\n"
              "if sys.version_info < (3,):\n    y = 1\ntry:\n    import matplotlib\nexcept ImportError:\n    matplotlib = None\n")
    result = rewrite_source(source.encode(), ENABLED)
    assert not [f for f in result.findings if f.rule == "TFM140"]
    assert [f.line for f in result.findings if not f.fixable] == [5]


def test_name_bound_twice_is_undecided():
    source = ('import tensorflow as tf\nV2 = hasattr(tf, "concat_v2")\nV2 = True\nif V2:\n    x = tf.contrib.ffmpeg.decode_audio(1)\n')
    result = rewrite_source(source.encode(), ENABLED)
    assert not [f for f in result.findings if f.rule == "TFM140"]
    assert [f.line for f in result.findings if not f.fixable] == [5]


def test_elif_chain_and_conditional_expression():
    source = ("import tensorflow as tf\n\nif tf.__version__.startswith('0.'):\n    a = tf.concat_v2\n"
              "elif hasattr(tf, 'contrib'):\n    a = tf.contrib.framework\nelif DEBUG:\n    a = 1\nelse:\n    a = tf.concat\n"
              "b = tf.concat_v2 if 'concat_v2' in dir(tf) else tf.concat\n")
    new = rewrite_source(source.encode(), ENABLED).new.decode()
    assert new == "import tensorflow as tf\n\nif DEBUG:\n    a = 1\nelse:\n    a = tf.concat\nb = tf.concat\n"


def test_concat_v2_deconv2d_twins():
    source = ("import tensorflow as tf\nx = tf.concat_v2([a, b], axis, 'joined')\n"
              "y = tf.nn.deconv2d(x, w, shape, [1, 2, 2, 1], 'SAME', 'up')\nz = tf.nn.deconv2d(value=x, filter=w, output_shape=s, strides=t)\n")
    new = rewrite_source(source.encode(), ENABLED).new.decode()
    assert new.splitlines()[1:] == [
        "x = tf.concat([a, b], axis=axis, name='joined')",
        "y = tf.nn.conv2d_transpose(x, w, shape, [1, 2, 2, 1], 'SAME', name='up')",
        "z = tf.nn.conv2d_transpose(input=x, filters=w, output_shape=s, strides=t)",
    ]


def _branch_runs(programs: list[str]) -> list[str]:
    """Run each program (our own generated text) in one TensorFlow 2.15 process; the BRANCH each printed."""
    return run_sources(programs, graph=False, module="__main__", printed="BRANCH ")


@pytest.mark.slow
def test_guards_decide_as_tensorflow_215_runs():
    """Every original variant and its rewrite take the same branch on TF 2.15 (tf.VERSION, which 2.15 lacks,
    is not among them: it is read as the rewrite writes it, tf.compat.v1.VERSION, in the next test)."""
    originals, rewritten = [], []
    for imp, guard, flow, scope in GUARD_VARIANTS:
        if flow == "parameter":
            continue
        source, _, _ = _guard_program("\n".join(filter(None, [imp[1], guard[2]])), imp[2], guard[1], flow, scope, guard[3])
        originals.append(source)
        rewritten.append(rewrite_source(source.encode(), ENABLED).new.decode())
    for imp, case, scope in TRY_VARIANTS:
        source, _ = _try_program(imp[1], imp[2], case[1], scope)
        originals.append(source)
        rewritten.append(rewrite_source(source.encode(), ENABLED).new.decode())
    runs = _branch_runs(originals + rewritten)
    before, after = runs[: len(originals)], runs[len(originals):]
    wrong = [(o, b, a) for o, b, a in zip(originals, before, after) if b != a or b.startswith("error")]
    assert not wrong, wrong[:3]
    assert {"then", "else"} <= set(before)


@pytest.mark.slow
def test_tf_version_guard_runs_after_the_rewrite():
    source = 'import tensorflow as tf\nif tf.VERSION >= "1.0":\n    out = "new"\nelse:\n    out = tf.contrib.x\nprint("BRANCH", out)\n'
    result = rewrite_source(source.encode(), ENABLED)
    assert [f.rule for f in result.findings] == ["TFM140"]
    assert _branch_runs([result.new.decode()]) == ["new"]


def test_guards_are_read_never_run(tmp_path):
    """A guard that would run code if evaluated is outside the grammar: undecided, and nothing runs."""
    marker = tmp_path / "ran"
    source = (f'import os\nimport tensorflow as tf\nif os.system("touch {marker}") or hasattr(tf, "contrib"):\n    x = 1\n'
              f'if __import__("os").system("touch {marker}") == 0 and hasattr(tf, "estimator"):\n    y = 2\n'
              f'if open("{marker}", "w") and "concat_v2" in dir(tf):\n    z = 3\n'
              f'try:\n    w = tf.image_summary(open("{marker}", "w"))\nexcept AttributeError:\n    w = None\n')
    result = rewrite_source(source.encode(), ENABLED)
    assert not marker.exists()
    assert [f.line for f in result.findings if f.rule == "TFM140"] == [11]  # the callee fails before its argument runs
    assert "x = 1" in result.new.decode() and "y = 2" in result.new.decode() and "z = 3" in result.new.decode()


DCGAN_OPS = '''import numpy as np
import tensorflow as tf

from utils import *

try:
  image_summary = tf.image_summary
  SummaryWriter = tf.train.SummaryWriter
except:
  image_summary = tf.summary.image
  SummaryWriter = tf.summary.FileWriter

if "concat_v2" in dir(tf):
  def concat(tensors, axis, *args, **kwargs):
    return tf.concat_v2(tensors, axis, *args, **kwargs)
else:
  def concat(tensors, axis, *args, **kwargs):
    return tf.concat(tensors, axis, *args, **kwargs)

def deconv2d(input_, w, output_shape, d_h=2, d_w=2):
    try:
      deconv = tf.nn.conv2d_transpose(input_, w, output_shape=output_shape,
                strides=[1, d_h, d_w, 1])

    # Support for verisons of TensorFlow before 0.7.0
    except AttributeError:
      deconv = tf.nn.deconv2d(input_, w, output_shape=output_shape,
                strides=[1, d_h, d_w, 1])
    return deconv
'''


def test_dcgan_ops_shape_with_a_star_import():
    """The shape of DCGAN-tensorflow's ops.py (2016-2017): a star import does not hide `tf`; the bare `except:`
    and the dir() guard go to their live branch; the fallback after a live conv2d_transpose stays, unreported."""
    result = rewrite_source(DCGAN_OPS.encode(), ENABLED)
    new = result.new.decode()
    assert "image_summary = tf.compat.v1.summary.image\nSummaryWriter = tf.compat.v1.summary.FileWriter\n" in new
    assert "concat_v2" not in new and "def concat(tensors, axis, *args, **kwargs):\n  return tf.concat(" in new
    assert "except AttributeError:\n      deconv = tf.nn.deconv2d(" in new  # left as written: it can only fail
    assert not [f for f in result.findings if not f.fixable]
    assert sorted(f.line for f in result.findings if f.rule == "TFM140") == [9, 13]


# A name TF 2.15 keeps only in tf.compat.v1 raises as written, but not after the rewrite (TFM501 moves
# it there): the guard is the rewrite's to decide, never the branch for older TensorFlow. tflearn's
# `try: tf.variable_scope(...) except Exception: tf.variable_op_scope(...)` lost its TF 1.x branch, and
# `try: from tensorflow import variable_scope except ImportError: variable_scope = None` became None.
COMPAT_V1_BODIES = {
    "call": ("vscope = tf.variable_scope(scope, default_name=name, values=[x])",
             "vscope = tf.variable_op_scope([x], scope, name)", "tf.compat.v1.variable_scope(scope"),
    "class": ("sess = tf.Session()", "sess = None", "sess = tf.compat.v1.Session()"),
    "attribute": ("ph = tf.placeholder", "ph = tf.compat.v1.placeholder", "ph = tf.compat.v1.placeholder"),
    "from_import": ("from tensorflow import variable_scope", "variable_scope = None",
                    "from tensorflow.compat.v1 import variable_scope"),
}


@pytest.mark.parametrize("handler", ["Exception", "AttributeError", "ImportError", "(AttributeError, ImportError)"])
@pytest.mark.parametrize("scope", ["module", "function", "main"])
@pytest.mark.parametrize("kind", sorted(COMPAT_V1_BODIES))
def test_a_body_read_from_tf_compat_v1_after_the_rewrite_is_kept(kind, scope, handler):
    body, fallback, kept = COMPAT_V1_BODIES[kind]
    block = f"try:\n    {body}\nexcept {handler}:\n    {fallback}\n"
    if scope == "function":
        block = "def f(scope, name, x):\n" + "".join(f"    {line}\n" for line in block.splitlines())
    elif scope == "main":
        block = 'if __name__ == "__main__":\n' + "".join(f"    {line}\n" for line in block.splitlines())
    result = rewrite_source(f"import tensorflow as tf\n{block}".encode(), ENABLED)
    new = result.new.decode()
    assert kept in new, new  # the TF 1.x branch, now reading tf.compat.v1
    compile(new, "x.py", "exec")
    assert not any(f.rule == "TFM140" and "raises" in f.message and "kept the" in f.message for f in result.findings), new
