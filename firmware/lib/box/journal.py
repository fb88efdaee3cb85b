"""The power-safe game journal: every accepted action goes to flash before the box confirms it.

The record is ordinary notation (`matchbox replay` reads it); each line written by the box ends
in a checksum comment, `3: play 9 9 as 9  #~1f2a`, a CRC-16 over the line's index in the file
and its text. Resume replays the record line by line and keeps the longest sound prefix;
whole-file writes go to `NAME.tmp` first and are renamed over the target. See docs/journal.md.
"""
from tycoon.notation import HEADERS, Reader, action_text, header_text, parse_line
from box.store import Store

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

LIMIT = const(200)  # bytes, newline included: a longer line counts as damage
CURRENT = "current.txt"
SETUP = "setup.txt"
BROKEN = "broken.txt"  # an unusable record is moved here for a look on the computer
ARCHIVE = "archive"
_HEX = b"0123456789abcdef"


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (polynomial 0x1021) of bytes, continuing from `crc`."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1) ^ 0x1021 if crc & 0x8000 else crc << 1
        crc &= 0xFFFF
    return crc


def _seal(index, body):
    # The line index goes in first (with a separator) so a line moved elsewhere fails too.
    return crc16(body, crc16(b"|", crc16(str(index).encode())))


def tagged(index, text):
    """The journal line (bytes, newline-terminated) for `text` as line `index` (from 1)."""
    return ("%s  #~%04x\n" % (text, _seal(index, text.encode()))).encode()


def _hex4(raw, at):
    value = 0
    for i in range(at, at + 4):
        digit = _HEX.find(raw[i:i + 1])
        if digit < 0:
            return -1
        value = value << 4 | digit
    return value


def check(raw, index):
    """The text of line `index` (bytes without its newline), or None when it is damaged.

    A line ending in the tag `  #~hhhh` must match its checksum; a line with `#~` anywhere
    else, or a tag-shaped ending with another character than `~`, is damage. A line without
    any tag (written by hand) passes here; the notation reader judges it.
    """
    n = len(raw)
    at = raw.find(b"#~")
    if at >= 0:
        if at != n - 6 or raw[n - 8:n - 6] != b"  " or _hex4(raw, n - 4) != _seal(index, raw[:n - 8]):
            return None
        raw = raw[:n - 8]
    elif n >= 8 and raw[n - 8:n - 5] == b"  #" and _hex4(raw, n - 4) >= 0:
        return None
    try:
        return raw.decode()
    except ValueError:  # UnicodeError is a ValueError on both ports
        return None


def _record(game, count):
    # The tagged lines of the header and the first `count` actions.
    index = 0
    for text in header_text(game).split("\n")[:-1]:
        index += 1
        yield tagged(index, text)
    for action in game.actions():
        if index - len(HEADERS) == count:
            break
        index += 1
        yield tagged(index, action_text(*action)[:-1])


def _copy(f, size):
    while size > 0:
        chunk = f.read(min(size, 128))
        if not chunk:
            return
        size -= len(chunk)
        yield chunk


class Journal:
    """The record of the game in progress in `root/current.txt`, finished games in
    `root/archive/`, the last setup in `root/setup.txt`. Every file operation goes
    through `store` (default: the real filesystem)."""

    def __init__(self, root="games", store=None, keep=10):
        self.root = root
        self.store = store or Store()
        self.keep = keep
        self.current = self._path(CURRENT)
        self._lines = None  # lines in current.txt; None: unknown, the next write rewrites it
        self._actions = 0   # actions in current.txt

    def _path(self, name):
        return self.root + "/" + name

    # --- reading ----------------------------------------------------------------------------

    def resume(self):
        """(game, dropped): the game of current.txt, or None when there is no usable record.

        `dropped` counts the lines cut off the end (torn, failing their checksum, or refused by
        the rules); the file is repaired to the kept prefix. An unusable record is renamed to
        broken.txt. Never raises: a file that cannot be read counts as no game.
        """
        self._lines = None
        self._actions = 0
        try:
            self._tidy()
            if not self.store.exists(self.current):
                return None, 0
            game, lines, size, dropped, _keys = self._read(self.current)
        except OSError:
            return None, 0
        if game is None:
            try:
                self.store.rename(self.current, self._path(BROKEN))
            except OSError:
                pass
            return None, dropped
        if dropped:
            try:
                f = self.store.open(self.current, "rb")
                try:
                    self._atomic(self.current, _copy(f, size))
                finally:
                    f.close()
            except OSError:
                return game, dropped  # _lines stays None: the next write replaces the file
        self._lines = lines
        self._actions = len(game)
        return game, dropped

    def _tidy(self):
        # Leftover NAME.tmp: an atomic write was cut short. Drop it, unless NAME is missing
        # (then the cut came between removing NAME and renaming, on a filesystem that cannot
        # rename over a file: the tmp is complete).
        st = self.store
        if not st.isdir(self.root):
            return
        for name in st.listdir(self.root):
            if not name.endswith(".tmp"):
                continue
            tmp = self._path(name)
            try:
                if st.exists(tmp[:-4]):
                    st.remove(tmp)
                else:
                    st.rename(tmp, tmp[:-4])
            except OSError:
                pass

    def _read(self, path):
        # Replay a file: (game or None, lines kept, bytes kept, lines dropped, header keys).
        reader = Reader()
        keys = []
        lines = size = dropped = 0
        bad = torn = False
        f = self.store.open(path, "rb")
        try:
            while True:
                raw = f.readline(LIMIT)
                if not raw:
                    break
                torn = raw[-1] != 10
                if not bad:
                    text = None if torn else check(raw[:-1], lines + 1)
                    if text is not None and self._feed(reader, keys, text):
                        lines += 1
                        size += len(raw)
                        continue
                    bad = True
                dropped += raw.count(b"\n")
        finally:
            f.close()
        if torn:
            dropped += 1
        game = reader.game
        # A header cut short would start a different game: without an action line read,
        # a damaged line stops the record unless all header lines came before it.
        if game is None and not (bad and len(keys) < len(HEADERS)):
            try:
                game = reader.finish()
            except Exception:
                game = None
        if game is None:
            return None, 0, 0, lines + dropped, keys
        return game, lines, size, dropped, keys

    def _feed(self, reader, keys, text):
        try:
            parsed = parse_line(text)
            reader.feed(text)
        except Exception:  # NotationError, IllegalAction, or anything odd: the line is refused
            return False
        if parsed is not None and parsed[0] == "header":
            keys.append(parsed[1])
        return True

    # --- writing ----------------------------------------------------------------------------

    def _atomic(self, path, parts):
        tmp = path + ".tmp"
        try:
            self.store.write(tmp, parts)
            self.store.rename(tmp, path)
        except OSError:
            try:
                if self.store.exists(path):
                    self.store.remove(tmp)
            except OSError:
                pass
            raise

    def _ensure(self, path):
        if not self.store.isdir(path):
            self.store.mkdir(path)

    def _write(self, game, count):
        self._lines = None
        self._ensure(self.root)
        self._atomic(self.current, _record(game, count))
        self._lines = len(HEADERS) + count
        self._actions = count

    def start(self, game):
        """Begin the record of a new game (its header), replacing current.txt atomically."""
        self._write(game, len(game))

    def rewrite(self, game):
        """Replace the record with the game as it stands (after an undo), atomically."""
        self._write(game, len(game))

    def append(self, game):
        """Journal the game's last action (call right after the engine accepted it).

        Raises OSError when it cannot be written (flash full, write error): the caller undoes
        the action. The file is then put back to the record without that action if possible;
        if not, the next write replaces the whole file, so a half line is never built on.
        When the journal is not in step with the game (not started, an undo not rewritten,
        an earlier failure), the whole record is rewritten instead.
        """
        count = len(game)
        last = game.last_action()
        if last is None or self._lines is None or count != self._actions + 1:
            self._write(game, count)
            return
        line = tagged(self._lines + 1, action_text(*last)[:-1])
        try:
            self.store.append(self.current, line)
        except OSError:
            self._lines = None
            try:
                self._write(game, count - 1)
            except OSError:
                pass
            raise
        self._lines += 1
        self._actions = count

    def archive(self, game):
        """Move the record of a finished game to archive/game-NNN.txt (numbers go on across
        restarts), keep only the last `keep` there. Returns the archive file's path."""
        st = self.store
        if self._lines is None or self._actions != len(game) or not st.exists(self.current):
            self._write(game, len(game))
        folder = self._path(ARCHIVE)
        self._ensure(folder)
        numbers = self.archived()
        number = numbers[-1] + 1 if numbers else 1
        path = folder + "/game-%03d.txt" % number
        st.rename(self.current, path)
        self._lines = None
        self._actions = 0
        numbers.append(number)
        while len(numbers) > max(self.keep, 0):
            try:
                st.remove(folder + "/game-%03d.txt" % numbers.pop(0))
            except OSError:
                pass
        return path

    def archived(self):
        """The numbers of the archived games, oldest first."""
        folder = self._path(ARCHIVE)
        out = []
        if not self.store.isdir(folder):
            return out
        for name in self.store.listdir(folder):
            if name.startswith("game-") and name.endswith(".txt") and name[5:-4].isdigit():
                out.append(int(name[5:-4]))
        out.sort()
        return out

    # --- setup ------------------------------------------------------------------------------

    def save_setup(self, players, dealer, expansion, revolution, sticks, hands=None):
        """Remember the setup menu's choices (atomically). hands None: the default deal."""
        texts = ["players %d" % players, "dealer %d" % dealer, "expansion %s" % expansion,
                 "revolution %d" % revolution, "sticks %d" % sticks]
        if hands is not None:
            texts.append("hands " + " ".join([str(n) for n in hands]))
        self._ensure(self.root)
        self._atomic(self._path(SETUP), [tagged(i + 1, t) for i, t in enumerate(texts)])

    def load_setup(self):
        """The last saved setup as a dict (players, dealer, expansion, revolution, sticks,
        hands: list or None), or None when there is none or it is damaged in any way."""
        path = self._path(SETUP)
        try:
            if not self.store.exists(path):
                return None
            game, _lines, _size, dropped, keys = self._read(path)
        except Exception:
            return None
        if game is None or dropped or len(game) or "players" not in keys:
            return None
        return {"players": game.players, "dealer": game.dealer, "expansion": game.expansion,
                "revolution": game.revolution_size, "sticks": game.tokens,
                "hands": list(game.hands) if "hands" in keys else None}
