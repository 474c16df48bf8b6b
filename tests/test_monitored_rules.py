"""TFM3 without TensorFlow: where each rule fires on seed 004, what the restructuring keeps and
drops, and that every loop outside the canonical shape keeps its session and gets TFM302 with
the reason (the safe minimum)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "samples" / "monitored_mnist" / "legacy.py"
CATALOG = load_catalog()
TFM3 = CATALOG.selected(("TFM3",))


def run(source: str, enabled=TFM3):
    result = rewrite_source(source.encode(), enabled)
    out = result.new.decode()
    ast.parse(out)
    assert rewrite_source(result.new, enabled).new == result.new, "a second run must change nothing"
    return out, result.findings


def line_of(text: str, needle: str) -> int:
    lines = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(lines) == 1, (needle, lines)
    return lines[0]


def test_seed_004_findings_at_their_lines():
    text = LEGACY.read_text()
    out, findings = run(text)
    got = sorted((f.rule, f.line) for f in findings)
    assert got == sorted(
        [
            ("TFM301", line_of(text, "session = tf.train.MonitoredTrainingSession(")),
            ("TFM303", line_of(text, "tf.train.LoggingTensorHook(")),
            ("TFM303", line_of(text, "tf.train.NanTensorHook(")),
            ("TFM305", line_of(text, "dataset.output_shapes")),
            ("TFM306", line_of(text, 'tf.summary.scalar("loss", loss)')),
        ]
    )


def test_seed_004_restructured_from_the_same_code():
    out, _ = run(LEGACY.read_text())
    tree = ast.parse(out)
    train = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "train")
    inner = {n.name: n for n in train.body if isinstance(n, ast.FunctionDef)}
    assert set(inner) == {"input_fn", "model_fn"}
    assert [a.arg for a in inner["model_fn"].args.args] == ["features", "labels", "mode"]
    assert ast.unparse(inner["input_fn"].body[-1]) == "return dataset"
    model_src = ast.unparse(inner["model_fn"])
    for kept in ("MNISTModel()", "model.loss(logits, labels)", "model.optimize(loss)", "tf.compat.v1.summary.scalar('loss', loss)",
                 "tf.estimator.LoggingTensorHook(metrics, every_n_iter=5)", "tf.estimator.NanTensorHook(loss)"):
        assert kept in model_src
    train_src = ast.unparse(train)
    assert "StopAtStepHook" not in train_src and "MonitoredTrainingSession" not in train_src and "Scaffold" not in train_src
    assert "tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=hooks)" in model_src
    calls = {ast.unparse(c.func): c for c in ast.walk(train) if isinstance(c, ast.Call)}
    config = {k.arg: ast.unparse(k.value) for k in calls["tf.estimator.RunConfig"].keywords}
    assert config == {
        "model_dir": "model_dir",
        "save_checkpoints_steps": "save_checkpoint_steps",
        "save_summary_steps": "save_summaries_steps",
        "log_step_count_steps": "5",
        "session_config": "tf.ConfigProto(allow_soft_placement=True, intra_op_parallelism_threads=2)",
        "keep_checkpoint_max": "checkpoints_to_keep",
        "keep_checkpoint_every_n_hours": "keep_checkpoint_every_n_hours",
    }
    train_call = calls["estimator.train"]
    assert [ast.unparse(a) for a in train_call.args] == ["input_fn"]
    assert {k.arg: ast.unparse(k.value) for k in train_call.keywords} == {"max_steps": "max_steps or None"}


HEAD = """import tensorflow as tf


def train(model_dir):
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.range(10).repeat()
        x = dataset.make_one_shot_iterator().get_next()
        loss = tf.reduce_sum(tf.cast(x, tf.float32) * tf.Variable(1.0))
        train_op = tf.train.AdamOptimizer().minimize(loss, global_step=tf.train.get_or_create_global_step())
"""
CANONICAL_LOOP = """        with tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir) as sess:
            while not sess.should_stop():
                sess.run(train_op)
"""

NOT_CANONICAL = {
    "two train ops": (HEAD + CANONICAL_LOOP).replace("sess.run(train_op)\n", "sess.run(train_op)\n                sess.run(loss)\n"),
    "fetched values": (HEAD + CANONICAL_LOOP).replace("sess.run(train_op)", "value = sess.run(train_op)"),
    "fetch list": (HEAD + CANONICAL_LOOP).replace("sess.run(train_op)", "sess.run([train_op, loss])"),
    "code after loop": (HEAD + CANONICAL_LOOP).replace("                sess.run(train_op)\n", "                sess.run(train_op)\n            print('done')\n"),
    "summaries secs": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, save_summaries_secs=5)"),
    "checkpoint secs and steps": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, save_checkpoint_secs=60, save_checkpoint_steps=10)"),
    "summary dir": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, summary_dir='/tmp/s')"),
    "chief only hooks from outside": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, chief_only_hooks=extra_hooks)"),
    "no checkpoint dir": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir", ""),
    "positional": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir", "'', True, model_dir"),
    "scaffold init_fn": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, scaffold=tf.train.Scaffold(init_fn=None))"),
    "saver var_list": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, scaffold=tf.train.Scaffold(saver=tf.train.Saver(var_list=None)))"),
    "two stop hooks": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, hooks=[tf.train.StopAtStepHook(last_step=5), tf.train.StopAtStepHook(num_steps=2)])"),
    "input used by model": HEAD.replace("train_op = tf", "train_op = dataset, tf") + CANONICAL_LOOP,
    "tensor used after the graph": HEAD + CANONICAL_LOOP + "    return loss\n",
    "initializable iterator": (HEAD + CANONICAL_LOOP).replace("make_one_shot_iterator", "make_initializable_iterator"),
    "session setting made in the graph": HEAD + "        n = 5\n" + CANONICAL_LOOP.replace("model_dir)", "model_dir, save_checkpoint_steps=n)"),
    "return in graph code": HEAD.replace("        train_op", "        if loss is None:\n            return\n        train_op") + CANONICAL_LOOP,
    "no loss": HEAD.replace("loss", "cost") + CANONICAL_LOOP,
    "distributed": (HEAD + CANONICAL_LOOP).replace("checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, master='grpc://w0:2222', is_chief=False)"),
}


def test_the_canonical_loop_itself_is_restructured():
    out, findings = run(HEAD + CANONICAL_LOOP)
    assert [f.rule for f in findings] == ["TFM301"]
    assert "def model_fn(features, labels, mode):" in out and "MonitoredTrainingSession" not in out


@pytest.mark.parametrize("name", sorted(NOT_CANONICAL))
def test_not_canonical_keeps_the_session_and_says_why(name):
    source = NOT_CANONICAL[name]
    out, findings = run(source)
    rules = [f.rule for f in findings]
    assert "TFM301" not in rules and rules.count("TFM302") == 1
    assert "MonitoredTrainingSession(" in out and "def model_fn" not in out
    message = next(f.message for f in findings if f.rule == "TFM302")
    assert "because" in message and "input_fn" in message and "RunConfig" in message
    if name == "distributed":
        assert rules.count("TFM304") == 2


def test_safe_minimum_with_every_rule_runs_on_tf2_names():
    """With TFM5 after it, no tf.train hook is left (TFM303) and the session keeps a TF 2 home."""
    out, findings = run(NOT_CANONICAL["two train ops"].replace("model_dir) as sess", "model_dir, hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess"),
                        CATALOG.selected(None))
    assert "tf.estimator.StopAtStepHook(last_step=3)" in out
    assert "tf.train.StopAtStepHook" not in out


IMPORT_FORMS = [
    "from tensorflow.train import MonitoredTrainingSession as MTS, StopAtStepHook\nimport tensorflow as tf\n",
    "import tensorflow as tf\nfrom tensorflow import train as T\nMTS, StopAtStepHook = T.MonitoredTrainingSession, T.StopAtStepHook\n",
]


def test_import_forms_match_by_qualified_name():
    body = """

def train(model_dir):
    with tf.Graph().as_default():
        x = tf.data.Dataset.range(3).repeat().make_one_shot_iterator().get_next()
        loss = tf.reduce_sum(tf.cast(x, tf.float32) * tf.Variable(1.0))
        train_op = tf.train.AdamOptimizer().minimize(loss, global_step=tf.train.get_or_create_global_step())
        with MTS(checkpoint_dir=model_dir, hooks=[StopAtStepHook(last_step=7)]) as sess:
            while not sess.should_stop():
                sess.run(train_op)
"""
    out, findings = run(IMPORT_FORMS[0] + body)
    assert "TFM301" in {f.rule for f in findings}
    assert "estimator.train(input_fn, max_steps=7)" in out
    assert "from tensorflow.train import" not in out, "imports the rewrite left unused are dropped"
    assert "return tf.data.Dataset.range(3).repeat()" in out


def test_rewrite_path_does_not_import_tensorflow():
    code = (
        "import sys\n"
        "from tfmigrate.codemod.engine import rewrite_source\n"
        "from tfmigrate.codemod.rule import load_catalog\n"
        f"data = open({str(LEGACY)!r}, 'rb').read()\n"
        "assert rewrite_source(data, load_catalog().selected(('TFM2', 'TFM3'))).changed\n"
        "assert 'tensorflow' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_model_built_before_the_dataset_goes_to_model_fn():
    source = """import tensorflow as tf


def train(model_dir, files):
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        model = Model()
        dataset = tf.data.TFRecordDataset(files).map(parse).batch(32).repeat()
        x, y = dataset.make_one_shot_iterator().get_next()
        loss = model.loss(model(x), y)
        train_op = tf.train.AdamOptimizer().minimize(loss, global_step=global_step)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir) as sess:
            while not sess.should_stop():
                sess.run(train_op)
"""
    out, findings = run(source)
    assert [f.rule for f in findings] == ["TFM301"]
    tree = ast.parse(out)
    inner = {n.name: ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert "Model()" in inner["model_fn"] and "get_or_create_global_step" in inner["model_fn"]
    assert "Model()" not in inner["input_fn"] and "TFRecordDataset" in inner["input_fn"]


def test_a_value_both_input_and_model_need_keeps_the_session():
    source = HEAD.replace("        dataset =", "        batch = 32\n        dataset =").replace("range(10)", "range(batch)").replace(
        "tf.Variable(1.0)", "tf.Variable(1.0) * batch") + CANONICAL_LOOP
    out, findings = run(source)
    assert "TFM302" in {f.rule for f in findings} and "TFM301" not in {f.rule for f in findings}
    assert "['batch']" in next(f.message for f in findings if f.rule == "TFM302")


def test_manual_steps_carry_this_sessions_settings():
    source = NOT_CANONICAL["two train ops"].replace(
        "checkpoint_dir=model_dir)",
        "checkpoint_dir=model_dir, save_checkpoint_steps=50, save_summaries_secs=30, "
        "scaffold=tf.train.Scaffold(saver=tf.train.Saver(max_to_keep=2)), hooks=[tf.train.StopAtStepHook(last_step=900)])",
    )
    _, findings = run(source)
    message = next(f.message for f in findings if f.rule == "TFM302")
    assert "tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=50, keep_checkpoint_max=2)" in message
    assert ".train(input_fn, max_steps=900)" in message
    assert "SummarySaverHook(save_secs=" in message


def test_chief_only_hooks_become_training_chief_hooks():
    source = (HEAD + CANONICAL_LOOP).replace(
        "checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, chief_only_hooks=[tf.train.LoggingTensorHook({'loss': loss}, every_n_iter=10)])"
    )
    out, findings = run(source)
    assert "TFM301" in {f.rule for f in findings}
    assert "training_chief_hooks=[tf.estimator.LoggingTensorHook({'loss': loss}, every_n_iter=10)])" in out


def test_iterator_bound_to_a_name_first():
    source = HEAD.replace(
        "        x = dataset.make_one_shot_iterator().get_next()\n",
        "        iterator = dataset.make_one_shot_iterator()\n        x = iterator.get_next()\n",
    ) + CANONICAL_LOOP
    out, findings = run(source)
    assert [f.rule for f in findings] == ["TFM301"]
    assert "iterator" not in out and "return dataset" in out
    reused = source.replace("        loss = ", "        print(iterator)\n        loss = ")
    out, findings = run(reused)
    assert "TFM302" in {f.rule for f in findings} and "iterator" in out


def test_script_level_loop_and_its_guard():
    script = """import tensorflow as tf


def helper():
    return 1


dataset = tf.data.Dataset.range(5).repeat()
x = dataset.make_one_shot_iterator().get_next()
loss = tf.reduce_sum(tf.cast(x, tf.float32) * tf.Variable(1.0))
train_op = tf.train.AdamOptimizer().minimize(loss, global_step=tf.train.get_or_create_global_step())
with tf.train.MonitoredTrainingSession(checkpoint_dir="/tmp/model") as sess:
    while not sess.should_stop():
        sess.run(train_op)
"""
    out, findings = run(script)
    assert [f.rule for f in findings] == ["TFM301"]
    assert "\n\n\ndef input_fn():\n" in out and "\n\n\ndef model_fn(features, labels, mode):\n" in out
    # a module-level function reads `loss`: moving it into model_fn would break that function
    out, findings = run(script.replace("return 1", "return loss"))
    assert "TFM302" in {f.rule for f in findings} and "['loss']" in next(f.message for f in findings if f.rule == "TFM302")


def test_loop_under_the_main_guard():
    script = """import tensorflow as tf

if __name__ == "__main__":
    dataset = tf.data.Dataset.range(5).repeat()
    x = dataset.make_one_shot_iterator().get_next()
    loss = tf.reduce_sum(tf.cast(x, tf.float32) * tf.Variable(1.0))
    train_op = tf.train.AdamOptimizer().minimize(loss, global_step=tf.train.get_or_create_global_step())
    with tf.train.MonitoredTrainingSession(checkpoint_dir="/tmp/model", hooks=[tf.train.StopAtStepHook(num_steps=3)]) as sess:
        while not sess.should_stop():
            sess.run(train_op)
    print("done")
"""
    out, findings = run(script)
    assert [f.rule for f in findings] == ["TFM301"]
    assert 'if __name__ == "__main__":\n    def input_fn():\n' in out
    assert out.endswith("    estimator.train(input_fn, steps=3)\n    print(\"done\")\n")


@pytest.mark.parametrize(
    "hooks_code, mts_hooks, expected",
    [
        ("        stop = tf.train.StopAtStepHook(last_step=8)\n        hooks = [tf.train.NanTensorHook(loss), stop]\n", "hooks", "max_steps=8"),
        ("        stop = tf.train.StopAtStepHook(num_steps=4)\n        hooks = []\n        if train_more:\n            hooks.append(stop)\n", "hooks", "steps=4 if train_more else None"),
        ("        stop = tf.train.StopAtStepHook(last_step=9)\n", "[stop]", "max_steps=9"),
    ],
)
def test_stop_hook_bound_to_a_name(hooks_code, mts_hooks, expected):
    source = HEAD.replace("def train(model_dir):", "def train(model_dir, train_more=True):") + hooks_code + CANONICAL_LOOP.replace(
        "checkpoint_dir=model_dir)", f"checkpoint_dir=model_dir, hooks={mts_hooks})"
    )
    out, findings = run(source)
    assert [f.rule for f in findings if f.rule != "TFM303"] == ["TFM301"]
    assert f"estimator.train(input_fn, {expected})" in out
    assert "StopAtStepHook" not in out and "stop" not in out.replace("should_stop", "")


def test_stop_hook_name_used_elsewhere_keeps_the_session():
    source = HEAD + "        stop = tf.train.StopAtStepHook(last_step=8)\n        print(stop)\n" + CANONICAL_LOOP.replace(
        "checkpoint_dir=model_dir)", "checkpoint_dir=model_dir, hooks=[stop])"
    )
    out, findings = run(source)
    assert "TFM302" in {f.rule for f in findings} and "StopAtStepHook" in out
