"""Messages say what is true in the state the user is in (issue 19): advice to run rules that
already ran, or an exit code that contradicts the verdict printed, would be false."""

from __future__ import annotations

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

CODE = b"import tensorflow as tf\nm = tf.contrib.learn.monitors.NotARealThing()\ne = tf.contrib.eager.some_unknown_fn()\n"


def messages(select: str | None) -> list[str]:
    enabled = load_catalog().selected((select,) if select else None)
    return [f.message for f in rewrite_source(CODE, enabled).findings if f.rule == "TFM503"]


def test_the_catch_all_does_not_ask_to_run_rules_that_ran() -> None:
    learn, eager = messages(None)
    assert "run the TFM1 rules" not in learn and "no TFM1 rule rewrites it" in learn and "port it by hand" in learn
    assert "run the TFM4 rules" not in eager and "no TFM4 rule rewrites it" in eager


def test_the_catch_all_names_the_rules_that_did_not_run() -> None:
    learn, eager = messages("TFM5")
    assert "run the TFM1 rules (`tfmigrate rewrite --select TFM1`)" in learn
    assert "run the TFM4 rules (`tfmigrate rewrite --select TFM4`)" in eager
