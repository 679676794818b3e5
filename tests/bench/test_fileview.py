"""The merged view of a file across partial reads, writes and edits."""

from __future__ import annotations

from agent_tui.bench.fileview import FileView


def test_partial_reads_merge_with_gap_marker() -> None:
    v = FileView()
    v.read("a\nb\n", start_line=1)
    v.read("e\nf\n", start_line=5)
    assert v.render() == "a\nb\n… (lines 3-4 not read)\ne\nf"
    v.read("c\nd\n", start_line=3)
    assert v.render() == "a\nb\nc\nd\ne\nf"


def test_whole_read_and_write_replace_everything() -> None:
    v = FileView()
    v.read("x\n", start_line=10)
    v.read("one\ntwo\n", whole=True)
    assert v.render() == "one\ntwo"
    v.write("three\n")
    assert v.render() == "three"


def test_edit_shifts_later_lines() -> None:
    v = FileView()
    v.read("a\nb\nc\n", start_line=1)
    v.read("z\n", start_line=10)
    assert v.edit("b\n", "b1\nb2\nb3\n")
    assert v.lines == {1: "a", 2: "b1", 3: "b2", 4: "b3", 5: "c", 12: "z"}
    assert not v.edit("not there", "x")
    assert v.edit("ignored", "x", full_after="new\n")
    assert v.render() == "new"


def test_revert_goes_back_to_the_text_read_before_the_first_change() -> None:
    """``git checkout FILE`` after edits: the view holds the committed text again, so an edit
    re-applied to the original text is checked against what the agent saw."""
    v = FileView()
    v.read("a\nold\nc\n", whole=True)
    assert v.edit("old", "new")
    v.read("x\n", start_line=4)  # read after the change: not committed text
    assert v.revert() and v.render() == "a\nold\nc"
    assert not v.revert()  # nothing changed since
    fresh = FileView()
    fresh.write("created\n")
    assert not fresh.revert() and fresh.render() == "created"


def test_a_backup_copied_back_holds_the_text_it_was_taken_from() -> None:
    """``cp f f.bak`` … edits … ``cp f.bak f``: the file holds the text seen before the edits again."""
    f, bak = FileView(), FileView()
    f.read("a\nold\nc\n", whole=True)
    bak.copy_from(f)
    assert f.edit("old", "new") and f.changed
    f.copy_from(bak)
    assert f.render() == "a\nold\nc" and not f.changed  # its committed text again
    assert bak.render() == "a\nold\nc"


def test_rendered_span_counts_the_gap_markers() -> None:
    v = FileView()
    v.read("a\nb\n", start_line=1)
    v.read("e\nf\ng\n", start_line=5)
    text = v.render().split("\n")  # a, b, marker, e, f, g
    lo, hi = v.rendered_span(6, 2) or (0, 0)
    assert text[lo - 1:hi] == ["f", "g"]
    assert v.rendered_span(3, 1) is None  # not read
    v.read("whole\nfile\n", whole=True)
    assert v.rendered_span(2, 1) == (2, 2)
