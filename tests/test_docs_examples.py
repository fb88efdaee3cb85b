"""The records shown in the docs are legal games."""
import os
import re

from tycoon import notation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_notation_page_opening_example_replays_cleanly():
    with open(os.path.join(ROOT, "docs", "notation.md")) as f:
        text = f.read()
    block = re.search(r"```\n(# Friday.*?)```", text, re.S).group(1)
    game, error = notation.load(block.splitlines())
    assert error is None
    assert len(game) == 5 and game.table == (3, 2, 2, 0)
