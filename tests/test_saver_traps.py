"""TFM2 on seed 002: the trap findings fire at the right lines and nowhere in correct code, and the
migrated program (samples/saver_traps/expected.py) runs on TensorFlow 2.15 with the checkpoints
of the legacy program (the traps are reported, never silently "fixed")."""

import json
import os
from pathlib import Path

import pytest

from tests.clichildren import run_cli

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "samples" / "saver_traps" / "legacy.py"
EXPECTED = ROOT / "samples" / "saver_traps" / "expected.py"
CATALOG = load_catalog()
TFM2 = CATALOG.selected(("TFM2",))


def findings(text: str, enabled=TFM2):
    result = rewrite_source(text.encode(), enabled)
    return sorted((f.rule, f.line) for f in result.findings if f.rule.startswith("TFM2"))


def line_of(text: str, needle: str, occurrence: int = 0) -> int:
    lines = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    return lines[occurrence]


def test_seed_002_traps_at_their_lines():
    text = LEGACY.read_text()
    assert findings(text) == sorted(
        [
            ("TFM201", line_of(text, "saver1 = tf.train.Saver()  # adds ops that save/restore variable_0 to g1")),
            ("TFM203", line_of(text, 'saver2.restore(sess2, os.path.join(base, "sample1", "export"))')),
            ("TFM202", line_of(text, 'saver1.save(sess2, os.path.join(base, "sample3", "export"))')),
            ("TFM202", line_of(text, 'saver1.restore(sess3, os.path.join(base, "sample3", "export"))')),
        ]
    )


def test_all_rules_keep_the_trap_lines():
    """With every family on (TFM5 renames the Saver), findings still point at the legacy lines."""
    text = LEGACY.read_text()
    assert findings(text, CATALOG.selected(None)) == findings(text)


def test_messages_name_the_variables_and_the_way_forward():
    result = rewrite_source(LEGACY.read_bytes(), TFM2)
    by_rule = {f.rule: f.message for f in result.findings}
    text = LEGACY.read_text()
    assert f"'variable_1' (line {line_of(text, 'v1 = tf.Variable(1, name=')})" in by_rule["TFM201"]
    assert "Key variable_1 not found in checkpoint" in by_rule["TFM203"]
    assert "`saver1` was built in graph `g1`" in by_rule["TFM202"] and "`sess3` runs graph `g3`" in by_rule["TFM202"]
    assert "build the Saver after the last variable" in by_rule["TFM201"] and "use a saver built in the session's graph" in by_rule["TFM202"]
    # the way forward (Estimator model_dir, tf.train.Checkpoint) is the rules' why, said once per rule, not in every message
    for rule in ("TFM201", "TFM202"):
        assert "tf.train.Checkpoint" not in by_rule[rule] and "tf.train.Checkpoint" in CATALOG.rules[rule].why
        assert "model_dir" in CATALOG.rules[rule].why


def corrected(text: str) -> str:
    """Seed 002 with each trap fixed the way the findings say."""
    text = text.replace(
        '        saver1 = tf.train.Saver()  # adds ops that save/restore variable_0 to g1\n        v1 = tf.Variable(1, name="variable_1")\n',
        '        v1 = tf.Variable(1, name="variable_1")\n        saver1 = tf.train.Saver()\n',
    )
    text = text.replace("saver1.save(sess2,", "saver2.save(sess2,").replace("saver1.restore(sess3,", "saver3.restore(sess3,")
    return text


def test_silent_on_correct_code():
    fixed = corrected(LEGACY.read_text())
    assert fixed != LEGACY.read_text()
    assert findings(fixed) == []
    for sample in sorted((ROOT / "samples").glob("*/legacy.py")):
        if sample != LEGACY:
            assert findings(sample.read_text()) == [], sample


CORRECT = {
    "saver last, default graph": """import tensorflow as tf


def main(path):
    w = tf.get_variable("w", [2])
    b = tf.get_variable("b", [2])
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, path)
        saver.restore(sess, path)
""",
    "session with graph=": """import tensorflow as tf

g = tf.Graph()
with g.as_default():
    v = tf.Variable(1, name="v")
    saver = tf.train.Saver()
sess = tf.Session(graph=g)
saver.save(sess, "ckpt/v")
""",
    "subset restore by var_list": """import tensorflow as tf

with tf.Graph().as_default():
    a = tf.Variable(1, name="a")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.save(sess, "ckpt/a")
with tf.Graph().as_default():
    a = tf.Variable(1, name="a")
    b = tf.Variable(2, name="b")
    saver = tf.train.Saver(var_list=[a])
    with tf.Session() as sess:
        saver.restore(sess, "ckpt/a")
""",
    "variables by a library call": """import tensorflow as tf

with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.layers.dense(x, 1, name="w")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.save(sess, "ckpt/m")
with tf.Graph().as_default():
    w = tf.get_variable("w/kernel", [3, 1])
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, "ckpt/m")
""",
    "different paths": """import tensorflow as tf

with tf.Graph().as_default():
    a = tf.Variable(1, name="a")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.save(sess, "ckpt/a")
with tf.Graph().as_default():
    a = tf.Variable(1, name="a")
    b = tf.Variable(2, name="b")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, "ckpt/other")
""",
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_silent_on_correct_variants(name):
    assert findings(CORRECT[name]) == []


CHILD = r"""
import contextlib, importlib.util, io, json, os, sys
sample, base = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("migrated", sample)
program = importlib.util.module_from_spec(spec)
spec.loader.exec_module(program)
import tensorflow as tf
out = io.StringIO()
with contextlib.redirect_stdout(out):
    program.main(base)
checkpoints = {}
for name in ("sample1", "sample2", "sample3"):
    path = os.path.join(base, name, "export")
    reader = tf.train.load_checkpoint(path)
    checkpoints[name] = {k: int(reader.get_tensor(k)) for k, _ in tf.train.list_variables(path)}
print("JSON" + json.dumps({"stdout": out.getvalue().splitlines(), "checkpoints": checkpoints}))
"""


@pytest.mark.slow
def test_migrated_program_runs_with_the_legacy_checkpoints(tmp_path):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    proc = run_python(["-c", CHILD, str(EXPECTED), str(tmp_path / "model")], timeout=300, env=env)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("JSON")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    summary = json.loads(lines[-1][4:])
    # trap 1: variable_1 was never saved, so restoring it fails exactly as in TF 1.x
    assert summary["checkpoints"]["sample1"] == {"variable_0": 0}
    assert any(line.startswith("sample1 restore failed:") and "Key variable_1 not found in checkpoint" in line for line in summary["stdout"]), summary["stdout"]
    # 2: a checkpoint with extra variables restores the one asked for
    assert summary["checkpoints"]["sample2"] == {"variable_0": 0, "variable_1": 1}
    assert "sample2 restored variable_0 = 0" in summary["stdout"]
    # trap 3: saver1 (built in g1) saved g2's variable_1 and restored it into g3
    assert summary["checkpoints"]["sample3"] == {"variable_1": 10}
    assert "sample3 restored variable_1 = 10" in summary["stdout"]


def test_cli_reports_the_trap_lines(tmp_path):
    """`tfmigrate rewrite --check --format json` on seed 002, as a user runs it (the file is not written)."""
    proc = run_cli(["rewrite", "--check", "--format", "json", "-q", "--select", "TFM2", str(LEGACY)], timeout=120, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # manual findings remain
    report = json.loads(proc.stdout)
    got = sorted((f["rule"], f["line"], f["fix"]) for f in report["findings"])
    assert got == sorted((rule, line, "manual") for rule, line in findings(LEGACY.read_text()))
