"""Issue 27 item 4: ``tf.contrib.learn.RunConfig(num_cores=, log_device_placement=, gpu_memory_fraction=, ...)``
in generated variants (TFM150).

The legacy RunConfig (TF 1.0-1.15 ``contrib/learn/python/learn/estimators/run_config.py``) built its
``tf_config`` as ``ConfigProto(log_device_placement=..., inter_op_parallelism_threads=num_cores,
intra_op_parallelism_threads=num_cores, gpu_options=GPUOptions(per_process_gpu_memory_fraction=...))``; the
rewrite passes those fields as ``session_config=tf.compat.v1.ConfigProto(...)`` (with ``allow_soft_placement``,
the legacy Estimator's and TF 2.15's default), or drops them where an explicit ``session_config=`` made the
legacy Estimator ignore them. Every variant (import form x call form x scope) is rewritten, or flagged on
its line; the slow test runs every rewritten program in one TensorFlow 2.15 child and compares the
RunConfig's session_config, and that of an estimator built with ``config=``, with the legacy proto field by
field.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import textwrap

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

ALL = load_catalog().selected(None)

IMPORTS = {  # name -> (import lines, the RunConfig class as the program spells it)
    "tf": ("import tensorflow as tf\n", "tf.contrib.learn.RunConfig"),
    "from_contrib": ("import tensorflow as tf\nfrom tensorflow.contrib import learn\n", "learn.RunConfig"),
    "import_as": ("import tensorflow as tf\nimport tensorflow.contrib.learn as learn\n", "learn.RunConfig"),
    "module_alias": ("import tensorflow as tf\nL = tf.contrib.learn\n", "L.RunConfig"),
    "run_config_module": ("import tensorflow as tf\nfrom tensorflow.contrib.learn.python.learn.estimators import "
                          "run_config\n", "run_config.RunConfig"),
    "class_import": ("import tensorflow as tf\nfrom tensorflow.contrib.learn import RunConfig as RC\n", "RC"),
}
# name -> (arguments, the legacy values (num_cores, log_device_placement, gpu_memory_fraction) or None when the
# rewrite must drop them (explicit session_config), rewritten (else flagged on the line))
CALLS = {
    "keyword": ("num_cores=3, log_device_placement=True, gpu_memory_fraction=0.25, tf_random_seed=7, "
                "save_checkpoints_steps=20, model_dir=MODEL_DIR", (3, True, 0.25), True),
    "positional": ("None, 3, True, 0.25, 7, 100, None, 20, model_dir=MODEL_DIR", (3, True, 0.25), True),
    "cores_only": ("num_cores=2, model_dir=MODEL_DIR", (2, False, None), True),
    "computed": ("num_cores=CORES + 1, gpu_memory_fraction=FRACTION, model_dir=MODEL_DIR", (3, False, 0.25), True),
    "explicit_session": ("num_cores=3, log_device_placement=True, session_config=MY_SESSION, model_dir=MODEL_DIR",
                         None, True),
    "kwargs": ("**RUN_ARGS", None, False),
    "master": ('master="grpc://10.0.0.1:2222", num_cores=3', None, False),
}
SCOPES = ("module", "function", "method", "main")

PRELUDE = '''
MODEL_DIR = None
CORES = 2
FRACTION = 0.25
MY_SESSION = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=5)
RUN_ARGS = {"num_cores": 3}
'''


def program(imp: str, form: str, scope: str) -> str:
    """One legacy program; its RunConfig call is on the only line holding 'RUN_CONFIG_LINE'; it binds the result
    to ``config``, which a canned estimator then gets as ``config=``."""
    imports, cls = IMPORTS[imp]
    call = f"{cls}({CALLS[form][0]})  # RUN_CONFIG_LINE"
    use = "est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column('x')], config=config)"
    if scope == "module":
        body = f"config = {call}\n{use}\n"
    elif scope == "function":
        body = f"def build():\n    config = {call}\n    {use}\n    return config, est\n\n\nconfig, est = build()\n"
    elif scope == "method":
        body = (f"class Model(object):\n    def __init__(self):\n        self.config = {call}\n"
                f"        config = self.config\n        self.{use}\n\n\nm = Model()\nconfig, est = m.config, m.est\n")
    else:
        body = f'if __name__ == "__main__":\n    config = {call}\n    {use}\n'
    return imports + PRELUDE + "\n" + body


VARIANTS = [pytest.param(i, f, s, id=f"{i}-{f}-{s}") for i, f, s in itertools.product(IMPORTS, CALLS, SCOPES)]


def _rewrite(source: str):
    result = rewrite_source(source.encode(), ALL, path="program.py")
    return result.new.decode(), result.findings


@pytest.mark.parametrize(("imp", "form", "scope"), VARIANTS)
def test_run_config_variant(imp, form, scope):
    source = program(imp, form, scope)
    compile(source, "program.py", "exec")
    line = next(i for i, text in enumerate(source.splitlines(), start=1) if "RUN_CONFIG_LINE" in text)
    new, findings = _rewrite(source)
    on_line = [f for f in findings if f.rule == "TFM150" and f.line == line]
    assert on_line, f"no TFM150 on line {line}: silent\n{new}"
    legacy, rewritten = CALLS[form][1], CALLS[form][2]
    assert all(f.fixable for f in on_line) is rewritten, [f.message for f in on_line]
    if not rewritten:
        assert IMPORTS[imp][1] + "(" in new, new  # left as it was
        return
    body = new.split("RUN_ARGS = ", 1)[1].split("\n", 1)[1]  # after the prelude
    assert "tf.estimator.RunConfig(" in body, new
    assert not re.search(r"\b(num_cores|log_device_placement|gpu_memory_fraction)=", body.replace(
        "log_device_placement=True,\n", "")) or legacy is not None and legacy[1], new
    if legacy is None:  # an explicit session_config: the legacy Estimator read it alone
        assert "ConfigProto(allow_soft_placement" not in new and "session_config=MY_SESSION" in new, new
        assert "never read them" in on_line[0].message
    else:
        assert "session_config=tf.compat.v1.ConfigProto(" in body, new
    assert _rewrite(new)[0] == new  # a second run changes nothing


def test_legacy_defaults_add_no_session_config():
    new, findings = _rewrite("import tensorflow as tf\n\nc = tf.contrib.learn.RunConfig(None, 0, False, 1, 42)\n")
    assert new == "import tensorflow as tf\n\nc = tf.estimator.RunConfig(tf_random_seed=42)\n"
    assert [f.rule for f in findings] == ["TFM150"]


CHILD = textwrap.dedent('''
    import json, sys
    import tensorflow as tf
    from google.protobuf import json_format
    out = {}
    for name, source, legacy in json.load(sys.stdin):
        scope = {"__name__": "__main__"}
        exec(compile(source, name, "exec"), scope)
        config, est = scope["config"], scope["est"]
        if legacy is None:
            expected = scope["MY_SESSION"]
        else:
            cores, placement, fraction = legacy
            # what the legacy RunConfig built (run_config.py, TF 1.0-1.15), allow_soft_placement as the
            # legacy Estimator (TF 1.3+) and TF 2.15 set it by default
            expected = tf.compat.v1.ConfigProto(log_device_placement=placement, inter_op_parallelism_threads=cores,
                                                intra_op_parallelism_threads=cores, allow_soft_placement=True)
            if fraction is not None:
                expected.gpu_options.per_process_gpu_memory_fraction = fraction
        got = [json_format.MessageToDict(c.session_config) for c in (config, est.config)]
        out[name] = {"got": got, "expected": json_format.MessageToDict(expected),
                     "equal": all(c.session_config == expected for c in (config, est.config)),
                     "allow_growth": [c.session_config.gpu_options.allow_growth for c in (config, est.config)],
                     "seed": config.tf_random_seed}
    print(json.dumps(out))
''')


@pytest.mark.slow
def test_rewritten_session_config_equals_the_legacy_one_on_tf215(tmp_path):
    jobs = []
    for imp, form, scope in itertools.product(IMPORTS, CALLS, SCOPES):
        legacy, rewritten = CALLS[form][1], CALLS[form][2]
        if not rewritten or (scope != "module" and imp not in ("tf", "from_contrib")):
            continue  # the scopes are proven statically above; the child runs a representative batch
        new, _ = _rewrite(program(imp, form, scope))
        jobs.append((f"{imp}-{form}-{scope}", new.replace("MODEL_DIR = None", f"MODEL_DIR = {str(tmp_path)!r}"),
                     legacy))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = run_python(["-c", CHILD], input=json.dumps(jobs), env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(out) == {name for name, _, _ in jobs}
    for name, result in out.items():
        assert result["equal"], (name, result)
        assert result["allow_growth"] == [False, False], name  # the legacy GPUOptions default, kept
        if "keyword" in name or "positional" in name:
            assert result["seed"] == 7, name


ZERO = {  # legacy RunConfig(...) -> (save_checkpoints_secs, save_checkpoints_steps) the legacy RunConfig (TF 1.3+) had
    "tf.contrib.learn.RunConfig(save_checkpoints_secs=0)": (600, None),
    "tf.contrib.learn.RunConfig(save_checkpoints_secs=0, save_checkpoints_steps=50)": (None, 50),
    "tf.contrib.learn.RunConfig(None, 0, False, 1, None, 100, 0, 50)": (None, 50),
}


@pytest.mark.parametrize("call", list(ZERO))
def test_save_checkpoints_secs_zero_is_the_legacy_default(call):
    new, findings = _rewrite(f"import tensorflow as tf\n\nconfig = {call}\n")
    assert "save_checkpoints_secs" not in new and "tf.estimator.RunConfig(" in new, new
    assert any(f.rule == "TFM150" and f.fixable and "save_checkpoints_secs=0 dropped" in f.message for f in findings)


@pytest.mark.slow
def test_save_checkpoints_secs_zero_keeps_the_legacy_cadence_on_tf215():
    # TF 2.15 reads save_checkpoints_secs=0 as "no CheckpointSaverHook" (and raises beside steps); legacy read it
    # as _USE_DEFAULT
    programs = [(call, _rewrite(f"import tensorflow as tf\n\nconfig = {call}\n")[0]) for call in ZERO]
    child = ("import json, sys\nout = []\nfor call, source in json.load(sys.stdin):\n    scope = {}\n"
             "    exec(source, scope)\n    c = scope['config']\n"
             "    out.append([call, c.save_checkpoints_secs, c.save_checkpoints_steps])\nprint(json.dumps(out))\n")
    proc = run_python(["-c", child], input=json.dumps(programs), env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for call, secs, steps in json.loads(proc.stdout.strip().splitlines()[-1]):
        assert (secs, steps) == ZERO[call], call
