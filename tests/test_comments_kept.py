"""Comments between the arguments of a call a rule rebuilds are kept (issue 26, README "comments kept").

Generated, not hand-picked: every catalog example (``rules/*.toml``) whose ``before`` has a call of
two or more arguments that the rewrite changes gives variants in which that call is laid out one
argument a line with a distinct marker comment (``# c1``, ``# c2``, ...):

- ``after``: a marker after each argument (``a,  # c1``), and one before the closing paren;
- ``above``: a marker on its own line above each argument, and one before the closing paren.

Each variant is rewritten by the real engine with the example's rules. The output parses, holds
every marker exactly once (a marker of code the rule deletes whole is moved, never lost), keeps an
``after`` marker on the line of its argument where that argument's code is still there as it was,
and a second run changes nothing.
"""

from __future__ import annotations

import functools
import re

import libcst as cst
import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.walk import iter_nodes

from tests.every_case import check_every

CATALOG = load_catalog()
STYLES = ("after", "above")


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _calls(module: cst.Module) -> list[cst.Call]:
    """The calls of two or more arguments, in the order libcst's visit meets them (iter_nodes makes
    that order, tests/test_fast_paths.py checks it; a tenth of a visitor's CPU, at collection too)."""
    return [node for node in iter_nodes(module) if isinstance(node, cst.Call) and len(node.args) >= 2]


def _newline(indent: str, comment: str | None = None, above: tuple[str, ...] = ()) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(
            whitespace=cst.SimpleWhitespace("  " if comment else ""), comment=cst.Comment(comment) if comment else None
        ),
        empty_lines=[cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(indent), comment=cst.Comment(c)) for c in above],
        indent=True,
        last_line=cst.SimpleWhitespace(indent),
    )


def _commented(call: cst.Call, style: str) -> tuple[cst.Call, dict[str, str]]:
    """``call`` one argument a line with markers; marker -> the code of the argument it annotates
    (``")"`` for the one before the closing paren)."""
    inner, outer = "    ", ""
    markers: dict[str, str] = {}
    args = []
    n = len(call.args)
    for i, arg in enumerate(call.args):
        mark = f"# c{i + 1}"
        markers[mark] = _code(arg.value)
        last = i == n - 1
        if style == "after":
            after = _newline(outer if last else inner, mark, (f"# c{n + 1}",) if last else ())
            if last:
                markers[f"# c{n + 1}"] = ")"
        else:
            following = (f"# c{i + 2}",) if not last else (f"# c{n + 1}",)
            after = _newline(outer if last else inner, None, following)
            if last:
                markers[f"# c{n + 1}"] = ")"
        args.append(arg.with_changes(comma=cst.Comma(whitespace_after=after), whitespace_after_arg=cst.SimpleWhitespace("")))
    first = _newline(inner, None, ("# c1",) if style == "above" else ())
    return call.with_changes(whitespace_before_args=first, args=args), markers


# example.before -> its parse and its calls of two or more arguments, for the examples that give
# variants: the variants of an example (each of its calls, in both styles) put their markers into
# this one parse (libcst nodes are immutable: the markers go into a new tree) instead of parsing the
# example again for every variant.
_PARSED: dict[str, tuple[cst.Module, list[cst.Call]]] = {}


def _variants():
    for rule in CATALOG.rules.values():
        for n, example in enumerate(rule.examples, start=1):
            if example.after is None or example.after == example.before:
                continue
            try:
                module = cst.parse_module(example.before)
            except cst.ParserSyntaxError:
                continue
            calls = _calls(module)
            for k, call in enumerate(calls):
                if _code(call) in example.after:  # the rewrite leaves this call as it was
                    continue
                _PARSED[example.before] = module, calls
                for style in STYLES:
                    yield pytest.param(rule, example, k, style, id=f"{rule.id}-{n}-call{k + 1}-{style}")


VARIANTS = list(_variants())


def _enabled(rule, example) -> frozenset[str]:
    if example.select:
        return CATALOG.selected(example.select)
    return frozenset(r.id for f in CATALOG.families if f.prefix == rule.family for r in f.rules)


def _with_markers(before: str, k: int, style: str) -> tuple[str, dict[str, str]]:
    module, calls = _PARSED[before]  # the parse _variants made (the tests run in the process that collected them)
    target = calls[k]
    markers: dict[str, str] = {}

    class Put(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
            nonlocal markers
            if original is target:
                updated, markers = _commented(updated, style)
            return updated

    return module.visit(Put()).code, markers


def test_variants_are_many_and_cover_every_family_that_rebuilds_calls():
    families = {v.values[0].family for v in VARIANTS}
    wanted = {f.prefix for f in CATALOG.families if f.source.removesuffix(".toml") in (
        "estimators", "contrib_learn", "learn_io", "monitored", "eager", "contrib", "tf0", "renames", "keras_target")}
    assert wanted <= families, sorted(wanted - families)
    assert len(VARIANTS) >= 200


def _groups() -> dict[str, list]:
    """The variants by rule family and comment style (``estimators-after``), one test each: a variant
    (about 30 ms) costs about what pytest spends on a test item. A group's test checks every variant
    of it and fails naming every variant that failed (tests/every_case.py); ``-k estimators``,
    ``-k above`` select groups."""
    names = {f.prefix: f.source.removesuffix(".toml") for f in CATALOG.families}
    groups: dict[str, list] = {}
    for v in VARIANTS:
        rule, style = v.values[0], v.values[3]
        groups.setdefault(f"{names[rule.family]}-{style}", []).append(v)
    return groups


GROUPS = _groups()


def test_every_variant_is_in_one_group():
    assert sorted(v.id for g in GROUPS.values() for v in g) == sorted(v.id for v in VARIANTS)
    assert len({v.id for v in VARIANTS}) == len(VARIANTS)


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_marker_comments_are_kept(group):
    check_every((v.id, functools.partial(_marker_comments_are_kept, *v.values)) for v in GROUPS[group])


def _marker_comments_are_kept(rule, example, k, style):
    source, markers = _with_markers(example.before, k, style)
    enabled = _enabled(rule, example)
    result = rewrite_source(source.encode(), enabled, path=f"{rule.id}.py")
    out = result.new.decode()
    cst.parse_module(out)  # the output parses
    lines = out.splitlines()
    for mark, code in markers.items():
        hits = [line for line in lines if re.search(re.escape(mark) + r"(?!\d)", line)]
        assert len(hits) == 1, f"{mark} (after {code!r}) found {len(hits)} times in:\n{out}"
        if style == "after" and code != ")" and not hits[0].lstrip().startswith("#"):
            # kept at the end of a line of code (not moved above a statement): the line of its own
            # argument where that argument stands on a line of its own, never another argument's
            alone = re.compile(r"\s*(\w+=)?" + re.escape(code) + r",?\s*(#.*)?")
            homes = [line for line in lines if alone.fullmatch(line)]
            if len(homes) == 1:
                assert mark in homes[0], f"{mark} left {code!r}:\n{out}"
    again = rewrite_source(result.new, enabled, path=f"{rule.id}.py")
    assert again.new == result.new, "a second run must change nothing"


def test_issue_26_contrib_learn_constructor_keeps_its_four_comments():
    source = '''import tensorflow as tf
est = tf.contrib.learn.DNNClassifier(
    hidden_units=[10, 20],  # two layers
    # the feature columns
    feature_columns=cols,
    n_classes=3,  # iris
    model_dir="/tmp/m",  # where it lives
)
'''
    out = rewrite_source(source.encode(), CATALOG.selected(None)).new.decode()
    lines = out.splitlines()
    assert "    hidden_units=[10, 20],  # two layers" in lines
    assert lines[lines.index("    feature_columns=cols,") - 1] == "    # the feature columns"
    assert "    n_classes=3,  # iris" in lines
    assert '    model_dir="/tmp/m",  # where it lives' in lines
    assert "tf.estimator.DNNClassifier(" in out
