"""The hall with Debian's Mosquitto 2 as `matchbox hall mosquitto-conf` configures it: a box
keys a game while the hall is killed with SIGKILL and started again, then Mosquitto itself is
killed and started again; the hall's record is the box's journal byte for byte."""
import os

import pytest

from hall_helpers import (MOSQUITTO, NO_MOSQUITTO, Hall, Mosquitto, acked_past, all_delivered,
                          box_games, enrol, free_port, game_ops, key_in, linked_box)

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
    quarter = len(ops) // 4
    try:
        with linked_box(flash, url) as box:
            box.boot()
            for op in ops[:quarter]:
                key_in(box, op)
            assert acked_past(box, 6, 10), box.link
            hall.kill()
            for op in ops[quarter:2 * quarter]:
                key_in(box, op)
            hall.start()
            assert acked_past(box, 6 + quarter // 2, 20), box.link
            broker.kill()
            for op in ops[2 * quarter:3 * quarter]:
                key_in(box, op)
            broker.start()
            for op in ops[3 * quarter:]:
                key_in(box, op)
            assert all_delivered(box, 30) is True
    finally:
        hall.stop()
        broker.kill()
    [(game, data)] = box_games(flash)
    assert hall.files() == {os.path.join("t1", game + ".txt"): data}
