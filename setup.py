"""Build step of the matchbox package (the rest of its metadata is in pyproject.toml).

The repository keeps firmware/, hardware/ and host_tools/ at the top; the package carries
copies of the data the commands read, under host_tools/data/ (host_tools/resources.py knows
the names): the firmware tree with its pin map, hardware/'s pin map, wiring diagram and parts table. Nothing
built from others' code: no firmware image (the maker downloads MicroPython, README) and no
MicroPython WebAssembly build (`matchbox web` gets the npm package its lockfile pins at first
use: host_tools/wasm_cache.py). The version is firmware's box/version.py: the package and the
firmware report the same one.
"""
import atexit
import os
import re
import shutil
import tempfile

from setuptools import setup
from setuptools.command.build import build
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
HARDWARE_FILES = ("pinmap.json", "wiring.svg", "parts.json")


def version():
    with open(os.path.join(HERE, "firmware", "lib", "box", "version.py"), encoding="utf-8") as f:
        return re.search(r'^VERSION\s*=\s*"([^"]+)"', f.read(), re.M).group(1)


def _ignore(folder, names):
    return [n for n in names if n == "__pycache__" or n.startswith(".") or n.endswith(".pyc")]


class Build(build):
    """build, into a temporary folder outside the tree unless a build folder is asked for
    (--build-base, setup.cfg): `pipx install .` and `pip install .` build in the checkout, and
    setuptools' default build/ would leave a second copy of every module there for grep to
    find. The folder goes when the build's process ends."""

    def finalize_options(self):
        if self.build_base == "build" and "build_base" not in self.distribution.get_option_dict("build"):
            self.build_base = tempfile.mkdtemp(prefix="matchbox-build-")
            atexit.register(shutil.rmtree, self.build_base, True)
        super().finalize_options()


class BuildPy(build_py):
    """build_py, then the data copies into host_tools/data/ (not for an editable install:
    there host_tools.resources reads the repository's folders themselves)."""

    def run(self):
        super().run()
        if self.editable_mode:
            return
        data = os.path.join(self.build_lib, "host_tools", "data")
        shutil.rmtree(data, ignore_errors=True)
        # symlinks=False: the link firmware/pinmap.json becomes a copy of hardware/pinmap.json
        shutil.copytree(os.path.join(HERE, "firmware"), os.path.join(data, "firmware"),
                        symlinks=False, ignore=_ignore)
        os.makedirs(os.path.join(data, "hardware"))
        for name in HARDWARE_FILES:
            shutil.copyfile(os.path.join(HERE, "hardware", name), os.path.join(data, "hardware", name))


setup(version=version(), cmdclass={"build": Build, "build_py": BuildPy})
