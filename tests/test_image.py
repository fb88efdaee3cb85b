"""The firmware images a maker gets (`make uf2`): for the Pico and for the Pico W, the board's
base UF2 with the box's ROMFS image in its partition, as one UF2 file; and the UF2 reader
that refuses what is not one."""
import hashlib
import os
import shutil
import struct
import subprocess
import sys

import pytest

from host_tools.resources import CHECKOUT as ROOT, FIRMWARE
from host_tools.device import build, image


@pytest.fixture(scope="module", params=image.BOARDS)
def made(request):
    board = request.param
    data, facts = image.make_uf2(board=board)
    return data, facts, image.base_info(image.base_files(board)[1]), board


def test_the_image_is_the_base_plus_the_romfs_image_at_the_partition(made):
    data, facts, info, board = made
    blocks = image.read_uf2(data)
    with open(image.base_files(board)[0], "rb") as f:
        base = image.read_uf2(f.read())
    at, size = info["romfs_address"], info["romfs_size"]
    inside = [(a, p) for a, p in blocks if at <= a < at + size]
    outside = [(a, p) for a, p in blocks if not at <= a < at + size]
    assert sorted(outside) == sorted(base)   # the base, byte for byte
    romfs = b"".join(p for _a, p in sorted(inside))[:facts["romfs_bytes"]]
    assert [a for a, _p in sorted(inside)] == list(range(at, at + len(inside) * 256, 256))
    assert romfs.startswith(image.ROMFS_HEADER)
    assert image.romfs_size(romfs[:16]) == len(romfs) == facts["romfs_bytes"]
    assert hashlib.sha256(romfs).hexdigest() == facts["romfs_sha256"]
    assert image.romfs_in_uf2(data, info) == romfs
    # every block numbered in order, each saying how many there are
    for n in range(0, len(data), 512):
        number, count = struct.unpack_from("<2I", data, n + 20)
        assert (number, count) == (n // 512, len(data) // 512)


def test_the_romfs_image_holds_every_box_module_as_mpy_and_the_pin_map_not_main(made, tmp_path):
    _data, facts, _info, _board = made
    names = [name for name, _sha in facts["files"]]
    staged = build.stage(str(tmp_path))
    want = sorted(name for name, _sha in staged if name not in ("main.py", "boot.py"))
    assert sorted(names) == want
    assert "pinmap.json" in names and "main.py" not in names
    assert all(n.endswith(".mpy") for n in names if n.startswith("lib/"))   # the modules
    romfs = image.romfs_in_uf2(made[0], made[2])
    for name in names:   # each file's bytes stand in the image verbatim (executed in place)
        with open(tmp_path / name, "rb") as f:
            assert f.read() in romfs, name


def test_make_uf2_writes_the_same_bytes_on_every_run(tmp_path, made):
    out = tmp_path / "dist" / "box.uf2"
    proc = subprocess.run([sys.executable, "-m", "host_tools.device.image", "-o", str(out),
                           "--board", made[3]], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "sha256" in proc.stdout
    assert out.read_bytes() == made[0]


def test_a_base_that_is_not_the_one_described_is_refused(tmp_path):
    bad = tmp_path / "base.uf2"
    data = bytearray(open(image.BASE_UF2, "rb").read())
    data[600] ^= 1
    bad.write_bytes(bytes(data))
    with pytest.raises(image.ImageError, match="base.json says"):
        image.make_uf2(base_uf2=str(bad))


def test_a_romfs_image_larger_than_the_partition_is_refused(tmp_path):
    root = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, root, ignore=shutil.ignore_patterns("board", "__pycache__"))
    os.remove(root / "pinmap.json")
    shutil.copyfile(os.path.join(FIRMWARE, "pinmap.json"), root / "pinmap.json")
    (root / "big.bin").write_bytes(os.urandom(image.base_info()["romfs_size"]))
    with pytest.raises(image.ImageError, match="the partition holds"):
        image.make_uf2(root=str(root))


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
])
def test_what_is_not_an_rp2040_uf2_is_refused_with_the_reason(data, reason):
    with pytest.raises(image.ImageError, match=reason):
        image.read_uf2(data, "x.uf2")


def test_the_pico_and_pico_w_images_carry_the_same_box_code_each_in_its_own_partition():
    pico, pico_facts = image.make_uf2(board="pico")
    picow, picow_facts = image.make_uf2(board="picow")
    info = {b: image.base_info(image.base_files(b)[1]) for b in image.BOARDS}
    assert info["pico"]["romfs_address"] == 0x10080000
    assert info["picow"]["romfs_address"] == 0x1010C000   # below the Pico W's littlefs
    romfs = image.romfs_in_uf2(pico, info["pico"])
    assert romfs and image.romfs_in_uf2(picow, info["picow"]) == romfs
    assert picow_facts["romfs_sha256"] == pico_facts["romfs_sha256"]
    # read with the other board's layout, neither image has a ROMFS image there
    assert image.romfs_in_uf2(picow, info["pico"]) is None
    assert image.romfs_in_uf2(pico, info["picow"]) is None
    # the Pico W's code is bigger (the CYW43 firmware) and still ends below its partition
    with open(image.base_files("picow")[0], "rb") as f:
        base_top = max(a + len(p) for a, p in image.read_uf2(f.read()))
    assert 0x10080000 < base_top <= info["picow"]["romfs_address"]


def test_make_uf2_writes_every_boards_image_and_o_takes_one(tmp_path):
    proc = subprocess.run([sys.executable, "-c",
                           "import sys; from host_tools.device import image; "
                           "image.DIST = sys.argv[1]; sys.exit(image.main([]))", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["matchbox-pico.uf2", "matchbox-picow.uf2"]
    assert "for picow" in proc.stdout and "for pico " in proc.stdout
    for board in image.BOARDS:
        assert (tmp_path / ("matchbox-%s.uf2" % board)).read_bytes() == image.make_uf2(board=board)[0]
    both = subprocess.run([sys.executable, "-m", "host_tools.device.image", "-o",
                           str(tmp_path / "x.uf2"), "--board", "pico", "--board", "picow"],
                          capture_output=True, text=True, cwd=ROOT)
    assert both.returncode == 2 and "one --board" in both.stderr


def test_matchbox_uf2_board_picow_writes_the_pico_w_image(tmp_path):
    def uf2(*argv):
        return subprocess.run([sys.executable, "-m", "host_tools.cli", "uf2"] + list(argv),
                              capture_output=True, text=True, cwd=tmp_path)
    proc = uf2("--board", "picow")
    assert proc.returncode == 0, proc.stderr
    assert "wrote matchbox-picow.uf2" in proc.stdout and "Pico W in" in proc.stdout
    assert (tmp_path / "matchbox-picow.uf2").read_bytes() == image.make_uf2(board="picow")[0]
    proc = uf2("-o", "box.uf2")   # the Pico's by default
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "box.uf2").read_bytes() == image.make_uf2(board="pico")[0]
    proc = uf2("--board", "pico2")
    assert proc.returncode == 2 and "invalid choice: 'pico2'" in proc.stderr


def test_stock_micropython_carries_no_box_code(made):
    blocks = image.read_uf2(made[0])
    at = made[2]["romfs_address"]
    stock_like = image.write_uf2([(a, p) for a, p in blocks if a < at])
    assert image.romfs_in_uf2(stock_like, made[2]) is None
