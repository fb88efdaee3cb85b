"""`matchbox uf2 --micropython`: a maker's MicroPython UF2 with the box on its filesystem.

The UF2 files are made here (tests/uf2_helpers.py: blocks and binary info shaped like
MicroPython's); the littlefs image in the result is read back with littlefs-python and the box
on it boots on the unix port's virtual box as it would from a Pico's flash.
"""
import hashlib
import os
import struct
import subprocess
import sys

import pytest

from host_tools.resources import CHECKOUT as ROOT, PINMAP
from host_tools.device import image
from host_tools.virtual.box import VBox, setup_keys
from uf2_helpers import LAYOUTS, blocks, micropython_uf2


def matchbox(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "host_tools.cli"] + [str(a) for a in argv],
                          capture_output=True, text=True, cwd=cwd, timeout=300,
                          env=dict(os.environ, PYTHONPATH=ROOT))


@pytest.fixture(scope="module")
def box_files():
    return image.box_files()


@pytest.mark.parametrize("board", ["pico", "picow"])
def test_the_filesystem_is_where_the_firmwares_binary_info_puts_it(board):
    fw_blocks, facts = image.micropython_uf2(micropython_uf2(board))
    assert (facts["fs_address"], facts["fs_size"]) == LAYOUTS[board]
    assert facts["version"] == "v1.28.0"
    assert facts["board"] == {"pico": "pico", "picow": "pico_w"}[board]
    assert len(fw_blocks) == 64 * 4


@pytest.mark.parametrize("board", ["pico", "picow"])
def test_the_box_goes_on_littlefs_over_the_whole_filesystem_and_the_firmware_stays(board,
                                                                                  box_files):
    original = micropython_uf2(board)
    made, facts = image.with_box(original, files=box_files)
    assert facts["files"] == len(box_files)
    pages = dict(image.read_uf2(made))
    for addr, payload in image.read_uf2(original):
        assert pages.pop(addr) == payload            # the firmware byte for byte
    address, size = LAYOUTS[board]
    assert sorted(pages) == list(range(address, address + size, 256))   # every page of it
    fs = b"".join(pages[a] for a in sorted(pages))
    assert image.read_littlefs(fs) == box_files
    assert "main.py" in box_files and "lib/box/powerup.mpy" in box_files
    with open(PINMAP, "rb") as f:
        assert box_files["pinmap.json"] == f.read()


def test_the_box_on_that_littlefs_boots_as_the_firmware_folder_does(tmp_path, box_files):
    made, facts = image.with_box(micropython_uf2(), files=box_files)
    pages = dict(image.read_uf2(made))
    start = facts["fs_address"]
    fs = b"".join(pages[a] for a in range(start, start + facts["fs_size"], 256))
    flash = tmp_path / "flash"
    for path, data in image.read_littlefs(fs).items():
        (flash / path).parent.mkdir(parents=True, exist_ok=True)
        (flash / path).write_bytes(data)
    with VBox(flash=str(flash), code=str(flash)) as box, VBox() as twin:
        for one in (box, twin):
            assert one.boot() == "running"
            one.keys(setup_keys(3) + ["5", "PLAY", "PASS"])
            one.advance(1000)
        assert box.mode == "running" and box.displays() == twin.displays()
        assert box.journal_text() == twin.journal_text() != ""
    # the box keeps its games on that littlefs, beside the code it runs from
    assert (flash / "games" / "current.txt").is_file() and (flash / "lib" / "box").is_dir()


def _block(addr=0x10000000, number=0, count=1, family=image.RP2040_FAMILY, size=256,
           magic=image.UF2_MAGIC[0]):
    return (struct.pack("<8I", magic, image.UF2_MAGIC[1], image.UF2_FAMILY_FLAG, addr, size,
                        number, count, family) + bytes(476) + struct.pack("<I", image.UF2_END))


@pytest.mark.parametrize("data, reason", [
    (b"", "not a UF2 file"),
    (b"hello" * 100, "not a UF2 file"),
    (_block(magic=0), "no UF2 magic"),
    (_block(family=0xADA52840), "not for the RP2040"),
    (_block(size=476), "payload of 476 bytes"),
    (_block(count=2), "cut short"),
    (_block() + _block(number=0), "numbered 0 of 1"),
    (micropython_uf2(family=0xE48BFF59), "not for the RP2040 .*0xe48bff59"),
    (blocks([(0x20000000, bytes(256))]), "outside the Pico's flash"),
    (micropython_uf2(info=False), "not MicroPython: it carries no binary info"),
    (micropython_uf2(program="blink"), "not MicroPython: its binary info names the program 'blink'"),
    (micropython_uf2(program=None), "names the program nothing"),
    (micropython_uf2(drives=[]), "cannot be located: its binary info declares 0 block devices"),
    (micropython_uf2(drives=[("a", 0x100A0000, 4096 * 8), ("b", 0x100B0000, 4096 * 8)]),
     "declares 2 block devices"),
    (micropython_uf2(drives=[("MicroPython", 0x100A0100, 1408 * 1024)]), "not whole 4 KB blocks"),
    (micropython_uf2(drives=[("MicroPython", 0x101A0000, 1408 * 1024)]),
     "not whole 4 KB blocks in the Pico's flash"),
    (micropython_uf2(extra_blocks=[(0x100A0000, bytes(256))]), "writes into its own filesystem"),
    (micropython_uf2(extra_blocks=[(0x10000100, bytes(256))]),
     "is damaged: blocks 1 and 256 both write 0x10000100"),
    (blocks([(0x10000000, bytes(256)), (0x10000000, b"\x01" * 256)]),
     "is damaged: blocks 0 and 1 both write 0x10000000"),
])
def test_what_is_not_micropython_for_the_rp2040_is_refused_with_the_reason(data, reason):
    with pytest.raises(image.ImageError, match=reason):
        image.with_box(data, "x.uf2", files={"main.py": b""})


def test_a_box_too_large_for_the_filesystem_is_refused():
    small = micropython_uf2(drives=[("MicroPython", 0x101F0000, 4096 * 4)])
    with pytest.raises(image.ImageError, match="do not fit a filesystem of 16 KB"):
        image.with_box(small, files={"big.bin": bytes(64 * 1024)})


def test_matchbox_uf2_writes_the_file_and_says_it_replaces_the_games(tmp_path, box_files):
    (tmp_path / "RPI_PICO_W-v1.28.0.uf2").write_bytes(micropython_uf2("picow"))
    done = matchbox("uf2", "--micropython", "RPI_PICO_W-v1.28.0.uf2", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = tmp_path / "matchbox-RPI_PICO_W-v1.28.0.uf2"
    data = out.read_bytes()
    lines = done.stdout.splitlines()
    assert lines[0] == "wrote %s: %d bytes, sha256 %s" % (out.name, len(data),
                                                          hashlib.sha256(data).hexdigest())
    assert lines[1] == ("MicroPython v1.28.0 for pico_w with the box on its filesystem: %d files "
                        "in littlefs at 0x1012c000 (848 KB)" % len(box_files))
    assert "REPLACES every file on the Pico, games included" in lines[2]
    assert "`matchbox flash`, which keeps them" in lines[2]
    again = matchbox("uf2", "--micropython", "RPI_PICO_W-v1.28.0.uf2", cwd=tmp_path)
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr == ("matchbox uf2: cannot write %s: it exists (--force replaces it)\n"
                            % out.name)
    forced = matchbox("uf2", "--micropython", "RPI_PICO_W-v1.28.0.uf2", "-o", "box.uf2",
                      cwd=tmp_path)
    assert forced.returncode == 0 and (tmp_path / "box.uf2").read_bytes() == data
    assert sorted(os.listdir(tmp_path)) == ["RPI_PICO_W-v1.28.0.uf2", "box.uf2", out.name]


@pytest.mark.parametrize("argv, files, words", [
    ((), {}, ["--micropython: give the MicroPython UF2 for your board (v1.28.0 or later)",
              "https://micropython.org/download/RPI_PICO/ (Pico)",
              "https://micropython.org/download/RPI_PICO_W/ (Pico W)"]),
    (("--micropython", "none.uf2"), {}, ["cannot read none.uf2", "no such file"]),
    (("--micropython", "notes.txt"), {"notes.txt": b"hello\n"}, ["notes.txt is not a UF2 file"]),
    (("--micropython", "old.uf2"), {"old.uf2": micropython_uf2(version="v1.27.0")},
     ["old.uf2 is MicroPython v1.27.0, and the box needs v1.28.0 or later: download it"]),
    (("--micropython", "app.uf2"), {"app.uf2": micropython_uf2(program="blink")},
     ["app.uf2 is not MicroPython"]),
    (("--micropython", "nofs.uf2"), {"nofs.uf2": micropython_uf2(drives=[])},
     ["nofs.uf2 is MicroPython whose filesystem cannot be located"]),
    (("--micropython", "twice.uf2"),
     {"twice.uf2": micropython_uf2(extra_blocks=[(0x10000000, b"\x01" * 256)])},
     ["twice.uf2 is damaged: blocks 0 and 256 both write 0x10000000"]),
])
def test_matchbox_uf2_slips_are_one_line_and_exit_2(tmp_path, argv, files, words):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    done = matchbox("uf2", *argv, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    line = done.stderr
    assert line.count("\n") == 1 and line.startswith("matchbox uf2: "), line
    assert all(w in line for w in words), (words, line)
    assert sorted(os.listdir(tmp_path)) == sorted(files)   # nothing written
