"""`matchbox web` without a browser: what the site holds, what the server sends, its errors."""
import json
import os
import threading
import urllib.error
import urllib.request

import pytest

from host_tools import cli
from host_tools.commands import web
from host_tools.resources import CHECKOUT as ROOT

HAVE_WASM = all(os.path.isfile(os.path.join(web.WASM, n)) for n in web.WASM_FILES)
needs_wasm = pytest.mark.skipif(not HAVE_WASM, reason="needs the WebAssembly build: make web-deps")


def tree(folder):
    out = []
    for here, _dirs, files in os.walk(folder):
        out += [os.path.relpath(os.path.join(here, f), folder).replace(os.sep, "/") for f in files]
    return sorted(out)


@needs_wasm
def test_build_only_writes_the_firmware_the_board_and_the_page(tmp_path, capsys):
    dest = str(tmp_path / "site")
    assert cli.main(["web", "--build-only", dest]) == 0
    files = tree(dest)
    assert "wrote %d files" % len(files) in capsys.readouterr().out
    firmware = sorted("py/lib/%s/%s" % (p, n) for p in ("box", "tycoon")
                      for n in os.listdir(os.path.join(ROOT, "firmware", "lib", p)) if n.endswith(".py"))
    assert set(firmware) <= set(files)
    for name in firmware:   # the firmware's own files, byte for byte
        with open(os.path.join(ROOT, "firmware", "lib", name[len("py/lib/"):]), "rb") as f:
            with open(os.path.join(dest, name), "rb") as g:
                assert f.read() == g.read(), name
    with open(os.path.join(dest, "files.json")) as f:
        listed = json.load(f)
    assert sorted(listed) == [n for n in files if n.startswith("py/")]
    assert {"index.html", "page.css", "page.js", "micropython.mjs", "micropython.wasm"} <= set(files)
    with open(os.path.join(dest, "index.html")) as f:
        html = f.read()
    assert "{{" not in html
    # every segment of the four displays has its id, drawn by display_svg
    for i in range(4):
        for j in range(4):
            for s in "abcdefgp":
                assert 'id="d%d-%d%s"' % (i, j, s) in html
        assert 'id="d%d-c1"' % i in html and 'id="d%d-glow"' % i in html
    assert html.count('data-key="') == 16 + 8


@needs_wasm
def test_the_server_sends_the_built_files_with_their_types(tmp_path):
    dest = str(tmp_path / "site")
    web.build(dest)
    httpd = web.server(dest, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % httpd.server_address[1]
    try:
        for name, kind in (("micropython.mjs", "text/javascript"), ("micropython.wasm", "application/wasm"),
                           ("page.js", "text/javascript"), ("py/lib/box/app.py", "text/plain")):
            with urllib.request.urlopen(base + name) as r:
                assert r.headers["Content-Type"].startswith(kind)
                with open(os.path.join(dest, name), "rb") as f:
                    assert r.read() == f.read()
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base + "host_tools/commands/web.py")
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_missing_webassembly_build_is_named_with_the_fix(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(web, "WASM", str(tmp_path / "nothing"))
    dest = tmp_path / "site"
    assert cli.main(["web", "--build-only", str(dest)]) == 2
    err = capsys.readouterr().err
    assert "matchbox web: the MicroPython WebAssembly build is not installed" in err
    assert "npm ci --prefix host_tools/webpage" in err
    assert not dest.exists()


def test_a_port_in_use_is_refused_with_a_message(tmp_path):
    first = web.server(str(tmp_path), 0)
    try:
        with pytest.raises(web.WebError, match="cannot serve on port %d" % first.server_address[1]):
            web.server(str(tmp_path), first.server_address[1])
    finally:
        first.server_close()
