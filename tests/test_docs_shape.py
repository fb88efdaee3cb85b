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


def test_the_command_reference_names_every_subcommand():
    from host_tools import cli
    with open(os.path.join(ROOT, "docs", "commands.md"), encoding="utf-8") as f:
        text = f.read()
    missing = [name for name, _, _ in cli.COMMANDS if "`matchbox %s" % name not in text]
    assert missing == [], "docs/commands.md has no row for: %s" % ", ".join(missing)


LINK = re.compile(r"\]\(([^)\s#]*)(#[^)\s]+)?\)")


def anchors(text):
    """The anchors GitHub makes of a Markdown text's headings (lower case, punctuation out,
    blanks as hyphens; a repeated heading gets -1, -2, ...)."""
    made, seen = set(), {}
    fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", line):
            continue
        slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        made.add(slug if n == 0 else "%s-%d" % (slug, n))
    return made


def test_every_link_between_the_docs_finds_its_file_and_heading():
    pages = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in
                                   glob.glob(os.path.join(ROOT, "docs", "**", "*.md"),
                                             recursive=True)
                                   + glob.glob(os.path.join(ROOT, "hardware", "*.md")))
    broken = []
    for page in pages:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            text = f.read()
        for target, anchor in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target \
                else page
            if not os.path.exists(os.path.join(ROOT, path)):
                broken.append("%s: %s (no such file)" % (page, target))
            elif anchor and path.endswith(".md"):
                with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                    if anchor[1:] not in anchors(f.read()):
                        broken.append("%s: %s%s (no such heading)" % (page, target, anchor))
    assert broken == [], "\n".join(broken)
