"""CPython's names for the engine's plain values: an Action (kind, seat, faces, value, explicit)
from Game.actions() and last_action(), a RecordError (line, kind, code) from the record reader.

Imported on CPython only; on MicroPython both are plain tuples in the same order (a named tuple
type, its field names and the code that makes it cost the box's heap), and this file never goes
onto a board (host_tools.device.build.HOST_ONLY_FILES).
"""
from collections import namedtuple

Action = namedtuple("Action", ("kind", "seat", "faces", "value", "explicit"))
RecordError = namedtuple("RecordError", ("line", "kind", "code"))

