"""What to run after a report: the exact commands that follow from it, in the order to run them.

Every format ends with the same list (terminal, HTML, Markdown; ``rewrite``'s summary too): apply
the fixes (only when something is fixable), the ``ckpt convert`` a checkpoint verdict calls for,
``validate --program`` where a static target could not be built, ``report --validate`` where
nothing was validated, and ``tfmigrate rules ID`` for the rules of the manual steps.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from tfmigrate.results import TARGET_KERAS, Fix, Mode, Outcome, Report

MAX_RULES = 5  # rule ids named in one `tfmigrate rules` line


@dataclass(frozen=True)
class Step:
    command: str  # exactly what to type
    why: str  # one line: what it does for this report


def _quote(path: str) -> str:
    return shlex.quote(path)


def _source_of(target: str) -> str:
    """``file.py:21 tf.estimator.DNNClassifier`` -> ``file.py:21``; ``file.py:fn`` stays."""
    return target.split(" ", 1)[0]


def _file_of(target: str) -> str:
    return re.sub(r":[^:/]*$", "", _source_of(target))


def _remedy(verdict: str) -> str:
    _, found, remedy = verdict.partition("Remedy: ")
    return remedy.rstrip(".") if found else verdict


def next_steps(report: Report, paths: Sequence[str] = (".",), *, validated: bool | None = None) -> list[Step]:
    """The commands that follow from ``report`` over ``paths`` (as the user gave them).
    ``validated``: whether the run was asked to validate (``report --validate``); None where the
    command has no such option (``rewrite``)."""
    steps: list[Step] = []
    to_fix = [r.path for r in report.files if any(f.fix is Fix.FIXABLE for f in r.findings)]
    if len(paths) > len(to_fix) > 0:  # many files given (a pre-commit hook's): name only those with fixes
        paths = to_fix
    where = " ".join(_quote(p) for p in paths) or "."
    if any(p.startswith("-") for p in paths):  # a file named -oconftest.py stays a file name
        where = "-- " + where
    target = " --target keras" if report.target == TARGET_KERAS else ""
    s = report.summary()
    if report.mode is not Mode.WRITE and s.fixable:
        files = sum(1 for r in report.files if any(f.fix is Fix.FIXABLE for f in r.findings))
        steps.append(Step(f"tfmigrate rewrite{target} {where}",
                          f"apply the {s.fixable} fixable finding(s) in {files} file(s) (`--diff` first shows them)"))
    for ck in report.checkpoints:
        if ck.compatible:
            continue
        model = _source_of(ck.model.target)
        if ck.renames:
            out = ck.checkpoint.rstrip("/") + "-tf2"
            steps.append(Step(f"tfmigrate ckpt convert {_quote(ck.checkpoint)} {_quote(out)} --model {_quote(model)}",
                              f"rename the checkpoint's {len(ck.renames)} tensor(s) for {model}; then {_remedy(ck.verdict)}"))
        else:
            steps.append(Step(f"tfmigrate ckpt diff {_quote(ck.checkpoint)} --model {_quote(model)}",
                              f"incompatible checkpoint, no renaming carries it: {_remedy(ck.verdict)}"))
    for k in report.keras_conversions:
        if k.passed and not k.out:
            steps.append(Step(f"tfmigrate ckpt convert {_quote(k.checkpoint)} NEW_DIR --to keras --model {_quote(_source_of(k.model))}",
                              "write the verified Keras weights into NEW_DIR, the model_dir the migrated program restores"))
    not_run = [v for v in report.validations if v.outcome is Outcome.NOT_RUN]
    for program in dict.fromkeys(_file_of(v.target) for v in not_run):
        steps.append(Step(f"tfmigrate validate{target} --program {_quote(program)}",
                          "run the program itself up to its first train(): its estimator could not be built from the source alone"))
    if validated is False and (report.checkpoints or any("--validate" in note for note in report.notes)):
        steps.append(Step(f"tfmigrate report{target} {where} --validate",
                          "train, checkpoint, restore and resume each migrated estimator (TensorFlow, a few steps each)"))
    manual = list(dict.fromkeys(f.rule for f in report.findings if f.fix is Fix.MANUAL))
    if manual:
        more = f" (and {len(manual) - MAX_RULES} more rules)" if len(manual) > MAX_RULES else ""
        steps.append(Step(f"tfmigrate rules {' '.join(manual[:MAX_RULES])}",
                          f"why each of the {s.manual} manual step(s) is needed, with before/after examples{more}"))
    return steps
