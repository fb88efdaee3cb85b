"""The play being keyed: faces so far, AS and the declared value, and what it plays as.

The app feeds it face, AS and DEL keys; the screens draw from it; PLAY hands its faces and
value to the engine. No allocation: the faces live in a preallocated bytearray.
"""
from tycoon.cards import cost
from tycoon.game import MAX_PLAY


class Entry:
    def __init__(self):
        self.faces = bytearray(MAX_PLAY)   # the faces keyed so far: faces[:n]
        self.n = 0
        self.as_key = False   # AS pressed: the next face key is the declared value
        self.declared = -1    # the declared value, -1 = none

    def keyed(self):
        """Anything keyed (a face or AS): the entry is on the displays."""
        return self.n > 0 or self.as_key

    def clear(self):
        self.n = 0
        self.as_key = False
        self.declared = -1

    def face(self, code):
        """A face key: a face of the play, or the declared value after AS. Returns None, or
        the engine's code of the refusal ('mixed-values', 'too-many-cards'); unchanged then."""
        if self.as_key and self.declared < 0:
            self.declared = code
        elif self.as_key:
            return "mixed-values"   # a second value after AS
        elif self.n < MAX_PLAY:
            self.faces[self.n] = code
            self.n += 1
        else:
            return "too-many-cards"
        return None

    def toggle_as(self):
        self.as_key = not self.as_key
        self.declared = -1

    def delete(self):
        """DEL: the declared value, else AS, else the last face."""
        if self.declared >= 0:
            self.declared = -1
        elif self.as_key:
            self.as_key = False
        elif self.n:
            self.n -= 1

    def save(self):
        """What restore() puts back (a play the flash could not take goes back as keyed)."""
        return self.n, self.as_key, self.declared

    def restore(self, saved):
        self.n, self.as_key, self.declared = saved

    def value(self):
        """The value the entry plays as, or -1 while it is not one value."""
        if self.declared >= 0:
            return self.declared
        if self.as_key or not self.n:
            return -1
        v = self.faces[0]
        for i in range(1, self.n):
            if self.faces[i] != v:
                return -1
        return v

    def cost(self, value):
        """The sticks the entry costs played as `value`, or -1 when a face cannot become it."""
        total = 0
        for i in range(self.n):
            c = cost(self.faces[i], value)
            if c is None:
                return -1
            total += c
        return total
