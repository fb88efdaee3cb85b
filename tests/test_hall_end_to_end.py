"""The issue's end-to-end check, black-box: a hall served from a folder with its embedded
broker; two enrolled boxes (`matchbox sim --headless --uplink`, processes of their own) key
random games; the hall is killed with SIGKILL while they run and started again; both exit 0
and each table's /tables/BOX.txt replays to that box's own final state."""
import json
import os
import subprocess
import time

import pytest

from hall_helpers import CLI, Hall, enrol, game_ops, until
from host_tools.hall import protocol

pytestmark = pytest.mark.timeout(240)
SETUPS = ((4, 2, "none", 5, 40, [14, 14, 14, 14]), (3, 1, "gh2", 4, 40, [15, 15, 15]))


def test_two_boxes_a_hall_killed_and_back(tmp_path):
    folder = str(tmp_path / "hall")
    hall = Hall(folder)
    urls = {box: enrol(folder, box, hall.mqtt) for box in ("t1", "t2")}
    hall.start()
    sims = {}
    try:
        for n, box in enumerate(("t1", "t2")):
            first, _ = game_ops(30 + n, SETUPS[n], 150)
            second, _ = game_ops(40 + n, SETUPS[1 - n], 40, first=["MENU:long"])
            keys = " ".join(k for op in first + second for k in op)
            sims[box] = subprocess.Popen(
                CLI + ["sim", "--headless", "--flash", str(tmp_path / box), "--uplink", urls[box],
                       "--uplink-timeout", "90", "--keys", keys],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        tables = os.path.join(folder, "tables")
        assert until(lambda: all(os.path.isdir(os.path.join(tables, b)) and
                                 os.listdir(os.path.join(tables, b)) for b in urls), 60)
        assert all(p.poll() is None for p in sims.values())     # the boxes are still going
        hall.kill()
        time.sleep(1.0)
        hall.start()
        results = {box: p.communicate(timeout=180) for box, p in sims.items()}
        for box, (out, err) in results.items():
            assert sims[box].returncode == 0, err
            state = json.loads(out)["state"]
            record = hall.get("/tables/%s.txt" % box)
            replay = subprocess.run(CLI + ["replay", "--json", "-"], input=record,
                                    capture_output=True, timeout=60)
            assert replay.returncode == 0, replay.stderr
            assert json.loads(replay.stdout)["state"] == state
            with open(os.path.join(str(tmp_path / box), "games", "current.txt"), "rb") as f:
                assert f.read() == record
            assert protocol.game_number(hall.tables()[box]["game"]) == 2
    finally:
        for p in sims.values():
            if p.poll() is None:
                p.kill()
        hall.stop()
