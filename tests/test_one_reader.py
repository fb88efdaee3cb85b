"""One reader, one verdict: the same bytes through `matchbox replay` (both runtimes),
`matchbox report`, `matchbox sim --journal` and the box's journal resume. The records are the
ones that made the tools disagree or crash (finding 4 and 5 of issue 8)."""
import json
import os
import subprocess
import sys

import pytest
from box.journal import Journal
from tycoon import notation, writer

from host_tools import cli
from host_tools.resources import CHECKOUT as ROOT

HEADER = b"players 3\nhands 5 5 5\n"
JOURNAL = ["players 3", "dealer 1", "expansion none", "revolution 5", "sticks 40", "hands 5 5 5",
           "1: play 3", "2: play 5", "3: pass", "1: play 7", "2: pass", "3: pass", "1: play 9"]


def _journal(line=None, text=b"", later=None):
    """The box's tagged record of JOURNAL, the text of `line` (from 1) replaced with `text`
    (its tag whole), and `later`: (line, text) tagged as the box tags it."""
    lines = [notation.tagged(i + 1, t) for i, t in enumerate(JOURNAL)]
    if later:
        lines[later[0] - 1] = notation.tagged(later[0], later[1])
    if line:
        lines[line - 1] = text + lines[line - 1][lines[line - 1].index(b"  #~"):]
    return b"".join(lines)


RECORDS = {
    "repaired-bytes": _journal(8, b"2:?pl#y 5"),                  # several bytes, its tag whole
    "repaired-cut": _journal(8, b"2: p"),                         # cut short, its tag whole
    "repair-refused": _journal(8, b"2: p", (10, "3: play 8")),    # a line after it refused
    "digits-4301": HEADER + b"1: play 3\nsticks " + b"9" * 4301 + b"\n",
    "digits-header": b"players 3\nsticks " + b"7" * 4301 + b"\n1: play 3\n",
    "digits-150": HEADER + b"1" * 150 + b": play 3\n",
    "nbsp": HEADER + "1: play 3\n2:\u00a0pass\n".encode(),
    "ideographic-space": HEADER + "1: play\u30003\n".encode(),
    "line-separator": HEADER + "1: play 3\u20282: pass\n".encode(),
    "surrogate": HEADER + b"1: play 3\n# \xed\xa0\x80\n2: pass\n",
    "overlong": HEADER + b"1: play 3\n2: pass # \xc0\xaf\n",
    "long-comment": HEADER + b"1: play 3\n# " + b"c" * 200 + b"\n2: pass\n",
    "no-last-newline": _journal()[:-5],                          # the box's append cut short
    "typed-no-last-newline": HEADER + b"1: play 3\n2: pass",     # typed: the last line as it is
    "bom": b"\xef\xbb\xbf" + HEADER + b"1: play 3\n2: pass\n",
    "crlf": (HEADER + b"1: play 3\n2: pass\n").replace(b"\n", b"\r\n"),
    "nul": HEADER + b"1: play 3\n2: pa\x00ss\n",
}


def matchbox(*args):
    return subprocess.run([sys.executable, "-m", "host_tools.cli"] + list(args),
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    out = {}
    for name, data in RECORDS.items():
        path = folder / (name + ".txt")
        path.write_bytes(data)
        out[name] = str(path)
    return out


def _replay_json(path, runtime="cpython"):
    proc = matchbox("replay", "--json", "--runtime", runtime, path)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout


def test_replay_gives_one_verdict_on_both_runtimes_and_never_a_traceback(files):
    paths = [files[name] for name in sorted(files)]
    proc = matchbox("replay", "--json", *paths)
    mpy = matchbox("replay", "--json", "--runtime", "micropython", *paths)
    assert "Traceback" not in proc.stderr + mpy.stderr
    assert proc.stdout == mpy.stdout and proc.returncode == mpy.returncode == 2
    verdicts = {}
    for line in proc.stdout.splitlines():
        item = json.loads(line)
        verdicts[os.path.basename(item["file"])[:-4]] = item["error"]
    assert verdicts["bom"] is None and verdicts["crlf"] is None
    assert verdicts["digits-4301"] == {"line": 4, "kind": "syntax",
                                       "code": "line longer than 200 bytes"}
    assert verdicts["digits-150"] == {"line": 3, "kind": "syntax",
                                      "code": "number '111111...' longer than 4 digits"}
    assert verdicts["nbsp"]["code"] == "character U+00A0 outside a comment"
    assert verdicts["ideographic-space"]["code"] == "character U+3000 outside a comment"
    assert verdicts["surrogate"]["code"] == verdicts["overlong"]["code"] == "not UTF-8 text"
    assert verdicts["long-comment"] == {"line": 4, "kind": "syntax",
                                        "code": "line longer than 200 bytes"}
    assert verdicts["no-last-newline"]["line"] == len(JOURNAL)
    assert "cut short" in verdicts["no-last-newline"]["code"]
    assert verdicts["typed-no-last-newline"] is None
    assert verdicts["repaired-bytes"] is None and verdicts["repaired-cut"] is None
    assert verdicts["repair-refused"] == {"line": 8, "kind": "syntax",
                                          "code": "damaged checksum tag"}
    assert proc.stderr.count(": repaired: ") == mpy.stderr.count(": repaired: ") == 2


def test_replay_of_a_folder_is_an_error_not_a_traceback(tmp_path):
    for runtime in ("cpython", "micropython"):
        proc = matchbox("replay", "--runtime", runtime, str(tmp_path))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert str(tmp_path) in proc.stderr


def test_report_and_the_box_stop_where_replay_stops(files, tmp_path, capsys):
    for name in sorted(files):
        path = files[name]
        game, error = _replay(path)
        status = cli.main(["report", path, "-o", str(tmp_path / (name + ".svg"))])
        err = capsys.readouterr().err
        if error is None:
            assert status == 0, (name, err)
        else:
            assert "%s:%d: %s: %s" % (path, error[0], error[1], error[2]) in err, (name, err)
        # the box: the journal keeps the lines before the one replay names
        root = str(tmp_path / ("box-" + name))
        os.makedirs(root)
        with open(os.path.join(root, "current.txt"), "wb") as f:
            f.write(RECORDS[name])
        back, _dropped = Journal(root).resume()
        if back is not None:
            assert game is not None and writer.to_json(back) == writer.to_json(game), name
        else:
            assert error is not None, name


def _replay(path):
    from host_tools.reports import replay_portable
    return replay_portable.replay(path)


def test_sim_journal_names_the_line_and_resumes_before_it(files):
    for name in ("digits-4301", "no-last-newline"):
        proc = matchbox("sim", "--headless", "--journal", files[name])
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        game, error = _replay(files[name])
        assert "%s:%d: syntax: " % (files[name], error[0]) in proc.stderr
        assert json.loads(proc.stdout)["state"] == json.loads(writer.to_json(game))


def test_the_plain_record_of_a_journal(tmp_path):
    from host_tools.reports import replay_portable
    game = notation.load(["players 3", "1: play 3", "2: pass"])[0]
    lines = notation.header_text(game).split("\n")[:-1] + ["1: play 3", "2: pass", "undo",
                                                           "undo", "1: play 4"]
    path = tmp_path / "current.txt"
    path.write_bytes(b"".join([notation.tagged(i + 1, t) for i, t in enumerate(lines)]))
    with open(str(path), "rb") as f:
        text, error = replay_portable.plain(f)
    assert error is None and text.endswith("hands 15 15 15\n1: play 4\n") and "#" not in text
