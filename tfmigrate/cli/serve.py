"""``tfmigrate serve``: a warm TensorFlow process for tfmigrate's own children (:mod:`tfmigrate.warm`)."""

from __future__ import annotations

import os

import click


@click.command("serve")
@click.option("--socket", "socket_path", type=click.Path(dir_okay=False), default=None,
              help="The Unix socket to listen on (default: one per interpreter, in $XDG_RUNTIME_DIR or /tmp/tfmigrate-UID/).")
@click.option("--python", "python", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Serve the children of this interpreter (the TensorFlow 2.21 one of --target keras); default: tfmigrate's own.")
@click.option("--keras", is_flag=True, help="Serve the TensorFlow 2.21 interpreter tfmigrate would use "
                                            "($TFMIGRATE_KERAS_PYTHON, else tfmigrate's .venv-keras).")
@click.option("--print-socket", is_flag=True, help="Print the socket path and exit.")
def serve(socket_path: str | None, python: str | None, keras: bool, print_socket: bool) -> None:
    """Import TensorFlow once and fork tfmigrate's TensorFlow children from it.

    \b
    Start it in a terminal of your own, then in another:
        export TFMIGRATE_WARM=SOCKET   (two servers: SOCKET1:SOCKET2)
    and `validate`, `report --validate` and the `ckpt` commands start their TensorFlow children as
    forks of this process instead of fresh interpreters: each saves the 4-6 CPU seconds of
    `import tensorflow` and its teardown. A child is still its own process (argv, environment, working
    directory, stdin/stdout/stderr, process group, exit status as a fresh `python -P -m ...` has them);
    settings read when TensorFlow is imported (TF_CPP_MIN_LOG_LEVEL) are the server's.

    One server serves one interpreter (and this tfmigrate checkout); a child of another, a socket that
    is not yours or on which nothing listens gets a fresh process (with a one-line note). Only you ever
    start a server: nothing in a project starts one. Stop it with Ctrl-C."""
    from tfmigrate.childproc import child_env, keras_interpreter
    from tfmigrate.warm import default_socket, server_command

    if keras:
        python = python or keras_interpreter()
        if not python:
            raise click.UsageError("no TensorFlow 2.21 interpreter: run `make keras`, or name one with --python")
    path = os.path.abspath(socket_path or default_socket(python))
    if print_socket:
        click.echo(path)
        return
    argv, env = server_command(child_env(), python, path)
    click.echo(f"export TFMIGRATE_WARM={path}", err=True)
    os.execve(argv[0], argv, env)
