"""TFM5xx: the generated TF 2.15 name table, the compat.v1 renames, disable_eager_execution, the catch-all.

The TensorFlow checks run in ONE child process per module (``tf_child`` fixture): it spot-checks the
generated table against the real ``tf`` / ``tf.compat.v1``, and runs rewritten graph-mode programs
(placeholder + Session + Saver) that must train a step and save a checkpoint on TF 2.15.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.transforms.renames import transform as renames
from tfmigrate.transforms.common import tf_names
from tests.clichildren import run_cli
from tests.tfchildren import run_python

CATALOG = load_catalog()
TFM5 = CATALOG.selected(("TFM5",))
REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": str(REPO)}


def rewrite(code: str, enabled: frozenset[str] = TFM5) -> tuple[str, list]:
    result = rewrite_source(textwrap.dedent(code).encode(), enabled, path="t.py")
    return result.new.decode(), result.findings


def rules(findings) -> list[str]:
    return sorted(f.rule for f in findings)


# --- graph-mode programs that must run on TF 2.15 after the rewrite ----------------------------
LEGACY_PROGRAMS = {
    "alias": """
        import numpy as np
        import tensorflow as tf

        tf.logging.set_verbosity(tf.logging.ERROR)
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(tf.zeros([2, 1]), name="w")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(step, {x: np.ones([4, 2]), y: np.ones([4, 1])})
            saver.save(sess, OUT + "/model.ckpt")
        """,
    "plain": """
        import tensorflow

        def main(out):
            a = tensorflow.placeholder(tensorflow.float32, shape=[], name="a")
            v = tensorflow.get_variable("v", shape=[], initializer=tensorflow.zeros_initializer())
            update = tensorflow.assign_add(v, a)
            saver = tensorflow.train.Saver(max_to_keep=1)
            with tensorflow.Session() as sess:
                sess.run(tensorflow.global_variables_initializer())
                sess.run(update, {a: 2.5})
                saver.save(sess, out + "/model.ckpt")

        main(OUT)
        """,
    "from_imports": """
        from tensorflow import placeholder as ph, Session, Variable, float32
        from tensorflow import train
        from tensorflow.train import Saver

        b = ph(float32, shape=[], name="b")
        counter = Variable(1.0, name="counter")
        grow = counter.assign(counter * b)
        saver = Saver()
        with Session() as sess:
            sess.run(counter.initializer)
            sess.run(grow, {b: 3.0})
            saver.save(sess, OUT + "/model.ckpt")
        assert train.Checkpoint is not None
        """,
    "summaries": """
        import glob
        import tensorflow as tf

        x = tf.placeholder(tf.float32, [None], name="x")
        total = tf.get_variable("total", [], initializer=tf.zeros_initializer())
        add = tf.assign_add(total, tf.reduce_sum(x))
        tf.summary.scalar("total", total)
        tf.summary.histogram("x", x)
        merged = tf.summary.merge_all()
        assert merged is not None, "TF1 summaries must reach the TF1 collection"
        saver = tf.train.Saver()
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(OUT + "/logs", sess.graph)
            sess.run(tf.global_variables_initializer())
            _, summary = sess.run([add, merged], {x: [1.0, 2.0]})
            writer.add_summary(summary, 1)
            writer.close()
            saver.save(sess, OUT + "/model.ckpt")
        assert glob.glob(OUT + "/logs/events.out.tfevents.*")
        """,
}
EXPECTED_VARIABLES = {"alias": "w", "plain": "v", "from_imports": "counter", "summaries": "total"}

CHILD = r"""
import json, runpy, sys
import tensorflow as tf

job = json.loads(open(sys.argv[1]).read())
out = {"v2": {}, "v1": {}, "replacements": {}, "programs": {}, "legacy": {}}

def has(root, dotted):
    obj = root
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True

# the programs first, in a fresh process: nothing else has touched TensorFlow yet
for key, path in job["programs"].items():
    tf.compat.v1.reset_default_graph()  # each program as if it ran alone (a Saver saves every global)
    runpy.run_path(path, init_globals={"OUT": job["outdirs"][key]})
    ckpt = tf.train.latest_checkpoint(job["outdirs"][key])
    out["programs"][key] = {
        "checkpoint": ckpt,
        "variables": [n for n, _ in tf.train.list_variables(ckpt)] if ckpt else [],
        "eager": tf.executing_eagerly(),
    }

for key, path in job["legacy"].items():  # the programs as written: TF 2.15 rejects them
    try:
        runpy.run_path(path, init_globals={"OUT": job["outdirs"][key] + "_legacy"})
        out["legacy"][key] = "ran"
    except AttributeError as exc:
        out["legacy"][key] = "AttributeError: " + str(exc)
    except ImportError as exc:
        out["legacy"][key] = "ImportError: " + str(exc)

for name in job["names"]:
    out["v2"][name] = has(tf, name)
    out["v1"][name] = has(tf.compat.v1, name)
for name, target in job["targets"].items():
    rel = target[3:]
    out["replacements"][name] = has(tf, rel) or (rel.startswith("compat.v1.") and has(tf.compat.v1, rel[10:]))

print("JSON" + json.dumps(out))
"""


def sample_names(seed: int = 15, per_kind: int = 150) -> list[str]:
    """Dotted names drawn from the table: present in v2, v1-only, and made-up misses."""
    table = renames.names()
    rng = random.Random(seed)

    def paths(root: str, limit_depth: int = 4) -> list[str]:
        found, stack, seen = [], [(root, "")], set()
        while stack:
            key, prefix = stack.pop()
            if key in seen or prefix.count(".") >= limit_depth:
                continue
            seen.add(key)
            for name, value in table.modules[key].items():
                dotted = f"{prefix}.{name}" if prefix else name
                found.append(dotted)
                if value and not dotted.startswith("compat"):
                    stack.append((value, dotted))
        return sorted(found)

    v2 = [p for p in paths(table.v2_root) if not p.startswith("compat")]
    v1_only = [p for p in paths(table.v1_root) if table.status(p) == renames.V1]
    assert len(v1_only) > 300, "tf.compat.v1 must keep hundreds of names tf lost"
    chosen = rng.sample(v2, per_kind) + rng.sample(v1_only, per_kind)
    chosen += ["placeholder", "Session", "train.Saver", "logging.info", "flags.FLAGS", "gfile.GFile"]
    chosen += ["Variable", "train.Checkpoint", "contrib", "contrib.layers", "train.AdamOptimizer"]
    chosen += ["train.NoSuchSaver", "nn.no_such_op", "NoSuchThing", "keras.layers.NoSuchLayer"]
    return chosen


@pytest.fixture(scope="module")
def tf_child(tmp_path_factory):
    root = tmp_path_factory.mktemp("tfm5")
    job = {"names": sample_names(), "programs": {}, "legacy": {}, "outdirs": {}, "targets": {}}
    table = renames.names()
    # every TensorFlow name a hint mentions (targets from TF's tables and our pointers) must exist
    job["targets"] = {
        f"{key} -> {token}": token.rstrip(".")
        for key, hint in table.replacements.items()
        for token in re.findall(r"\btf\.[A-Za-z0-9_.]+", hint)
        if not token.rstrip(".").endswith("*")
    }
    for key, code in LEGACY_PROGRAMS.items():
        legacy = textwrap.dedent(code)
        new, findings = rewrite(legacy)
        assert "TFM502" in rules(findings), key
        if key == "summaries":
            assert "TFM504" in rules(findings) and "tf.compat.v1.summary.scalar(" in new
        (root / f"{key}_legacy.py").write_text(legacy)
        (root / f"{key}.py").write_text(new)
        job["legacy"][key] = str(root / f"{key}_legacy.py")
        job["programs"][key] = str(root / f"{key}.py")
        job["outdirs"][key] = str(root / f"out_{key}")
        os.makedirs(job["outdirs"][key])
    (root / "job.json").write_text(json.dumps(job))
    (root / "child.py").write_text(CHILD)
    proc = run_python([str(root / "child.py"), str(root / "job.json")], env=ENV, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [l for l in proc.stdout.splitlines() if l.startswith("JSON")][-1]
    return job, json.loads(line[4:])


@pytest.mark.slow
def test_committed_table_is_what_the_generator_makes_from_tf215(tmp_path):
    # A fresh process: TF's lazily loaded API grows attributes once it is used, so the walk must
    # start from a clean import (which is how the committed file was made).
    out = tmp_path / "regenerated.json"
    proc = run_python([str(REPO / "tools" / "gen_tf_names.py"), "--out", str(out)], env=ENV, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.read_bytes() == tf_names.DATA_FILE.read_bytes(), "tf215_names.json is stale: run tools/gen_tf_names.py"


@pytest.mark.slow
def test_generated_table_agrees_with_tensorflow(tf_child):
    job, out = tf_child
    table = renames.names()
    wrong = []
    for name in job["names"]:
        status = table.status(name)
        real = "v2" if out["v2"][name] else "v1" if out["v1"][name] else "unknown"
        if status != real:
            wrong.append(f"{name}: table says {status}, TensorFlow 2.15 says {real}")
    assert not wrong, "\n".join(wrong[:20])
    assert table.status("placeholder") == "v1" and table.status("contrib") == "unknown"
    bad_targets = [k for k, ok in out["replacements"].items() if not ok]
    assert job["targets"] and not bad_targets, bad_targets


@pytest.mark.slow
def test_rewritten_graph_programs_run_and_save_a_checkpoint(tf_child):
    job, out = tf_child
    for key in LEGACY_PROGRAMS:
        assert out["legacy"][key].startswith(("AttributeError", "ImportError")), (key, out["legacy"][key])
        run = out["programs"][key]
        assert run["checkpoint"], f"{key}: no checkpoint written"
        assert EXPECTED_VARIABLES[key] in run["variables"], (key, run["variables"])
        assert run["eager"] is False  # disable_eager_execution() was inserted and ran


# --- rewrite behaviour (no TensorFlow) -----------------------------------------------------------
def test_from_import_of_a_v2_module_without_tf_alias_adds_import_tensorflow():
    new, findings = rewrite(
        """\
        from tensorflow import train

        def f(v):
            return train.Saver([v]), train.Checkpoint(v=v)
        """,
        frozenset({"TFM501"}),
    )
    assert new == textwrap.dedent(
        """\
        from tensorflow import train
        import tensorflow

        def f(v):
            return tensorflow.compat.v1.train.Saver([v]), train.Checkpoint(v=v)
        """
    )
    assert rules(findings) == ["TFM501"]


def test_comments_above_a_removed_import_stay_where_they_were():
    # The import line goes, with its own trailing comment (ruff's unused-import fix does the same);
    # the comment lines above it belong to the code around it and stay: on the next statement, or
    # in the block's footer when the import was last.
    new, _ = rewrite(
        """\
        import tensorflow as tf
        # Saver comes from train
        from tensorflow import train  # the 2016 way

        def f(v):
            # local copy, for speed
            from tensorflow import train
            return train.Saver([v])

        def g():
            x = 1
            # nothing else
            from tensorflow import train
        # the end
        from tensorflow import train
        """,
        frozenset({"TFM501"}),
    )
    assert new == textwrap.dedent(
        """\
        import tensorflow as tf
        # Saver comes from train

        def f(v):
            # local copy, for speed
            return tf.compat.v1.train.Saver([v])

        def g():
            x = 1
            # nothing else
        # the end
        """
    )


def test_unused_from_import_is_removed_and_split_keeps_order():
    new, _ = rewrite(
        """\
        import tensorflow as tf
        from tensorflow import train, Variable, logging as log

        log.info("x")
        s = train.Saver
        """,
        frozenset({"TFM501"}),
    )
    assert new == textwrap.dedent(
        """\
        import tensorflow as tf
        from tensorflow import Variable
        from tensorflow.compat.v1 import logging as log

        log.info("x")
        s = tf.compat.v1.train.Saver
        """
    )


def test_import_module_forms_are_rewritten():
    new, findings = rewrite(
        """\
        import tensorflow.logging as tflog
        import tensorflow.contrib.slim as slim
        tflog.info("hi")
        """,
        frozenset({"TFM501", "TFM503"}),
    )
    assert new.splitlines()[0] == "import tensorflow.compat.v1.logging as tflog"
    assert rules(findings) == ["TFM501", "TFM503"]


def test_suppression_comment_keeps_the_line():
    new, findings = rewrite(
        """\
        import tensorflow as tf
        x = tf.placeholder(tf.float32)  # tfmigrate: ignore[TFM501]
        y = tf.placeholder(tf.float32)
        """,
        frozenset({"TFM501"}),
    )
    assert "x = tf.placeholder(tf.float32)  # tfmigrate: ignore[TFM501]" in new
    assert "y = tf.compat.v1.placeholder(tf.float32)" in new
    assert rules(findings) == ["TFM501"]


def test_catch_all_reports_outermost_chain_once_with_replacement():
    _, findings = rewrite(
        """\
        import tensorflow as tf
        from tensorflow.contrib import learn
        a = tf.contrib.layers.xavier_initializer(uniform=True)
        b = tf.contrib.data.AUTOTUNE
        c = learn.DNNClassifier
        d = tf.contrib.eager.Variable(1.0)
        """,
        frozenset({"TFM503"}),
    )
    by_line = {f.line: f.message for f in findings}
    assert len(findings) == 5 and sorted(by_line) == [2, 3, 4, 5, 6]
    assert "tf.contrib.layers.xavier_initializer" in by_line[3] and "GlorotUniform" in by_line[3]
    assert "tf.data.experimental.AUTOTUNE" in by_line[4]
    assert "TFM1" in by_line[5] and "TFM1" in by_line[2]
    assert "TFM4" in by_line[6]


def test_disable_eager_is_idempotent_and_respects_disable_v2_behavior():
    src = """\
        import tensorflow as tf
        x = tf.placeholder(tf.float32)
        """
    once, _ = rewrite(src)
    assert once.count("disable_eager_execution") == 1
    twice, findings = rewrite(once)
    assert twice == once and not findings
    untouched, findings = rewrite(
        """\
        import tensorflow as tf
        tf.compat.v1.disable_v2_behavior()
        x = tf.compat.v1.placeholder(tf.float32)
        """
    )
    assert "disable_eager_execution" not in untouched and not findings


def test_json_table_is_small_and_cheap_to_load():
    size = tf_names.DATA_FILE.stat().st_size
    assert size < 1_500_000
    start = time.perf_counter()
    data = json.loads(tf_names.DATA_FILE.read_bytes())
    tf_names.Names(data)
    assert time.perf_counter() - start < 2.0
    assert data["tensorflow"].startswith("2.15.")


def test_import_and_rewrite_never_import_tensorflow(tmp_path):
    code = textwrap.dedent(
        """\
        import sys
        from tfmigrate.transforms.renames import transform as renames
        from tfmigrate.transforms.common import tf_names
        assert renames.names.cache_info().currsize == 0, "the table must load lazily"
        from tfmigrate.codemod.engine import rewrite_source
        from tfmigrate.codemod.rule import load_catalog
        out = rewrite_source(b"print('no tf here')\\n", load_catalog().selected(None))
        assert renames.names.cache_info().currsize == 0, "no table for a file without tensorflow"
        out = rewrite_source(b"import tensorflow as tf\\nx = tf.placeholder(tf.float32)\\n", load_catalog().selected(None))
        assert b"tf.compat.v1.placeholder" in out.new
        assert "tensorflow" not in sys.modules, sorted(m for m in sys.modules if "tensorflow" in m)
        print("OK")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "OK", proc.stderr[-2000:]


def test_cli_end_to_end(tmp_path):
    legacy = textwrap.dedent(
        """\
        import tensorflow as tf

        x = tf.placeholder(tf.float32)
        init = tf.contrib.layers.xavier_initializer()
        with tf.Session() as sess:
            pass
        """
    )
    target = tmp_path / "proj" / "train.py"
    target.parent.mkdir()
    target.write_text(legacy)
    cli = ["rewrite", "--select", "TFM5", "-j", "1"]  # python -m tfmigrate ...: forks of the warm CLI server (tests/clichildren.py)

    check = run_cli([*cli, "--check", str(target.parent)], env=ENV, cwd=tmp_path)
    assert check.returncode == 1 and target.read_text() == legacy, check.stderr

    diff = run_cli([*cli, "--diff", str(target.parent)], env=ENV, cwd=tmp_path)
    assert diff.returncode == 1 and target.read_text() == legacy
    assert "+x = tf.compat.v1.placeholder(tf.float32)" in diff.stdout
    assert "+tf.compat.v1.disable_eager_execution()" in diff.stdout

    wrote = run_cli([*cli, "--format", "json", str(target.parent)], env=ENV, cwd=tmp_path)
    assert wrote.returncode == 1, wrote.stderr  # the tf.contrib finding needs manual work
    report = json.loads(wrote.stdout)
    by_rule: dict[str, list[dict]] = {}
    for finding in report["findings"]:
        by_rule.setdefault(finding["rule"], []).append(finding)
    assert sorted(by_rule) == ["TFM501", "TFM502", "TFM503"]
    assert all(f["fix"] == "fixed" for f in by_rule["TFM501"] + by_rule["TFM502"])
    assert [f["fix"] for f in by_rule["TFM503"]] == ["manual"]
    assert by_rule["TFM503"][0]["severity"] == "error"
    assert report["summary"]["manual"] == 1 and report["summary"]["fixed"] == 3
    new = target.read_text()
    assert "tf.compat.v1.Session()" in new and "tf.compat.v1.disable_eager_execution()" in new

    again = run_cli([*cli, "--check", "--format", "json", str(target.parent)], env=ENV, cwd=tmp_path)
    assert json.loads(again.stdout)["files"][0]["status"] == "unchanged"
    assert [f["rule"] for f in json.loads(again.stdout)["findings"]] == ["TFM503"]


@pytest.mark.slow
def test_a_large_file_is_rewritten_whole(monkeypatch):
    """Every block of a large file is rewritten and reported (its time per line, against a 1,000-
    and a 100,000-line file, is a benchmark figure: benchmarks/, not a timed test). 2,000 lines, cut
    into chunks as a real run cuts a 5,000-line file (the threshold and chunk size at a fifth of
    theirs), at two fifths of the CPU."""
    from tfmigrate.codemod import chunks

    monkeypatch.setattr(chunks, "THRESHOLD_LINES", chunks.THRESHOLD_LINES // 5)
    monkeypatch.setattr(chunks, "CHUNK_LINES", chunks.CHUNK_LINES // 5)
    block = textwrap.dedent(
        """\
        x{i} = tf.placeholder(tf.float32, [None, {i}])
        tf.logging.info("step %d", {i})
        s{i} = tf.train.Saver(var_list=[tf.Variable({i}.0)])
        c{i} = tf.contrib.layers.xavier_initializer()
        f{i} = tf.gfile.GFile("f{i}")
        """
    )
    lines = 2000
    source = ("import tensorflow as tf\n" + "".join(block.format(i=i) for i in range(lines // 5))).encode()
    assert chunks.plan(source) is not None  # cut, as the 5,000-line file was
    result = rewrite_source(source, TFM5, path="big.py")
    assert result.new.count(b"tf.compat.v1.placeholder") == lines // 5
    assert sum(f.rule == "TFM503" for f in result.findings) == lines // 5
    assert rewrite_source(result.new, TFM5, path="big.py").new == result.new


def test_parenthesized_import_split_keeps_comments():
    new, _ = rewrite(
        """\
        from tensorflow import (
            placeholder,  # the input
            Variable,
        )
        """,
        frozenset({"TFM501"}),
    )
    assert "placeholder,  # the input" in new
    assert "from tensorflow.compat.v1 import (" in new and "from tensorflow import (" in new
    compile(new, "t.py", "exec")


def test_session_on_explicit_graph_needs_no_disable_eager():
    new, findings = rewrite(
        """\
        import tensorflow as tf
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32)
        with tf.Session(graph=g) as sess:
            pass
        """
    )
    assert "disable_eager_execution" not in new and "TFM502" not in rules(findings)


def test_private_modules_are_not_reported_but_unknown_public_names_are():
    _, findings = rewrite(
        """\
        import tensorflow as tf
        from tensorflow.python.platform import gfile
        from tensorflow.lite.python import interpreter
        ok = tf.lite.TFLiteConverter
        bad = tf.lite.NoSuchThing
        internal = tf.compat.v2.__internal__.ops.broadcast_weights
        """,
        frozenset({"TFM503"}),
    )
    assert [(f.rule, f.line) for f in findings] == [("TFM503", 5)]


def test_changed_names_are_pinned_only_in_graph_mode_modules():
    eager = """\
        import tensorflow as tf
        tf.summary.scalar("loss", 0.5, step=1)
        loss = tf.losses.mean_squared_error([1.0], [0.0])
        """
    assert rewrite(eager)[0] == textwrap.dedent(eager)
    graph = eager + "sess = tf.Session()\n"
    new, findings = rewrite(graph, frozenset({"TFM504"}))
    assert 'tf.summary.scalar("loss", 0.5, step=1)' in new  # a 2.x-only call form
    assert "tf.compat.v1.losses.mean_squared_error" in new
    assert rules(findings) == ["TFM504"]


def test_disable_eager_suppressed_on_one_line_fires_on_the_next_use():
    src = """\
        import tensorflow as tf
        x = tf.compat.v1.placeholder(tf.float32)  # tfmigrate: ignore[TFM502]
        s = tf.compat.v1.Session()
        """
    new, findings = rewrite(src)
    assert [(f.rule, f.line) for f in findings] == [("TFM502", 3)]
    assert "tf.compat.v1.disable_eager_execution()" in new
    only, findings = rewrite(src.replace("s = tf.compat.v1.Session()", "s = 1"))
    assert "disable_eager_execution" not in only and not findings


def test_one_line_suite_imports_are_rewritten_in_place():
    new, _ = rewrite(
        """\
        try: from tensorflow import placeholder, Variable
        except ImportError: pass
        x = placeholder("float")
        """,
        frozenset({"TFM501"}),
    )
    assert new.splitlines()[0] == "try: from tensorflow import Variable; from tensorflow.compat.v1 import placeholder"


def test_tf1_eager_program_is_not_switched_to_graph_mode():
    new, findings = rewrite(
        """\
        import tensorflow as tf
        tf.enable_eager_execution()
        saver = tf.train.Saver(var_list=[tf.Variable(1.0)])
        tf.summary.scalar("x", 1.0)
        """
    )
    assert "disable_eager_execution" not in new and "tf.compat.v1.enable_eager_execution()" in new
    assert 'tf.summary.scalar("x", 1.0)' in new
    assert rules(findings) == ["TFM501", "TFM501"]


def test_rebound_alias_is_not_used_for_a_rewrite():
    new, findings = rewrite(
        """\
        import tensorflow as tf
        from tensorflow import train

        def f(tf):
            return train.Saver()

        def g():
            return train.Saver()
        """,
        frozenset({"TFM501"}),
    )
    assert "    return train.Saver()" in new and "    return tf.compat.v1.train.Saver()" in new
    assert [(f.line, f.fixable) for f in findings] == [(5, False), (8, True)]
