"""The `pnp` command's entry (pnp/__main__.py, the console script and `python -m pnp`): a Ctrl-C
at any moment, even while Python still imports PIL, reportlab and click, is one line and exit 130,
never a traceback (attack 3 F7: 20 lines of KeyboardInterrupt in the first half second)."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import TEST_DATA

import pnp.__main__ as entry

INTERRUPTED = "pnp: interrupted; nothing more was written"


def test_importing_pnp_imports_nothing_heavy() -> None:
    """The entry is in place before the heavy imports only if the package itself is light."""
    code = ("import sys, pnp.__main__; heavy = sorted(m for m in ('pnp.api', 'pnp.cli', 'PIL', 'reportlab', "
            "'click', 'msgspec', 'jsonschema') if m in sys.modules); print(heavy)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


def test_the_package_still_offers_the_api() -> None:
    """pnp.check and the rest load pnp.api on first use; every name in pnp.__all__ is there."""
    code = ("import pnp, sys; from pnp import build, BuildOptions; import pnp.api as a; "
            "assert pnp.check is a.check and build is a.build and BuildOptions is a.BuildOptions; "
            "missing = [n for n in pnp.__all__ if getattr(pnp, n, None) is None]; "
            "print(missing, 'pnp.api' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "[] True", r.stderr
    r = subprocess.run([sys.executable, "-c", "import pnp; pnp.nothing"], capture_output=True, text=True)
    assert r.returncode == 1 and "AttributeError: module 'pnp' has no attribute 'nothing'" in r.stderr


def test_ctrl_c_before_the_command_runs_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import pnp.cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pnp.cli, "run", interrupted)
    with pytest.raises(SystemExit) as exc:
        entry.main()
    assert exc.value.code == 130
    assert capsys.readouterr().err == INTERRUPTED + "\n"
    assert entry.INTERRUPTED == INTERRUPTED  # the same words as a Ctrl-C later (pnp.cli.output.guarded)


PACKAGE = Path(entry.__file__).parent


def _before_pnp_ran(err: str) -> bool:
    """Whether ``err`` is a KeyboardInterrupt from before pnp's entry was in place: Python's own
    start-up ("Fatal Python error" while importing site), or a traceback whose frames are only in
    the standard library, the console script, the editable install's finder and the module level
    of pnp/__init__.py and pnp/__main__.py (the few lines before `main` runs). A traceback through
    any other pnp module or any library pnp imports (PIL, click, reportlab) is pnp's to prevent."""
    if "Fatal Python error" in err:
        return True
    files = re.findall(r'File "([^"]+)", line \d+, in (\S+)', err)
    if not files:
        return False
    for name, where in files:
        path = Path(name)
        if path.parent == PACKAGE and path.name in ("__init__.py", "__main__.py") and where == "<module>":
            continue
        if path.is_relative_to(PACKAGE) or ("site-packages" in path.parts and not path.name.startswith("__editable__")):
            return False
    return True


def test_what_counts_as_before_pnp_ran() -> None:
    """The filter of the start-up test passes over only what pnp cannot catch."""
    init, api = PACKAGE / "__init__.py", PACKAGE / "api.py"
    on_main = (f'Traceback (most recent call last):\n  File "/v/bin/pnp", line 5, in <module>\n'
               f'  File "{init}", line 7, in <module>\n  File "{api}", line 31, in <module>\n'
               '  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load\nKeyboardInterrupt\n')
    in_pil = (f'Traceback (most recent call last):\n  File "{PACKAGE / "__main__.py"}", line 17, in main\n'
              '  File "/v/lib/python3.11/site-packages/PIL/Image.py", line 9, in <module>\nKeyboardInterrupt\n')
    early = (f'Traceback (most recent call last):\n  File "<frozen runpy>", line 189, in _run_module_as_main\n'
             f'  File "{init}", line 11, in <module>\n  File "/usr/lib/python3.11/typing.py", line 2, in <module>\n'
             'KeyboardInterrupt\n')
    assert not _before_pnp_ran(on_main) and not _before_pnp_ran(in_pil) and not _before_pnp_ran("odd")
    assert _before_pnp_ran(early) and _before_pnp_ran("Fatal Python error: init_import_site: ...")


def _default_sigint() -> None:
    # as an interactive shell starts a command; a background job of a script inherits SIG_IGN
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["script", "module"])
def test_ctrl_c_at_any_moment_of_start_up_is_exit_130_without_a_traceback(how: str, tmp_path: Path) -> None:
    """SIGINT to the installed command at several moments of its first second. A run that ended
    before the signal, or that the signal ended before Python itself was up (killed by it without
    a word, or Python's own "Fatal Python error" while importing site), says nothing about pnp and
    is passed over, as is one that came before pnp/__main__.py's `main` was entered
    (``_before_pnp_ran``); every other run must say the one line and exit 130. Before
    pnp/__main__.py the runs up to about 0.5 s printed a KeyboardInterrupt traceback from PIL,
    click or reportlab's imports."""
    script = Path(sys.executable).parent / "pnp"
    if how == "script" and not script.exists():
        pytest.skip("no installed pnp console script beside this Python")
    command = [str(script)] if how == "script" else [sys.executable, "-m", "pnp"]
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    judged = []
    for delay in (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7):
        proc = subprocess.Popen([*command, "build", "mini", "--out", str(tmp_path / "out")], cwd=root,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_default_sigint)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 0 or (proc.returncode == -signal.SIGINT and not err) or _before_pnp_ran(err):
            continue  # finished first, or interrupted before Python ran any of pnp
        # (an uncaught KeyboardInterrupt also ends in SIGINT, -2, after its traceback)
        assert "Traceback" not in err, (delay, err)
        # 130, or killed by SIGINT after the line (-2, which a shell reports as 130 too): CPython
        # sometimes ends so when the interrupt lands early in its imports, though pnp handled it
        # (1 run in ~80 at 0.12-0.15 s with `python -m pnp`; why, inside CPython, not pinned down)
        assert proc.returncode in (130, -signal.SIGINT) and err.endswith(INTERRUPTED + "\n"), \
            (delay, proc.returncode, err)
        judged.append(delay)
    if not judged:
        pytest.skip("every run ended before its signal or was stopped before Python started pnp")


def test_ctrl_c_while_click_parses_is_exit_130(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A Ctrl-C that arrives while click parses the command line, before the command's own
    handling: click's standalone mode printed "Aborted!" and exited 1 (seen in a fresh-venv run
    of the test above, at 0.2 s)."""
    from pnp.cli import commands

    def interrupted(*args: object, **kw: object) -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(commands.main, "make_context", interrupted)
    monkeypatch.setattr(sys, "argv", ["pnp", "list"])
    with pytest.raises(SystemExit) as exc:
        commands.run()
    assert exc.value.code == 130
    err = capsys.readouterr().err
    assert err.endswith(INTERRUPTED + "\n") and "Aborted!" not in err


def test_a_usage_error_shows_the_argument_escaped() -> None:
    """Attack 9: click's "Got unexpected extra argument (...)" printed the argument raw, so a
    title-setting or reset sequence reached the terminal."""
    r = subprocess.run([sys.executable, "-m", "pnp", "list", "\x1b]0;PWNED\x07"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2
    assert "Got unexpected extra argument (\\x1b]0;PWNED\\x07)" in r.stderr and "\x1b" not in r.stderr


def test_ctrl_c_again_soon_after_is_the_same_stop() -> None:
    """Once pnp's command runs, a Ctrl-C stops it once: more within REPEAT_SECONDS are the same
    stop, not interruptions of the cleanup it started (five 10 ms apart broke into a process
    pool's shutdown and printed tracebacks: attack 26, F2); a later one raises again. The same
    for SIGTERM."""
    code = textwrap.dedent("""
        import os, signal, time
        from pnp.errors import REPEAT_SECONDS, Terminated, terminate_as_interrupt
        terminate_as_interrupt()
        for sig, error in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)):
            time.sleep(REPEAT_SECONDS + 0.1)  # (one kind soon after the other is the same stop too)
            raised = 0
            for _ in range(5):
                try:
                    os.kill(os.getpid(), sig)
                    time.sleep(0.01)
                except error:
                    raised += 1
            time.sleep(REPEAT_SECONDS + 0.1)
            try:
                os.kill(os.getpid(), sig)
                time.sleep(0.01)
            except error:
                raised += 10
            print(raised)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=_default_sigint,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["11", "11"]
