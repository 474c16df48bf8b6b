"""The ``tfmigrate`` command line: every command lives in this package.

rewrite    the codemod (``cli/rewrite.py``)        rules     the catalog (``cli/rules.py``)
ckpt       checkpoint inspect/diff/convert          validate  train/restore/resume a migrated model
report     every stage composed (``cli/report.py``) common    what several commands share
serve      a warm TensorFlow process for the children of validate/report/ckpt (``cli/serve.py``)

Each command's module is imported only when that command is invoked (or listed by ``--help``),
so ``tfmigrate rewrite`` stays fast and TensorFlow-free.
Exit codes follow linters: 0 clean, 1 changes or manual findings remain, 2 errors or bad usage.
"""

from __future__ import annotations

import importlib
import signal
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from tfmigrate import __version__
from tfmigrate.cli.common import stderr_console
from tfmigrate.cli.config import defaults, find_config, ignored_keys

COMMANDS = {
    "rewrite": "tfmigrate.cli.rewrite:rewrite",
    "rules": "tfmigrate.cli.rules:rules",
    "ckpt": "tfmigrate.cli.ckpt:ckpt",
    "validate": "tfmigrate.cli.validate:validate",
    "report": "tfmigrate.cli.report:report",
    "serve": "tfmigrate.cli.serve:serve",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *(n for n in COMMANDS if self._load(n))})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return super().get_command(ctx, name) or self._load(name)

    @staticmethod
    def _load(name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if not target:
            return None
        module, _, attr = target.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            if getattr(exc, "name", None) == module:  # that capability is not installed here
                return None
            raise

    def invoke(self, ctx: click.Context) -> Any:
        """Ctrl-C ends a command with exit status 130 (a shell's 128 + SIGINT) and says so.

        Click's own handling would print "Aborted!" and exit 1, which tfmigrate's exit codes
        already use for "changes needed"."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            promise = ": every file is either as it was or fully rewritten" if ctx.invoked_subcommand == "rewrite" else ""
            signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
            name = f" ({signal.Signals(signum).name})" if signum != signal.SIGINT else ""
            stderr_console().print(f"[bold red]interrupted[/]{name}{promise}")
            ctx.exit(128 + signum)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="tfmigrate")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Move legacy TensorFlow code and checkpoints onto tf.estimator (TensorFlow 2.15)."""
    where, config = find_config(Path.cwd())  # checked: an unknown key or a wrong type is one line, exit 2
    for line in ignored_keys(config, where):
        stderr_console().print(f"[yellow]note:[/] {escape(line)}")
    if config:
        ctx.default_map = defaults(config)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, a CI cancel, ``kill``) or SIGHUP (the terminal closed), unwound as Ctrl-C is:
    a TensorFlow child's process group is killed, temporary directories are removed, a file being
    written is finished first, and the exit status is 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _terminated(signum: int, frame: object) -> None:
    for sig in TERMINATING:  # a second one while cleaning up is not let to cut the cleanup short
        signal.signal(sig, signal.SIG_IGN)
    raise Terminated(signum)


TERMINATING = (signal.SIGTERM, signal.SIGHUP)


def main() -> None:
    for sig in TERMINATING:
        if signal.getsignal(sig) == signal.SIG_DFL:  # one ignored on purpose (nohup) stays ignored
            signal.signal(sig, _terminated)
    cli.main(prog_name="tfmigrate")


if __name__ == "__main__":
    main()
