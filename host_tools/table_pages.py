"""The table pages in docs/ (docs/en/table.md, docs/de/table.md, docs/ja/table.md) and the pictures
of the table card (docs/images/card-LANG.png), made from the same words and the same firmware
tables as the card itself (host_tools.words, `matchbox card`).

    python -m host_tools.table_pages           write the pages and the pictures
    python -m host_tools.table_pages --check   exit 1 when one is missing or out of date

A picture is the card's PDF rendered by poppler's pdftoppm, both pages side by side, and
carries the SHA-256 of that PDF (matplotlib writes the same bytes on every run); a picture
whose PDF would now come out different is out of date. (Its pixels are not compared: poppler's
versions differ in them.)
"""
import argparse
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

from host_tools import files, resources, words
from host_tools.commands import card
from host_tools.virtual.docs_images import refresh, report

DOCS = os.path.join(resources.CHECKOUT, "docs") if resources.CHECKOUT else None
NAMES = {"en": "English", "de": "Deutsch", "ja": "日本語"}
SHOWN = "0123456789AbCdEFGH"    # the values as the cards and the displays write them
DPI = 80
SOURCE = "Source"               # the PNG text that holds the SHA-256 of the card's PDF


def _code(shown):
    """A display's text as Markdown: `rEuo` `Hi 0` for two displays."""
    return " ".join("`%s`" % part.strip() for part in shown.split("|"))


def _row(*cells):
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def _table(head, rows):
    return "\n".join([_row(*head), _row(*["---"] * len(head))] + [_row(*r) for r in rows])


def page(lang):
    """The Markdown of one language's table page."""
    c = card.content(lang)   # the card's rows, set here as Markdown
    w = c["w"]
    cards = resources.firmware_module("tycoon.cards")
    other = " · ".join("[%s](../%s/table.md)" % (NAMES[o], o) for o in words.LANGUAGES
                       if o != lang)
    displays = [("%d %s" % (i + 1, name), shows, _code(example))
                for i, (example, name, shows) in enumerate(c["displays"])]
    keys = [("`%s`" % label, game, setup) for label, game, setup in c["keys"]]
    costs = []
    for face in range(cards.VALUES):
        options = cards.becomes(face)
        base = ["%s(%d)" % (SHOWN[v], c) for v, c in options if v < 16]
        extra = ["%s(%d)" % (SHOWN[v], c) for v, c in options if v >= 16]
        costs.append(("`%s`" % SHOWN[face], " ".join(base), " ".join(extra)))
    parts = [
        "# " + w["page_heading"],
        "<!-- Written by python -m host_tools.table_pages from host_tools/words.py and the "
        "firmware's tables: edit those, not this page. -->",
        "%s: %s" % (w["page_other"], other),
        w["page_intro"],
        "![%s](../images/card-%s.png)" % (w["sheet"], lang),
        "## " + w["displays"],
        _table((w["page_display"], w["page_means"], w["page_example"]), displays),
        w["entry"],
        "## " + w["keys"],
        _table((w["key"], w["in_game"], w["in_setup"]), keys),
        "## " + w["setup"],
        w["page_setup"],
        _table((w["page_shows"], w["page_means"]),
               [("`%s`" % shown, means) for shown, means in c["setup"]]),
        "## " + w["codes"],
        _table((w["page_code"], w["page_rule"]),
               [("`%s`" % text, rule) for text, rule in c["codes"]]),
        "## " + w["status"],
        _table((w["page_shows"], w["page_means"]),
               [(_code(shown), says) for shown, says in c["status"]]),
        "## " + w["costs"],
        w["order"],
        _table((w["face"], w["page_becomes"], w["page_with_gh"]), costs),
        "## " + w["page_power_title"],
        w["page_power"],
        "## " + w["page_hall_title"],
        w["page_hall"],
        re.sub(r"\(docs/([a-z-]+\.md)\)", r"([docs/\1](../\1))", w["page_more"]),
    ]
    return "\n\n".join(parts) + "\n"


def page_path(lang):
    return os.path.join(DOCS, lang, "table.md")


def picture_path(lang):
    return os.path.join(DOCS, "images", "card-%s.png" % lang)


def card_pdf(lang, folder):
    """The A4 card's PDF written into folder: (its path, the SHA-256 of its bytes)."""
    pdf = os.path.join(folder, "card-%s.pdf" % lang)
    card.write_pdf(pdf, lang, "a4")
    with open(pdf, "rb") as f:
        return pdf, hashlib.sha256(f.read()).hexdigest()


def picture(pdf):
    """Both pages of a card's PDF side by side, rendered by pdftoppm: an RGB array (0..1)."""
    import matplotlib.image
    import numpy
    if not shutil.which("pdftoppm"):
        raise RuntimeError("pdftoppm is missing: apt-get install poppler-utils")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(DPI), "-png", pdf, os.path.join(tmp, "page")],
                       check=True, capture_output=True, timeout=120)
        pages = [matplotlib.image.imread(os.path.join(tmp, "page-%d.png" % n))[:, :, :3]
                 for n in (1, 2)]
    gap = numpy.full((pages[0].shape[0], 16, 3), 0.82, dtype=pages[0].dtype)
    return numpy.concatenate([pages[0], gap, pages[1]], axis=1)


def picture_source(lang):
    """What a picture says it was rendered from (its PNG's Source text), or None."""
    from PIL import Image
    try:
        with Image.open(picture_path(lang)) as image:
            return image.text.get(SOURCE)
    except OSError:
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m host_tools.table_pages",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a page or picture is out of date")
    parser.add_argument("--pages-only", action="store_true", help="leave the pictures be")
    args = parser.parse_args(argv)
    if DOCS is None:
        print("table_pages: the docs are not here: run it in a checkout of the repository",
              file=sys.stderr)
        return 2
    import matplotlib.image
    stale = []
    for lang in words.LANGUAGES:
        if refresh(page_path(lang), page(lang), args.check):
            stale.append(page_path(lang))
        if args.pages_only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            pdf, digest = card_pdf(lang, tmp)
            if picture_source(lang) != digest:
                stale.append(picture_path(lang))
                if not args.check:
                    png = io.BytesIO()
                    matplotlib.image.imsave(png, picture(pdf), format="png",
                                            metadata={"Software": None, SOURCE: digest})
                    files.write_whole(picture_path(lang), png.getvalue())
    return report(stale, args.check, "host_tools.table_pages")

if __name__ == "__main__":
    sys.exit(main())
