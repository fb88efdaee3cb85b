"""Chaos, bounded: two virtual boxes play random games (two games each, with undos) into a
hall, with its embedded broker or with Mosquitto, while the hall is killed with SIGKILL and
started again (with Mosquitto the broker stays up and keeps the boxes' connections), one
box loses power in the middle of a flash write and boots from its journal, and one box's
session is taken over by another client with its account (the box's acknowledgements go
there; the box's own link, box.mqtt_link under the unix port, finds it makes no progress and
connects again).
At the end every game of every box is in the hall byte for byte: 0 lines lost, 0 doubled,
0 out of order; the counts close the test run's summary (say_count)."""
import contextlib
import os
import random

import pytest

from hall_helpers import (all_delivered, box_games, game_ops, key_in, linked_box, served,
                          take_over)

pytestmark = pytest.mark.timeout(int(os.environ.get("MATCHBOX_HALL_CHAOS_TIMEOUT", "300")))
SETUPS = ((3, 1, "none", 5, 6, [4, 3, 4]), (4, 2, "gh2", 4, 8, [3, 4, 3, 4]))
# `make soak-hall` runs the same with more boxes and kills (MATCHBOX_HALL_CHAOS_BOXES,
# MATCHBOX_HALL_CHAOS_KILLS, MATCHBOX_HALL_CHAOS_SEED)
BOXES = tuple("c%d" % (i + 1) for i in range(int(os.environ.get("MATCHBOX_HALL_CHAOS_BOXES", "2"))))
KILLS = int(os.environ.get("MATCHBOX_HALL_CHAOS_KILLS", "3"))


def compare(box_lines, hall_lines):
    """(lost, doubled, out of order) of the hall's lines against the box's."""
    lost = len([l for l in box_lines if l not in hall_lines])
    doubled = max(0, len(hall_lines) - len(box_lines))
    out_of_order = sum(1 for a, b in zip(box_lines, hall_lines) if a != b)
    return lost, doubled, out_of_order


@pytest.mark.parametrize("broker", ["amqtt", "mosquitto"])
def test_chaos(tmp_path, say_count, broker):
    rng = random.Random(int(os.environ.get("MATCHBOX_HALL_CHAOS_SEED", "21")))
    running = contextlib.ExitStack()
    hall = running.enter_context(served(tmp_path, broker, boxes=BOXES))
    urls, mosquitto = hall.urls, hall.broker
    plans, boxes, seconds = {}, {}, {}
    for n, name in enumerate(BOXES):
        first, _ = game_ops(100 + n, SETUPS[0], 60)
        second, _ = game_ops(200 + n, SETUPS[1], 40, first=["MENU:long"])
        plans[name] = first + second
        seconds[name] = len(first)   # the step that starts game 2
        flash = str(tmp_path / name)
        boxes[name] = linked_box(flash, urls[name])
        boxes[name].boot()
    steps = max(len(p) for p in plans.values())
    kills = sorted(rng.sample(range(5, steps - 5), min(KILLS, steps - 10)))
    # every other box loses power once mid-write (not while game 2 is being set up: its
    # setup's keys would be lost with the cut), the others their connection once
    cut_at = {n: rng.choice([s for s in range(10, len(plans[n]) - 5) if s != seconds[n]])
              for n in BOXES[0::2]}
    drop_at = {n: rng.randrange(10, len(plans[n]) - 5) for n in BOXES[1::2]}
    counts = {"kills": 0, "cuts": 0, "drops": 0}
    try:
        for step in range(steps):
            if step in kills:
                hall.kill()
                counts["kills"] += 1
            for name in BOXES:
                box = boxes[name]
                if cut_at.get(name) == step:            # power cut inside a flash write
                    box.cut_after(rng.randrange(1, 20))
                if step < len(plans[name]):
                    key_in(box, plans[name][step])
                if cut_at.get(name) == step:
                    if box.on:   # the step wrote less than the cut's bytes: the next one
                        box.cancel_cut()
                        cut_at[name] = step + 1 + (step + 1 == seconds[name])
                    else:
                        counts["cuts"] += 1
                        box.boot()                      # from its journal, a torn line cut
                if drop_at.get(name) == step:
                    if hall.proc is None and mosquitto is None:
                        drop_at[name] = step + 1        # no broker to take over at: next step
                    else:
                        take_over(hall.mqtt, urls[name])   # the box's session goes elsewhere
                        counts["drops"] += 1
            if hall.proc is None and rng.random() < 0.3:
                hall.start()
        if hall.proc is None:
            hall.start()
        for name in BOXES:
            assert all_delivered(boxes[name], 60) is True, name
    finally:
        for name in BOXES:
            boxes[name].close()
        running.close()
    totals = [0, 0, 0, 0]
    kept = hall.files()
    for name in BOXES:
        games = box_games(boxes[name].flash)
        assert len(games) == 2
        for game, data in games:
            theirs = kept.get(os.path.join(name, game + ".txt"), b"")
            lost, doubled, disorder = compare(data.splitlines(), theirs.splitlines())
            totals[0] += len(data.splitlines())
            totals[1] += lost
            totals[2] += doubled
            totals[3] += disorder
            assert theirs == data, (name, game)
    assert len(kept) == 2 * len(BOXES)
    assert counts["cuts"] == len(cut_at)
    say_count("hall chaos (%s): %d boxes, %d lines, %d hall kills (SIGKILL), %d power cuts mid-write, "
              "%d dropped connections: %d lost, %d doubled, %d out of order"
              % (broker, len(BOXES), totals[0], counts["kills"], counts["cuts"], counts["drops"],
                 totals[1], totals[2], totals[3]))
