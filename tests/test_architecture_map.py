"""docs/architecture.md's map "to change X, edit Y, then run Z" stays true: every file it names
exists, and every command is a real `matchbox` subcommand (down to the hall's actions), a
Makefile target, a module `python -m` runs, or tests that exist. One test a row, named by it."""
import argparse
import importlib.util
import os
import re

import pytest

from host_tools import cli
from host_tools.resources import CHECKOUT

MAP = os.path.join(CHECKOUT, "docs", "architecture.md")
WANTED = ("a rule of the game", "a display word or code", "a key", "a language's words",
          "the printed card", "the table pages", "the hall page", "the pin map and wiring",
          "the enclosure")
PATH = re.compile(r"^[\w./-]+(/|\.(py|json|md|html|js|css|svg|png|toml|txt))$")


def rows():
    """{what to change: (the spans of its edit column, those of its run column)}."""
    with open(MAP, encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Where to change what", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("to change", "---"):
            out[cells[0]] = tuple(re.findall(r"`([^`]+)`", c) for c in cells[1:])
    return out


ROWS = rows()


def targets():
    with open(os.path.join(CHECKOUT, "Makefile")) as f:
        return set(re.findall(r"^([\w-]+):", f.read(), re.M))


def subcommand(words):
    """Whether `matchbox WORDS...` (its words that are not options) starts with a real
    subcommand, and an action of it where it has actions (`hall serve`)."""
    parser = cli.build_parser()
    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return True
        if word not in subs[0].choices:
            return False
        parser = subs[0].choices[word]
    return not [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]


def problems(span):
    """What is wrong with one span of the map ([] when nothing)."""
    words = span.split()
    if words[0] in (".venv/bin/matchbox", ".venv/bin/python"):   # the checkout's own
        words[0] = words[0][len(".venv/bin/"):]
    if words[0] == "matchbox":
        if subcommand([w for w in words[1:] if not w.startswith("-")]):
            return []
        return ["not a matchbox subcommand: " + span]
    if words[0] == "make":
        return [] if words[1] in targets() else ["not a Makefile target: " + span]
    if words[:2] == ["python", "-m"]:
        return [] if importlib.util.find_spec(words[2]) else ["no module: " + span]
    if words[0].startswith(".venv/bin/"):
        return ["no such file: %s (in %s)" % (w, span) for w in words[1:]
                if "/" in w and not os.path.exists(os.path.join(CHECKOUT, w))]
    if PATH.match(span) and not os.path.exists(os.path.join(CHECKOUT, span)):
        return ["no such file: " + span]
    return []


def test_the_map_has_a_row_for_each_kind_of_change():
    assert [w for w in WANTED if w not in ROWS] == []
    assert all(edit and run for edit, run in ROWS.values())


@pytest.mark.parametrize("what", sorted(ROWS))
def test_every_file_and_command_of_the_row_is_real(what):
    edit, run = ROWS[what]
    assert [p for span in edit + run for p in problems(span)] == []


def test_a_file_or_command_that_is_gone_is_caught():
    assert problems("host_tools/no_such_module.py") == ["no such file: host_tools/no_such_module.py"]
    assert problems("matchbox nonesuch") == ["not a matchbox subcommand: matchbox nonesuch"]
    assert problems("matchbox hall nonesuch DIR") != []
    assert problems("matchbox hall serve hall") == problems("matchbox wiring --check") == []
    assert problems("make nonesuch") == ["not a Makefile target: make nonesuch"]
    assert problems("python -m host_tools.nonesuch") != []
    assert problems(".venv/bin/python -m host_tools.nonesuch") != []
    assert problems(".venv/bin/matchbox nonesuch") != []
    assert problems(".venv/bin/python -m host_tools.table_pages") == []
    assert problems(".venv/bin/pytest tests/test_nonesuch.py") != []
