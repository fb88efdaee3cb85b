"""The hall with Debian's Mosquitto 2 as `matchbox hall mosquitto-conf` configures it: a box
keys a game while the hall is killed with SIGKILL and started again, then Mosquitto itself is
killed and started again; the hall's record is the box's journal byte for byte."""
import os

import pytest

from hall_helpers import (MOSQUITTO, NO_MOSQUITTO, Hall, Mosquitto, box_games, enrol,
                          free_port, game_ops, key_in, until)
from host_tools.hall import uplink as up
from host_tools.virtual.box import VBox

pytestmark = [pytest.mark.timeout(180),
              pytest.mark.skipif(MOSQUITTO is None, reason=NO_MOSQUITTO)]
SETUP = (3, 1, "none", 5, 6, [4, 3, 4])


def test_hall_and_broker_killed_mid_game_lose_nothing(tmp_path):
    folder = str(tmp_path / "hall")
    port = free_port()
    url = enrol(folder, "t1", port)
    broker = Mosquitto(folder, port).start()
    hall = Hall(folder, broker=port).start()
    flash = str(tmp_path / "flash")
    ops, _ = game_ops(17, SETUP, 60)
    link = up.Uplink(flash, url)
    link.start()
    quarter = len(ops) // 4
    try:
        with VBox(flash=flash) as box:
            box.boot()
            for op in ops[:quarter]:
                key_in(box, op)
            assert until(lambda: link.acked and link.acked[1] > 6, 10), link.progress()
            hall.kill()
            for op in ops[quarter:2 * quarter]:
                key_in(box, op)
            hall.start()
            assert until(lambda: link.acked and link.acked[1] > 6 + quarter // 2, 20), link.progress()
            broker.kill()
            for op in ops[2 * quarter:3 * quarter]:
                key_in(box, op)
            broker.start()
            for op in ops[3 * quarter:]:
                key_in(box, op)
        assert until(link.delivered, 30), link.progress()
    finally:
        link.stop()
        hall.stop()
        broker.kill()
    [(game, data)] = box_games(flash)
    assert hall.files() == {os.path.join("t1", game + ".txt"): data}
