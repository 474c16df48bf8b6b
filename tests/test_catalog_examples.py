"""Every before/after example in the rule catalog runs as a test.

- ``before`` becomes exactly ``after`` (or stays as it is when ``after`` is omitted);
- the findings reported are the example's ``findings`` (by default: the rule itself fires on a
  changed example and does not fire on a leave-alone example);
- a second run over the output changes nothing.
"""

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog

CATALOG = load_catalog()
CASES = [
    pytest.param(rule, example, id=f"{rule.id}-{i}")
    for rule in CATALOG.rules.values()
    for i, example in enumerate(rule.examples, start=1)
]


@pytest.mark.parametrize(("rule", "example"), CASES)
def test_rule_example(rule, example):
    own_family = frozenset(r.id for f in CATALOG.families if f.prefix == rule.family for r in f.rules)
    enabled = CATALOG.selected(example.select) if example.select else own_family
    result = rewrite_source(example.before.encode(), enabled, path=f"{rule.id}.py")
    assert result.new.decode() == example.expected
    reported = {f.rule for f in result.findings}
    if example.findings is not None:
        assert reported == set(example.findings)
    elif example.after is not None and example.after != example.before:
        assert rule.id in reported
    else:
        assert rule.id not in reported
    again = rewrite_source(result.new, enabled, path=f"{rule.id}.py")
    assert again.new == result.new, "a second run must change nothing"


def test_catalog_ids_are_unique_and_documented():
    assert CATALOG.rules, "the catalog must not be empty"
    for rule in CATALOG.rules.values():
        assert rule.id.startswith(rule.family)
        assert len(rule.why.split()) >= 12, f"{rule.id}: the why should be a real paragraph"
        assert len(rule.examples) >= 3, f"{rule.id}: at least three before/after examples (CONTRIBUTING)"
        fires = [e for e in rule.examples if (e.findings is not None and rule.id in e.findings)
                 or (e.findings is None and e.after is not None and e.after != e.before)]
        assert fires, f"{rule.id}: no example in which the rule fires"
        if rule.fixable:
            assert any(e.after is not None and e.after != e.before for e in rule.examples), f"{rule.id}: no example of its fix"
