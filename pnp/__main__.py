"""The ``pnp`` command's entry (the console script and ``python -m pnp``). It imports next to
nothing itself, so that a Ctrl-C while Python still imports the libraries the command needs
(PIL, reportlab, click: about half a second) ends as one arriving later does: one line, exit 130,
no traceback. pnp/__init__.py stays as light for that (its re-exports of pnp.api load on first use)."""

import contextlib
import os
import signal
import sys

INTERRUPTED = "pnp: interrupted; nothing more was written"  # word for word as pnp.cli.output.guarded


def main() -> None:
    try:
        from pnp.cli import run  # the heavy imports

        run()
    except KeyboardInterrupt:  # the command's own handling (pnp.cli.output.guarded) was not in place yet
        sys.stderr.write(INTERRUPTED + "\n")
        sys.exit(130)  # 128 + SIGINT, as a shell reports a process killed by it


def console() -> None:
    """The console script and ``python -m pnp``: ``main``, and a command that Ctrl-C or SIGTERM
    stopped (exit 130 or 143, its files all or none and its line said) leaves at once. Python's
    own shutdown would run its libraries' exit handlers, where one more Ctrl-C printed a
    KeyboardInterrupt traceback (pypdfium2's, after three Ctrl-C 20 ms apart) and a process pool's
    threads could be waited for without end (attack 26, F2)."""
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:  # one more, while main said it was stopped
        code = 130
    if code in (130, 143):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed pipe: nothing more to say
                stream.flush()
        os._exit(code)  # type: ignore[arg-type]
    sys.exit(code)  # type: ignore[arg-type]


if __name__ == "__main__":
    console()
