"""Authoring and CI (issue 10): `pnp schema`, `$schema` in every bundled file, schema
documentation, the generated reference (docs/reference.md), `pnp check --format` (docs/ci.md),
`pnp new` and the README's tutorial, pre-commit hook, shell completion and `pnp watch`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, TEST_DATA, run_cli

from pnp.errors import OutputError
from pnp.input.project import DataRoot, load_game
from pnp.input.validate import SCHEMA_NAMES, schema, schema_bytes

BUNDLED_JSON = sorted([*REPO.glob("card_data/*/*.json"), *REPO.glob("templates/*/*.json")])


# --------------------------------------------------------------------------- pnp schema, $schema


def test_schema_command_writes_the_packaged_schemas(tmp_path: Path) -> None:
    out = tmp_path / "s"
    r = run_cli("schema", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{n}.schema.json" for n in SCHEMA_NAMES)
    for name, data in schema_bytes().items():
        assert (out / name).read_bytes() == data
        json.loads(data)


def test_schema_command_never_writes_among_the_inputs(tmp_path: Path) -> None:
    """Attack 3 F6: `pnp schema --out card_data/j` overwrote a data file named
    component.schema.json, where every other writing command refuses an --out among the inputs."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    game = root / "card_data" / "mini"
    (game / "deck.json").rename(game / "component.schema.json")
    (game / "game.json").write_text((game / "game.json").read_text().replace('"deck.json"', '"component.schema.json"'))
    assert run_cli("check", "mini", cwd=root).exit_code == 0
    before = {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    for out in ("card_data/mini", "card_data", "templates/x", "fonts", "."):
        r = run_cli("schema", "--out", out, cwd=root)
        assert r.exit_code == 2 and "Traceback" not in r.output, (out, r.output)
        assert f"pnp: output folder {out} overlaps " in r.stderr and "which pnp reads as input" in r.stderr, r.stderr
    assert {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} == before
    assert not (root / "fonts").exists()
    # beside the inputs is fine, as `pnp new` and the README put them
    assert run_cli("schema", "--out", "schemas", cwd=root).exit_code == 0
    assert sorted(p.name for p in (root / "schemas").iterdir()) == sorted(f"{n}.schema.json" for n in SCHEMA_NAMES)
    assert run_cli("check", "mini", cwd=root).exit_code == 0


def test_schema_and_calibrate_run_elsewhere_never_write_into_a_data_tree(tmp_path: Path) -> None:
    """Attack 12, borderline B5: `calibrate --out PROJECT/card_data/cal.pdf` run outside the
    project (so its data root is the bundled games) wrote into the project's card_data/."""
    root = tmp_path / "root"
    shutil.copytree(TEST_DATA / "mini", root)
    before = {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    for out in ("card_data/cal.pdf", "card_data/mini", "templates/x", "fonts/y"):
        for cmd in ("calibrate", "schema"):
            r = run_cli(cmd, "--out", root / out, cwd=tmp_path)
            assert r.exit_code == 2 and "Traceback" not in r.output, (cmd, out, r.output)
            assert f"pnp: output folder {root / out} lies in " in r.stderr, r.stderr
            assert "which pnp reads as input; choose another with --out" in r.stderr
    assert {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} == before
    assert not (root / "fonts").exists()
    assert run_cli("calibrate", "--out", root / "out", cwd=tmp_path).exit_code == 0  # beside the inputs


def test_schema_on_a_full_disk_writes_all_or_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 13, F7: `pnp schema` on a full disk left two of the four schemas written."""
    import errno

    from pnp.render import write

    real, calls = write._stage, []

    def stage(path: Path, data: bytes, staged: list[tuple[str, Path]]) -> None:
        calls.append(path.name)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data, staged)

    monkeypatch.setattr(write, "_stage", stage)
    out = tmp_path / "schemas"
    r = run_cli("schema", "--out", out)
    assert r.exit_code == 2 and "No space left on device" in r.stderr and "Traceback" not in r.output
    assert len(calls) == 3 and not out.exists()
    out.mkdir()
    (out / "game.schema.json").write_text("old")
    calls.clear()
    r = run_cli("schema", "--out", out)
    assert r.exit_code == 2
    assert [p.name for p in out.iterdir()] == ["game.schema.json"] and (out / "game.schema.json").read_text() == "old"


def test_committed_schemas_equal_the_packaged_ones() -> None:
    """`schemas/` at the repository root is `pnp schema --out schemas`: regenerate it when a
    schema changes."""
    committed = {p.name: p.read_bytes() for p in (REPO / "schemas").glob("*.json")}
    assert committed == schema_bytes(), "run `pnp schema --out schemas`"


def test_every_bundled_file_names_its_schema() -> None:
    assert len(BUNDLED_JSON) > 100
    for f in BUNDLED_JSON:
        data = json.loads(f.read_text("utf-8"))
        kind = "template" if f.parts[-3] == "templates" else "game" if f.name == "game.json" else "component"
        assert data.get("$schema") == f"../../schemas/{kind}.schema.json", f
        assert (f.parent / data["$schema"]).resolve().is_file(), f


def test_schemas_accept_a_schema_key_at_top_level() -> None:
    for name in ("game", "component", "template"):
        assert schema(name)["properties"]["$schema"]["type"] == "string"


# --------------------------------------------------------------------------- schema documentation


def _undocumented(node: Any, path: str) -> list[str]:
    """Every property (at any depth) without a title or description. Two exemptions: a property
    given as `true` only lets a key already defined (and documented) in the base `properties`
    through an `if`/`then` branch's `additionalProperties: false`; and an `if` only tests a
    discriminator (`"check": {"const": "equal"}`), it defines nothing."""
    out: list[str] = []
    if isinstance(node, list):
        for i, v in enumerate(node):
            out += _undocumented(v, f"{path}[{i}]")
    elif isinstance(node, dict):
        for key, v in node.items():
            if key == "if":
                continue
            if key == "properties" and isinstance(v, dict):
                for name, p in v.items():
                    if p is True:
                        continue
                    if not (isinstance(p, dict) and ({"title", "description"} & set(p))):
                        out.append(f"{path}.properties.{name}")
                    out += _undocumented(p, f"{path}.properties.{name}")
            else:
                out += _undocumented(v, f"{path}.{key}")
    return out


def test_every_schema_property_has_a_title_or_description() -> None:
    for name in SCHEMA_NAMES:
        s = schema(name)
        assert s.get("title") and s.get("description"), name
        assert _undocumented(s, f"{name}#") == []


def test_true_properties_are_documented_in_the_base_properties() -> None:
    """The `true` exemption above is sound: such a key is defined, with a description, beside
    the `allOf` that lists it."""
    for name in SCHEMA_NAMES:
        for def_name, d in schema(name).get("$defs", {}).items():
            for branch in d.get("allOf", []) if isinstance(d, dict) else []:
                for key, p in branch.get("then", {}).get("properties", {}).items():
                    if p is True:
                        assert "description" in d["properties"][key], (name, def_name, key)


def test_reference_is_generated_from_the_schemas() -> None:
    """`python scripts/schema_reference.py` would leave docs/reference.md as it is."""
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "schema_reference.py"), "--check"],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    text = (REPO / "docs" / "reference.md").read_text("utf-8")
    for name in SCHEMA_NAMES:
        assert f"`{name}.schema.json`" in text


# --------------------------------------------------------------------------- pnp check --format


def _documented_json_keys() -> dict[str, set[str]]:
    """docs/ci.md's table of `pnp check --format json` keys, by the object they belong to."""
    text = (REPO / "docs" / "ci.md").read_text("utf-8")
    table = text.split("<!-- check-json-keys:start -->")[1].split("<!-- check-json-keys:end -->")[0]
    out: dict[str, set[str]] = {}
    for row in table.splitlines()[3:]:
        cell = row.split("|")[1].strip()
        owner = cell.split("`")[0].strip() or "report"
        for name in cell.split("`")[1::2]:
            if name.startswith("games[]."):
                owner, name = "game", name.removeprefix("games[].")
            out.setdefault(owner, set()).add(name)
    return out


def test_check_json_keys_are_the_documented_ones(mini: Any) -> None:
    doc = _documented_json_keys()
    assert set(doc) == {"report", "game", "diagnostic", "rule", "provenance"}
    r = mini.check("--format", "json")
    assert r.exit_code == 0, r.stderr
    report = json.loads(r.stdout)
    assert set(report) == doc["report"]
    assert (report["format"], report["version"]) == ("pnp-check", 1)
    game = report["games"][0]
    assert set(game) == doc["game"]
    assert all(set(rule) == doc["rule"] for rule in game["rules"]) and game["rules"]
    assert all(set(p) == doc["provenance"] for p in game["provenance"]) and game["provenance"]
    # --json is the same report.
    assert json.loads(mini.check("--json").stdout) == report
    # A game with an input error: its diagnostics carry the documented keys.
    mini.edit("deck.json", lambda d: d["items"][0].update(suit="star"))
    r = mini.check("--json")
    assert r.exit_code == 2
    errors = json.loads(r.stdout)["games"][0]["errors"]
    assert errors and all(set(e) == doc["diagnostic"] for e in errors)


def test_check_json_reports_root_errors(mini: Any, tmp_path: Path) -> None:
    """A problem that is no one game's (no card_data/, no games in it) is in the report too: a
    program reading stdout learns why there are no games, and GitHub shows the annotation."""
    doc = _documented_json_keys()
    empty = tmp_path / "empty"
    (empty / "card_data").mkdir(parents=True)
    for data, message in ((tmp_path / "nowhere", "not a pnp data root"), (empty, "no games found")):
        r = mini.cli("check", "--json", "--data", str(data))
        assert r.exit_code == 2
        report = json.loads(r.stdout)
        assert set(report) == doc["report"] and report["games"] == []
        [error] = report["errors"]
        assert set(error) == doc["diagnostic"] and message in error["message"]
        assert message in r.stderr  # and the text for people, as before
        r = mini.cli("check", "--format", "github", "--data", str(data))
        assert r.exit_code == 2 and r.stdout.startswith("::error file=") and message in r.stdout
    # A report without such problems has the key, empty.
    assert json.loads(mini.check("--json").stdout)["errors"] == []


def test_check_format_github_annotations(mini: Any) -> None:
    line, col = mini.pos_of("deck.json", '"suit": "sun"', len('"suit": '))
    mini.replace("deck.json", '"suit": "sun"', '"suit": "star"')
    r = mini.check("--format", "github")
    assert r.exit_code == 2
    assert r.stdout.splitlines()[0] == (f"::error file=card_data/mini/deck.json,line={line},col={col}::"
                                        '$.items[0].suit: value "star" is not allowed (expected one of "sun"%2C "moon")'
                                        .replace("%2C", ","))
    mini.replace("deck.json", '"suit": "star"', '"suit": "sun"')
    # A rule violation points at the rule in the manifest; a warning is a ::warning.
    mini.edit("deck.json", lambda d: d["items"][0].update(copies=3, name="Sun " * 300))
    rule_line = mini.line_of("game.json", '"id": "deck-5"') - 1  # the rule object's opening brace
    r = mini.check("--format", "github")
    assert r.exit_code == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    errors = [ln for ln in lines if ln.startswith("::error")]
    assert errors == [f"::error file=card_data/mini/game.json,line={rule_line}::rule deck-5: expected all equal: "
                      f"pieces(deck) = 5, actual 6 = 5 (Five cards in all.; rulebook: \"The deck has 5 cards.\")"]
    warnings = [ln for ln in lines if ln.startswith("::warning file=templates/mini/card.json,line=")]
    assert warnings and "%0A" not in warnings[0]
    assert lines[-1] == "mini: 2 rules, 1 pass, 1 fail, 1 warning"
    # --strict: the warning becomes an error, exit 2.
    r = mini.check("--format", "github", "--strict")
    assert r.exit_code == 2 and not any(ln.startswith("::warning") for ln in r.stdout.splitlines())


def test_github_annotation_escapes() -> None:
    from pnp.cli.output import github_annotation

    assert github_annotation("error", "a%b\nc: d, e", "x,y:z.json", 3, 4) == \
        "::error file=x%2Cy%3Az.json,line=3,col=4::a%25b%0Ac: d, e"
    assert github_annotation("warning", "m") == "::warning::m"


# --------------------------------------------------------------------------- pnp new and the tutorial


def _check_and_build(root: Path, out: Path, game: str = "mygame") -> None:
    r = run_cli("check", game, "--data", root)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stderr == ""  # not even a warning
    r = run_cli("build", game, "--data", root, "--out", out)
    assert r.exit_code == 0, r.stdout + r.stderr


def test_new_game_checks_and_builds_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "games"
    r = run_cli("new", "mygame", "--path", root)
    assert r.exit_code == 0, r.stderr
    for f in ("card_data/mygame/game.json", "card_data/mygame/deck.json", "templates/mygame/style.json",
              "templates/mygame/card.json", "templates/mygame/back.json", "schemas/game.schema.json"):
        assert (root / f).is_file(), f
    _check_and_build(root, tmp_path / "out")
    assert (tmp_path / "out" / "mygame" / "deck.pdf").is_file()
    report = json.loads(run_cli("check", "mygame", "--data", root, "--json").stdout)["games"][0]
    assert [r["id"] for r in report["rules"]] == ["deck-3"]
    assert report["provenance"] == [{"component": "deck", "document": 0, "external": 0, "designed": 3,
                                     "items": 3, "pieces": 3, "unstated": 0}]
    # Every file names its schema, which is there.
    for f in [*root.glob("card_data/*/*.json"), *root.glob("templates/*/*.json")]:
        assert (f.parent / json.loads(f.read_text())["$schema"]).is_file()


def test_new_csv_game_keeps_its_cards_in_a_sheet(tmp_path: Path) -> None:
    root = tmp_path / "games"
    r = run_cli("new", "mygame", "--path", root, "--csv")
    assert r.exit_code == 0, r.stderr
    folder = root / "card_data" / "mygame"
    assert sorted(p.name for p in folder.iterdir()) == ["deck.csv", "game.json"]
    _check_and_build(root, tmp_path / "out")
    game = load_game(DataRoot(root), "mygame")
    assert [i.id for i in game.components[0].items] == ["scout", "trader", "guard"]
    assert game.components[0].items[1].fields["text"] == "Gain 2 {icon:coin}."
    # An added row is a new card: the count rule now fails (exit 1), naming the count.
    with (folder / "deck.csv").open("a", encoding="utf-8") as f:
        f.write("Spy,2,Look at a hand.\n")
    r = run_cli("check", "mygame", "--data", root)
    assert r.exit_code == 1 and "deck-3" in r.stdout


def test_new_refuses_to_overwrite_and_bad_ids(tmp_path: Path) -> None:
    assert run_cli("new", "mygame", "--path", tmp_path).exit_code == 0
    before = (tmp_path / "card_data" / "mygame" / "deck.json").read_bytes()
    (tmp_path / "card_data" / "mygame" / "deck.json").write_text("{}")
    r = run_cli("new", "mygame", "--path", tmp_path)
    assert r.exit_code == 2 and "already exists" in r.stderr
    assert (tmp_path / "card_data" / "mygame" / "deck.json").read_text() == "{}"
    assert before != b"{}"
    # Templates alone are enough to refuse.
    (tmp_path / "templates" / "other").mkdir()
    r = run_cli("new", "other", "--path", tmp_path)
    assert r.exit_code == 2 and "the templates folder templates/other/ already exists here" in r.stderr
    assert not (tmp_path / "card_data" / "other").exists()
    # templates/shared/ is the folder every game shares: the message says so (attack 15), and a
    # dangling link in the way counts as taken.
    (tmp_path / "templates" / "shared").mkdir()
    r = run_cli("new", "shared", "--path", tmp_path)
    assert r.exit_code == 2 and "templates/shared/ (the templates every game shares) already" in r.stderr
    (tmp_path / "templates" / "gone").symlink_to(tmp_path / "nowhere")
    assert run_cli("new", "gone", "--path", tmp_path).exit_code == 2
    assert not (tmp_path / "card_data" / "gone").exists() and not (tmp_path / "nowhere").exists()
    for bad in ("../up", "My Game", "a/b"):
        r = run_cli("new", bad, "--path", tmp_path)
        assert r.exit_code == 2 and "invalid game id" in r.stderr, bad


def test_new_that_cannot_write_leaves_nothing_and_can_be_run_again(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack 10, borderline: `pnp new` on a full disk wrote card_data/<g> and templates/<g> but
    not schemas/, and a second `pnp new` refused the half-made game as already there. The files
    are now written all or none and the folders it made are removed again: exit 2 naming the
    file, then the same command works once there is room."""
    from pnp.products import scaffold

    real = scaffold.write_all

    def full(files: Any, *args: Any) -> None:
        raise OutputError(f"cannot write {files[-1][0]}: No space left on device")

    monkeypatch.setattr(scaffold, "write_all", full)
    r = run_cli("new", "mygame", "--path", tmp_path)
    assert r.exit_code == 2 and "No space left on device" in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no card_data/, templates/, schemas/
    monkeypatch.setattr(scaffold, "write_all", real)
    assert run_cli("new", "mygame", "--path", tmp_path).exit_code == 0
    assert (tmp_path / "card_data" / "mygame" / "game.json").is_file()
    r = run_cli("new", "other", "--path", "/proc")
    assert r.exit_code == 2 and "choose another with --path" in r.stderr, r.stderr


def _tutorial_blocks(lang: str) -> list[Any]:
    """The ``lang`` (json or csv) blocks of the README's tutorial, in order: JSON parsed (a
    `"key": value` snippet as a one-key object), CSV as text."""
    text = (REPO / "README.md").read_text("utf-8")
    section = text.split("## Your first game in five minutes")[1].split("\n## ")[0]
    assert "$ mkdir mygames && cd mygames\n$ pnp new mygame --csv\n" in section
    blocks = [b.split("```")[0] for b in section.split(f"```{lang}\n")[1:]]
    if lang == "csv":
        return blocks
    return [json.loads("{" + b + "}" if b.startswith('"') else b) for b in blocks]


def _tutorial_outputs() -> list[tuple[str, str]]:
    """The ``$ command`` lines of the README's tutorial with the output shown after each."""
    text = (REPO / "README.md").read_text("utf-8")
    section = text.split("## Your first game in five minutes")[1].split("\n## ")[0]
    out = []
    for block in section.split("```\n$ ")[1:]:
        block = block.split("```")[0]
        for run in ("$ " + block).split("\n$ ")[0:]:
            cmd, _, shown = run.removeprefix("$ ").partition("\n")
            out.append((cmd, shown))
    return out


def test_tutorial_steps(tmp_path: Path, monkeypatch: Any) -> None:
    """Runs the README's tutorial, in the folder it makes, without --data: its exact edits (JSON
    and CSV), checking and building after each; the next commands `pnp new` prints work as
    printed, and the error messages it shows are the ones pnp prints."""
    field, cost_el, icons, spark_el, events_comp, rule = _tutorial_blocks("json")
    deck_csv, events_csv = _tutorial_blocks("csv")
    shown = _tutorial_outputs()
    root, out = tmp_path / "mygames", tmp_path / "mygames" / "out"
    root.mkdir()
    monkeypatch.chdir(root)
    r = run_cli("new", "mygame", "--csv")
    assert r.exit_code == 0
    said = r.stdout.splitlines()[-1]
    assert said == "pnp: created game 'mygame' in card_data/mygame; next: pnp check mygame && pnp build mygame"
    for command in said.split("next: ")[1].split(" && "):
        assert run_cli(*command.split()[1:]).exit_code == 0, command
    _check_and_build(root, out)
    game_dir, tpl_dir = root / "card_data" / "mygame", root / "templates" / "mygame"

    def edit(path: Path, fn: Any) -> None:
        data = json.loads(path.read_text("utf-8"))
        fn(data)
        path.write_text(json.dumps(data, indent=2) + "\n", "utf-8")

    # 1. A field: declared, a column of the sheet, printed.
    edit(game_dir / "game.json", lambda d: d["components"][0]["fields"].update(field))
    (game_dir / "deck.csv").write_text(deck_csv, "utf-8")
    edit(tpl_dir / "card.json", lambda d: d["elements"].append(cost_el))
    _check_and_build(root, out)
    errors = [ln for cmd, text in shown if cmd == "pnp check mygame" for ln in text.splitlines() if "deck.csv" in ln]
    assert len(errors) == 3
    (game_dir / "deck.csv").write_text(deck_csv.replace(",cost,", ",cots,"), "utf-8")
    r = run_cli("check", "mygame")
    assert r.exit_code == 2 and "did you mean 'cost'?" in r.stderr
    assert r.stderr.splitlines()[0] in errors
    (game_dir / "deck.csv").write_text(deck_csv.replace("Trader,1,2", "Trader,1,12").replace("Guard,1", "Guard,one"),
                                       "utf-8")
    r = run_cli("check", "mygame")
    assert r.exit_code == 2 and r.stderr.splitlines()[:2] == [e for e in errors if ":1:C" not in e]
    (game_dir / "deck.csv").write_text(deck_csv, "utf-8")
    # 2. An icon, in the style and on the card.
    edit(tpl_dir / "style.json", lambda d: d.update(icons))
    edit(tpl_dir / "card.json", lambda d: d["elements"].append(spark_el))
    _check_and_build(root, out)
    # 3. A second deck.
    edit(game_dir / "game.json", lambda d: d["components"].append(events_comp))
    (game_dir / "events.csv").write_text(events_csv, "utf-8")
    _check_and_build(root, out)
    assert (out / "mygame" / "events.pdf").is_file()
    assert [i.id for i in load_game(DataRoot(root), "mygame").components[1].items] == ["storm", "festival"]
    # 4. A count rule; four Storms break it, three keep it.
    edit(game_dir / "game.json", lambda d: d["rulebook"].append(rule))
    _check_and_build(root, out)
    (game_dir / "events.csv").write_text(events_csv.replace("Storm,3", "Storm,4"), "utf-8")
    r = run_cli("check", "mygame")
    assert r.exit_code == 1 and "FAIL events-5" in r.stdout and "Shuffle the five event cards." in r.stdout
    assert run_cli("build", "mygame").exit_code == 1
    (game_dir / "events.csv").write_text(events_csv, "utf-8")
    _check_and_build(root, out)


# --------------------------------------------------------------------------- pre-commit, completion


def test_pre_commit_hook_definition() -> None:
    """`.pre-commit-hooks.yaml` (checked as text: no YAML dependency)."""
    lines = [ln for ln in (REPO / ".pre-commit-hooks.yaml").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines[0] == "- id: pnp-check"
    keys = dict(ln.strip().split(": ", 1) for ln in lines[1:])
    assert all(ln.startswith("  ") for ln in lines[1:])
    assert keys["language"] == "python"
    assert keys["entry"] == "pnp check --data ."
    assert keys["pass_filenames"] == "false"
    assert keys["files"] == r"\.(json|csv|tsv|xlsx|ods)$"  # data may be a sheet
    assert "- id: pnp-check" in (REPO / "docs" / "ci.md").read_text()


def test_shell_completion_script() -> None:
    from click.testing import CliRunner

    from pnp.cli import main

    for shell, marker in (("bash", "complete -o nosort -F"), ("zsh", "#compdef pnp"), ("fish", "complete")):
        r = CliRunner().invoke(main, [], prog_name="pnp", env={"_PNP_COMPLETE": f"{shell}_source"})
        assert r.exit_code == 0, shell
        assert marker in r.output and "_PNP_COMPLETE" in r.output, (shell, r.output[:200])
    # Completing a command name works.
    r = CliRunner().invoke(main, [], prog_name="pnp",
                           env={"_PNP_COMPLETE": "bash_complete", "COMP_WORDS": "pnp che", "COMP_CWORD": "1"})
    assert "check" in r.output


# --------------------------------------------------------------------------- pnp watch


def _two_deck_game(tmp_path: Path) -> tuple[Path, Path]:
    """A `pnp new` game with a second deck on its own templates (events/card extends the style)."""
    root = tmp_path / "g"
    assert run_cli("new", "mygame", "--path", root).exit_code == 0
    game_dir, tpl_dir = root / "card_data" / "mygame", root / "templates" / "mygame"
    manifest = json.loads((game_dir / "game.json").read_text())
    manifest["components"].append({"id": "events", "title": "Events", "kind": "card", "size": "poker",
                                   "data": "events.json", "template": "mygame/event", "back": "mygame/back"})
    (game_dir / "game.json").write_text(json.dumps(manifest, indent=2))
    deck = json.loads((game_dir / "deck.json").read_text())
    deck["component"] = "events"
    (game_dir / "events.json").write_text(json.dumps(deck, indent=2))
    (tpl_dir / "event.json").write_text((tpl_dir / "card.json").read_text())
    return root, tmp_path / "out"


def test_watch_once_rebuilds_only_what_changed(tmp_path: Path) -> None:
    from pnp.input.project import DataRoot
    from pnp.pipeline.watch import Watch

    root, out = _two_deck_game(tmp_path)
    state = Watch(DataRoot(root), "mygame", out)
    lines = state.poll()
    assert [ln.split(":")[0] for ln in lines] == ["rebuilt deck", "rebuilt events", "rebuilt contents"], lines
    deck_pdf, events_pdf = out / "mygame" / "deck.pdf", out / "mygame" / "events.pdf"
    stamps = {p: p.stat().st_mtime_ns for p in (deck_pdf, events_pdf)}
    assert state.poll() == []  # nothing changed: nothing checked, nothing written

    # A template of one component: only that component is rebuilt.
    tpl = root / "templates" / "mygame" / "event.json"
    tpl.write_text(tpl.read_text().replace('"stroke_width": 1.5', '"stroke_width": 3'))
    lines = state.poll()
    # (the contents sheet is rewritten too: it lists each component's data version)
    assert [ln for ln in lines if ln.startswith("rebuilt") and "contents" not in ln] == \
        [f"rebuilt events: {events_pdf} (3 pieces, 2 pages)"], lines
    assert deck_pdf.stat().st_mtime_ns == stamps[deck_pdf]
    assert events_pdf.stat().st_mtime_ns != stamps[events_pdf]

    # The shared style (in both chains): both rebuilt.
    style = root / "templates" / "mygame" / "style.json"
    style.write_text(style.read_text().replace("#b03a2e", "#2e5bb0ff"))
    lines = state.poll()
    assert sorted(ln.split(":")[0] for ln in lines if ln.startswith("rebuilt ") and "contents" not in ln) == \
        ["rebuilt deck", "rebuilt events"], lines

    # A data file: only its component.
    data = root / "card_data" / "mygame" / "deck.json"
    data.write_text(data.read_text().replace('"Scout"', '"Ranger"'))
    lines = state.poll()
    assert [ln.split(":")[0] for ln in lines if ln.startswith("rebuilt ") and "contents" not in ln] == \
        ["rebuilt deck"], lines

    # A change that gives identical output (a description): rendered, nothing written.
    events_mtime = events_pdf.stat().st_mtime_ns
    tpl.write_text(tpl.read_text().replace("Front of a", "The front of a"))
    lines = state.poll()
    assert lines == [f"events: unchanged ({events_pdf})"], lines
    assert events_pdf.stat().st_mtime_ns == events_mtime


def test_watch_once_reports_errors_and_carries_on(tmp_path: Path) -> None:
    from pnp.input.project import DataRoot
    from pnp.pipeline.watch import Watch

    root, out = _two_deck_game(tmp_path)
    state = Watch(DataRoot(root), "mygame", out)
    state.poll()
    data = root / "card_data" / "mygame" / "deck.json"
    good = data.read_text()
    data.write_text(good.replace('"name": "Scout"', '"nmae": "Scout"'))
    lines = state.poll()
    assert any("card_data/mygame/deck.json:" in ln and "did you mean 'name'?" in ln for ln in lines), lines
    assert lines[-1].startswith("mygame: ") and "nothing rebuilt" in lines[-1]
    assert state.poll() == []  # the same error is not printed again until a file changes
    # A failing rule is reported; the pieces are rebuilt anyway (the edit-look loop).
    data.write_text(good.replace('"id": "guard"', '"id": "guard", "copies": 2'))
    lines = state.poll()
    assert any(ln.startswith("FAIL deck-3: expected") for ln in lines), lines
    assert any(ln.startswith("rebuilt deck:") for ln in lines), lines
    data.write_text(good)
    assert any(ln.startswith("rebuilt deck:") for ln in state.poll())


@pytest.mark.parametrize("swap", ["templates", "file"])
def test_watch_notices_a_folder_or_file_swapped_for_a_link_out_of_the_root_at_once(swap: str,
                                                                                   tmp_path: Path) -> None:
    """templates/ (or one template) moved out of the data root and replaced by a link to it:
    the same files, times, sizes and inodes, yet the next poll checks the game and reports the
    link, as a build refuses it at once (attack 5, observation 12)."""
    from pnp.input.project import DataRoot
    from pnp.pipeline.watch import Watch

    root, out = _two_deck_game(tmp_path / "a")
    state = Watch(DataRoot(root), "mygame", out)
    assert any(ln.startswith("rebuilt deck") for ln in state.poll())
    assert state.poll() == []
    away = tmp_path / "elsewhere"
    if swap == "templates":
        (root / "templates").rename(away)  # same inodes and times, outside the root
        (root / "templates").symlink_to(away, target_is_directory=True)
    else:
        away.mkdir()
        tpl = root / "templates" / "mygame" / "event.json"
        tpl.rename(away / "event.json")
        tpl.symlink_to(away / "event.json")
    build = run_cli("build", "mygame", "--data", root, "--out", tmp_path / "out2")
    assert build.exit_code == 2 and " outside " in build.stderr, build.stderr
    lines = state.poll()
    assert lines and "nothing rebuilt" in lines[-1], lines
    assert any("link" in ln and " outside " in ln for ln in lines), lines


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _mtimes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in sorted(folder.rglob("*")) if p.is_file()}


def test_watch_writes_what_build_writes_with_the_same_options(tmp_path: Path) -> None:
    """Back offset, back scale, ink saver, A4: watch's PDFs and contents sheet (with its preflight
    summary) are byte for byte a build's, in the same folder; its record makes the build that
    follows up to date, writing nothing."""
    from pnp.input.project import DataRoot
    from pnp.pipeline.watch import Watch
    from pnp.plan.options import BuildOptions

    root, out = _two_deck_game(tmp_path)
    flags = ["--paper", "a4", "--ink-saver", "--back-offset", "0.8,-1.2", "--back-scale", "1.002"]
    opts = BuildOptions(paper="a4", ink_saver=True, back_offset=(0.8, -1.2), back_scale=(1.002, 1.002))
    state = Watch(DataRoot(root), "mygame", out, opts)
    lines = state.poll()
    folder = out / "mygame" / "ink-saver"
    assert [ln.split(":")[0] for ln in lines] == ["rebuilt deck", "rebuilt events", "rebuilt contents"], lines
    assert (folder / ".pnp-build.json").is_file() and not (out / "mygame" / "deck.pdf").exists()
    watched, stamps = _files(folder), _mtimes(folder)

    built = run_cli("build", "mygame", "--data", root, "--out", tmp_path / "clean", *flags)
    assert built.exit_code == 0, built.stderr
    clean = _files(tmp_path / "clean" / "mygame" / "ink-saver")
    assert {k: v for k, v in watched.items() if k.endswith(".pdf")} == \
        {k: v for k, v in clean.items() if k.endswith(".pdf")}
    again = run_cli("build", "mygame", "--data", root, "--out", out, *flags)
    assert again.exit_code == 0, again.stderr
    assert "mygame: up to date" in again.stdout and "pnp: wrote 0 PDFs" in again.stdout, again.stdout
    assert _mtimes(folder) == stamps  # nothing rewritten, not even the record

    # A new watch over a current build renders nothing, and says so.
    fresh = Watch(DataRoot(root), "mygame", out, opts)
    assert fresh.poll() == ["mygame: nothing to rebuild (no component's data, templates or fonts changed)"]
    assert _mtimes(folder) == stamps


def test_watch_with_failing_rules_renders_but_leaves_no_record(tmp_path: Path) -> None:
    """The pieces are redrawn while a rule fails, but no record vouches for them: the next build
    checks again and refuses (exit 1); once fixed, the record is back."""
    from pnp.input.project import DataRoot
    from pnp.pipeline.watch import Watch

    root, out = _two_deck_game(tmp_path)
    state = Watch(DataRoot(root), "mygame", out)
    state.poll()
    record = out / "mygame" / ".pnp-build.json"
    assert record.is_file()
    data = root / "card_data" / "mygame" / "deck.json"
    good = data.read_text()
    data.write_text(good.replace('"id": "guard"', '"id": "guard", "copies": 2'))
    lines = state.poll()
    assert any(ln.startswith("FAIL deck-3:") for ln in lines) and any(ln.startswith("rebuilt deck:") for ln in lines)
    assert not record.exists()
    refused = run_cli("build", "mygame", "--data", root, "--out", out)
    assert refused.exit_code == 1, refused.stdout + refused.stderr
    data.write_text(good)
    lines = state.poll()
    assert [ln.split(":")[0] for ln in lines] == ["rebuilt deck", "rebuilt contents"], lines
    assert record.is_file()
    assert "mygame: up to date" in run_cli("build", "mygame", "--data", root, "--out", out).stdout


def test_watch_command_loops_until_ctrl_c(tmp_path: Path, monkeypatch: Any) -> None:
    from pnp.pipeline.watch import Watch

    root, out = _two_deck_game(tmp_path)
    calls: list[int] = []

    def fake_once(state: Any) -> list[str]:
        calls.append(1)
        if len(calls) == 1:
            return ["rebuilt deck: x"]
        if len(calls) == 2:
            raise RuntimeError("boom")  # a bug does not stop the watcher either
        raise KeyboardInterrupt

    monkeypatch.setattr(Watch, "poll", fake_once)
    r = run_cli("watch", "mygame", "--data", root, "--out", out, "--interval", "0.05")
    assert r.exit_code == 130, r.output  # 128 + SIGINT, as every command Ctrl-C stops (it was 0)
    assert len(calls) == 3
    assert "rebuilt deck: x" in r.stdout and "internal error: RuntimeError: boom" in r.stdout
    assert "stopped watching" in r.stdout


def test_watch_command_takes_the_build_options_and_printer_profiles(tmp_path: Path, monkeypatch: Any) -> None:
    """`pnp watch --printer NAME` fills paper and back offset from the profile as `pnp build` does
    (the files it writes are the build's), and the command line still wins."""
    from pnp.pipeline.watch import Watch
    from pnp.plan.options import BuildOptions

    root, out = _two_deck_game(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))  # no profiles but this folder's
    (tmp_path / "pnp.toml").write_text('[printers.office]\nback_offset = [1.5, -0.5]\npaper = "a4"\n')
    seen: list[Any] = []

    def once(state: Any) -> list[str]:
        seen.append((state.opts, state.out, state.jobs))
        raise KeyboardInterrupt

    monkeypatch.setattr(Watch, "poll", once)
    r = run_cli("watch", "mygame", "--data", root, "--out", out, "--printer", "office", "--duplex", "short",
                "--ink-saver", "--one-per-page", "--token-cut", "circle", "--jobs", "3")
    assert r.exit_code == 130, r.output  # stopped by the Ctrl-C
    assert seen == [(BuildOptions(paper="a4", duplex="short", back_offset=(1.5, -0.5), ink_saver=True,
                                  print_shop=True, token_cut="circle"), out, 3)]
    r = run_cli("watch", "mygame", "--data", root, "--printer", "office", "--paper", "letter")
    assert seen[-1][0].paper == "letter" and seen[-1][0].back_offset == (1.5, -0.5)
    r = run_cli("watch", "mygame", "--data", root, "--printer", "home")
    assert r.exit_code == 2 and "no printer profile 'home'" in r.output and "Traceback" not in r.output
