"""The players' words (host_tools.words) against the firmware's tables, and the printed table card
(`matchbox card`): a PDF whose embedded fonts hold every character it sets, which poppler
renders page by page, in every language and paper size.

A code, key or setup item the firmware gains without words in every language fails here, and
the card refuses to draw (the monkeypatched tables below show it)."""
import ast
import io
import os
import re
import shutil
import subprocess
import warnings
import zlib

import pytest
from box import panels, keys, screens

from host_tools import cli, resources, words
from host_tools.commands import card


def setup_module_now():
    """box.setup as the words read it: the box lets the module go once a game starts from its
    menu (box.forget), so a module imported when this file was is not the one in use then."""
    return resources.firmware_module("box.setup")

PAPERS = [(lang, paper) for lang in words.LANGUAGES for paper in ("a4", "letter", "a5")]


def test_every_code_key_setup_item_and_word_of_the_firmware_has_words_in_every_language():
    assert words.missing() == []
    # the firmware's tables are what the words are keyed by, every entry of them
    assert {code for code, _ in words.codes()} == set(screens.errors())
    assert {code for code, _ in words.codes()} >= set(
        resources.firmware_module("tycoon.game")._CODES.split())
    assert [name for name in keys.NAMES if name not in panels.FACES] == words.key_rows()[1:7]
    assert words.setup_items()[:-1] == [label.decode() for label in setup_module_now()._LABELS]


@pytest.mark.parametrize("table,extra", [
    ("codes", "no-such-move"), ("keys", "SWAP"), ("setup", b"bL")])
def test_a_new_code_key_or_item_in_the_firmware_without_words_fails(monkeypatch, table, extra):
    if table == "codes":
        errors = dict(screens.errors(), **{extra: b"nouE"})
        monkeypatch.setattr(screens, "errors", lambda: errors)
    elif table == "keys":
        monkeypatch.setattr(keys, "NAMES", keys.NAMES + (extra,))
    else:
        setup = setup_module_now()
        monkeypatch.setattr(setup, "_LABELS", setup._LABELS + (extra,))
    name = extra.decode() if isinstance(extra, bytes) else extra
    for lang in words.LANGUAGES:
        assert any(line.startswith(lang + ":") and line.endswith(" " + name)
                   for line in words.missing()), (lang, words.missing())
        with pytest.raises(KeyError):
            card.content(lang)


# The seat that plays first, in each manual's own word (the manuals: dealer, Geber, 親), and
# words a translator might reach for instead.
DEALER = {"en": "dealer", "de": "Geber", "ja": "親"}
NOT_DEALER = {"en": ("leader",), "de": ("Anführer", "Ausspieler", "Vorhand"),
              "ja": ("リーダー", "ディーラー")}


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_the_first_player_has_the_manuals_word_everywhere(lang):
    w = words.words(lang)
    assert DEALER[lang] in w["setup_items"]["dL"]
    assert DEALER[lang] in w["code_rules"]["cannot-pass"]
    every = repr(w).lower()
    assert not [other for other in NOT_DEALER[lang] if other.lower() in every]


def test_the_english_docs_and_tools_say_dealer_too():
    """README, docs/, hardware/ and the host's words, as a reader of the English manual finds
    them (the record header's field is `dealer` as well)."""
    from host_tools.terminal import words as terminal_words
    from host_tools.reports import state_log
    root = resources.CHECKOUT
    paths = [os.path.join(root, "README.md"), os.path.join(root, "hardware", "README.md")]
    paths += [os.path.join(root, "docs", n) for n in os.listdir(os.path.join(root, "docs"))
              if n.endswith(".md")]
    paths += [os.path.join(root, "docs", "en", "table.md"), terminal_words.__file__,
              state_log.__file__, os.path.join(root, "host_tools", "event", "words.py")]
    for path in paths:
        with open(path, encoding="utf-8") as f:
            assert "leader" not in f.read().lower(), path
    assert "dealer" in terminal_words.status_lines("setup", None, "")[0]


def test_the_words_the_screens_draw_are_all_explained():
    """Every word box.screens puts on a display (its bytes constants) is in a display example,
    a status line or the refusal codes the card explains."""
    with open(os.path.join(resources.FIRMWARE_LIB, "box", "screens.py")) as f:
        tree = ast.parse(f.read())
    drawn = {node.value.decode() for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, bytes)
             and len(node.value) <= 4}
    shown = " ".join(words.DISPLAY_EXAMPLES + words.STATUS).replace("|", " ") + " " + \
        " ".join(text for _, text in words.codes())
    assert drawn and not [word for word in drawn if word not in shown]


def test_the_setup_items_are_drawn_as_a_new_box_shows_them():
    panels = resources.firmware_module("box.panels")
    menu = setup_module_now().Setup()
    for item, label in enumerate(words.setup_items()):
        menu.item = item
        buf = bytearray(panels.SIZE)
        menu.draw(buf, 0)
        assert card.glyphs(words.SETUP_SHOWN[label]) == (list(buf[:4]), bool(buf[4])), label


def test_the_displays_are_drawn_with_the_firmwares_glyphs():
    assert card.glyphs("3-9.1") == ([panels.mask("3"), panels.mask("-"), panels.mask("9") | panels.DP,
                                     panels.mask("1")], False)
    assert card.glyphs("=9: 1") == ([panels.mask("="), panels.mask("9"), 0, panels.mask("1")], True)
    for code, text in words.codes():
        masks, colon = card.glyphs(text)
        assert masks[:len(text)] == [panels.mask(ch) for ch in text] and not colon
    # the cost table is the engine's
    cards = resources.firmware_module("tycoon.cards")
    costs = card.content("en")["costs"]
    assert [(v, c) for v, c in enumerate(costs[3]) if c is not None] == cards.becomes(3)


def embedded_cmaps(pdf):
    """{character code} of every TrueType font embedded in the PDF (matplotlib writes no object
    streams, so each font's dictionary and its stream's start can be found in the bytes)."""
    from fontTools.ttLib import TTFont
    covered = set()
    refs = re.findall(rb"/FontFile2 (\d+) 0 R", pdf)
    assert refs, "no TrueType font embedded"
    for ref in refs:
        head = re.search(rb"\n%s 0 obj\s*<<.*?>>\s*stream\r?\n" % ref, pdf, re.S)
        raw = pdf[head.end():pdf.index(b"endstream", head.end())]
        covered |= set(TTFont(io.BytesIO(zlib.decompress(raw))).getBestCmap())
    return covered


def poppler():
    if not shutil.which("pdftoppm"):
        pytest.skip("pdftoppm is missing: apt-get install poppler-utils")


@pytest.mark.parametrize("lang,paper", PAPERS, ids=["%s-%s" % p for p in PAPERS])
def test_the_card_embeds_fonts_for_every_character_and_its_pages_render(tmp_path, lang, paper,
                                                                        capsys):
    out = tmp_path / ("card-%s.pdf" % lang)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # matplotlib warns of a glyph missing from its font
        assert cli.main(["card", "--lang", lang, "--paper", paper, "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    pdf = out.read_bytes()
    text = card.texts(card.content(lang))
    covered = embedded_cmaps(pdf)
    assert [ch for ch in set("".join(text)) if ch.strip() and ord(ch) not in covered] == []
    poppler()
    subprocess.run(["pdftoppm", "-r", "30", "-png", str(out), str(tmp_path / "page")],
                   check=True, capture_output=True, timeout=60)
    pages = sorted(p.name for p in tmp_path.glob("page-*.png"))
    assert pages == ["page-1.png", "page-2.png"]
    read = subprocess.run(["pdftotext", "-layout", str(out), "-"], check=True,
                          capture_output=True, text=True, timeout=60).stdout
    w = words.words(lang)
    for phrase in (w["title"], w["display_names"][3], w["code_rules"]["cannot-pass"][:12]):
        assert phrase.split()[0] in read, (phrase, read[:400])


def drawn(lang, side):
    """The texts one side of the A4 card draws: {text: its matplotlib Text}, and the page."""
    from matplotlib.figure import Figure
    c = card.content(lang)
    size = card.PAPERS["a4"]
    page = card.Page(Figure(figsize=(size[0] / 25.4, size[1] / 25.4)), size,
                     card.font_files(lang), 1.0, 12.0)
    side(page, c)
    texts = {}
    for t in page.ax.texts:
        texts.setdefault(t.get_text(), []).append(t)
    return texts, page


def is_bold(artists, bold):
    """In the bold font file, or (a font with one weight) with its outline stroked under it."""
    return any(t.get_fontproperties().get_file() == bold or t.get_path_effects() for t in artists)


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_every_key_is_set_bold_the_long_presses_too(lang):
    """A key's name is bold on the card in every language: in the bold font, or (Japanese has
    one weight) thickened by a stroke of its colour."""
    texts, page = drawn(lang, card.front)
    bold = card.font_files(lang)[1]
    for row in words.key_rows():
        assert is_bold(texts[words.key_label(row, lang)], bold), row
    assert [t.get_fontproperties().get_file() for t in texts["PLAY"]] == [bold]
    held = texts[words.key_label("DEL held", lang)]
    if lang == "ja":   # 長押し: IPAexGothic, stroked under the text, which stays text
        assert [bool(t.get_path_effects()) for t in held] == [True, False]
        assert held[0].get_zorder() < held[1].get_zorder()
    else:
        assert [t.get_fontproperties().get_file() for t in held] == [bold]


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_the_cost_tables_corner_says_values_across_and_cards_down(lang):
    w = words.words(lang)
    texts, page = drawn(lang, card.back)
    across, down = texts[card.ACROSS % w["value"]][-1], texts[card.DOWN % w["face"]][-1]
    assert "\u2192" in across.get_text() and "\u2193" in down.get_text()
    (ax, ay), (dx, dy) = across.get_position(), down.get_position()
    # one above the other, both ending over the cards' column, left of the values
    assert ay < dy and ax == dx and across.get_ha() == down.get_ha() == "right"
    head = page.margin + 0.13 * page.full
    assert head - 6 < ax < head
    assert not [t for t in texts if t.endswith("\u2192") and t != across.get_text()]


def test_a_japanese_glyph_the_font_lacks_is_refused_before_drawing(tmp_path, monkeypatch):
    monkeypatch.setitem(words.words("ja"), "power", "停電 \U0001F50C")
    with pytest.raises(Exception, match="font lacks"):
        card.write_pdf(str(tmp_path / "c.pdf"), "ja")
    assert not (tmp_path / "c.pdf").exists()


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_ref_speaks_the_language(lang, capsys):
    assert cli.main(["ref", "--lang", lang, "7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == words.words(lang)["ref_head"]
    assert lines[1].startswith("7 -> ") and "F(" not in lines[1]


def test_the_table_pages_in_docs_are_made_from_the_words_and_the_firmware():
    from host_tools import table_pages
    for lang in words.LANGUAGES:
        with open(table_pages.page_path(lang), encoding="utf-8") as f:
            assert f.read() == table_pages.page(lang), (
                "docs/%s/table.md is out of date: python -m host_tools.table_pages" % lang)
        text = table_pages.page(lang)
        for code, shown in words.codes():
            assert "`%s`" % shown in text
        assert "![" in text and "../images/card-%s.png" % lang in text


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_the_pictures_of_the_cards_are_current(lang, tmp_path):
    """Each picture was rendered from the PDF `matchbox card` writes now (its digest), and is
    both pages of it side by side."""
    from host_tools import table_pages
    pdf, digest = table_pages.card_pdf(lang, str(tmp_path))
    assert table_pages.picture_source(lang) == digest, (
        "docs/images/card-%s.png is out of date: python -m host_tools.table_pages" % lang)
    poppler()
    import matplotlib.image
    shown = matplotlib.image.imread(table_pages.picture_path(lang))[:, :, :3]
    assert shown.shape == table_pages.picture(pdf).shape
