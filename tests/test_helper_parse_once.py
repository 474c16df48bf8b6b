"""The helpers a family writes into a module (TFM180's HParams, TFM608's vendored contrib code) are
parsed once per process and their statements shared by every module that gets them
(``codemod.parsing.parse_helpers``). A shared tree must not change any module's output: each module,
rewritten after others got the same helper (in another indent or newline), is rewritten exactly as in a
process where it is the first."""

from __future__ import annotations

import json
import subprocess
import sys

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.parsing import parse_helpers
from tfmigrate.codemod.rule import load_catalog

ALL = load_catalog().selected(None)

HPARAMS = "import tensorflow as tf\n\n\ndef build():\n{i}hp = tf.contrib.training.HParams(lr=0.1)\n{i}return hp\n"
MODULES = {
    "four_spaces": HPARAMS.format(i="    "),
    "two_spaces": HPARAMS.format(i="  "),
    "crlf": HPARAMS.format(i="    ").replace("\n", "\r\n"),
    "twice_in_one_module": HPARAMS.format(i="    ") + "\n\nother = tf.contrib.training.HParams(n=1)\n",
}


def test_each_module_gets_the_helper_as_if_it_were_the_first():
    outputs = {name: rewrite_source(text.encode(), ALL, path=f"{name}.py").new for name, text in MODULES.items()}
    again = {name: rewrite_source(text.encode(), ALL, path=f"{name}.py").new for name, text in reversed(MODULES.items())}
    assert again == outputs
    assert all(new.count(b"class LegacyHParams(object):") == 1 for new in outputs.values()), outputs
    fresh = subprocess.run(  # one process per order would cost more: one child, every module first in turn
        [sys.executable, "-c", (
            "import sys, json\n"
            "from tfmigrate.codemod.engine import rewrite_source\n"
            "from tfmigrate.codemod.parsing import parse_helpers\n"
            "from tfmigrate.codemod.rule import load_catalog\n"
            "ALL = load_catalog().selected(None)\n"
            "out = {}\n"
            "for name, text in json.loads(sys.stdin.read()).items():\n"
            "    parse_helpers.cache_clear()\n"
            "    out[name] = rewrite_source(text.encode(), ALL, path=name + '.py').new.decode()\n"
            "print(json.dumps(out))\n"
        )],
        input=json.dumps(MODULES), capture_output=True, text=True, check=True,
    )
    assert {k: v.encode() for k, v in json.loads(fresh.stdout).items()} == outputs


def test_the_helper_is_parsed_once_per_text_and_config():
    rewrite_source(MODULES["four_spaces"].encode(), ALL, path="a.py")
    hits = parse_helpers.cache_info().hits
    rewrite_source(MODULES["four_spaces"].replace("build", "make").encode(), ALL, path="b.py")
    assert parse_helpers.cache_info().hits > hits
