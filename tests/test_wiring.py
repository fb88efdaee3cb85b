"""hardware/wiring.svg is generated from the pin map and must be current and complete."""
import copy
import json
import os
import re
from argparse import Namespace
from xml.etree import ElementTree

from host_tools.commands import wiring
from host_tools.resources import FIRMWARE, HARDWARE

MAP = os.path.join(HARDWARE, "pinmap.json")


def load_map():
    with open(MAP) as f:
        return json.load(f)


def svg_texts(svg):
    root = ElementTree.fromstring(svg)
    return [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_committed_svg_is_up_to_date():
    assert wiring.check(), "hardware/wiring.svg is out of date: run `matchbox wiring -o hardware/wiring.svg`"
    assert wiring.run(Namespace(check=True)) == 0


def test_check_notices_a_stale_file(tmp_path):
    m = load_map()
    map_path = tmp_path / "pinmap.json"
    svg_path = tmp_path / "wiring.svg"
    map_path.write_text(json.dumps(m))
    assert not wiring.check(str(svg_path), str(map_path))  # missing
    wiring.write(str(svg_path), str(map_path))
    assert wiring.check(str(svg_path), str(map_path))
    m["buzzer"]["gpio"] = 26
    map_path.write_text(json.dumps(m))
    assert not wiring.check(str(svg_path), str(map_path))


def test_every_pin_and_address_of_the_map_is_drawn():
    m = load_map()
    with open(wiring.SVG_PATH) as f:
        texts = svg_texts(f.read())
    joined = "\n".join(texts)
    gpios = [m["i2c"]["sda"], m["i2c"]["scl"]] + m["keypad"]["rows"] + m["keypad"]["cols"]
    gpios += [b["gpio"] for b in m["buttons"]] + [m["buzzer"]["gpio"]]
    for g in gpios:
        # the header label of the pin and a wire/net label naming it
        assert texts.count("GP%d" % g) >= 2 or re.search(r"\b(SDA|SCL) GP%d\b" % g, joined), g
    for i, d in enumerate(m["displays"], 1):   # numbered 1-4, as every other page does
        assert "display %d   0x%02X (%d)" % (i, d["address"], d["address"]) in texts
    assert not any(t.startswith("display 0 ") for t in texts)
    for b in m["buttons"]:
        assert "%s button" % b["name"] in texts
    for row in m["keypad"]["legend"]:
        for ch in row:
            assert ch in texts
    for net in ("3V3", "VBUS", "GND"):
        assert net in texts
    assert "address jumpers bridged: A0+A1" in texts  # 0x73


def test_jumpers_for_each_address():
    assert [wiring.jumpers(a) for a in range(0x70, 0x78)] == [
        "none", "A0", "A1", "A0+A1", "A2", "A0+A2", "A1+A2", "A0+A1+A2"]


def test_other_maps_still_draw_every_pin():
    m = load_map()
    alt = copy.deepcopy(m)
    alt["i2c"] = {"id": 1, "sda": 26, "scl": 27, "freq": 100000}  # right side of the header
    alt["keypad"]["cols"] = [16, 17, 18, 19]  # keypad split across both sides
    alt["buttons"] = [{"name": n, "gpio": g} for n, g in
                      zip(("AS", "PLAY", "PASS", "DEL", "UNDO", "MENU", "G", "H"),
                          (0, 1, 2, 3, 10, 11, 12, 13))]
    alt["buzzer"] = None
    alt["displays"] = alt["displays"][:1]
    texts = svg_texts(wiring.render(alt))
    joined = "\n".join(texts)
    for g in (26, 27, 6, 7, 8, 9, 16, 17, 18, 19, 0, 1, 2, 3, 10, 11, 12, 13):
        assert "GP%d" % g in texts, g
    assert "piezo (passive), PWM" not in texts
    assert "display 1" in joined and "display 2" not in joined
    assert "I2C1 at 100 kHz" in joined


def test_firmware_map_is_a_link_to_the_hardware_map():
    link = os.path.join(FIRMWARE, "pinmap.json")
    assert os.path.islink(link)
    assert os.readlink(link) == "../hardware/pinmap.json"
    with open(link) as f:
        assert json.load(f) == load_map()


def test_readme_pin_table_matches_the_map():
    m = load_map()
    with open(os.path.join(HARDWARE, "README.md")) as f:
        rows = re.findall(r"^\| GP(\d+) \| (\w+) \|", f.read(), re.M)
    table = sorted((int(g), label) for g, label in rows)
    kp = m["keypad"]
    want = [(m["i2c"]["sda"], "SDA"), (m["i2c"]["scl"], "SCL"), (m["buzzer"]["gpio"], "BUZZER")]
    want += [(g, "ROW%d" % (i + 1)) for i, g in enumerate(kp["rows"])]
    want += [(g, "COL%d" % (i + 1)) for i, g in enumerate(kp["cols"])]
    want += [(b["gpio"], b["name"]) for b in m["buttons"]]
    assert table == sorted(want)
