"""packc for agents that build packs (issue 25): its skill file, the plan in pieces, a choice file."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

import packc
from packc.cli import main
from packc.listing import Query, list_plan

ROOT = Path(__file__).resolve().parents[2]
CLINIC = ROOT / "specs" / "clinic.yaml"
GITHUB = ROOT / ".corpus" / "node_modules" / "@octokit" / "openapi" / "generated" / "api.github.com.json"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --- the skill file ---------------------------------------------------------------------------------


def test_the_skill_file_is_in_the_agent_skills_format() -> None:
    text = packc.skill_text()
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match
    front = dict(line.split(": ", 1) for line in match.group(1).splitlines())
    assert set(front) == {"name", "description"}
    assert front["name"] == "packc" and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", front["name"])
    assert len(front["name"]) <= 64 and 0 < len(front["description"]) <= 1024
    assert len(text.splitlines()) < 100  # a short body


def test_skill_prints_and_installs_and_refuses_to_overwrite_another_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "skill")
    assert code == 0 and out == packc.skill_text()
    code, out, _ = _run(capsys, "skill", "--install", str(tmp_path))
    target = tmp_path / "packc" / "SKILL.md"
    assert code == 0 and target.read_text(encoding="utf-8") == packc.skill_text()
    assert _run(capsys, "skill", "--install", str(tmp_path))[0] == 0  # the same file: fine
    target.write_text("mine\n", encoding="utf-8")
    code, _, err = _run(capsys, "skill", "--install", str(tmp_path))
    assert code == 2 and "--force" in err and target.read_text(encoding="utf-8") == "mine\n"
    assert _run(capsys, "skill", "--install", str(tmp_path), "--force")[0] == 0
    assert target.read_text(encoding="utf-8") == packc.skill_text()


# --- the plan in pieces --------------------------------------------------------------------------------


def test_pages_hold_every_operation_exactly_once() -> None:
    whole = list_plan(CLINIC, Query(per_page=500))
    seen: list[str] = []
    for page in range(1, 6):
        listing = list_plan(CLINIC, Query(page=page, per_page=5))
        assert listing.total == whole.total and listing.pages == -(-whole.total // 5)
        seen += [f"{r.method} {r.path}" for r in listing.rows]
    assert sorted(seen) == sorted(f"{r.method} {r.path}" for r in whole.rows)
    assert len(seen) == len(set(seen)) == whole.total
    assert [r.rank for r in whole.rows] == list(range(1, whole.total + 1))


def test_filters_hold_together(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "plan", str(CLINIC), "--compact", "--json", "--care", "money")
    data = json.loads(out)
    assert code == 0 and data["columns"] == ["verb", "method", "path", "care", "summary", "rank"]
    assert [op[0] for op in data["operations"]] == ["invoices.payments.create"]
    assert all(op[3] == "money" for op in data["operations"])
    rows = list_plan(CLINIC, Query(resource="pets", search="search")).rows
    assert [r.verb for r in rows] == ["pets.search"]
    with pytest.raises(packc.UsageError):
        Query(per_page=0)


def test_plan_text_is_cleaned_and_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "api.yaml"
    doc.write_text(
        "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n"
        '      summary: "Read \\e]52;c;aGk=\\a <b>all</b> ```rm -rf```\\u202e"\n'
        "      responses: {'200': {description: ok}}\n",
        encoding="utf-8",
    )
    code, out, _ = _run(capsys, "plan", str(doc), "--compact", "--json")
    assert code == 0
    summary = json.loads(out)["operations"][0][4]
    assert "\x1b" not in summary and "<b>" not in summary and "```" not in summary and "\u202e" not in summary


@pytest.mark.skipif(not GITHUB.exists(), reason="the corpus is not installed")
def test_an_agent_finds_its_operations_in_github_in_a_few_kilobytes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(
        capsys, "plan", str(GITHUB), "--compact", "--json", "--search", "issue comment", "--care", "write"
    )
    data = json.loads(out)
    assert code == 0 and data["total"] > 1000 and len(out) < 4000
    assert ["POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"] in [
        op[1:3] for op in data["operations"]
    ]


# --- a choice ------------------------------------------------------------------------------------------


def test_a_choice_compiles_twice_and_round_trips_to_the_same_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    choice = tmp_path / "choice.json"
    names = ["pets.list", "pets.get", "appointments.create", "owners.messages.create", "owners.list"]
    code, _, _ = _run(
        capsys, "plan", str(CLINIC), *(f"--include={n}" for n in names), "--write-choice", str(choice)
    )
    stub = json.loads(choice.read_text(encoding="utf-8"))
    assert code == 0 and stub["kind"] == "openapi" and sorted(stub["verbs"]) == sorted(names)
    assert (tmp_path / stub["openapi"]["path"]).resolve() == CLINIC.resolve()
    for out in ("a", "b"):
        assert _run(capsys, "compile", str(choice), "-o", str(tmp_path / out))[0] == 0
    first = _tree(tmp_path / "a")
    assert first == _tree(tmp_path / "b")
    pack = tmp_path / "a" / stub["id"]
    assert sorted(json.loads((pack / "surface.json").read_text(encoding="utf-8"))["verbs"]) == sorted(names)
    # the pack's own manifest is a stub too: compiled again, it gives the identical pack
    assert _run(capsys, "compile", str(pack / "surface.json"), "-o", str(tmp_path / "c"))[0] == 0
    assert _tree(tmp_path / "c") == first


def test_a_choice_naming_no_operation_stops_with_close_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    choice = tmp_path / "choice.json"
    choice.write_text(
        json.dumps(
            {"id": "clinic", "kind": "openapi", "openapi": {"path": str(CLINIC)}, "verbs": {"pets.lst": {}}}
        ),
        encoding="utf-8",
    )
    code, _, err = _run(capsys, "compile", str(choice), "-o", str(tmp_path / "out"))
    assert code == 2 and "'pets.list'" in err and not (tmp_path / "out").exists()


# --- the skill's workflow, as written ------------------------------------------------------------------


def test_every_command_the_skill_shows_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each ``packc`` line of SKILL.md's code blocks, with DOC, NAME, PACK and VERB filled in for the
    clinic document, succeeds (exit 0); the unconfirmed write returns its card."""
    fill = {
        "DOC": str(CLINIC),
        "NAME3": "pets.delete",
        "NAME2": "appointments.create",
        "NAME": "pets.list",
        "packs/PACK": str(tmp_path / "packs" / "pet-clinic"),
        "-o packs": f"-o {tmp_path / 'packs'}",
        "choice.json": str(tmp_path / "choice.json"),
        "VERB": "appointments.create",
        '{"name": "value"}': '{"pet_id": 1, "start": "2024-01-15T09:30:00Z", "end": "2024-01-15T10:00:00Z"}',
        "issue comment": "pets",
        "issues": "pets",
        '"issue"': '"pet"',
    }
    lines = [
        line.split("  #")[0].strip()
        for block in re.findall(r"```sh\n(.*?)```", packc.skill_text(), re.S)
        for line in block.splitlines()
        if line.startswith("packc ")
    ]
    assert len(lines) >= 8
    for line in lines:
        for key, value in fill.items():
            line = line.replace(key, value)
        argv = shlex.split(line)[1:]
        code, out, err = _run(capsys, *argv)
        if argv[0] == "call":
            envelope = json.loads(out)
            assert envelope["ok"] is False and envelope["error"]["code"] == "not_confirmed", envelope
            assert envelope.get("preview") or envelope["error"].get("preview"), envelope
        else:
            assert code == 0, (line, out, err)
        if argv[0] == "lint":
            assert " 0 error(s)" in out
