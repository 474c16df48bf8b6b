"""``tfmigrate rules``: the rule catalog, or one rule with its before/after examples."""

from __future__ import annotations

import click


@click.command()
@click.argument("rule_ids", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: the list, or one rule with its examples; json: the rules as a JSON list.")
def rules(rule_ids: tuple[str, ...], fmt: str) -> None:
    """List the rule catalog, or explain each RULE_ID: why, fix safety, legacy API, its code, examples.

    A prefix (TFM30) lists the rules it selects."""
    import json

    from rich.markup import escape
    from rich.syntax import Syntax
    from rich.table import Table

    from tfmigrate.codemod.rule import load_catalog
    from tfmigrate.codemod.rule_sites import explain, sites

    catalog = load_catalog()
    chosen = list(catalog.rules.values())
    if rule_ids:
        picked: dict[str, object] = {}
        for rule_id in rule_ids:
            found = [r for r in chosen if r.id.startswith(rule_id.upper())]
            if not found:
                raise click.BadParameter(f"no rule {rule_id} (see `tfmigrate rules`)", param_hint="RULE_ID")
            picked.update((r.id, r) for r in found)
        chosen = list(picked.values())
    if fmt == "json":
        data = [
            {"id": r.id, "title": r.title, "family": r.family, "severity": r.severity, "fixable": r.fixable,
             "fix_safety": r.fix_safety, "legacy_api": list(r.legacy_api), "why": r.why,
             "implemented_in": [str(s) for s in sites(r.id)],
             "examples": [{"before": e.before, "after": e.after} for e in r.examples]}
            for r in chosen
        ]
        click.echo(json.dumps(data, indent=2))
        return
    from tfmigrate.report.console import make_console, print_whole

    out = make_console()
    if rule_ids and len(chosen) <= len(rule_ids):  # each id names one rule: explain each
        for n, r in enumerate(chosen):
            if n:
                out.print()
            out.print(f"[bold]{r.id}[/] {escape(r.title)}  [dim]({r.severity}, {'fixable' if r.fixable else 'manual'})[/]\n")
            out.print(r.why + "\n", soft_wrap=False, markup=False)  # `[cell] * n` is text, not a style
            out.print("\n".join(explain(r)) + "\n", markup=False, highlight=False)
            for i, e in enumerate(r.examples, start=1):
                out.print(f"[bold]Example {i}[/] — before:")
                print_whole(out, Syntax(e.before.rstrip("\n"), "python", theme="ansi_dark", background_color="default"))
                out.print("after:" if e.after is not None else "after: [dim](left unchanged)[/]")
                if e.after is not None:
                    print_whole(out, Syntax(e.after.rstrip("\n"), "python", theme="ansi_dark", background_color="default"))
                out.print()
        return
    table = Table(show_header=True, header_style="bold")
    table.add_column("id")
    table.add_column("title")
    table.add_column("fix")
    for r in chosen:
        table.add_row(r.id, escape(r.title), r.fix_safety if r.fixable else "manual")
    out.print(table)
