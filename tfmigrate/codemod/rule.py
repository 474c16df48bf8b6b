"""The rule catalog: rules are data (``rules/*.toml`` at the top of the repository), one file a family.

The wheel installs that folder as the package ``tfmigrate.rules`` (see setup.py); a checkout
reads it where it is (:data:`CATALOG_DIR`).

A family file names the libcst transform that applies its rules and the cheap text needles that
a file must contain before it is worth parsing. Each rule carries its id, title, one-paragraph
why, and before/after examples; the examples are collected by pytest and run as tests.

File format (TOML)::

    family = "TFM5"
    title = "Plain TF1 renames"
    transform = "tfmigrate.transforms.renames:CompatV1Renames"
    needles = ["tensorflow"]
    target = "keras"            # optional: the family runs only with `--target keras` (default: every target)
    quiet = "pkg.module:fn"     # optional: fn(code) -> {line: rule codes} that no rule of any family may touch
                                # while this family is enabled (the guards family: code TF 2.15 never runs)

    [[rules]]
    id = "TFM501"
    title = "..."
    severity = "warning"        # error | warning | info
    fixable = true              # the rule can rewrite code (false: findings only)
    fix_safety = "safe"         # as ruff marks fixes: "safe" (the fix keeps what the code does: a
                                # rename, the same function elsewhere, the legacy value written
                                # out), "unsafe" (an automatic fix onto another implementation or
                                # shape of the code: review it), "none" (findings only; fixable = false)
    legacy_api = ["tf.contrib.learn.DNNClassifier"]  # the legacy names the rule covers
    catch_all = false           # true: silent on lines where another rule already reported
    why = '''one paragraph'''

    [[rules.examples]]
    before = '''...'''
    after = '''...'''           # omit: the code must be left exactly as it is
    findings = ["TFM501"]       # optional: the exact set of rule ids reported on `before`
    select = ["TFM5"]           # optional: rules enabled for this example (default: the family)
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import tomllib
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.codemod.transform import FamilyTransform

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")
FixSafety = Literal["safe", "unsafe", "none"]
FIX_SAFETIES: tuple[str, ...] = ("safe", "unsafe", "none")
RULE_ID = re.compile(r"^TFM\d{3}$")


def _catalog_dir() -> Path:
    """The catalog folder: the installed package ``tfmigrate.rules`` (a wheel, or an editable
    install, which maps it to the checkout's ``rules/``), else ``rules/`` beside the ``tfmigrate``
    package of a checkout on ``sys.path``."""
    spec = importlib.util.find_spec("tfmigrate.rules")
    for location in (spec.submodule_search_locations or []) if spec else []:
        if any(Path(location).glob("*.toml")):  # not a leftover tfmigrate/rules/__pycache__
            return Path(location)
    return Path(__file__).resolve().parent.parent.parent / "rules"


CATALOG_DIR = _catalog_dir()


class CatalogError(ValueError):
    """A catalog file is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Example:
    before: str
    after: str | None  # None: `before` must come out unchanged
    findings: tuple[str, ...] | None = None
    select: tuple[str, ...] | None = None

    @property
    def expected(self) -> str:
        return self.before if self.after is None else self.after


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    why: str
    family: str
    severity: Severity = "warning"
    fixable: bool = True
    catch_all: bool = False  # reports only what no other rule reported on the same line
    examples: tuple[Example, ...] = ()
    fix_safety: FixSafety = "none"  # safe / unsafe / none, as ruff marks fixes (see the module docstring)
    legacy_api: tuple[str, ...] = ()  # the legacy API names the rule covers


@dataclass(frozen=True)
class Family:
    prefix: str
    title: str
    transform: str  # "module:Class"
    needles: tuple[bytes, ...]
    rules: tuple[Rule, ...]
    order: int = 50  # families run in ascending order; the catch-all runs last
    source: str = ""
    target: str | None = None  # the only --target this family runs with (None: every target)
    quiet: str = ""  # "module:function": code -> {line: rule codes} no rule may touch (code the target never runs)

    def load_transform(self) -> type[FamilyTransform]:
        module_name, _, attr = self.transform.partition(":")
        return getattr(importlib.import_module(module_name), attr)

    def load_quiet(self) -> Callable[[str], dict[int, frozenset[str]]]:
        module_name, _, attr = self.quiet.partition(":")
        return getattr(importlib.import_module(module_name), attr)

    def wanted_by(self, data: bytes) -> bool:
        """The cheap prefilter: can this file contain anything this family rewrites?"""
        return any(needle in data for needle in self.needles)


@dataclass(frozen=True)
class Catalog:
    families: tuple[Family, ...]
    rules: dict[str, Rule] = field(default_factory=dict)

    @cached_property
    def ids(self) -> frozenset[str]:
        """Every rule id of the catalog."""
        return frozenset(self.rules)

    def selected(self, select: tuple[str, ...] | None, ignore: tuple[str, ...] = (), target: str = "estimator") -> frozenset[str]:
        """Rule ids enabled by --select/--ignore (ids or prefixes such as ``TFM1``) for ``--target``:
        a family of another target (``target = "keras"`` in its file) is never enabled."""
        other = {r.id for f in self.families if f.target is not None and f.target != target for r in f.rules}
        ids = [r for r in self.rules if r not in other and (select is None or any(r.startswith(s) for s in select))]
        return frozenset(r for r in ids if not any(r.startswith(i) for i in ignore))

    def unknown_codes(self, codes: tuple[str, ...]) -> list[str]:
        return [c for c in codes if not any(r.startswith(c) for r in self.rules)]


def _text(entry: dict, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CatalogError(f"{where}: missing or empty '{key}'")
    return value


def _example(raw: dict, where: str) -> Example:
    before = _text(raw, "before", where)
    after = raw.get("after")
    if after is not None and not isinstance(after, str):
        raise CatalogError(f"{where}: 'after' must be a string")
    findings = raw.get("findings")
    select = raw.get("select")
    return Example(
        before=before,
        after=after,
        findings=tuple(findings) if findings is not None else None,
        select=tuple(select) if select is not None else None,
    )


def load_family(path: Path) -> Family:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path.name}: {exc}") from None
    prefix = _text(data, "family", path.name)
    rules = []
    for i, raw in enumerate(data.get("rules", [])):
        where = f"{path.name}: rules[{i}]"
        rule_id = _text(raw, "id", where)
        where = f"{path.name}: {rule_id}"
        if not RULE_ID.match(rule_id) or not rule_id.startswith(prefix):
            raise CatalogError(f"{where}: id must look like {prefix}NN and start with the family prefix")
        severity = raw.get("severity", "warning")
        if severity not in SEVERITIES:
            raise CatalogError(f"{where}: severity must be one of {', '.join(SEVERITIES)}")
        fixable = bool(raw.get("fixable", True))
        fix_safety = raw.get("fix_safety")
        if fix_safety not in FIX_SAFETIES:
            raise CatalogError(f"{where}: fix_safety must be one of {', '.join(FIX_SAFETIES)}")
        if (fix_safety == "none") == fixable:
            raise CatalogError(f"{where}: fix_safety 'none' goes with fixable = false, 'safe'/'unsafe' with fixable = true")
        legacy_api = raw.get("legacy_api")
        if not isinstance(legacy_api, list) or not legacy_api or not all(isinstance(a, str) and a.strip() for a in legacy_api):
            raise CatalogError(f"{where}: legacy_api must list the legacy API names the rule covers")
        examples = tuple(_example(e, f"{where} example {j}") for j, e in enumerate(raw.get("examples", [])))
        if not examples:
            raise CatalogError(f"{where}: a rule needs before/after examples")
        rules.append(
            Rule(
                id=rule_id,
                title=_text(raw, "title", where),
                why=" ".join(_text(raw, "why", where).split()),
                family=prefix,
                severity=severity,
                fixable=fixable,
                catch_all=bool(raw.get("catch_all", False)),
                examples=examples,
                fix_safety=fix_safety,
                legacy_api=tuple(legacy_api),
            )
        )
    needles = tuple(n.encode() for n in data.get("needles", ["tensorflow"]))
    return Family(
        prefix=prefix,
        title=_text(data, "title", path.name),
        transform=_text(data, "transform", path.name),
        needles=needles,
        rules=tuple(rules),
        order=int(data.get("order", 50)),
        source=path.name,
        target=_target(data, path.name),
        quiet=str(data.get("quiet", "")),
    )


def _target(data: dict, where: str) -> str | None:
    target = data.get("target")
    if target is not None and target not in ("estimator", "keras"):
        raise CatalogError(f"{where}: target must be \"estimator\" or \"keras\"")
    return target


@cache
def load_catalog(directory: Path = CATALOG_DIR) -> Catalog:
    families = sorted((load_family(p) for p in sorted(directory.glob("*.toml"))), key=lambda f: (f.order, f.prefix))
    rules: dict[str, Rule] = {}
    for family in families:
        for rule in family.rules:
            if rule.id in rules:
                raise CatalogError(f"{family.source}: duplicate rule id {rule.id}")
            rules[rule.id] = rule
    return Catalog(families=tuple(families), rules=dict(sorted(rules.items())))
