"""Each box of an event its table's setup for the round being played (docs/event.md), on
`matchbox/BOX/setup`, retained (a box that connects later, or again, gets it at once; only the
box's own account may read its topic):

    {"dealer":1,"event":"5f3a09c1","expansion":0,"players":4,"revolution":5,"round":2,
     "sticks":40,"table":3}

The box shows it in its setup menu for one PLAY (box.tablesetup). A box of the event that has
no table in the round gets an empty retained message, which clears its topic (a box that
connects later gets no old setup; one connected then receives it empty and shows nothing). The same
round gives the same bytes (its keys sorted), so a box knows a setup it has played.

`Announcer` runs beside the hall's MQTT client (host_tools.hall.keeper): every POLL_S it looks
whether the event's files changed, and publishes what changed; after each new connection of
the hall to the broker it publishes every box's setup again (a broker started again has lost
its retained messages). An event file that is not right is said in one line, once, and the
boxes keep what they have.
"""
import json
import threading

from host_tools.event import store
from host_tools.hall import protocol

POLL_S = 0.5


def messages(hall):
    """{box: the payload of its setup topic} of the round being played: {} without an event
    or before its first round; b"" for a box of the event without a table in the round."""
    event = store.load(hall)
    if not event.rounds:
        return {}
    rnd = event.rounds[-1]
    out = dict.fromkeys(event.config["boxes"], b"")
    for table in rnd["tables"]:
        setup = event.setup(len(table["players"]))
        setup.update(event=event.config["id"], round=rnd["round"], table=table["table"])
        out[table["box"]] = json.dumps(setup, sort_keys=True, separators=(",", ":")).encode()
    return out


class Announcer:
    """Publishes the setups through a keeper.Keeper (its client, its QoS, its log)."""

    def __init__(self, hall, keeper):
        self.hall = hall
        self.keeper = keeper
        self.sent = {}        # box -> the payload published last on this connection
        self.stamp = None     # the event files' stamp last read
        self.seen = -1        # the keeper's count of connections last published for
        self.said = None      # the last error said (said once)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="hall-setups")

    def start(self):
        self.thread.start()

    def stop(self):
        self._stop.set()
        if self.thread.is_alive():
            self.thread.join(5)

    def _run(self):
        while not self._stop.wait(POLL_S):
            try:
                self.tick()
            except Exception as exc:   # a bug must not stop the hall: said, tried again
                self.keeper.log("internal error announcing the setups: %s: %s (a bug in "
                                "matchbox)" % (type(exc).__name__, exc))

    def tick(self):
        """Publish what changed (everything after a new connection); False while the hall is
        not connected."""
        keeper = self.keeper
        if not keeper.connected.is_set():
            return False
        connections = keeper.connections
        stamp = store.stamp(self.hall)
        if connections == self.seen and stamp == self.stamp:
            return True
        try:
            wanted = messages(self.hall) if store.exists(self.hall) else {}
        except store.EventError as exc:
            if str(exc) != self.said:
                self.said = str(exc)
                keeper.log("the event's files: %s (the boxes keep their setups)" % exc)
            self.stamp = stamp
            return True
        self.said = None
        if connections != self.seen:
            self.sent = {}
        for box, payload in sorted(wanted.items()):
            if self.sent.get(box) != payload:
                keeper.client.publish(protocol.setup_topic(box), payload, qos=keeper.qos,
                                      retain=True)
                self.sent[box] = payload
        self.seen, self.stamp = connections, stamp
        return True
