"""How the terminal simulator fits n displays, the status and the key map on a terminal of a
given size (a pure function)."""
from host_tools.terminal.keyboard import short_keys
from host_tools.virtual import display_text as art

KEYMAP_ROWS = 7   # the full key map: a title, four keypad rows, MENU, the buttons
KEYMAP_COLS = 80


def layout(cols, rows, n):
    """How to draw n displays on a cols x rows terminal: a dict with `size` ((width,
    height) of the digits, None = plain text), `per_row` (displays side by side), `keys`
    ("full", "short" or None) and `blanks` (0-4 blank lines between the parts).
    Preference: the displays in one row like on the box, the full key map, bigger digits;
    big digits only with room for at least two blank lines."""
    big = [size for size in art.SIZES if size[1] > 3]
    small = [size for size in art.SIZES if size[1] == 3]
    arrangements = sorted({n, (n + 1) // 2, 1}, reverse=True)
    tries = [(per_row, size) for per_row in arrangements for size in big]
    tries += [(per_row, size) for per_row in arrangements for size in small]
    short_h = len(short_keys(cols))
    keymaps = [("short", short_h)]
    if cols >= KEYMAP_COLS:
        keymaps.insert(0, ("full", KEYMAP_ROWS))
    for keys, keys_h in keymaps:
        for per_row, (w, h) in tries:
            lines = -(-n // per_row)
            width = per_row * (art.panel_width(w) + 1) + (per_row - 1)
            height = lines * (h + 3) + (lines - 1)
            spare = rows - (4 + keys_h + height)  # banner, 2 status lines, message
            if width > cols - 1 or spare < (2 if (w, h) > (3, 5) else 0):
                continue
            return {"size": (w, h), "per_row": per_row, "keys": keys, "blanks": min(spare, 4)}
    keys = "short" if rows >= 4 + n + short_h else None
    return {"size": None, "per_row": 1, "keys": keys, "blanks": 0}
