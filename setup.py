"""Build step of the matchbox package (the rest of its metadata is in pyproject.toml).

The repository keeps firmware/, hardware/ and host_tools/ at the top; the package carries
copies of the data the commands read, under host_tools/data/ (host_tools/resources.py knows
the names): the firmware tree with its pin map, hardware/'s pin map and wiring diagram, the
pinned MicroPython WebAssembly build of the web page (from host_tools/webpage/node_modules,
which `npm ci` fills from the lockfile when it is missing and npm is here). No firmware image:
the maker downloads MicroPython (README). The version is firmware's box/version.py: the
package and the firmware report the same one.
"""
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
WEBPAGE = os.path.join("host_tools", "webpage")
WASM = os.path.join(WEBPAGE, "node_modules", "@micropython", "micropython-webassembly-pyscript")
# What of the WebAssembly package is shipped: the build and its package.json (name, version,
# licence: MIT; the licence text is in THIRD-PARTY.md).
WASM_FILES = ("micropython.mjs", "micropython.wasm", "package.json")
HARDWARE_FILES = ("pinmap.json", "wiring.svg")


def version():
    with open(os.path.join(HERE, "firmware", "lib", "box", "version.py"), encoding="utf-8") as f:
        return re.search(r'^VERSION\s*=\s*"([^"]+)"', f.read(), re.M).group(1)


def wasm_folder():
    """The WebAssembly build's folder, after `npm ci` if it is not installed yet."""
    if all(os.path.isfile(os.path.join(HERE, WASM, n)) for n in WASM_FILES):
        return os.path.join(HERE, WASM)
    npm = shutil.which("npm")
    if not npm:
        raise SystemExit("matchbox build: the web page's MicroPython WebAssembly build is missing "
                         "(%s) and npm is not installed: install npm, or run `npm ci --prefix %s` "
                         "where it is, then build again" % (WASM, WEBPAGE))
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                   cwd=os.path.join(HERE, WEBPAGE), check=True)
    return os.path.join(HERE, WASM)


def _ignore(folder, names):
    return [n for n in names if n == "__pycache__" or n.startswith(".") or n.endswith(".pyc")]


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
        os.makedirs(os.path.join(data, "wasm"))
        wasm = wasm_folder()
        for name in WASM_FILES:
            shutil.copyfile(os.path.join(wasm, name), os.path.join(data, "wasm", name))


setup(version=version(), cmdclass={"build_py": BuildPy})
