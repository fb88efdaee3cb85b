"""`pipx install .` (and `pip install .`) build the wheel inside the checkout: the build leaves
no build/ folder there, which would hold a second copy of every module for grep to find
(setup.py builds in a temporary folder outside the tree, removed when the build ends)."""
import os
import shutil
import subprocess
import sys
import zipfile

from host_tools.resources import CHECKOUT

# What a pip build of the tree reads (pyproject.toml, setup.py, MANIFEST.in and the folders
# setup.py and the package data take files from).
TREE = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "THIRD-PARTY.md",
        "firmware", "hardware", "host_tools")


def test_a_wheel_built_in_the_tree_leaves_no_build_folder(tmp_path):
    src = tmp_path / "checkout"
    src.mkdir()
    for name in TREE:
        path = os.path.join(CHECKOUT, name)
        if os.path.isdir(path):
            shutil.copytree(path, src / name, symlinks=True, ignore=shutil.ignore_patterns(
                "node_modules", "__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, src / name)
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = tmp_path / "wheels"
    # as pipx and pip do it: the build backend run in the tree, the wheel written elsewhere
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                           "--no-build-isolation", "-q", "-w", str(out), "."],
                          cwd=src, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, TMPDIR=str(temp)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (src / "build").exists()
    assert not [n for n in os.listdir(temp) if n.startswith("matchbox-build-")]   # removed
    wheels = os.listdir(out)
    assert len(wheels) == 1
    with zipfile.ZipFile(out / wheels[0]) as wheel:
        names = wheel.namelist()
    # the build still made the whole package: the firmware's data copy and the engine
    assert "host_tools/data/firmware/main.py" in names and "tycoon/game.py" in names
