"""Huge modules are rewritten in chunks of top-level statements (tfmigrate/codemod/chunks.py, probe 11
of issue 17): the result must be the whole-module engine's (the memory bound: benchmarks/bench_huge.py --max-peak-mb)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from tfmigrate.codemod import chunks, engine
from tfmigrate.codemod.rule import load_catalog

from .generate import tf1_module

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted(ROOT.glob("samples/*/legacy.py"))
CATALOG = load_catalog()
ENABLED = CATALOG.selected(None)  # every rule of the default target (the keras family inserts ~170 lines of helpers, beyond the 4-line tolerance of the new-text lines below)


@functools.lru_cache(maxsize=16)
def whole(data: bytes) -> engine.SourceResult:
    """The whole-module engine's result (no chunking: the thresholds tests set do not change it), made
    once per source in this process: a sample cut into chunks of 3 and of 8 lines is compared with one."""
    return engine.rewrite_source(data, ENABLED, catalog=CATALOG, whole=True)


def chunked(data: bytes, chunk_lines: int) -> tuple[bytes, list, list]:
    plan = chunks.plan(data, threshold=0, chunk_lines=chunk_lines)
    assert plan is not None and len(plan.cuts) >= 2
    new, findings, new_findings, _ = chunks.rewrite_in_chunks(
        data, plan, lambda module, facts: engine.rewrite_source(module, ENABLED, catalog=CATALOG, facts=facts, whole=True), "x.py"
    )
    return new, findings, new_findings


def key(findings: list) -> list[tuple]:
    return [(f.rule, f.line, f.col, f.message, f.fixable) for f in findings]


# Tests that need no whole-module comparison of a generated module run the default path (rewrite_source
# cuts the module itself) on modules of 1,600 lines, with the threshold and chunk size at a quarter of a
# real run's (4,000 and 1,500 lines): the same three cuts after the header, at a quarter of the CPU.
# CONTEXT_LINES (300, what a program's statements need around them) stays as in a real run: programs
# are the same size here. benchmarks/bench_huge.py --whole compares chunked and whole at any size.
SMALL_THRESHOLD, SMALL_CHUNK, SMALL_MODULE = 1_000, 400, 1_600


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "THRESHOLD_LINES", SMALL_THRESHOLD)
    monkeypatch.setattr(chunks, "CHUNK_LINES", SMALL_CHUNK)


def cut_by_default(data: bytes) -> chunks.Plan:
    """The default plan of ``data``: cut (three times or more after the header)."""
    plan = chunks.plan(data)
    assert plan is not None and len(plan.cuts) >= 4, plan
    return plan


@pytest.mark.parametrize("chunk_lines", [3, 8])
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_a_sample_cut_into_tiny_chunks_comes_out_as_from_the_whole_engine(sample: Path, chunk_lines: int) -> None:
    """Chunks of a few lines cut an estimator from its fit, a model_fn from its Estimator, a Saver from
    the variables after it and the imports from their last use: bytes and findings stay the same."""
    data = sample.read_bytes()
    if chunks.plan(data, threshold=0, chunk_lines=chunk_lines) is None:
        pytest.skip("nothing to cut at this size")
    expected = whole(data)
    new, findings, new_findings = chunked(data, chunk_lines)
    assert new == expected.new
    assert key(findings) == key(expected.findings)
    # lines in the new text: the original's line, mapped over the file (the whole engine maps a later
    # pass's findings from that pass's text: a line or so apart where statements were removed)
    assert [(f.rule, f.col) for f in new_findings] == [(f.rule, f.col) for f in expected.new_findings]
    assert all(abs(a.line - b.line) <= 4 for a, b in zip(new_findings, expected.new_findings))


@pytest.mark.slow
@pytest.mark.parametrize("one_import_block", [True, False], ids=["one-module", "programs-one-after-another"])
def test_a_generated_module_of_every_family_comes_out_as_from_the_whole_engine(one_import_block: bool, small_chunks: None) -> None:
    # On small_chunks (a 1,600-line module cut three times after the header into 400-line chunks, a copy
    # of the samples' programs or so each), not at the real sizes (6,000 lines, 1,500-line chunks: 68 CPU s
    # until session 13): each chunk gets the module-wide facts the whole engine decides on
    # (tests/hostile/test_huge_module_wide.py), and the whole engine now puts its later passes' findings
    # on their own lines in a module of repeated programs (tests/hostile/test_finding_lines_repeated.py):
    # before, a 400-line chunk and the whole module put a TFM501 of the second pass on different wrong
    # lines. benchmarks/bench_huge.py --whole compares the two texts at the real sizes.
    data = tf1_module(SMALL_MODULE, one_import_block=one_import_block).encode()
    cut_by_default(data)  # chunked by default
    expected = whole(data)
    result = engine.rewrite_source(data, ENABLED, catalog=CATALOG)
    assert result.new == expected.new
    ast.parse(result.new)
    # the same findings on the same lines (a whole-module run, which sees every program of the file at
    # once, says a few of them twice: one Saver is matched with another program's variables)
    assert {(f.rule, f.line, f.fixable) for f in result.findings} == {(f.rule, f.line, f.fixable) for f in expected.findings}
    lines, new_lines = data.count(b"\n") + 1, result.new.count(b"\n") + 1
    assert all(0 < f.line <= lines for f in result.findings) and all(0 < f.line <= new_lines for f in result.new_findings)
    again = engine.rewrite_source(result.new, ENABLED, catalog=CATALOG)  # chunked again, cut elsewhere
    assert again.new == whole(result.new).new
    # (a second run is not the fixed point here, chunked or not: a module that holds an eager program
    # and graph programs loses, with tf.enable_eager_execution(), what made the eager one eager)


@pytest.mark.slow
def test_a_chunked_rewrite_reaches_its_fixed_point(small_chunks: None) -> None:
    data = tf1_module(SMALL_MODULE, exclude=("eager_mnist",)).encode()
    cut_by_default(data)
    result = engine.rewrite_source(data, ENABLED, catalog=CATALOG)
    assert result.changed and not engine.rewrite_source(result.new, ENABLED, catalog=CATALOG).changed


@pytest.mark.slow
def test_an_import_another_chunk_still_reads_is_kept(small_chunks: None) -> None:
    """`learn` is rewritten away in the first chunk and still read (a name no rule rewrites) in the last:
    the import stays; where no chunk reads it any more, it goes, as the whole engine does."""
    filler = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(SMALL_MODULE // 4))
    first = (ROOT / "samples" / "learn_dnn_fit" / "legacy.py").read_text()  # every `learn.` use rewritten
    last = "helper = learn.NotARealName()\n"
    for tail in (last, ""):
        data = (first + "\n\n" + filler + tail).encode()
        plan = chunks.plan(data)  # the sample, then two chunks of filler: the last far from the first
        assert plan is not None and len(plan.cuts) >= 3
        result = engine.rewrite_source(data, ENABLED, catalog=CATALOG)
        assert result.new == whole(data).new
        assert (b"from tensorflow.contrib import learn" in result.new) == bool(tail)


def test_what_cannot_be_cut_safely_is_rewritten_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "THRESHOLD_LINES", 100)
    monkeypatch.setattr(chunks, "CHUNK_LINES", 30)
    body = "x = tf.placeholder(tf.float32)\n" * 200
    assert chunks.plan(("import tensorflow as tf\n" + body).encode()) is not None
    assert chunks.plan(("import tensorflow as tf\n" + body[: len(body) // 3]).encode()) is None  # short
    assert chunks.plan(("# -*- coding: latin-1 -*-\nimport tensorflow as tf\n" + body).encode()) is None
    assert chunks.plan(("import tensorflow as tf\r" + body).encode()) is None  # lone \r line ends
    assert chunks.plan(("import tensorflow as tf\n" + body + "s = '''\n").encode()) is None  # tokenizer error
    # a file that holds the marker itself: rewritten whole, the same result
    data = ("import tensorflow as tf\n" + body + "__tfmigrate_chunk__ = 0\n").encode()
    assert engine.rewrite_source(data, ENABLED, catalog=CATALOG).new == whole(data).new


def test_cuts_fall_between_top_level_statements() -> None:
    data = tf1_module(600).encode()
    plan = chunks.plan(data, threshold=0, chunk_lines=40)
    assert plan is not None and len(plan.cuts) > 5
    bounds = [*plan.cuts, len(data)]
    for start, end in zip(bounds, bounds[1:]):
        ast.parse(data[start:end])  # each chunk alone is whole statements
        assert data[start:end].endswith(b"\n") or end == len(data)
    assert data[: plan.header_end].decode().lstrip().startswith('"""')  # the first program's docstring and imports


COMPOUND = {
    "try_except": "try:\n    summary = tf.image_summary\nexcept AttributeError as e:\n    print(e)\n    summary = tf.summary.image\n",
    "try_except_else_finally": "try:\n    import tf_slim as slim\nexcept ImportError:\n    slim = None\nelse:\n    x = 1\nfinally:\n    y = 2\n",
    "try_finally": "try:\n    s = tf.Session()\nfinally:\n    pass\n",
    "if_elif_else": "if a:\n    y = tf.mul(1, 2)\nelif b:\n    y = 2\nelse:\n    y = tf.sub(3, 1)\n",
    "for_else": "for i in range(3):\n    z = tf.neg(i)\nelse:\n    z = 0\n",
    "while_else": "while False:\n    pass\nelse:\n    w = tf.pack([1])\n",
}


@pytest.mark.parametrize("shape", sorted(COMPOUND))
def test_a_compound_statements_clauses_stay_in_one_chunk(shape: str) -> None:
    # `except`/`else`/`elif`/`finally` at the top level continue their statement: a cut before one left a
    # `try:` chunk without its handler that could not be parsed (a guards catalog example found it)
    data = ("import tensorflow as tf\n\nx0 = tf.mul(1, 2)\n" + COMPOUND[shape] + "x1 = tf.sub(2, 1)\n").encode()
    plan = chunks.plan(data, threshold=0, chunk_lines=1)
    assert plan is not None
    bounds = [*plan.cuts, len(data)]
    for start, end in zip(bounds, bounds[1:]):
        ast.parse(data[start:end])  # each chunk alone is whole statements
        assert not data[start:end].lstrip().startswith((b"except", b"else", b"elif", b"finally"))
    new, findings, _ = chunked(data, 1)
    assert new == whole(data).new and key(findings) == key(whole(data).findings)


def test_a_decorator_stays_with_its_definition() -> None:
    data = (
        "import tensorflow as tf\nimport tensorflow.contrib.eager as tfe\n\n\n"
        "@tfe.implicit_value_and_gradients\n@staticmethod\ndef loss(x):\n    return tf.reduce_mean(x)\n\n\n"
        "@tfe.defun\nclass Model:\n    pass\n\n\nloss_value = loss(1)\n"
    ).encode()
    plan = chunks.plan(data, threshold=0, chunk_lines=1)
    assert plan is not None and [data.count(b"\n", 0, cut) + 1 for cut in plan.cuts] == [5, 9, 14]  # blank lines lead the next
    bounds = [*plan.cuts, len(data)]
    for start, end in zip(bounds, bounds[1:]):
        ast.parse(data[start:end])
    assert chunked(data, 1)[0] == whole(data).new


def test_a_syntax_error_deep_in_a_huge_file_is_reported_on_its_line(small_chunks: None) -> None:
    lines = ["import tensorflow as tf\n"] + [f"x{i} = tf.placeholder(tf.float32)\n" for i in range(SMALL_MODULE)]
    lines[1_200] = "y = = 1\n"
    data = "".join(lines).encode()
    plan = chunks.plan(data)
    assert plan is not None and plan.cuts[1] < data.index(b"y = = 1")  # in a later chunk than the first
    with pytest.raises(engine.SourceError) as chunked_error:
        engine.rewrite_source(data, ENABLED, catalog=CATALOG)
    with pytest.raises(engine.SourceError) as whole_error:
        whole(data)
    assert chunked_error.value.line == whole_error.value.line == 1_201
    assert str(chunked_error.value) == str(whole_error.value)


# The memory bound (peak RSS of a `tfmigrate rewrite` process on a 10,000-line file under 250 MB) is a
# measurement, not a behaviour: benchmarks/bench_huge.py --lines 10000 --skip-reference-above 0
# --max-peak-mb 250 checks it (it was a test here until session 12: 16 CPU s of every test run).


@pytest.mark.slow
def test_catalog_examples_cut_into_single_statements_never_break() -> None:
    """Every catalog example cut into one-statement chunks (far harsher than the 1,500-line chunks of a
    real run): the chunked rewrite raises nothing the whole engine does not, and its output parses and
    compiles; where it cannot put a result back together it says so (Unchunkable: rewritten whole)."""
    cut = identical = 0
    for rule in CATALOG.rules.values():
        own = frozenset(r.id for f in CATALOG.families if f.prefix == rule.family for r in f.rules)
        for example in rule.examples:
            enabled = CATALOG.selected(example.select) if example.select else own
            data = example.before.encode()
            plan = chunks.plan(data, threshold=0, chunk_lines=1)
            if plan is None:
                continue
            try:
                expected = engine.rewrite_source(data, enabled, catalog=CATALOG, whole=True)
            except engine.SourceError:
                continue
            cut += 1
            try:
                new, _, _, _ = chunks.rewrite_in_chunks(
                    data, plan, lambda m, facts: engine.rewrite_source(m, enabled, catalog=CATALOG, facts=facts, whole=True), "x.py"
                )
            except chunks.Unchunkable:
                continue
            compile(new, f"{rule.id}.py", "exec", dont_inherit=True)
            identical += new == expected.new
    assert cut > 100 and identical >= cut * 0.9, (identical, cut)
