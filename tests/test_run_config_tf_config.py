"""Reads of a rewritten ``tf.contrib.learn.RunConfig``'s ``tf_config`` (TFM150), in generated variants.

google/seq2seq ``bin/train.py`` (7f48589) builds ``config = run_config.RunConfig(..., gpu_memory_fraction=F)``
and then sets ``config.tf_config.gpu_options.allow_growth`` and ``config.tf_config.log_device_placement``. The
legacy RunConfig's ``tf_config`` was its session ``ConfigProto`` (TF 1.0-1.15 ``run_config.py``; TF 1.0's
Estimator ran training with it); ``tf.estimator.RunConfig`` has none (AttributeError) and its ``session_config``
is the proto the estimator copies when it is built. Each variant (import form x flow x scope) has its read
become ``.session_config`` on a RunConfig the rewrite gave a ``session_config=``, or a finding on the read's
line; the slow test runs the rewritten programs in one TensorFlow 2.15 child and checks that the estimator
built with ``config=`` holds the mutated fields.
"""

from __future__ import annotations

import itertools
import json
import os
import textwrap

import pytest

from tests.every_case import grouped
from rewrite_once import rewrite_source  # the same (source, rules, path) rewritten by several checks: once
from tfmigrate.codemod.rule import load_catalog

ALL = load_catalog().selected(None)

from tests.test_run_config_session import IMPORTS  # noqa: E402  the same six import forms, one table
from tests.tfchildren import run_python
ARGS = {  # the RunConfig's arguments: one the rewrite gives a session_config= already, one it must add it for
    "fraction": "model_dir=MODEL_DIR, gpu_memory_fraction=0.5",
    "plain": "model_dir=MODEL_DIR, tf_random_seed=3",
}
READ = "config.tf_config.gpu_options.allow_growth = True  # READ\nconfig.tf_config.log_device_placement = True  # READ\n"
# flow -> (program lines binding `config` with CALL in them, rewritten: True, else flagged on each READ line)
FLOWS = {
    "name": ("config = CALL\n" + READ, True),
    "self": ("class Holder(object):\n    def __init__(self):\n        self.config = CALL\n\n"
             "    def tune(self):\n" + textwrap.indent(READ.replace("config.tf", "self.config.tf"), "        ")
             + "        return self.config\n\n\nconfig = Holder().tune()\n", True),
    "return": ("def make():\n    return CALL\n\n\nconfig = make()\n" + READ, True),
    "return_param": ("def make(seed, fraction=0.5):\n    return CALL\n\n\nconfig = make(1, fraction=0.25)\n" + READ,
                     True),
    "return_args": ("def make(seed, fraction=0.5):\n    if seed is None:\n        return CALL\n    return CALL\n\n\n"
                    "config = make(None)\n" + READ, False),  # two RunConfigs: not followed
    "inline": ("proto = CALL.tf_config  # READ\nproto.gpu_options.allow_growth = True\n"
               "proto.log_device_placement = True\nconfig = tf.estimator.RunConfig(model_dir=MODEL_DIR, "
               "session_config=proto)\n", True),
    "call_read": ("def make():\n    return CALL\n\n\nconfig = make()\nmake().tf_config.gpu_options.allow_growth = "
                  "True  # READ\n", True),
    "parameter": ("def tune(config):\n" + textwrap.indent(READ, "    ") + "    return config\n\n\n"
                  "config = tune(CALL)\n", False),
    "rebound": ("config = CALL\nif MODEL_DIR is None:\n    config = CALL\n" + READ, False),
    "explicit_session": ("config = CALL_SESSION\n" + READ, False),
    "kwargs": ("config = CALL_KWARGS\n" + READ, False),
    "assigned": ("config = CALL\nconfig.tf_config = tf.compat.v1.ConfigProto()  # READ\n", False),
    "environment": ("config = CALL\nenv = config.environment  # READ\n", False),
    # `global config` elsewhere rebinds the module's config (flagged), not a function's local one (rewritten)
    "global": ("def set_config():\n    global config\n    config = tf.estimator.RunConfig()\n\n\n"
               "config = CALL\nset_config()\n" + READ, ("function", "method")),
    "with_as": ("config = CALL\nwith open(__file__) as config:\n    pass\n" + READ, False),
}
SCOPES = ("module", "function", "method", "main")

PRELUDE = '''
MODEL_DIR = None
MY_SESSION = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=5)
RUN_ARGS = {"tf_random_seed": 3}
'''


def program(imp: str, args: str, flow: str, scope: str) -> str:
    imports, cls = IMPORTS[imp]
    body = (FLOWS[flow][0].replace("CALL_SESSION", f"{cls}({ARGS[args]}, session_config=MY_SESSION)")
            .replace("CALL_KWARGS", f"{cls}(**RUN_ARGS)").replace("CALL", f"{cls}({ARGS[args]})"))
    if scope == "function":
        body = "def main():\n" + textwrap.indent(body, "    ") + "    return config\n\n\nconfig = main()\n"
    elif scope == "method":
        body = ("class Runner(object):\n    def run(self):\n" + textwrap.indent(body, "        ")
                + "        return config\n\n\nconfig = Runner().run()\n")
    elif scope == "main":
        body = 'if __name__ == "__main__":\n' + textwrap.indent(body, "    ")
    return imports + PRELUDE + "\n" + body


VARIANTS = [pytest.param(i, a, f, s, id=f"{i}-{a}-{f}-{s}")
            for i, a, f, s in itertools.product(IMPORTS, ARGS, FLOWS, SCOPES)]


def _rewrite(source: str):
    result = rewrite_source(source.encode(), ALL, path="program.py")
    return result.new.decode(), result.findings


@grouped(("imp", "args", "flow", "scope"), VARIANTS)  # one test per import form
def test_tf_config_read_variant(imp, args, flow, scope):
    source = program(imp, args, flow, scope)
    compile(source, "program.py", "exec")
    reads = [i for i, text in enumerate(source.splitlines(), start=1) if "# READ" in text]
    new, findings = _rewrite(source)
    rewritten = FLOWS[flow][1]
    rewritten = scope in rewritten if isinstance(rewritten, tuple) else rewritten
    for line in reads:
        on_line = [f for f in findings if f.rule == "TFM150" and f.line == line]
        assert on_line, f"no TFM150 on line {line}: silent\n{new}"
        assert all(f.fixable for f in on_line) is rewritten, (line, [f.message for f in on_line])
    if rewritten:
        assert "tf_config" not in new and "contrib" not in new, new
        assert "session_config=tf.compat.v1.ConfigProto(" in new, new
        assert new.count(".session_config") >= len(reads), new
    else:
        assert "tf_config" in new or "environment" in new, new  # the read is left as written
    assert _rewrite(new)[0] == new  # a second run changes nothing


def test_seq2seq_train_shape():
    """bin/train.py's create_experiment, reduced: the RunConfig in a function, two mutations after it."""
    source = textwrap.dedent('''\
        import tensorflow as tf
        from tensorflow.contrib.learn.python.learn.estimators import run_config


        def create_experiment(output_dir):
          config = run_config.RunConfig(
              tf_random_seed=FLAGS.tf_random_seed,
              keep_checkpoint_max=FLAGS.keep_checkpoint_max,
              gpu_memory_fraction=FLAGS.gpu_memory_fraction)
          config.tf_config.gpu_options.allow_growth = FLAGS.gpu_allow_growth
          config.tf_config.log_device_placement = FLAGS.log_device_placement
          return config
    ''')
    new, findings = _rewrite(source)
    assert "config.session_config.gpu_options.allow_growth = FLAGS.gpu_allow_growth" in new, new
    assert "config.session_config.log_device_placement = FLAGS.log_device_placement" in new, new
    assert "per_process_gpu_memory_fraction=FLAGS.gpu_memory_fraction" in new, new
    assert sorted(f.line for f in findings if f.rule == "TFM150" and f.fixable) == [6, 10, 11]


def test_unrelated_tf_config_left_alone_without_a_legacy_run_config():
    source = "import tensorflow as tf\n\nc = tf.estimator.RunConfig()\nx = holder.tf_config\n"
    new, findings = _rewrite(source)
    assert new == source and not findings


CHILD = textwrap.dedent('''
    import json, sys
    import tensorflow as tf
    out = {}
    def model_fn(features, labels, mode):
        raise AssertionError("never trained")
    for name, source in json.load(sys.stdin):
        scope = {"__name__": "__main__"}
        exec(compile(source, name, "exec"), scope)
        config = scope["config"]
        est = tf.estimator.Estimator(model_fn, config=config)
        # the proto the estimator hands tf.compat.v1.train.MonitoredTrainingSession / Session (estimator.py)
        used = est._session_config
        out[name] = [config.session_config.gpu_options.allow_growth, config.session_config.log_device_placement,
                     used.gpu_options.allow_growth, used.log_device_placement, used.allow_soft_placement,
                     used.gpu_options.per_process_gpu_memory_fraction]
    print(json.dumps(out))
''')


@pytest.mark.slow
def test_mutated_session_config_reaches_the_estimator_on_tf215(tmp_path):
    jobs = []
    for imp, args, flow, scope in itertools.product(IMPORTS, ARGS, FLOWS, SCOPES):
        if FLOWS[flow][1] is not True or flow == "call_read" or (scope != "module" and imp != "run_config_module"):
            continue  # every scope is proven statically above; the child runs a representative batch
        new, _ = _rewrite(program(imp, args, flow, scope))
        jobs.append((f"{imp}-{args}-{flow}-{scope}", new.replace("MODEL_DIR = None", f"MODEL_DIR = {str(tmp_path)!r}")))
    proc = run_python(["-c", CHILD], input=json.dumps(jobs), env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(out) == {name for name, _ in jobs}
    for name, (growth, placement, used_growth, used_placement, soft, fraction) in out.items():
        assert [growth, placement, used_growth, used_placement, soft] == [True] * 5, name
        assert fraction == pytest.approx(0.5 if "-fraction-" in name else 0.0), name
