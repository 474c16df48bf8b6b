"""``tfmigrate ckpt inspect | diff | convert``. Exit 0 compatible, 1 incompatible, 2 error.

Errors are one line on stderr (``error: ...``), never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from tfmigrate.checkpoint.index import CheckpointError
from tfmigrate.results import shape_text

if TYPE_CHECKING:
    from rich.console import Console

FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
                      help="text: tables for people (piped: plain, no width limit); json: the result as one JSON object.")
KIND_STYLE = {"model": "bold", "optimizer": "cyan", "bookkeeping": "dim"}
STATUS_STYLE = {"match": "green", "shape_mismatch": "bold red", "dtype_mismatch": "bold red",
                "missing_from_checkpoint": "yellow", "unused_in_checkpoint": "dim"}


def _fail(message: str) -> NoReturn:
    from tfmigrate.report.console import visible

    click.echo("error: " + visible(" ".join(str(message).split())), err=True)  # one line, never wrapped
    sys.exit(2)


def _run(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except CheckpointError as exc:
        _fail(str(exc))
    except (OSError, ValueError, KeyError, RecursionError, MemoryError) as exc:  # last line of defence
        _fail(f"{type(exc).__name__}: {exc}")


def _console() -> Console:
    from tfmigrate.report.console import make_console  # piped: plain, no width limit

    return make_console()


def _table(out: Console, table: Any) -> None:
    from tfmigrate.report.console import print_whole  # tensor names are never folded or cropped

    print_whole(out, table)


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def ckpt() -> None:
    """Inspect, compare and convert checkpoints (the index is read without TensorFlow).

    Exit 0 compatible (inspect: read), 1 incompatible, 2 error."""


@ckpt.command()
@click.argument("path")
@FORMAT
def inspect(path: str, fmt: str) -> None:
    """List every tensor of the checkpoint at PATH (prefix, .index file or model_dir)."""
    from tfmigrate.checkpoint import api, classify

    data = _run(api.inspect, path)
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
        sys.exit(0)
    from rich.markup import escape
    from rich.table import Table

    from tfmigrate.report.console import visible_data

    data = visible_data(data)  # names from the file: control characters shown, never sent to the terminal
    out = _console()
    names = "" if data["writer"] == "unknown" else \
        f"names of [bold]{escape(str(classify.WRITERS.get(data['writer'], data['writer'])))}[/], "
    out.print(f"[bold]{escape(data['checkpoint'])}[/]  format {escape(str(data['format']))}, {names}written by "
              f"[bold]{escape(str(data['era']))}[/]")
    for line in data["era_evidence"]:
        out.print(f"  [dim]evidence: {escape(line)}[/]")
    if data["data"] != "complete":
        out.print(f"[yellow]{escape(data['data'])}[/]")
    for kind in ("model", "optimizer", "bookkeeping"):
        rows = [v for v in data["variables"] if v["kind"] == kind]
        if not rows:
            continue
        total = sum(v["bytes"] for v in rows)
        table = Table(title=f"{kind} ({len(rows)}, {_bytes(total)})", title_justify="left", title_style=KIND_STYLE[kind], expand=False)
        table.add_column("name", overflow="fold", ratio=3)
        table.add_column("dtype", no_wrap=True)
        table.add_column("shape", overflow="fold")
        table.add_column("bytes", justify="right", no_wrap=True)
        for v in rows:
            table.add_row(escape(v["name"]), escape(str(v["dtype"])), shape_text(v["shape"]), _bytes(v["bytes"]))
        _table(out, table)
    sys.exit(0)


STATUS_SHORT = {"match": "ok", "shape_mismatch": "SHAPE", "dtype_mismatch": "DTYPE",
                "missing_from_checkpoint": "missing", "unused_in_checkpoint": "unused"}


def _print_diff(data: dict[str, Any], out: Console) -> None:
    from rich.table import Table
    from rich.text import Text

    from tfmigrate.report.console import visible_data

    data = visible_data(data)  # names from the files: control characters shown, never sent to the terminal

    style = "bold green" if data["compatible"] else "bold red"
    out.print(Text("compatible" if data["compatible"] else "INCOMPATIBLE", style=style)
              + Text(f"  {data['checkpoint']} vs {data['model'].get('target', 'model')}"))
    if not os.path.isabs(data["checkpoint"]):  # where it is, whatever directory the next command runs in
        out.print(Text(f"checkpoint {os.path.abspath(data['checkpoint'])} (CHECKPOINT as given, from {os.getcwd()})", style="dim"))
    out.print(Text(data["verdict"]))
    for kind, title in (("model", "model weights"), ("bookkeeping", "bookkeeping"), ("optimizer", "optimizer state")):
        rows = [p for p in data["pairs"] if p["kind"] == kind]
        if not rows:
            continue
        counts: dict[str, int] = {}
        for p in rows:
            counts[p["status"]] = counts.get(p["status"], 0) + 1
        summary = ", ".join(f"{n} {STATUS_SHORT[s]}" for s, n in counts.items())
        if kind == "optimizer" and len(counts) == 1 and len(rows) > 4:
            out.print(Text(f"{title}: {summary}", style="bold"))  # e.g. all slots of another optimizer
            continue
        table = Table(title=f"{title}: {summary}", title_justify="left", expand=False)
        table.add_column("", no_wrap=True)
        table.add_column("variable (model <- checkpoint)", overflow="fold")
        table.add_column("checkpoint", overflow="fold")
        table.add_column("model", overflow="fold")
        for p in rows:
            ck, md = p["checkpoint_name"], p["model_name"]
            name = md or ck if (ck == md or not ck or not md) else f"{md}\n  <- {ck}"
            dtype = "" if p["checkpoint_dtype"] == p["model_dtype"] or None in (p["checkpoint_dtype"], p["model_dtype"]) else " (dtype)"
            table.add_row(Text(STATUS_SHORT[p["status"]], style=STATUS_STYLE.get(p["status"], "")), Text(name),
                          shape_text(p["checkpoint_shape"]) + (f" {p['checkpoint_dtype']}" if dtype else ""),
                          shape_text(p["model_shape"]) + (f" {p['model_dtype']}" if dtype else ""))
        _table(out, table)
    for note in data.get("notes", []):
        out.print(Text("note: ", style="bold") + Text(note))


@ckpt.command()
@click.argument("checkpoint")
@click.option("--model", "model", required=True, help="file.py:function, a migrated source file, or another checkpoint.")
@FORMAT
def diff(checkpoint: str, model: str, fmt: str) -> None:
    """Compare CHECKPOINT with the variables MODEL will create; say what TF 2.15 will do.

    MODEL is file.py:function (imported and called in a TensorFlow child), file.py:LINE or a
    migrated file.py (its tf.estimator construction, built statically), or another checkpoint.
    Exit 0 compatible, 1 incompatible, 2 error."""
    from tfmigrate.checkpoint import api

    data = _run(api.diff, checkpoint, model)
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        _print_diff(data, _console())
    sys.exit(0 if data["compatible"] else 1)


@ckpt.command()
@click.argument("checkpoint")
@click.argument("out")
@click.option("--to", "to", type=click.Choice(["estimator", "keras"]), default="estimator", show_default=True,
              help="estimator: a renamed TF checkpoint (a model_dir); keras: a .weights.h5 for the model `rewrite --target keras` "
                   "generates (needs --model file.py:LINE and the TensorFlow 2.21 interpreter).")
@click.option("--map", "name_map", default="auto", show_default=True, help="auto, or a map.toml ([map] \"old\" = \"new\", drop = [...]).")
@click.option("--model", default=None, help="Map onto this model's names and verify against it. With --to keras: file.py:LINE (or "
                                            "file.py:function) of a canned_keras_model(...) call or a tf.estimator construction (a custom "
                                            "Estimator(model_fn=...): the class TFM707 lowers it to).")
@click.option("--drop-optimizer", is_flag=True, help="Leave optimizer state out.")
@click.option("--python", "python", default=None, help="--to keras: the TensorFlow 2.21 interpreter (default: $TFMIGRATE_KERAS_PYTHON, "
                                                       "tfmigrate's own .venv-keras; never one your project names or holds).")
@FORMAT
def convert(checkpoint: str, out: str, to: str, name_map: str, model: str | None, drop_optimizer: bool, python: str | None,
            fmt: str) -> None:
    """Write a renamed copy of CHECKPOINT as a new model_dir OUT (TensorFlow, in a child process).

    With --model, the copy is compared with the model as `ckpt diff` does; with --map auto it also
    holds the optimizer state a TF 2.15 tf.estimator model creates (legacy slots of the same
    optimizer renamed, the rest as that optimizer initialises it, global_step kept), so train()
    goes on from the legacy step. Exit 0 written (and compatible with --model), 1 written but
    incompatible with --model, 2 error.

    --to keras: OUT is a new model_dir (it gets model.ckpt-STEP.weights.h5, which the migrated
    program's canned_keras_model(..., model_dir=OUT) restores) or a file named *.weights.h5. Each
    layer is mapped and checked, and the Keras model's predictions are compared with a numpy forward
    pass of the checkpoint. A custom tf.estimator.Estimator(model_fn=F): the weights of the Keras class
    TFM707 lowers F to, each legacy variable mapped by name (its layers in creation order), and the
    Keras predictions compared with the Estimator's (TensorFlow 2.15, from the checkpoint). Exit 0 same
    predictions, 1 incompatible (nothing written when the shapes differ), 2 error."""
    if to == "keras":
        _convert_keras(checkpoint, out, name_map, model, drop_optimizer, python, fmt)
    from tfmigrate.checkpoint import api

    data = _run(api.convert, checkpoint, out, map=name_map, model=model, drop_optimizer=drop_optimizer)
    bad = bool(data.get("diff")) and not data["diff"]["compatible"]  # the exit code says what the verdict says
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        from rich.table import Table
        from rich.text import Text

        from rich.markup import escape

        from tfmigrate.report.console import visible_data

        data = visible_data(data)
        out_c = _console()
        out_c.print(f"[bold]wrote[/] {escape(data['out'])} (read back and checked)")
        table = Table(title="carried", title_justify="left", expand=False)
        table.add_column("from", overflow="fold", ratio=1)
        table.add_column("to", overflow="fold", ratio=1)
        table.add_column("how", no_wrap=True)
        for op in data["ops"]:
            if op["op"] == "fill":  # optimizer state the checkpoint cannot give: one note per kind below
                continue
            table.add_row(escape(" + ".join(op["src"])), escape(op["new"]), escape(op["op"]))
        _table(out_c, table)
        for old, why in data["not_carried"].items():
            out_c.print(Text("not carried: ", style="yellow") + Text(f"{old}: {why}"))
        for note in data["notes"]:
            out_c.print(Text("note: ", style="bold") + Text(note))
        if data.get("diff"):
            _print_diff(data["diff"], out_c)
    sys.exit(1 if bad else 0)


def _convert_keras(checkpoint: str, out: str, name_map: str, model: str | None, drop_optimizer: bool, python: str | None,
                   fmt: str) -> None:
    if not model:
        _fail("--to keras needs --model file.py:LINE (a canned_keras_model(...) call or a tf.estimator construction)")
    if name_map != "auto" or drop_optimizer:
        _fail("--to keras maps the layers itself: --map and --drop-optimizer are for --to estimator")
    from tfmigrate.checkpoint import keras

    conv = _run(keras.convert_to_keras, checkpoint, model, out, python=python)
    if fmt == "json":
        click.echo(json.dumps(keras.conversion_json(conv), indent=2))
        sys.exit(0 if conv.compatible else 1)
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from tfmigrate.report.console import visible_data

    conv = visible_data(conv)
    out_c = _console()
    out_c.print(Text("same predictions" if conv.compatible else "INCOMPATIBLE", style="bold green" if conv.compatible else "bold red")
                + Text(f"  {conv.checkpoint} -> Keras {conv.model.target}"))
    out_c.print(Text(conv.verdict))
    table = Table(title="layers", title_justify="left", expand=False)
    table.add_column("", no_wrap=True)
    table.add_column("Keras layer", overflow="fold")
    table.add_column("from (checkpoint)", overflow="fold")
    table.add_column("checkpoint", overflow="fold")
    table.add_column("Keras", overflow="fold")
    table.add_column("how", overflow="fold")
    for r in conv.layers:
        status = {"match": "ok", "shape_mismatch": "SHAPE"}.get(r.status, r.status.replace("_", " "))
        table.add_row(Text(status, style="green" if r.status == "match" else "bold red"), escape(r.keras_layer),
                      escape("\n".join(r.checkpoint_names)), " + ".join(shape_text(x) for x in r.checkpoint_shapes if x is not None),
                      " + ".join(shape_text(x) for x in r.keras_shapes or []) or "-", escape(r.op))
    _table(out_c, table)
    if conv.out:
        out_c.print(f"[bold]wrote[/] {escape(conv.out)}")
    for old, why in conv.not_carried.items():
        out_c.print(Text("not carried: ", style="yellow") + Text(f"{old}: {why}"))
    for note in conv.notes:
        out_c.print(Text("note: ", style="bold") + Text(note))
    sys.exit(0 if conv.compatible else 1)
