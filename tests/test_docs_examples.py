"""The docs agree with the code: the records shown are legal games, every error code is explained."""
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


def _section(path, title):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start:] if end < 0 else text[start:end]


def test_every_error_code_of_the_firmware_is_explained_on_the_table_pages_and_display_docs():
    from host_tools.terminal.words import firmware_errors
    display = _section(os.path.join("docs", "display.md"), "## Errors")
    pages = {}
    for lang in ("en", "de", "ja"):
        with open(os.path.join(ROOT, "docs", lang, "table.md"), encoding="utf-8") as f:
            pages[lang] = f.read()
    for text in firmware_errors().values():
        assert "`%s`" % text in display, text
        for lang, page in pages.items():
            assert "`%s`" % text in page, (lang, text)
