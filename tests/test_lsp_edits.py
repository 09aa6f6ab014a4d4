"""lsp/edits.py: minimal line-diff TextEdits and position-encoding conversion."""

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol.types import Position, PositionEncodingKind, Range, TextEdit

from lsp.edits import LineIndex, apply_edits, code_units, diff_edits, split_lines

UTF8, UTF16, UTF32 = PositionEncodingKind.Utf8, PositionEncodingKind.Utf16, PositionEncodingKind.Utf32


def edit(start: tuple[int, int], end: tuple[int, int], new_text: str) -> TextEdit:
    return TextEdit(
        range=Range(
            start=Position(line=start[0], character=start[1]), end=Position(line=end[0], character=end[1])
        ),
        new_text=new_text,
    )


def test_equal_texts_need_no_edit() -> None:
    assert diff_edits("a\nb\n", "a\nb\n") == []


def test_one_word_change_sends_only_that_word() -> None:
    old = "def f():\n    return 1\n\ndef g():\n    return 2\n"
    new = "def f():\n    return 1\n\ndef g():\n    return 7\n"
    assert diff_edits(old, new) == [edit((4, 11), (4, 12), "7")]


def test_inserted_lines_are_an_insertion_not_a_replacement() -> None:
    old = "a\nc\n"
    new = "a\nb\nc\n"
    assert diff_edits(old, new) == [edit((1, 0), (1, 0), "b\n")]


def test_deleted_line_is_a_deletion() -> None:
    assert diff_edits("a\nb\nc\n", "a\nc\n") == [edit((1, 0), (2, 0), "")]


def test_two_changed_blocks_give_two_edits_in_document_order() -> None:
    old = "one\ntwo\nthree\nfour\nfive\n"
    new = "ONE\ntwo\nthree\nfour\nFIVE\n"
    edits = diff_edits(old, new)
    assert [e.range.start.line for e in edits] == [0, 4]


def test_utf16_counts_an_emoji_as_two_units() -> None:
    old = 'msg = "😀 hi"\n'
    new = 'msg = "😀 ho"\n'
    assert diff_edits(old, new, UTF16) == [edit((0, 11), (0, 12), "o")]
    assert diff_edits(old, new, UTF32) == [edit((0, 10), (0, 11), "o")]
    assert diff_edits(old, new, UTF8) == [edit((0, 13), (0, 14), "o")]


def test_code_units_per_encoding() -> None:
    text = "aé😀"
    assert (code_units(text, UTF8), code_units(text, UTF16), code_units(text, UTF32)) == (7, 4, 3)


def test_crlf_pair_is_never_split() -> None:
    old = "a\r\nb\r\n"
    new = "a\r\nb\nc\r\n"
    result = diff_edits(old, new)
    for e in result:
        for position in (e.range.start, e.range.end):
            offset = LineIndex(old).offset(position)
            assert not (old[offset - 1 : offset] == "\r" and old[offset : offset + 1] == "\n")
    assert apply_edits(old, result) == new


def test_lone_cr_is_a_line_break() -> None:
    assert split_lines("a\rb\r\nc\nd") == ["a\r", "b\r\n", "c\n", "d"]
    assert LineIndex("a\rb").position(2) == Position(line=1, character=0)


def test_position_inside_an_astral_char_is_clamped_to_its_start() -> None:
    index = LineIndex("x😀y", UTF16)
    assert index.offset(Position(line=0, character=2)) == 1
    assert index.offset(Position(line=0, character=3)) == 2


def test_position_past_line_end_clamps_to_the_line_break() -> None:
    index = LineIndex("ab\ncd", UTF16)
    assert index.offset(Position(line=0, character=99)) == 2
    assert index.offset(Position(line=7, character=0)) == 5


alphabet = st.sampled_from(["a", "b", "é", "😀", "\n", "\r\n", "\r", " ", "x\n", "中"])
texts = st.lists(alphabet, max_size=30).map("".join)


@given(old=texts, new=texts, encoding=st.sampled_from([UTF8, UTF16, UTF32]))
def test_applying_the_diff_yields_the_new_text(old: str, new: str, encoding: str) -> None:
    assert apply_edits(old, diff_edits(old, new, encoding), encoding) == new


@given(text=texts, encoding=st.sampled_from([UTF8, UTF16, UTF32]))
def test_position_and_offset_round_trip(text: str, encoding: str) -> None:
    index = LineIndex(text, encoding)
    for offset in range(len(text) + 1):
        if text[offset - 1 : offset] == "\r" and text[offset : offset + 1] == "\n":
            continue
        assert index.offset(index.position(offset)) == offset
