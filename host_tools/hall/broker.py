"""The embedded broker: amqtt (an MQTT 3.1.1 broker from PyPI) in a thread of the hall.

It listens on 127.0.0.1 unless told otherwise, authenticates every client against the hall's
`credentials/amqtt.passwd` (amqtt's own password-file plugin, reading the file again when
`matchbox hall enrol` has changed it, so a box enrolled while the hall runs can connect) and
refuses anonymous clients (no anonymous plugin is loaded, and the file plugin says no to a
client without a name). Topics: amqtt's ACL plugin lists topics per user and has no
per-user pattern (Mosquitto's `pattern ... %u`), so the rule of the hall - a box publishes only
to matchbox/ITS-NAME/journal and reads only matchbox/ITS-NAME/ack, the hall's service account
reads every journal and writes every ack - is the small topic plugin `BoxTopics` here, the
same rule `mosquitto.acl` writes for Mosquitto.
"""
import asyncio
import logging
import os
import threading

from amqtt.broker import Broker
from amqtt.contexts import Action
from amqtt.errors import BrokerError
from amqtt.plugins.authentication import FileAuthPlugin
from amqtt.plugins.base import BaseTopicPlugin

from host_tools.hall import accounts, protocol


class Accounts(FileAuthPlugin):
    """amqtt's password-file plugin, reading the file again when it has changed."""

    def __init__(self, context):
        FileAuthPlugin.__init__(self, context)
        self._stamp = self._file_stamp()

    def _file_stamp(self):
        try:
            st = os.stat(self._get_config_option("password-file", ""))
            return (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return None

    async def authenticate(self, *, session):
        stamp = self._file_stamp()
        if stamp != self._stamp:
            self._users = {}
            self._read_password_file()
            self._stamp = stamp
        if not session or not session.username or session.password is None:
            return False
        return await FileAuthPlugin.authenticate(self, session=session)


def allowed(user, topic, action):
    """Whether account `user` may do `action` ("publish", "subscribe", "receive") on topic."""
    if not user or not topic:
        return False
    if user == accounts.SERVICE:
        if action == "publish":
            return protocol.box_of(topic, "ack") is not None
        return topic == protocol.journal_topic("+") or protocol.box_of(topic, "journal") is not None
    if action == "publish":
        return topic == protocol.journal_topic(user)
    return topic == protocol.ack_topic(user)


class BoxTopics(BaseTopicPlugin):
    """Each box its own topics, the hall's account every box's (`allowed`)."""

    async def topic_filtering(self, *, session=None, topic=None, action=None):
        user = session.username if session else None
        verb = {Action.PUBLISH: "publish", Action.SUBSCRIBE: "subscribe",
                Action.RECEIVE: "receive"}.get(action)
        return allowed(user, topic, verb)


def config(hall, host, port):
    return {
        "listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (host, port)}},
        "plugins": {
            "host_tools.hall.broker.Accounts": {"password_file": accounts.amqtt_file(hall)},
            "host_tools.hall.broker.BoxTopics": {},
        },
    }


class EmbeddedBroker:
    """amqtt's Broker on its own event loop in a daemon thread: start() returns once it
    listens (or raises OSError when it cannot), stop() shuts it down."""

    def __init__(self, hall, host="127.0.0.1", port=1883):
        self.hall = hall
        self.host = host
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="embedded-broker")
        self.broker = None
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.CRITICAL)

    def start(self, timeout=30):
        """Start listening; OSError (with the reason in words) when it cannot."""
        self.thread.start()

        async def begin():
            self.broker = Broker(config(self.hall, self.host, self.port), loop=self.loop)
            await self.broker.start()
        try:
            asyncio.run_coroutine_threadsafe(begin(), self.loop).result(timeout)
        except BrokerError as exc:
            cause = exc.__cause__
            self.stop()
            raise OSError(getattr(cause, "strerror", None) or str(cause or exc)) from None

    def stop(self, timeout=10):
        if self.broker is not None:
            try:
                asyncio.run_coroutine_threadsafe(self.broker.shutdown(), self.loop).result(timeout)
            except Exception:   # shutting down anyway
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout)
