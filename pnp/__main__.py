"""The ``pnp`` command's entry (the console script and ``python -m pnp``). It imports next to
nothing itself, so that a Ctrl-C while Python still imports the libraries the command needs
(PIL, reportlab, click: about half a second) ends as one arriving later does: one line, exit 130,
no traceback. pnp/__init__.py stays as light for that (its re-exports of pnp.api load on first use)."""

import sys

INTERRUPTED = "pnp: interrupted; nothing more was written"  # word for word as pnp.cli.output.guarded


def main() -> None:
    try:
        from pnp.cli import run  # the heavy imports

        run()
    except KeyboardInterrupt:  # the command's own handling (pnp.cli.output.guarded) was not in place yet
        sys.stderr.write(INTERRUPTED + "\n")
        sys.exit(130)  # 128 + SIGINT, as a shell reports a process killed by it


if __name__ == "__main__":
    main()
