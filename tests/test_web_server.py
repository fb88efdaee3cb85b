"""`matchbox web` as a server that holds up: 1100 idle connections (more than the open files
the usual limit of 1024 allows it) do not stop it from answering, it lists no folder, and
SIGTERM or Ctrl-C stop it with one line and no temporary folder left behind."""
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from host_tools import web_server
from host_tools.commands import web

IDLE = 1100   # more connections than the 1024 files the server may open

pytestmark = pytest.mark.skipif(
    not all(os.path.isfile(os.path.join(web.WASM, n)) for n in web.WASM_FILES),
    reason="needs the WebAssembly build: make web-deps")


def open_files(limit):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    return set_limit


def serve(tmp_path, files=1024):
    """`matchbox web --no-open --port 0` with at most `files` open files; (process, base URL,
    its temporary folder's parent)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "host_tools.cli", "web", "--no-open", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, TMPDIR=str(tmp)), preexec_fn=open_files(files))
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert m, line + proc.stderr.read()
    return proc, m.group(0), tmp


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.status, answer.read()


def test_a_thousand_idle_connections_do_not_stop_it(tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < IDLE + 200:
        pytest.skip("this process may open only %d files" % hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, IDLE + 200), hard))
    proc, base, tmp = serve(tmp_path)
    idle = []
    try:
        port = int(base.rsplit(":", 1)[1].strip("/"))
        for _ in range(IDLE):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        started = time.monotonic()
        status, page = get(base)
        assert status == 200 and b"<html" in page.lower()
        assert time.monotonic() - started < 5
        with pytest.raises(urllib.error.HTTPError) as listing:   # a folder is not listed
            get(base + "py/")
        assert listing.value.code == 404
        assert get(base + "files.json")[0] == 200
    finally:
        for s in idle:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143 and err.strip() == "matchbox web: stopped: terminated (SIGTERM)"
    assert os.listdir(tmp) == []


def test_ctrl_c_stops_it_and_removes_its_folder(tmp_path):
    proc, base, tmp = serve(tmp_path)
    assert get(base)[0] == 200
    assert len(os.listdir(tmp)) == 1      # the site, while it serves
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and err.strip() == "matchbox web: stopped: interrupted (Ctrl-C)"
    assert os.listdir(tmp) == []


def test_a_silent_connection_is_closed_after_the_idle_time(tmp_path, monkeypatch):
    monkeypatch.setattr(web_server.Handler, "timeout", 0.5)
    site = tmp_path / "site"
    web.build(str(site))
    httpd = web.server(str(site), 0)
    import threading
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(("127.0.0.1", httpd.server_address[1]), timeout=5) as s:
            time.sleep(0.2)
            assert httpd.open_connections() == 1
            assert s.recv(1) == b""            # closed by the server, having said nothing
        deadline = time.monotonic() + 5
        while httpd.open_connections() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert httpd.open_connections() == 0
    finally:
        httpd.shutdown()
        httpd.server_close()
