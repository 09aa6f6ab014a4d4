"""The merge's parse check reads only the changed parts of a long file, and still catches every
merge that breaks the syntax; signature keys are found in one pass and equal the regex's."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from apply_engine.keys import call_key
from apply_engine.languages import has_parse_errors
from apply_engine.structural import BOM, Parts, analyse, merge

# the backtracking regex call_key replaces: quadratic on long lines without a call
CALL = re.compile(r"^(.*?[A-Za-z_$][\w$]*(?:<[^()]*>)?)\(\s*([\"'`][^\"'`]*[\"'`])?")


def functions(count: int) -> str:
    return "\n\n".join(f"def f{i}(values):\n    total = {i}\n    return total\n" for i in range(count))


def big_class(count: int) -> str:
    methods = "\n".join(f"    def m{i}(self):\n        return {i}\n" for i in range(count))
    return f"import os\n\n\nclass Big:\n    '''Doc.'''\n\n{methods}"


def parts_of(original: str, snippet: str, language: str) -> list[str] | None:
    """The texts the check parses for this merge (None: the whole file)."""
    result = merge(original, snippet, language=language)
    assert result.status == "ok" and result.merged is not None, result.reasons
    analysis = analyse(original, language)
    ops = plan_ops(original, snippet, language)
    return Parts(result.merged.removeprefix(BOM), ops, analysis.source, language).texts(analysis.tree)


def plan_ops(original: str, snippet: str, language: str) -> list:
    from apply_engine.structural import Source, find_markers, plan_lines

    analysis = analyse(original, language)
    edit = Source.read(snippet)
    markers = find_markers(edit.lines, analysis.source.lines, language, original, analysis.columns)
    ops, _ = plan_lines(analysis, edit, markers, language)
    assert ops is not None
    return ops


def test_an_edited_function_of_a_long_file_is_the_only_part_parsed() -> None:
    snippet = "# ... existing code ...\n\ndef f50(values):\n    total = 51\n    return total\n\n# ...\n"
    parts = parts_of(functions(100), snippet, "python")
    assert parts is not None and len(parts) == 1
    assert "total = 51" in parts[0] and parts[0].count("\n") <= 8


def test_an_edited_method_of_a_long_class_is_parsed_with_stand_ins_for_its_siblings() -> None:
    snippet = "class Big:\n    # ... existing code ...\n    def m40(self):\n        return -40\n    # ...\n"
    parts = parts_of(big_class(80), snippet, "python")
    assert parts is not None and len(parts) == 1
    assert parts[0].lstrip().startswith("class Big:") and "return -40" in parts[0]
    assert "    pass" in parts[0] and "def m39" not in parts[0]


def test_a_broken_function_in_a_long_file_is_still_a_parse_error() -> None:
    snippet = "# ... existing code ...\n\ndef f50(values):\n    total = (51\n    return total\n\n# ...\n"
    result = merge(functions(100), snippet, language="python")
    # the aligner refuses it first now (deeper than its anchors after a marker); the parse check
    # stays the backstop
    assert result.status == "ambiguous"
    assert result.reasons[0].code in ("unanchored_insertion", "new_parse_errors")


def test_an_indented_line_after_a_whole_function_is_checked_with_that_function() -> None:
    snippet = "# ...\n\n    @cached\n@logged\ndef f50(values):\n    total = 50\n    return total\n\n# ...\n"
    result = merge(functions(100), snippet, language="python")
    # the aligner refuses it first now (deeper than its anchors after a marker); the parse check
    # stays the backstop
    assert result.status == "ambiguous"
    assert result.reasons[0].code in ("unanchored_insertion", "new_parse_errors")


def test_a_method_added_last_to_a_long_class_is_checked_inside_it() -> None:
    snippet = "class Big:\n    # ... existing code ...\n    def m79(self):\n        return 79\n\n    def extra(self):\n        return 0\n"
    result = merge(big_class(80), snippet, language="python")
    assert result.status == "ok" and result.merged is not None
    assert result.merged.endswith("    def extra(self):\n        return 0\n")
    assert not has_parse_errors(result.merged, "python")


def test_code_in_a_class_whose_members_sit_at_column_zero_is_checked_whole() -> None:
    original = (
        "namespace geo {\n\nclass Polygon {\npublic:\n    double perimeter() const;\n\n"
        "private:\n    int n_;\n};\n\n}  // namespace geo\n"
    )
    snippet = "// ... existing code ...\npublic:\n    double perimeter() const;\nelse:\n    double area() const;\n\nprivate:\n// ...\n"
    result = merge(original, snippet, language="cpp")
    assert result.status == "ambiguous" or not has_parse_errors(result.merged or "", "cpp")


def test_code_put_before_a_kotlin_package_line_is_a_parse_error() -> None:
    original = "package a.b\n\nimport x.y\n\n" + "\n".join(f"fun f{i}() = {i}\n" for i in range(40))
    snippet = "val early = 1\n// ... existing code ...\n"
    result = merge(original, snippet, language="kotlin")
    assert result.status == "ambiguous" or not has_parse_errors(result.merged or "", "kotlin")


def test_an_unclosed_block_comment_is_a_parse_error_where_the_grammar_forgives_it_at_the_end() -> None:
    original = "\n".join(f"func f{i}() -> Int {{\n    return {i}\n}}\n" for i in range(40))
    snippet = "// ...\nfunc f20() -> Int {\n    return 21\n}\n/*\n// ...\n"
    result = merge(original, snippet, language="swift")
    assert result.status == "ambiguous"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet="ab9_$é (<>)'\"`.,:=", max_size=16))
def test_call_key_finds_what_the_backtracking_regex_finds(text: str) -> None:
    found = CALL.match(text)
    expected = "(".join(part for part in found.groups() if part) if found else None
    assert call_key(text) == expected


def test_a_cut_statement_is_kept_when_the_inserted_line_below_continues_it() -> None:
    body = "\n".join(f"    x{i} = f({i});" for i in range(30))
    original = f"int main(void)\n{{\n{body}\n    if (x0) {{\n        return 1;\n    }}\n    return 0;\n}}\n"
    snippet = "int main(void)\n{\n    /* ... */\nelse:\n    return 0;\n}\n"
    result = merge(original, snippet, language="c")
    assert result.status == "ambiguous" or not has_parse_errors(result.merged or "", "c")


def test_php_parts_are_parsed_as_php() -> None:
    functions_php = "\n".join(f"function f{i}($a) {{\n    return $a + {i};\n}}\n" for i in range(40))
    original = f"<?php\n\n{functions_php}"
    broken = "// ...\nfunction f20($a) {\n    return $a +;\n}\n// ...\n"
    assert merge(original, broken, language="php").status == "ambiguous"
    parts = parts_of(original, broken.replace("$a +;", "$a + 21;"), "php")
    assert parts is not None and all(part.startswith("<?php") for part in parts)


def test_markdown_is_cut_at_whole_sections() -> None:
    sections = "\n".join(f"## Part {i}\n\nText of part {i}.\n" for i in range(40))
    original = f"# Title\n\n{sections}"
    snippet = "<!-- ... -->\n\n## Part 20\n\nText of part 20.\n\nMore about part 20.\n\n<!-- ... -->\n"
    parts = parts_of(original, snippet, "markdown")
    assert parts is not None and "More about part 20." in "".join(parts)
    assert "Part 19" not in "".join(parts)
