"""The parts table (hardware/parts.json): each figure's value and tolerance, read by name.

A figure is `{"value": number or list, "tol": mm, "from": "drawing"|"assumption", "source": text}`.
`check_table` says what is wrong with a table (a figure without its tolerance or source), so a
mistake in the file is one line, not a crash half-way through a model.
"""
import json
import os

from host_tools import resources

PATH = os.path.join(resources.HARDWARE, "parts.json")
SOURCE = "hardware/parts.json"
ORIGINS = ("drawing", "assumption")


def load(path=PATH):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def figures(table):
    """(part, figure name, figure) of every figure in the table."""
    for part, entry in table["parts"].items():
        for name, fig in entry.items():
            if isinstance(fig, dict):
                yield part, name, fig


def check_table(table):
    """Mistakes in a parts table, as lines (empty when it is sound)."""
    out = []
    for part, name, fig in figures(table):
        where = "%s.%s" % (part, name)
        value = fig.get("value")
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, (int, float)) and v > 0 for v in values):
            out.append("%s: value must be a positive number or a list of them" % where)
        if not isinstance(fig.get("tol"), (int, float)) or fig["tol"] < 0:
            out.append("%s: tol must be a number of mm, 0 or more" % where)
        if fig.get("from") not in ORIGINS:
            out.append("%s: from must be one of %s" % (where, ", ".join(ORIGINS)))
        if not fig.get("source"):
            out.append("%s: no source" % where)
    return out


class Parts:
    """Figures by part and name: value(part, name) and tol(part, name)."""

    def __init__(self, table):
        self.table = table

    def fig(self, part, name):
        return self.table["parts"][part][name]

    def value(self, part, name):
        return self.fig(part, name)["value"]

    def tol(self, part, name):
        return self.fig(part, name)["tol"]
