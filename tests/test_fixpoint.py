"""One `tfmigrate rewrite` reaches the fixed point: a second run changes nothing.

Over every bundled sample and over every Python 3 program of the real-world corpus (when the
shared corpus is next to the repository, as on CI: ``../shared/realworld``; skipped otherwise),
rewrite(rewrite(x)) == rewrite(x) and each output parses.
"""

import ast
import functools
import os
import warnings
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import SourceError, rewrite_source
from tfmigrate.codemod.rule import load_catalog

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(ROOT.glob("samples/*/legacy.py"))
CORPUS = Path(os.environ.get("TFM_REALWORLD", ROOT.parent / "shared" / "realworld")) / "orig"
ALL_RULES = load_catalog().selected(None)


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    files = []
    for path in sorted(CORPUS.rglob("*.py")):
        try:
            with warnings.catch_warnings():  # real 2016 code: invalid escapes in strings
                warnings.simplefilter("ignore")
                ast.parse(path.read_bytes())
        except SyntaxError:
            continue  # Python 2 sources: the "cannot parse" path, tested elsewhere
        files.append(path)
    return files


@functools.lru_cache(maxsize=None)
def _rewritten(data: bytes, path: str):  # type: ignore[no-untyped-def]
    """The default engine's rewrite of a sample or corpus file, made once in this process: the fixed-point
    tests and the tree-reuse comparison below (its REUSE_TREES=True side) both read it. Errors are not kept."""
    from tfmigrate.codemod import engine

    assert engine.REUSE_TREES  # the default engine's result only
    return rewrite_source(data, ALL_RULES, path=path)


def _check(path: Path) -> None:
    once = _rewritten(path.read_bytes(), str(path))
    with warnings.catch_warnings():  # the program's own invalid escapes are not the rewrite's
        warnings.simplefilter("ignore", DeprecationWarning)
        ast.parse(once.new)
    twice = rewrite_source(once.new, ALL_RULES, path=str(path))
    assert twice.new.decode() == once.new.decode(), f"{path.name}: a second run changed the output"
    assert not any(f.fixable for f in twice.findings), f"{path.name}: the second run still fixes something"


@pytest.mark.parametrize("path", SAMPLES, ids=[p.parent.name for p in SAMPLES])
def test_sample_reaches_fixpoint_in_one_run(path: Path):
    _check(path)


@pytest.mark.slow
def test_realworld_corpus_reaches_fixpoint_in_one_run():
    files = _corpus_files()
    if not files:
        pytest.skip(f"the real-world corpus is not at {CORPUS}")
    failures = []
    for path in files:
        try:
            _check(path)
        except SourceError as exc:
            failures.append(f"{path.name}: {exc}")
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0])
    assert not failures, "\n".join(failures)


def test_fixes_needing_two_passes_are_done_in_one_and_reported_once():
    source = b'''import tensorflow as tf

def input_fn():
    ds = tf.data.Dataset.range(3)
    return ds.make_one_shot_iterator().get_next()

with tf.Session() as sess:
    print(sess.run(input_fn()))
'''
    once = rewrite_source(source, ALL_RULES)
    twice = rewrite_source(once.new, ALL_RULES)
    assert twice.new == once.new
    assert b"tensorflow.compat" not in once.new  # the module spells TensorFlow `tf`
    keys = [(f.rule, f.line, f.message) for f in once.findings]
    assert len(keys) == len(set(keys))


CHAIN = '''family = "TFM9"
title = "fixpoint fixture"
transform = "tfm_fixpoint_transform:Chain"
needles = ["step"]

[[rules]]
id = "TFM911"
title = "t"
fix_safety = "safe"
legacy_api = ["step1", "step2"]
why = "w"
[[rules.examples]]
before = "step1\\n"
after = "step3\\n"

[[rules]]
id = "TFM912"
title = "t"
fixable = false
fix_safety = "none"
legacy_api = ["step3"]
why = "w"
[[rules.examples]]
before = "step3\\n"
findings = ["TFM912"]
'''


def test_the_loop_runs_until_nothing_changes_and_reports_each_fix_once(tmp_path):
    (tmp_path / "chain.toml").write_text(CHAIN)
    catalog = load_catalog(tmp_path)
    result = rewrite_source(b"a = 1\nx = step1 + 2\n", frozenset({"TFM911", "TFM912"}), catalog=catalog)
    assert result.new == b"a = 1\nx = step3 + 2\n"
    assert [(f.rule, f.line, f.message) for f in result.findings] == [
        ("TFM911", 2, "step1 is step2"),
        ("TFM911", 2, "step2 is step3"),
        ("TFM912", 2, "step3 needs a look"),  # found by the last pass only
    ]
    again = rewrite_source(result.new, frozenset({"TFM911", "TFM912"}), catalog=catalog)
    assert again.new == result.new and [f.rule for f in again.findings] == ["TFM912"]


def _catalog_sources() -> list[str]:
    """The ``before`` of every catalog example, each text once (in catalog order): a few examples
    repeat another's text (11 of 659 in session 14), whose comparison would be the same two rewrites again."""
    return list(dict.fromkeys(e.before for rule in load_catalog().rules.values() for e in rule.examples))


def test_a_later_pass_from_the_previous_trees_equals_one_from_a_fresh_parse(monkeypatch):
    """A later pass starts from the previous pass's final tree (engine.REUSE_TREES) instead of
    parsing its text again: on every sample, catalog example and real-world program (when
    present), both give the same text and the same findings, line for line."""
    from tfmigrate.codemod import engine

    files = [*SAMPLES, *_corpus_files()]  # their REUSE_TREES=True rewrite is the fixed-point tests' (_rewritten)
    sources = [(p.read_bytes(), str(p)) for p in files] + [(source.encode(), None) for source in _catalog_sources()]
    compared = 0
    for source, path in sources:
        results = []
        for reuse in (True, False):
            monkeypatch.setattr(engine, "REUSE_TREES", reuse)
            try:
                if reuse and path is not None:
                    result = _rewritten(source, path)
                else:
                    result = rewrite_source(source, ALL_RULES, path=path or "x.py")
            except SourceError as exc:
                results.append(str(exc))
                continue
            results.append((result.new, [(f.rule, f.line, f.col, f.message, f.fixable) for f in result.findings]))
        assert results[0] == results[1], path or source[:300]
        compared += 1
    assert compared == len(sources) > 200
