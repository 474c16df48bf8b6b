"""``[tool.tfmigrate]`` of the nearest pyproject.toml: an allow-list of keys, each with its type.

Only the keys README documents are read, each checked for its type (and its values where they
are a fixed set). Anything else is a one-line error naming the key and the file, exit 2: an
unknown key or a typo (``fromat``), a value of the wrong type (``jobs = [1]``), and ``output``,
which only the command line may give (a project's file must not choose where reports are
written). ``-`` and ``_`` are the same in a key (``cache-dir``, ``cache_dir``).
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from tfmigrate.visible import visible

FORMATS = ("text", "json", "sarif", "markdown")
TARGETS = ("estimator", "keras")


class ConfigError(click.ClickException):
    """A bad ``[tool.tfmigrate]``: one line, exit 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"tfmigrate: error: {self.format_message()}", err=True)


def _codes(value: Any) -> list[str] | None:
    """A string (``"TFM1,TFM501"``) or a list of strings."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _module_name(value: Any) -> str | None:
    """A module name without dots (``legacy_estimators``): the Keras helpers module's."""
    return value if isinstance(value, str) and value.isidentifier() and value not in ("tensorflow", "keras", "tf") else None


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], str | None]:
    return lambda value: value if value in choices else None


# key (with "_"): (the check, which gives the value or None when it is wrong; what it must be)
KEYS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "select": (_codes, "a string or a list of strings (rule ids or prefixes)"),
    "ignore": (_codes, "a string or a list of strings (rule ids or prefixes)"),
    "exclude": (_codes, "a string or a list of strings (globs)"),
    "jobs": (_whole, "a whole number >= 1"),
    "format": (_one_of(FORMATS), "one of " + ", ".join(f'"{f}"' for f in FORMATS)),
    "cache_dir": (_text, "a directory inside the project, as a string"),
    "target": (_one_of(TARGETS), "one of " + ", ".join(f'"{t}"' for t in TARGETS)),
    "keras_python": (_text, "a path, as a string"),  # accepted and never used: see IGNORED
    "keras_helpers": (_module_name, "a module name without dots (letters, digits, _), as a string"),
}
SHOWN = {"cache_dir": "cache-dir"}  # how README spells a key
COMMAND_LINE_ONLY = {"output": "a report's path is given on the command line only (-o/--output)"}
# keys kept from earlier versions that are never used any more, each with the one line that says so
IGNORED = {
    # an interpreter named by the analysed project is never started (issue 26): only the user names one
    "keras_python": "keras_python is not used: an interpreter named by a project is never started; pass --python "
                    "or set $TFMIGRATE_KERAS_PYTHON",
}


def ignored_keys(config: dict[str, Any], where: Path | None) -> list[str]:
    """One line for each key of ``config`` that is accepted but never used."""
    place = f"{shown_path(where)}: [tool.tfmigrate] " if where else ""
    return [place + IGNORED[key] for key in config if key in IGNORED]


def shown_path(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = str(path)
    return visible(rel if not rel.startswith("..") else str(path))


def _shown_value(value: Any) -> str:
    """The value as TOML writes it (``true``, ``[1]``, ``"x"``), on one line, at most 60 characters."""
    try:
        text = visible(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):  # a TOML date or time
        text = visible(str(value))
    return text if len(text) <= 60 else text[:57] + "..."


def checked(table: Any, where: Path) -> dict[str, Any]:
    """The table's values by key (``_`` spelling), each of its type; ConfigError on anything else."""
    place = f"{shown_path(where)}: [tool.tfmigrate]"
    if not isinstance(table, dict):
        raise ConfigError(f"{place} must be a table of options, not {_shown_value(table)}")
    values: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        shown = f"'{visible(raw_key)}'"
        if key in COMMAND_LINE_ONLY:
            raise ConfigError(f"{place} {shown} is not allowed here: {COMMAND_LINE_ONLY[key]}")
        if key not in KEYS:
            known = sorted(SHOWN.get(k, k) for k in KEYS)
            near = difflib.get_close_matches(key, list(KEYS), n=1)
            hint = f"did you mean '{SHOWN.get(near[0], near[0])}'? " if near else ""
            raise ConfigError(f"{place} unknown key {shown} ({hint}known keys: {', '.join(known)})")
        check, meaning = KEYS[key]
        good = check(value)
        if good is None:
            raise ConfigError(f"{place} {visible(raw_key)} = {_shown_value(value)}: must be {meaning}")
        values[key] = good
    return values


def find_config(start: Path) -> tuple[Path | None, dict[str, Any]]:
    """``[tool.tfmigrate]`` from the nearest pyproject.toml at or above ``start`` that has one,
    checked (ConfigError when it is not what README documents); ``(None, {})`` when there is none."""
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if not candidate.is_file():  # absent, or a FIFO that would block
            continue
        try:
            text = candidate.read_text(encoding="utf-8")
            if "tfmigrate" not in text:
                continue
            import tomllib

            data = tomllib.loads(text)
        except (OSError, ValueError) as exc:  # tomllib.TOMLDecodeError and UnicodeDecodeError are ValueErrors
            raise ConfigError(f"{shown_path(candidate)}: cannot read [tool.tfmigrate]: {visible(str(exc))}") from None
        tool = data.get("tool")
        table = tool.get("tfmigrate") if isinstance(tool, dict) else None
        if table is not None:
            return candidate, checked(table, candidate)
    return None, {}


def defaults(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """click's ``default_map`` of the commands that take options from the config (by parameter name)."""
    shared = {k: config[k] for k in ("select", "ignore", "exclude", "jobs", "target") if k in config}
    rewrite = dict(shared)
    if "format" in config:
        rewrite["fmt"] = config["format"]
    if "cache_dir" in config:
        rewrite["cache_dir"] = config["cache_dir"]
    if "keras_helpers" in config:
        rewrite["keras_helpers"] = config["keras_helpers"]
    return {"rewrite": rewrite, "report": shared}
