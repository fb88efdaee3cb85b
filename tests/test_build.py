"""host_tools.device.build: every firmware module compiles for the Pico, errors name file and line,
staging maps the tree onto the board's layout, package.json matches firmware/."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from host_tools.resources import CHECKOUT as ROOT, FIRMWARE
from host_tools.device import build


def _run_check(*extra):
    return subprocess.run([sys.executable, "-m", "host_tools.device.build", "--check"] + list(extra),
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_every_firmware_module_compiles():
    proc = _run_check()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = re.fullmatch(r"mpy-cross: (\d+) modules compiled for armv6m \((\d+) bytes of \.mpy\)\n", proc.stdout)
    assert m, proc.stdout
    modules = [p for p in build.firmware_files(FIRMWARE) if p.endswith(".py")]
    assert int(m.group(1)) == len(modules) > 0
    assert int(m.group(2)) > 0


def test_broken_module_is_named_with_its_line(tmp_path):
    root = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, root)  # symlinks become plain copies
    _write(str(root / "lib" / "box" / "broken.py"), '"""Broken on purpose."""\nx = 1\ndef f(:\n    pass\n')
    _write(str(root / "lib" / "tycoon" / "bad2.py"), "y = 2\n\n\nreturn y\n")
    proc = _run_check("--root", str(root))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert any(re.fullmatch(r"firmware/lib/box/broken\.py:3: SyntaxError: .+", ln) for ln in lines), proc.stdout
    assert "firmware/lib/tycoon/bad2.py:4: SyntaxError: 'return' outside function" in lines, proc.stdout
    assert not any("game.py" in ln for ln in lines)  # the good modules are not reported


def _tree(tmp_path):
    root = tmp_path / "firmware"
    _write(str(root / "main.py"), "import box.hello\n")
    _write(str(root / "boot.py"), "pass\n")
    _write(str(root / "lib" / "box" / "__init__.py"), "")
    _write(str(root / "lib" / "box" / "hello.py"), "X = 42\n")
    _write(str(root / "lib" / "tycoon" / "rules.py"), "def cost(n):\n    return n * 2\n")
    _write(str(root / "lib" / "box" / "__pycache__" / "hello.cpython-311.pyc"), "junk")
    _write(str(tmp_path / "hardware" / "pinmap.json"), '{"sda": 4}\n')
    os.symlink(os.path.join("..", "hardware", "pinmap.json"), str(root / "pinmap.json"))
    return root


def test_stage_maps_paths(tmp_path):
    root = _tree(tmp_path)
    out = tmp_path / "out"
    staged = build.stage(str(out), root=str(root))
    names = [name for name, _ in staged]
    assert names == ["boot.py", "lib/box/__init__.mpy", "lib/box/hello.mpy", "lib/tycoon/rules.mpy",
                     "main.py", "pinmap.json"]
    for name, digest in staged:
        path = out / name
        assert not path.is_symlink()
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert (out / "pinmap.json").read_text() == '{"sda": 4}\n'
    assert (out / "main.py").read_text() == "import box.hello\n"
    header = build.mpy_header((out / "lib/box/hello.mpy").read_bytes())
    assert header["version"] == build.mpy_version()[0]
    assert header["arch"] is None  # plain bytecode: loads whatever the CPU
    assert not (out / "lib/box/__pycache__").exists()


def test_stage_source_keeps_py(tmp_path):
    root = _tree(tmp_path)
    out = tmp_path / "out"
    staged = dict(build.stage(str(out), source=True, root=str(root)))
    assert sorted(staged) == ["boot.py", "lib/box/__init__.py", "lib/box/hello.py", "lib/tycoon/rules.py",
                              "main.py", "pinmap.json"]
    assert (out / "lib/tycoon/rules.py").read_bytes() == (root / "lib/tycoon/rules.py").read_bytes()


def test_stage_reports_every_failure(tmp_path):
    root = _tree(tmp_path)
    _write(str(root / "lib" / "box" / "bad.py"), "def (\n")
    with pytest.raises(build.BuildError) as info:
        build.stage(str(tmp_path / "out"), root=str(root))
    assert [(e[0], e[1]) for e in info.value.errors] == [("firmware/lib/box/bad.py", 1)]


def test_mpy_version_matches_mpy_cross_banner():
    banner = subprocess.run([build.find_mpy_cross(), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"mpy v(\d+)\.(\d+)", banner)
    assert m, banner
    assert build.mpy_version() == (int(m.group(1)), int(m.group(2)))


def test_mpy_header_decodes_native_arch():
    assert build.mpy_header(b"M\x06\x13\x1f") == {"version": 6, "sub_version": 3, "arch": "armv6m",
                                                   "small_int_bits": 31}
    with pytest.raises(ValueError):
        build.mpy_header(b"C\x06\x00\x1f")


def test_package_json_lists_exactly_the_firmware_files():
    with open(os.path.join(ROOT, "package.json")) as f:
        text = f.read()
    manifest = json.loads(text)
    dests = [dest for dest, _ in manifest["urls"]]
    assert sorted(dests) == build.firmware_files(FIRMWARE), \
        "package.json is out of date: run `python -m host_tools.device.build --package-json`"
    for dest, url in manifest["urls"]:
        with open(os.path.join(ROOT, *url.split("/")), "rb") as src, \
                open(os.path.join(FIRMWARE, *dest.split("/")), "rb") as fw:
            assert src.read() == fw.read(), dest
        assert not os.path.islink(os.path.join(ROOT, *url.split("/"))), url
    assert text == build.package_json_text(), \
        "package.json is out of date: run `python -m host_tools.device.build --package-json`"
