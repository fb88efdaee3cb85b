"""SVG pictures of the displays (host_tools.virtual.display_svg) and the docs' pictures made from
situations played on the virtual box (host_tools.virtual.docs_images).

Pictures are read back: each segment polygon, point and colon dot is lit when it is filled
with the lit colour, so the masks a picture shows can be compared with what the firmware
drew.
"""
import xml.etree.ElementTree as ET

import pytest
from box import panels

from host_tools.virtual import docs_images
from host_tools.virtual import display_svg as svg
from host_tools.virtual.ht16k33 import VirtualHT16K33

NS = "{http://www.w3.org/2000/svg}"


def modules(text):
    """(masks, colon) of each display module in an SVG picture, left to right."""
    root = ET.fromstring(text)
    out = []
    for group in root.findall(NS + "g"):
        digits = group.findall(NS + "g")
        assert len(digits) == 4
        masks = []
        for digit in digits:
            shapes = digit.findall(NS + "polygon") + digit.findall(NS + "circle")
            assert len(shapes) == 8  # a..g and the point
            masks.append(sum(1 << bit for bit, s in enumerate(shapes) if s.get("fill") == svg.LIT))
        dots = group.findall(NS + "circle")
        assert len(dots) == 2
        lit = [d.get("fill") == svg.LIT for d in dots]
        assert lit[0] == lit[1]
        out.append((masks, lit[0]))
    return out


def labels(text):
    return [t.text for t in ET.fromstring(text).findall(NS + "text")]


def reading(masks, colon):
    chip = VirtualHT16K33()
    for pos, m in zip((0, 2, 6, 8), masks):
        chip.ram[pos] = m
    chip.ram[4] = 2 if colon else 0
    return chip.text()


def test_every_segment_point_and_colon_is_drawn_from_its_bit():
    for bit in range(8):
        for digit in range(4):
            masks = [0, 0, 0, 0]
            masks[digit] = 1 << bit
            assert modules(svg.picture([(masks, False, True)])) == [(masks, False)]
    assert modules(svg.picture([([0, 0, 0, 0], True, True)])) == [([0, 0, 0, 0], True)]
    every = ([0xFF] * 4, True, True)
    assert modules(svg.picture([every, every])) == [([0xFF] * 4, True)] * 2


def test_a_dark_display_shows_nothing_lit_and_says_so():
    text = svg.picture([([0xFF] * 4, True, False), ([0x3F] * 4, False, True)], ["a", "b"])
    assert modules(text) == [([0, 0, 0, 0], False), ([0x3F] * 4, False)]
    assert labels(text) == ["a (dark)", "b"]


def test_segment_shapes_are_where_the_letters_say():
    # a is the top bar, d the bottom one, g the middle: compare their heights
    def centre_y(points):
        ys = [float(p.split(",")[1]) for p in points.split()]
        return sum(ys) / len(ys)

    root = ET.fromstring(svg.picture([([0x7F, 0, 0, 0], False, True)]))
    digit = root.find(NS + "g").find(NS + "g")
    ys = [centre_y(p.get("points")) for p in digit.findall(NS + "polygon")]
    a, b, c, d, e, f, g = ys
    assert a < g < d
    assert b == f < c == e
    assert a < b < g < c < d


def test_pictures_are_valid_and_repeatable():
    shown = [([panels.mask(ch) for ch in "P3rF"], False, True)]
    text = svg.picture(shown, ["turn"], "caption & <escapes>")
    assert text == svg.picture(shown, ["turn"], "caption & <escapes>")
    root = ET.fromstring(text)
    assert root.tag == NS + "svg"
    assert labels(text) == ["turn", "caption & <escapes>"]
    assert [reading(m, c) for m, c in modules(text)] == ["P3rF"]


def test_from_chip_reads_the_ram():
    chip = VirtualHT16K33()
    chip.write(bytes([0x21]))
    chip.write(bytes([0x81]))
    chip.write(bytes([0, 0x73, 0, 0x4F | 0x80, 0, 2, 0, 0x50, 0, 0x71]))
    assert svg.from_chip(chip) == ((0x73, 0xCF, 0x50, 0x71), True, True)
    chip.plugged = False
    assert svg.from_chip(chip)[2] is False


# What each situation of the docs must show (as the chip model reads it).
EXPECTED = {
    "setup": ["PL 4", "5Et ", "    ", "    "],
    "entry": ["----", "P1 F", "3   ", "=9: 1"],
    "table": ["1-9 ", "P2 F", "c 14", "5t 1"],
    "error": ["----", "P1 F", "LEAd", "Err "],
    "revolution": ["5-7 ", "P2r0", "rEuo", "Hi 0"],
    "ranking": ["End ", "1 P1", "2 P2", "3 P3"],
}


@pytest.mark.parametrize("name", sorted(docs_images.SITUATIONS))
def test_the_docs_pictures_show_their_situation(name):
    text = docs_images.render(name)
    assert [reading(m, c) for m, c in modules(text)] == EXPECTED[name]
    with open(docs_images.path(name)) as f:
        assert f.read() == text, "run python -m host_tools.virtual.docs_images"


def test_check_finds_missing_and_stale_pictures(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(docs_images, "IMAGES", str(tmp_path))
    monkeypatch.setattr(docs_images, "SITUATIONS", {
        k: docs_images.SITUATIONS[k] for k in ("setup", "error")})
    assert docs_images.main(["--check"]) == 1
    assert list(tmp_path.iterdir()) == []
    assert docs_images.main([]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["display-error.svg",
                                                           "display-setup.svg"]
    assert docs_images.main(["--check"]) == 0
    (tmp_path / "display-error.svg").write_text("<svg/>")
    assert docs_images.main(["--check"]) == 1
    assert "display-error.svg" in capsys.readouterr().err
