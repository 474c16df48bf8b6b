"""What a run is asked to do (Options) and the cheap prefilter every file passes first.

Below both the engine and the runner: the runner starts the engine on a file, the engine reads the
options, and neither imports the other back. No libcst here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tfmigrate.codemod.rule import Catalog, Rule, load_catalog
from tfmigrate.keras_runtime import DEFAULT_HELPERS_MODULE
from tfmigrate.results import FixSafety, RuleInfo


Mode = Literal["check", "diff", "write"]

# Every rule matches names by what they are imported from: a module that never names one of these
# packages imports nothing the rules rewrite (a notebook's JSON holds its cells' code verbatim).
ROOT_PACKAGES = (b"tensorflow", b"skflow")
# libraries that only ran on TensorFlow 1.x (rules/libraries.toml): a module may import one of them alone
# (`import tflearn`), and their names hold no "flow"
LIBRARY_PACKAGES = (b"prettytensor", b"tflearn", b"tensorlayer", b"sonnet", b"edward", b"tensor2tensor")


@dataclass(frozen=True)
class Options:
    enabled: frozenset[str]
    mode: Mode = "check"
    jobs: int = 1
    catalog_dir: Path | None = None
    diffs: bool = True  # make each changed file's unified diff (only shown by --diff and some reports)
    cache_dir: Path | None = None  # where the results cache lives (None: no cache)
    # keep the rewritten text of each .py file whose new text holds these bytes (FileResult.new_text):
    # what `tfmigrate report` analyses statically; never cached
    keep_text_with: bytes | None = None
    # what the estimator code becomes (--target): "estimator" or "keras"; the rules it enables are in
    # `enabled` already (a family of the other target is never enabled), so the cache's fingerprint covers it
    target: str = "estimator"
    # --target keras: the module beside the migrated ones that holds the Keras helpers they import
    keras_helpers: str = DEFAULT_HELPERS_MODULE

    @property
    def catalog(self) -> Catalog:
        return load_catalog(self.catalog_dir) if self.catalog_dir else load_catalog()


def fix_safety(rule: Rule) -> FixSafety:
    """The marking of a rule's automatic fix: the catalog's ``fix_safety``; safe where it gives none."""
    marking = getattr(rule, "fix_safety", None)
    return FixSafety(marking) if marking in (FixSafety.SAFE, FixSafety.UNSAFE) else FixSafety.SAFE


def rule_infos(catalog: Catalog) -> dict[str, RuleInfo]:
    """What the renderers show of each rule of the catalog."""
    return {
        r.id: RuleInfo(r.id, r.title, r.why, r.severity, r.family, fix_safety(r) if r.fixable else FixSafety.NONE)
        for r in catalog.rules.values()
    }


def names_a_root_package(code: bytes) -> bool:
    # one scan for the common tail first: most files never say "flow" at all
    if b"flow" in code and any(root in code for root in ROOT_PACKAGES):
        return True
    return b"import" in code and any(root in code for root in LIBRARY_PACKAGES)


def wanted(code: bytes, options: Options) -> bool:
    """The cheap prefilter: can the module import TensorFlow or skflow at all, and does any enabled
    family's needle occur in it?"""
    if not names_a_root_package(code):
        return False
    return any(f.wanted_by(code) for f in options.catalog.families if any(r.id in options.enabled for r in f.rules))
