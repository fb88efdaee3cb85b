"""The journal's work between two games (box.journal.Journal.start, archive, archived and
save_setup): a new game's record put in place before the old one goes to the archive, the
archive kept to its last games, and the setup menu's choices remembered.

Imported when a game starts (from the setup menu, which lets it go with itself once the game
runs) or a host tool archives one: on the official MicroPython a module's code is in the heap
for as long as the module is loaded, and this is code the box runs once per game. It works on
the journal's state (`j`, a box.journal.Journal); see box.journal and docs/journal.md.
"""
from tycoon.writer import HEADERS, tagged
from box.journal import ARCHIVE, NEXT, SETUP, _record


def start(j, game, old=None):
    """Begin the record of a new game. A record in current.txt (the running game `old`)
    goes to the archive, but only after the new record is safely on flash: the new one is
    written to next.txt (through a tmp), then current.txt is renamed into the archive and
    next.txt to current.txt. Raises OSError (flash full, write error) with the running
    game's record in place, as it was."""
    j.changes += 1
    st = j.store
    if old is not None and (j._lines is None or j._actions != len(old)):
        j._write(old, len(old))   # the running game, whole, before it is archived
    j._ensure(j.root)
    if not st.exists(j.current) and not archived(j):
        _new_id(j)   # the new game is game 001
    nxt = j._path(NEXT)
    size, due = j._size, j._due
    j._size = j._due = 0
    try:
        j._atomic(nxt, j._counted(_record(game, len(game))))
    finally:
        size, j._size, due, j._due = j._size, size, j._due, due
    path = None
    try:
        j._unsnap()
        if st.exists(j.current):
            j._ensure(j._path(ARCHIVE))
            numbers = archived(j)
            path = j._path(ARCHIVE) + "/game-%03d.txt" % (numbers[-1] + 1 if numbers else 1)
            st.rename(j.current, path)
        st.rename(nxt, j.current)
    except OSError:
        try:
            if path is not None and not st.exists(j.current):
                st.rename(path, j.current)
            st.remove(nxt)
        except OSError:
            pass
        raise
    j._lines = len(HEADERS) + len(game)
    j._actions = len(game)
    j._size = size
    j._due = due
    if path is not None:
        _trim(j)
    j.checkpoint(game)


def _new_id(j):
    # A game 001 begins: the journal's numbering begins again (a new or wiped flash, its games
    # gone), and it takes a new id, the name of an empty file (box.uplink makes it part of its
    # games' ids, so that the hall does not take them for the games it has of the numbering
    # before). Any id before it goes once the new one is there.
    from random import getrandbits
    st = j.store
    old = [n for n in st.listdir(j.root) if n[:3] == "id-"]
    st.write(j._path("id-%08x" % getrandbits(32)), ())
    for name in old:
        st.remove(j._path(name))


def archive(j, game):
    """Move the record of a finished game to archive/game-NNN.txt (numbers go on across
    restarts), keep only the last `keep` there. Returns the archive file's path."""
    j.changes += 1
    st = j.store
    if j._lines is None or j._actions != len(game) or not st.exists(j.current):
        j._write(game, len(game))
    if st.exists(j._path(NEXT)):
        st.remove(j._path(NEXT))   # a stale new record must not take the place
    folder = j._path(ARCHIVE)
    j._ensure(folder)
    numbers = archived(j)
    path = folder + "/game-%03d.txt" % (numbers[-1] + 1 if numbers else 1)
    j._unsnap()
    st.rename(j.current, path)
    j._lines = None
    j._actions = 0
    _trim(j)
    return path

def _trim(j):
    numbers = archived(j)
    folder = j._path(ARCHIVE)
    while len(numbers) > max(j.keep, 0):
        try:
            j.store.remove(folder + "/game-%03d.txt" % numbers.pop(0))
        except OSError:
            pass

def archived(j):
    """The numbers of the archived games, oldest first."""
    folder = j._path(ARCHIVE)
    out = []
    if not j.store.isdir(folder):
        return out
    for name in j.store.listdir(folder):
        if name.startswith("game-") and name.endswith(".txt") and name[5:-4].isdigit():
            out.append(int(name[5:-4]))
    out.sort()
    return out


def save_setup(j, players, dealer, expansion, revolution, sticks, hands=None):
    """Remember the setup menu's choices (atomically). hands None: the default deal."""
    texts = ["players %d" % players, "dealer %d" % dealer, "expansion %s" % expansion,
             "revolution %d" % revolution, "sticks %d" % sticks]
    if hands is not None:
        texts.append("hands " + " ".join([str(n) for n in hands]))
    j._ensure(j.root)
    j._atomic(j._path(SETUP), [tagged(i + 1, t) for i, t in enumerate(texts)])