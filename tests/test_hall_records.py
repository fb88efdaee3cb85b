"""The hall's records (host_tools.hall.records) and its messages (protocol): in sequence, no
duplicates, nothing stored after a gap, a torn last line cut when the hall starts again."""
import os

import pytest

from hall_helpers import header_lines
from host_tools.hall import protocol, records

pytestmark = pytest.mark.timeout(30)
G1, G2 = "001-00000001", "002-00000002"


def test_in_sequence_duplicates_and_gaps(tmp_path):
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    assert tables.store("t1", G1, 1, lines[0]) == records.STORED
    assert tables.store("t1", G1, 1, lines[0]) == records.DUPLICATE
    with pytest.raises(records.Refused, match="after a gap"):
        tables.store("t1", G1, 3, lines[2])
    with pytest.raises(records.Refused, match="damaged checksum tag"):
        tables.store("t1", G1, 2, lines[2])          # line 3's text and tag as line 2
    assert tables.store("t1", G1, 2, lines[1]) == records.STORED
    with pytest.raises(records.Refused, match="before game 001-00000001 is complete"):
        tables.store("t1", G2, 1, lines[0], (G1, 6))
    for seq in range(3, 7):
        tables.store("t1", G1, seq, lines[seq - 1])
    assert tables.store("t1", G2, 1, lines[0], (G1, 6)) == records.STORED
    assert tables.table("t1").ack() == (G2, 1)
    with open(os.path.join(str(tmp_path), "tables", "t1", G1 + ".txt")) as f:
        assert f.read().splitlines() == lines


def test_a_torn_line_is_cut_when_the_hall_starts(tmp_path):
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    for seq in (1, 2):
        tables.store("t1", G1, seq, lines[seq - 1])
    path = tables.table("t1").path()
    with open(path, "ab") as f:
        f.write(lines[2][:5].encode())              # a write the kill cut short
    again = records.Tables(str(tmp_path))
    assert again.table("t1").ack() == (G1, 2)
    with open(path, "rb") as f:
        assert f.read() == ("\n".join(lines[:2]) + "\n").encode()
    assert again.store("t1", G1, 3, lines[2]) == records.STORED


@pytest.mark.parametrize("url, why", [
    ("mqtt://127.0.0.1:1883", "no box name"), ("http://a:b@h", "mqtt://"),
    ("mqtt://a:b@h:99999", "not an mqtt:// URL"), ("mqtt://a:b@h/x", "no path")])
def test_bad_urls(url, why):
    with pytest.raises(protocol.ProtocolError, match=why):
        protocol.parse_url(url)


def test_url_of_enrol():
    assert protocol.parse_url("mqtt://t1:pw-_x@127.0.0.1:1884") == ("127.0.0.1", 1884, "t1", "pw-_x")
