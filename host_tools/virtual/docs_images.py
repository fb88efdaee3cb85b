"""Pictures of the box's displays for the docs: docs/images/display-*.svg.

    python -m host_tools.virtual.docs_images           write the pictures
    python -m host_tools.virtual.docs_images --check   exit 1 when one is missing or out of date

Each picture is a situation played on the virtual box (host_tools.virtual.box: the real firmware
under the MicroPython unix port) with the key words of `matchbox sim --headless`; the
displays' RAM right after the last key is drawn by host_tools.virtual.display_svg. Errors and
announcements stay on the displays for a moment only, so nothing waits after the last key.
"""
import argparse
import os
import sys

from host_tools import files, resources
from host_tools.virtual.board_link import GAP_MS
from host_tools.virtual.box import VBox, parse_keys, setup_keys
from host_tools.virtual.display_svg import from_chip, picture

# The docs live in the repository only: this tool runs in a checkout.
IMAGES = os.path.join(resources.CHECKOUT, "docs", "images") if resources.CHECKOUT else None

_GAME = " ".join(setup_keys(4))                  # 4 players, 14 cards each, 40 sticks
_SHORT = " ".join(setup_keys(3, hands=[1, 1, 1]))  # one card each: a game of two plays

# name -> (keys, labels of the four displays, caption)
SITUATIONS = {
    "setup": ("", ["setup item: players", "SEt: the menu is open", "blank", "blank"],
              "The setup menu on a new box: PL 4, four players"),
    "entry": (_GAME + " 3 AS 9", ["table: empty", "turn: P1, F strongest", "entry: a 3",
                                  "preview: =9, 1 stick"],
              "Keying 3 AS 9: the 3 plays as a 9, which costs one matchstick"),
    "table": (_GAME + " 3 AS 9 PLAY", ["table: one 9", "turn: P2, F strongest",
                                       "P2's cards: 14", "P2's sticks: 1"],
              "After P1's play: one card worth 9 on the table, P2 to act"),
    "error": (_GAME + " PASS", ["table: empty", "turn: P1, F strongest", "error code", "Err"],
              "PASS on an empty table: LEAd, the dealer cannot pass"),
    "revolution": (_GAME + " 7 7 7 7 1 AS 7 PLAY", ["table: five 7s", "turn: P2, revolution, 0",
                                               "rEuo: revolution", "Hi 0: 0 is strongest"],
                   "Five 7s (a 1 completed to a 7): a revolution, announced for a moment"),
    "ranking": (_SHORT + " 1 AS 7 PLAY 3 AS 9 PLAY", ["End", "1st: P1", "2nd: P2", "3rd: P3"],
                "The game is over: the final ranking"),
}


def render(name):
    """The SVG text of one situation, played on a fresh virtual box."""
    keys, labels, caption = SITUATIONS[name]
    with VBox() as box:
        box.boot()
        for kind, key, ms in parse_keys(keys):
            if kind == "wait":
                box.advance(ms)
            else:
                box.tap(key, ms, GAP_MS)
        if box.mode != "running":
            raise RuntimeError("the box stopped in situation %r:\n%s" % (
                name, "\n".join(box.console[-20:])))
        shown = [from_chip(box.chips[a]) for a in box.devices]
    return picture(shown, labels, caption)


def path(name):
    return os.path.join(IMAGES, "display-%s.svg" % name)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m host_tools.virtual.docs_images",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a picture is missing or out of date")
    args = parser.parse_args(argv)
    if IMAGES is None:
        print("docs_images: the docs are not here: run it in a checkout of the repository",
              file=sys.stderr)
        return 2
    stale = [path(name) for name in SITUATIONS if refresh(path(name), render(name), args.check)]
    return report(stale, args.check, "host_tools.virtual.docs_images")


def refresh(target, text, check):
    """Whether the file `target` lacks or differs from `text`; then, unless `check`, write it.
    (The docs' generated files: these pictures, the table pages of host_tools.table_pages.)"""
    try:
        with open(target, encoding="utf-8") as f:
            if f.read() == text:
                return False
    except OSError:
        pass
    if not check:
        files.write_whole(target, text)
    return True


def report(stale, check, tool):
    """Say which generated files were out of date (and written, unless `check`): the exit
    status, 1 when checking found one."""
    names = [os.path.relpath(p, resources.CHECKOUT) for p in stale]
    if check and stale:
        print("out of date (run python -m %s): %s" % (tool, ", ".join(names)), file=sys.stderr)
        return 1
    for name in names:
        print("wrote " + name)
    return 0

if __name__ == "__main__":
    sys.exit(main())
