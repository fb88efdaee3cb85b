"""The docs read in minutes (issue 37's shape): README.md is the first screen (at most 150
lines), and no paragraph of README.md, docs/*.md or hardware/README.md runs over 8 lines; each
doc opens with a paragraph (who it is for, what to do first) before its first section.

A paragraph is a run of non-blank lines outside code blocks, tables and headings; each list
item starts a new one (its indented lines go on with it)."""
import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_LINES = 150
PARAGRAPH_LINES = 8
ITEM = re.compile(r"\s*([-*+]|\d+\.)\s")
DOCS = ["README.md", "hardware/README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def paragraphs(text):
    """[(first line number, number of lines)] of the paragraphs of a Markdown text."""
    found, start, length, fence = [], None, 0, False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            line = ""
        if fence or not line.strip() or line.lstrip().startswith(("|", "#", "<!--", "![")):
            if start is not None:
                found.append((start, length))
            start, length = None, 0
            continue
        if start is None or ITEM.match(line):
            if start is not None:
                found.append((start, length))
            start, length = number, 0
        length += 1
    if start is not None:
        found.append((start, length))
    return found


def test_the_paragraph_reader():
    text = "# T\n\none\ntwo\n\n- a\n  b\n- c\n\n```\nx\ny\n```\n| a |\n| b |\ntail\n"
    assert paragraphs(text) == [(3, 2), (6, 2), (8, 1), (16, 1)]


def test_the_readme_is_one_screen_of_reading():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) <= README_LINES, "README.md has %d lines (at most %d): move the rest " \
        "into docs/" % (len(lines), README_LINES)


@pytest.mark.parametrize("doc", DOCS)
def test_no_paragraph_runs_over_eight_lines(doc):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        text = f.read()
    long = ["%s:%d: %d lines" % (doc, start, n) for start, n in paragraphs(text)
            if n > PARAGRAPH_LINES]
    assert long == [], "paragraphs over %d lines (split them, or make a table or a list):\n%s" \
        % (PARAGRAPH_LINES, "\n".join(long))


@pytest.mark.parametrize("doc", DOCS)
def test_each_doc_opens_with_a_paragraph_before_its_first_section(doc):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        text = f.read()
    head, _, _ = text.partition("\n## ")
    assert head.startswith("# ") and paragraphs(head), \
        "%s: a title, then a paragraph saying who it is for and what to do first" % doc
