"""The README is a front page and every page of ``docs/`` hangs from it.

README.md stays at most 300 lines and links every ``docs/*.md`` directly; every relative
link and image in the README and in ``docs/`` names a file that exists, and an anchor a
heading there (GitHub's heading ids); every ``docs/<page>.md`` the code or the tests cite
exists, with the section they name; the sections the service's own sentences send an
operator to ("README's 'Running a club server'") are headings of the README; the two set-up
commands are the ones a fresh clone runs; and the docs speak of the product, not of how it
was made.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

FENCE = re.compile(r"^ *```.*?^ *```", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")
#: ``[text](target)`` and ``![alt](target)``; a target has no spaces (an optional "title" aside).
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6}) +(.+?) *#*$", re.M)


def unfenced(text: str) -> str:
    """``text`` without its fenced blocks (a ``# 409`` comment in an example is no heading);
    lines are kept."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def prose(text: str) -> str:
    """``text`` without its fenced blocks and code spans (a ``[Game "toepen"]`` in an example
    is no link); lines are kept."""
    return CODE.sub("", unfenced(text))


def slug(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading id of ``path``, with GitHub's ``-1``, ``-2`` … for repeated headings."""
    seen: dict[str, int] = {}
    found = set()
    for match in HEADING.finditer(unfenced(path.read_text(encoding="utf-8"))):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def headings(path: Path) -> list[str]:
    """The text of every heading of ``path``, as it reads (a cited section may be its start:
    "Layers", "The game engine interface")."""
    return [match.group(2) for match in HEADING.finditer(unfenced(path.read_text(encoding="utf-8")))]


def links(path: Path) -> list[tuple[int, str]]:
    """``(line, target)`` of every link and image in ``path``'s prose."""
    text = prose(path.read_text(encoding="utf-8"))
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in LINK.finditer(text)]


def relative(target: str) -> bool:
    return not re.match(r"[a-z][a-z0-9+.-]*:", target, re.I)


def test_the_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300


def test_there_are_docs_to_link():
    names = {path.name for path in DOCS}
    assert names >= {"api.md", "architecture.md", "club-server.md", "decisions.md", "disputes.md",
                     "export.md", "histories.md", "pages.md", "performance.md", "rules-and-options.md"}


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_every_doc_is_linked_from_the_readme(doc):
    targets = {(README.parent / target.split("#")[0]).resolve() for _, target in links(README)
               if relative(target) and not target.startswith("#")}
    assert doc.resolve() in targets, f"README.md does not link docs/{doc.name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_every_relative_link_resolves(page):
    broken = []
    for line, target in links(page):
        if not relative(target):
            continue
        name, _, anchor = target.partition("#")
        path = (page.parent / name).resolve() if name else page.resolve()
        if not path.is_file():
            broken.append(f"{page.name} line {line}: {target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{page.name} line {line}: {target}: no heading with that id in {path.name}")
    assert broken == []


def test_the_link_checker_finds_a_broken_link_and_a_broken_anchor(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## What if…: forks\n\n## Notes\n\n## Notes\n", encoding="utf-8")
    page.write_text("[ok](other.md#what-if-forks) [ok](other.md#notes-1) ![x](missing.png)\n"
                    "[bad](other.md#nowhere) `[not a link](nowhere.md)`\n"
                    "```\n[Game \"toepen\"](nowhere.md)\n# not a heading\n```\n", encoding="utf-8")
    found = links(page)
    assert [target for _, target in found] == ["other.md#what-if-forks", "other.md#notes-1", "missing.png",
                                               "other.md#nowhere"]
    assert anchors(tmp_path / "other.md") == {"other", "what-if-forks", "notes", "notes-1"}
    assert slug("At the club: `kibitz serve --lan`") == "at-the-club-kibitz-serve---lan"


def _sources() -> list[Path]:
    return [path for folder in ("engine", "schemas", "replays", "service", "tests", "bench")
            for path in sorted((ROOT / folder).rglob("*")) if path.suffix in (".py", ".js", ".html")]


def citations(text: str) -> list[tuple[str, str | None]]:
    """Each page of docs/ that ``text`` cites, with its section if one is named, as
    ``(page, section or None)``: ``docs/league.md, "A database that stops answering"``. A section
    name wrapped onto the next line of a docstring or of a comment (``#``, ``//``, ``*``) reads as
    one line."""
    return [(match.group(1), re.sub(r"\s*\n\s*(?:#|//|\*)?\s*", " ", match.group(2)) if match.group(2) else None)
            for match in re.finditer(r"docs/([\w-]+\.md)(?:, \"([^\"]+)\")?", text)]


def test_a_citation_wrapped_onto_the_next_line_reads_as_one_line():
    docs = "docs/"  # written apart, so that this file cites no page itself
    assert citations(f'({docs}tamper-evidence.md, "An edit made while the\nserver runs")') == \
        [("tamper-evidence.md", "An edit made while the server runs")]
    assert citations(f'# see {docs}league.md, "A database that\n    # stops answering"; {docs}api.md') == \
        [("league.md", "A database that stops answering"), ("api.md", None)]
    assert citations(f'// {docs}pages.md, "Recording on\n// the table page"') == \
        [("pages.md", "Recording on the table page")]


def test_every_docs_page_the_code_cites_exists_with_its_section():
    cited = []
    for source in _sources():
        text = source.read_text(encoding="utf-8")
        for name, section in citations(text):
            cited.append((source.relative_to(ROOT), name, section))
    assert cited, "the code cites no page of docs/ (docs/architecture.md, 'Layers' at least)"
    missing = [f"{source}: docs/{name}" + (f', "{section}"' if section else "") for source, name, section in cited
               if not (ROOT / "docs" / name).is_file()
               or (section and not any(heading.startswith(section) for heading in headings(ROOT / "docs" / name)))]
    assert missing == []


def test_the_readme_has_every_section_the_service_sends_people_to():
    cited = {match.group(1) for source in _sources()
             for match in re.finditer(r"README(?:'s|,) '([^']+)'", source.read_text(encoding="utf-8"))}
    assert "Running a club server" in cited
    assert {slug(section) for section in cited} <= anchors(README)


def test_the_two_set_up_commands_are_the_ones_a_fresh_clone_runs():
    text = README.read_text(encoding="utf-8")
    blocks = [m.group(1).strip() for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M)]
    assert blocks[:2] == [
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/kibitz serve",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
    ]
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg", encoding="utf-8")
    assert "kibitz = service.cli.main:main" in setup["options.entry_points"]["console_scripts"]
    assert "pytest" in setup["options.extras_require"]["test"]
    assert "-n 2" in setup["tool:pytest"]["addopts"]


#: Words about how or by whom Kibitz was made, which the docs leave out.
HISTORY = re.compile(r"\bissues? \d+|\(issue\b|\bthis session\b|\bearlier session\b|\bnew user found\b"
                     r"|\boutside test\b|\bits issue\b|\bdevelopers?\b", re.I)


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_the_docs_speak_of_the_product_only(page):
    text = page.read_text(encoding="utf-8")
    found = [f"{page.name} line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for m in HISTORY.finditer(text)]
    assert found == []
