"""The structural merge: markers expand to the original, edits land at their anchors, formatting
is kept, and anything unsure is "ambiguous", never a wrong file. Every ok result's plan renders
to its merged text."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from apply_engine.align import call_wrapped, whole_word
from apply_engine.errors import InputError
from apply_engine.fixtures import DEFAULT_ROOT, load_case
from apply_engine.indent import columns
from apply_engine.keys import signature_key
from apply_engine.schemas import MergeResult, render_plan
from apply_engine.structural import OWN_CALLS, Source, closer_twice, declares, merge, reassigns, surplus_ends
from apply_engine.structural_outline import CONTINUED, annotations_alone, string_columns

SHAPES = """import math


class Shape:
    def area(self):
        raise NotImplementedError

    def describe(self):
        return f"{type(self).__name__} with area {self.area():.2f}"


def circle_area(r):
    return math.pi * r * r


def square_area(side):
    return side * side


def main():
    print(circle_area(1.0))
"""


def merged(original: str, snippet: str, **options: str) -> str:
    result = merge(original, snippet, **options)
    assert result.status == "ok", result.reasons
    assert result.merged is not None
    assert render_plan(result.plan, original, snippet) == result.merged
    return result.merged


def ambiguous(original: str, snippet: str, **options: str) -> MergeResult:
    result = merge(original, snippet, **options)
    assert result.status == "ambiguous" and result.merged is None
    assert result.reasons
    return result


def test_merging_a_file_with_itself_is_the_identity() -> None:
    assert merged(SHAPES, SHAPES, language="python") == SHAPES


def test_a_marker_expands_to_the_original_between_its_anchors() -> None:
    snippet = (
        "# ... existing code ...\n\ndef square_area(side):\n    return side ** 2\n\n# ... existing code ...\n"
    )
    assert merged(SHAPES, snippet, language="python") == SHAPES.replace("side * side", "side ** 2")


def test_a_function_given_alone_replaces_its_namesake() -> None:
    snippet = "def circle_area(r):\n    return math.tau * r * r / 2\n"
    assert merged(SHAPES, snippet, language="python") == SHAPES.replace(
        "math.pi * r * r", "math.tau * r * r / 2"
    )


def test_an_added_function_lands_after_its_anchor() -> None:
    snippet = (
        "# ...\n\ndef square_area(side):\n    return side * side\n\n\n"
        "def triangle_area(b, h):\n    return b * h / 2\n\n# ...\n"
    )
    expected = SHAPES.replace(
        "    return side * side\n",
        "    return side * side\n\n\ndef triangle_area(b, h):\n    return b * h / 2\n",
    )
    assert merged(SHAPES, snippet, language="python") == expected


def test_neighbours_shown_adjacent_delete_what_was_between_them() -> None:
    snippet = (
        "# ... existing code ...\n\ndef circle_area(r):\n    return math.pi * r * r\n\n\n"
        "def main():\n    print(circle_area(1.0))\n"
    )
    expected = SHAPES.replace("def square_area(side):\n    return side * side\n\n\n", "")
    assert merged(SHAPES, snippet, language="python") == expected


def test_a_first_method_deleted_below_its_class_line_takes_the_spacing_shown() -> None:
    # `area` closed up under `class Shape:`: `describe` goes right below it, as shown (a `describe`
    # that no longer calls `self.area()`: one that did would leave the call without its method)
    original = SHAPES.replace(" with area {self.area():.2f}", "")
    snippet = (
        "# ... existing code ...\n\nclass Shape:\n    def describe(self):\n"
        '        return f"{type(self).__name__}"\n\n\n# ... existing code ...\n'
    )
    expected = original.replace("    def area(self):\n        raise NotImplementedError\n\n", "")
    assert merged(original, snippet, language="python") == expected
    assert ambiguous(SHAPES, snippet.replace('}"', '} with area {self.area():.2f}"'), language="python")


def test_markers_at_two_levels_edit_one_method_of_a_class() -> None:
    snippet = (
        "# ... existing code ...\nclass Shape:\n    # ... existing methods ...\n\n"
        "    def describe(self):\n        return f'{self.area():.1f}'\n\n# ... rest of file unchanged ...\n"
    )
    expected = SHAPES.replace('f"{type(self).__name__} with area {self.area():.2f}"', "f'{self.area():.1f}'")
    assert merged(SHAPES, snippet, language="python") == expected


def test_a_method_given_without_its_class_at_column_zero_is_reindented() -> None:
    snippet = "def area(self):\n    return 0.0\n"
    expected = SHAPES.replace("        raise NotImplementedError\n", "        return 0.0\n")
    assert merged(SHAPES, snippet, language="python") == expected


def test_members_without_their_class_then_a_fragment_of_a_method_go_in_the_class() -> None:
    original = (
        "public class Users {\n    private final Repo repo;\n\n    public Users(Repo repo) {\n"
        "        this.repo = repo;\n    }\n\n    public User register(String email) {\n"
        "        User saved = repo.save(new User(email));\n        return saved;\n    }\n}\n"
    )
    snippet = (
        "    private final Repo repo;\n    private final Mailer mailer;\n\n"
        "    public Users(Repo repo, Mailer mailer) {\n        this.repo = repo;\n        this.mailer = mailer;\n"
        "    }\n\n    // ... existing code ...\n        User saved = repo.save(new User(email));\n"
        "        mailer.welcome(saved);\n        return saved;\n    }\n"
    )
    # before: the container was the method holding the fragment's lines, not the class of the members
    expected = (
        original.replace("Repo repo;\n", "Repo repo;\n    private final Mailer mailer;\n")
        .replace("Users(Repo repo)", "Users(Repo repo, Mailer mailer)")
        .replace("this.repo = repo;\n", "this.repo = repo;\n        this.mailer = mailer;\n")
        .replace("        return saved;", "        mailer.welcome(saved);\n        return saved;")
    )
    assert merged(original, snippet, language="java") == expected


def test_a_whole_file_rewrite_without_markers_is_the_snippet() -> None:
    rewrite = SHAPES.replace("import math\n", "import math\nimport sys\n").replace(
        "1.0", "float(sys.argv[1])"
    )
    assert merged(SHAPES, rewrite, language="python") == rewrite


def test_an_omitted_package_line_is_kept() -> None:
    original = "package demo;\n\nimport java.util.List;\n\npublic class A {\n    int x() {\n        return 1;\n    }\n}\n"
    snippet = "import java.util.List;\nimport java.util.Map;\n\n// ... existing code ...\n"
    assert merged(original, snippet, language="java") == original.replace(
        "import java.util.List;\n", "import java.util.List;\nimport java.util.Map;\n"
    )


def test_an_omitted_import_whose_last_use_is_deleted_is_ambiguous() -> None:
    original = (
        'import { sleep } from "./sleep";\nimport { get } from "./http";\n\n'
        "export async function poll(url) {\n  await sleep(100);\n  return get(url);\n}\n\n"
        "export function head(url) {\n  return get(url, { method: 'HEAD' });\n}\n"
    )
    snippet = (
        'import { get } from "./http";\n\n'
        "export async function poll(url) {\n  return get(url);\n}\n\n// ... existing code ...\n"
    )
    assert ambiguous(original, snippet, language="typescript").reasons[0].code == "head_left_unused"
    # the same snippet keeping a use: the omitted import is the file's and stays
    kept = snippet.replace("  return get(url);", "  await sleep(50);\n  return get(url);")
    assert merged(original, kept, language="typescript") == original.replace("sleep(100)", "sleep(50)")


def test_a_tab_indented_file_gets_tabs_from_a_space_indented_snippet() -> None:
    original = "package p\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"
    snippet = "// ...\n\nfunc B() int {\n    if true {\n        return 3\n    }\n    return 2\n}\n"
    expected = original.replace("\treturn 2\n", "\tif true {\n\t\treturn 3\n\t}\n\treturn 2\n")
    assert merged(original, snippet, language="go") == expected


def test_crlf_bom_and_a_missing_final_newline_are_kept() -> None:
    original = "\ufeffdef a():\r\n    return 1\r\n\r\n\r\ndef b():\r\n    return 2"
    snippet = "# ...\n\ndef b():\n    return 3\n"
    assert merged(original, snippet, language="python") == original.replace("return 2", "return 3")


def test_lines_shown_but_for_trailing_whitespace_keep_the_originals_bytes() -> None:
    # chat clients trim trailing spaces, or add some; a whitespace-only line reads as a blank one
    original = "def tax(self):  \n    rate = rate_for(self.country)\n    return rate\n    \ndef build(self):\n    pass\n"
    snippet = "def tax(self):\n    rate = rate_for(self.country)   \n    log(rate)\n    return rate\n\ndef build(self):\n"
    expected = original.replace("    return rate\n", "    log(rate)\n    return rate\n")
    assert merged(original, snippet, language="python") == expected
    # a new line keeps what the snippet writes
    snippet = snippet.replace("    log(rate)\n", "    log(rate)  \n")
    assert merged(original, snippet, language="python") == expected.replace("log(rate)", "log(rate)  ")


def test_new_lines_lose_trailing_whitespace_where_the_original_has_none() -> None:
    """A snippet pasted from a chat client with spaces after new lines and a whitespace-only line
    between them: the original ends no line in whitespace, so neither do the lines written into it.
    In Markdown, two trailing spaces are a line break, and stay."""
    original = (
        "def tax(self):\n    rate = rate_for(self.country)\n    return rate\n\n\ndef build(self):\n    pass\n"
    )
    snippet = (
        "def tax(self):\n    rate = rate_for(self.country)\n    log(rate)  \n    \n    return rate\n# ...\n"
    )
    expected = original.replace("    return rate\n", "    log(rate)\n\n    return rate\n")
    assert merged(original, snippet, language="python") == expected
    markdown = "# Notes\n\nFirst line.\nLast line.\n"
    snippet = "# Notes\n\nFirst line.\nSecond line.  \nLast line.\n"
    assert merged(markdown, snippet, language="markdown") == snippet


def test_a_marker_shaped_comment_the_original_has_is_content() -> None:
    original = SHAPES.replace("    return math.pi * r * r\n", "    # ...\n    return math.pi * r * r\n")
    snippet = "def circle_area(r):\n    # ...\n    return 2 * r\n"
    assert merged(original, snippet, language="python") == original.replace("math.pi * r * r", "2 * r")


def test_json_key_edited_between_markers() -> None:
    original = '{\n  "name": "demo",\n  "version": "1.0.0",\n  "private": true\n}\n'
    snippet = '{\n  // ...\n  "version": "1.1.0",\n  // ...\n}\n'
    assert merged(original, snippet, language="json") == original.replace("1.0.0", "1.1.0")


def test_yaml_key_added_inside_a_mapping() -> None:
    original = "server:\n  host: localhost\n  port: 80\nlogging:\n  level: info\n"
    snippet = "server:\n  # ... existing keys ...\n  timeout: 30\n# ...\n"
    expected = original.replace("  port: 80\n", "  port: 80\n  timeout: 30\n")
    assert merged(original, snippet, language="yaml") == expected


def test_markdown_section_edited_under_its_heading() -> None:
    original = "# Tool\n\nIntro.\n\n## Install\n\nRun make.\n\n## License\n\nMIT\n"
    snippet = "<!-- ... -->\n## License\n\nApache-2.0\n"
    assert merged(original, snippet, language="markdown") == original.replace("MIT", "Apache-2.0")


def test_a_lonely_marker_is_ambiguous() -> None:
    result = ambiguous(SHAPES, "# ... existing code ...\n", language="python")
    assert result.reasons[0].code == "marker_without_neighbours"


def test_a_snippet_matching_nothing_is_ambiguous() -> None:
    result = ambiguous(SHAPES, "# ...\ndef unrelated():\n    return 0\n# ...\n", language="python")
    assert {reason.code for reason in result.reasons} & {"unmatched_anchor", "unanchored_insertion"}


def test_a_large_unexplained_deletion_is_ambiguous() -> None:
    body = "".join(f"    step_{i}()\n" for i in range(20))
    original = f"def run():\n{body}\n\ndef stop():\n    pass\n"
    snippet = "def run():\n    step_0()\n\n\ndef stop():\n    pass\n"
    assert ambiguous(original, snippet, language="python").reasons[0].code == "unexplained_deletion"


def test_an_edit_that_fits_two_places_is_ambiguous() -> None:
    original = ".a {\n  color: red;\n}\n\n@media print {\n  .grid {\n    gap: 1rem;\n  }\n}\n\n"
    original += "@media screen {\n  .grid {\n    gap: 1rem;\n  }\n}\n"
    snippet = "/* ... */\n  .grid {\n    gap: 2rem;\n  }\n/* ... */\n"
    assert ambiguous(original, snippet, language="css").reasons[0].code == "several_candidates"


def test_declarations_without_a_selector_that_one_rule_has_by_key_and_another_word_for_word_are_ambiguous() -> (
    None
):
    original = (
        "pre {\n  font-family: monospace, monospace;\n  font-size: 1em;\n}\n\n"
        "button,\ninput {\n  font-family: inherit;\n  font-size: 100%;\n  line-height: 1.15;\n  margin: 0;\n}\n"
    )
    snippet = "/* ... */\n  font-family: monospace, monospace;\n  font-size: 0.9em;\n  line-height: 1.45;\n}\n/* ... */\n"
    # before: the rule holding all three keys won, and its declarations were rewritten
    assert ambiguous(original, snippet, language="css").reasons[0].code == "several_candidates"


def test_new_code_between_two_markers_without_an_anchor_is_ambiguous() -> None:
    snippet = "# ... existing code ...\n\ndef helper():\n    return 1\n\n# ... existing code ...\n"
    codes = {reason.code for reason in ambiguous(SHAPES, snippet, language="python").reasons}
    assert codes & {"unanchored_insertion", "unmatched_anchor"}


def test_a_merge_that_would_not_parse_is_ambiguous() -> None:
    original = "fn a() -> i32 {\n    1\n}\n\nfn b() -> i32 {\n    2\n}\n"
    snippet = "// ...\nfn b() -> i32 {\n    (2\n}\n"
    assert ambiguous(original, snippet, language="rust").reasons[0].code == "new_parse_errors"


def test_marker_text_never_reaches_the_output() -> None:
    snippet = "# ...\nclass Circle(Shape):\n    # ... existing code ...\n    def area(self):\n        return 1\n# ...\n"
    result = merge(SHAPES, snippet, language="python")
    assert result.status == "ambiguous" or "existing code" not in (result.merged or "")


def test_an_empty_snippet_is_ambiguous() -> None:
    assert ambiguous(SHAPES, "  \n", language="python").reasons[0].code == "empty_snippet"


def test_an_unknown_language_is_an_input_error() -> None:
    with pytest.raises(InputError):
        merge(SHAPES, SHAPES, language="cobol-2077")


def test_unknown_languages_merge_by_indentation() -> None:
    original = "section a\n  key 1\n  other 2\nsection b\n  key 3\n"
    snippet = "section b\n  key 4\n"
    assert merged(original, snippet, language="text") == original.replace("key 3", "key 4")


def test_cli_apply_with_the_structural_engine_writes_the_merge(tmp_path: Path) -> None:
    original, snippet = tmp_path / "shapes.py", tmp_path / "edit.py"
    original.write_text(SHAPES)
    snippet.write_text("# ...\ndef main():\n    print(square_area(2))\n")
    out = tmp_path / "out.py"
    command = [
        sys.executable,
        "-m",
        "apply_engine.cli",
        "apply",
        str(original),
        str(snippet),
        "--engine",
        "structural",
    ]
    proc = subprocess.run([*command, "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == SHAPES.replace("print(circle_area(1.0))", "print(square_area(2))")


def test_a_snippet_in_a_markdown_code_fence_merges_without_the_fence() -> None:
    snippet = "```python\n# ...\ndef main():\n    print(square_area(2))\n```\n"
    assert merged(SHAPES, snippet, language="python") == SHAPES.replace(
        "circle_area(1.0))", "square_area(2))"
    )


def test_a_fence_of_four_backticks_wraps_a_snippet_too() -> None:
    snippet = '````python\n# ...\ndef main():\n    """Print it, as in ```main()```."""\n    print(square_area(2))\n````\n'
    expected = SHAPES.replace("def main():\n", 'def main():\n    """Print it, as in ```main()```."""\n')
    assert merged(SHAPES, snippet, language="python") == expected.replace(
        "circle_area(1.0))", "square_area(2))"
    )


def test_prose_around_a_fenced_snippet_is_not_part_of_it() -> None:
    snippet = "Here is the updated `main`:\n\n```python\n# ...\ndef main():\n    print(square_area(2))\n```\n\nDone.\n"
    assert merged(SHAPES, snippet, language="python") == SHAPES.replace(
        "circle_area(1.0))", "square_area(2))"
    )


def test_in_markdown_only_a_fence_tagged_markdown_wraps_the_snippet() -> None:
    original = "# Tool\n\n## Install\n\nRun the installer.\n\n## Usage\n\nRun it.\n"
    added = "Then run `tool init`."
    wrapped = f"Updated section:\n\n```markdown\n## Install\n\nRun the installer.\n\n{added}\n\n<!-- ... rest ... -->\n```\n"
    expected = original.replace("installer.\n", f"installer.\n\n{added}\n")
    assert merged(original, wrapped, language="markdown") == expected
    added = "```bash\npip install tool\n```"
    own = f"## Install\n\nRun the installer.\n\n{added}\n\n<!-- ... rest ... -->\n"
    expected = original.replace("installer.\n", f"installer.\n\n{added}\n")
    assert merged(original, own, language="markdown") == expected


def test_lines_of_a_multiline_string_at_column_zero_stay_inside_their_function() -> None:
    original = 'def f():\n    sql = """\nSELECT 1\nFROM t\n"""\n    return sql\n\n\ndef g():\n    return 2\n'
    snippet = '# ...\ndef f():\n    sql = """\nSELECT 2\nFROM t\n"""\n    return sql\n\n# ...\n'
    assert merged(original, snippet, language="python") == original.replace("SELECT 1", "SELECT 2")


def test_a_changed_last_return_after_a_marker_replaces_the_old_one() -> None:
    snippet = "def square_area(side):\n    # ... existing code ...\n    return abs(side) * abs(side)\n"
    assert merged(SHAPES, snippet, language="python") == SHAPES.replace(
        "side * side", "abs(side) * abs(side)"
    )


def test_class_members_then_top_level_code_merge_at_both_levels() -> None:
    original = (
        "class Cart {\n  add(item) {\n    this.items.push(item);\n  }\n\n  total() {\n    return 0;\n  }\n}\n\n"
        "module.exports = Cart;\n\nconst TAX = 0.2;\n"
    )
    snippet = "  // ...\n  total() {\n    return 1;\n  }\n}\n\n// ...\nconst TAX = 0.25;\n"
    expected = original.replace("return 0;", "return 1;").replace("0.2;", "0.25;")
    assert merged(original, snippet, language="javascript") == expected


def test_a_body_elided_inline_never_replaces_the_body() -> None:
    original = "function load() {\n  const a = 1;\n  return a;\n}\n\nfunction save() {\n  return 2;\n}\n"
    snippet = "function load() { /* ... */ }\n\nfunction save() {\n  return 3;\n}\n"
    assert merged(original, snippet, language="javascript") == original.replace("return 2", "return 3")


def test_a_python_body_elided_as_an_ellipsis_is_kept() -> None:
    snippet = "def circle_area(r): ...\n\n\ndef square_area(side):\n    return side ** 2\n\n# ...\n"
    expected = SHAPES.replace("return side * side", "return side ** 2")
    assert merged(SHAPES, snippet, language="python") == expected


def test_an_elided_body_under_a_changed_header_is_ambiguous() -> None:
    snippet = "def circle_area(r, scale): ...\n\n\ndef square_area(side):\n    return side ** 2\n\n# ...\n"
    assert ambiguous(SHAPES, snippet, language="python").reasons[0].code == "elided_body"


def test_an_elided_body_of_an_unknown_function_is_never_written() -> None:
    original = "function save() {\n  return 2;\n}\n"
    snippet = "function load() { /* ... */ }\n\nfunction save() {\n  return 3;\n}\n"
    assert ambiguous(original, snippet, language="javascript").reasons[0].code == "marker_in_output"


def test_a_removal_comment_between_markers_deletes_the_item_it_names() -> None:
    snippet = "# ... existing code ...\n\n# removed: square_area\n\n# ... existing code ...\n"
    expected = SHAPES.replace("def square_area(side):\n    return side * side\n\n\n", "")
    assert merged(SHAPES, snippet, language="python") == expected


def test_a_removal_comment_naming_nothing_there_is_ambiguous() -> None:
    snippet = "# ... existing code ...\n\n# removed: cube_volume\n\n# ... existing code ...\n"
    assert ambiguous(SHAPES, snippet, language="python").reasons[0].code == "unmatched_removal"


def test_a_comment_describing_the_code_below_it_is_not_a_removal() -> None:
    snippet = "# ...\ndef main():\n    # remove the old line\n    print(2)\n"
    assert merged(SHAPES, snippet, language="python") == SHAPES.replace(
        "    print(circle_area(1.0))\n", "    # remove the old line\n    print(2)\n"
    )


def test_a_whole_function_given_with_its_braces_replaces_a_longer_body() -> None:
    body = "".join(f"  step{i}();\n" for i in range(12))
    original = f"function run() {{\n{body}}}\n\nfunction stop() {{\n  halt();\n}}\n"
    snippet = "// ...\nfunction run() {\n  steps.forEach((s) => s());\n}\n// ...\n"
    expected = original.replace(body, "  steps.forEach((s) => s());\n")
    assert merged(original, snippet, language="javascript") == expected


def test_a_block_of_calls_given_without_markers_never_silently_drops_siblings() -> None:
    tests = "".join(f'  it("case {i}", () => {{\n    check({i});\n  }});\n\n' for i in range(4))
    original = f'describe("suite", () => {{\n{tests}}});\n'
    snippet = 'describe("suite", () => {\n  it("new case", () => {\n    check(9);\n  });\n});\n'
    assert ambiguous(original, snippet, language="javascript").reasons[0].code == "unexplained_deletion"


def test_an_ellipsis_marker_is_a_marker_even_when_the_original_has_an_ellipsis_elsewhere() -> None:
    original = SHAPES.replace(
        "import math\n",
        "import math\nfrom typing import Protocol\n\n\nclass P(Protocol):\n    def f(self): ...\n\n    ...\n",
    )
    snippet = "...\n\ndef main():\n    print(square_area(3))\n"
    assert merged(original, snippet, language="python") == original.replace(
        "circle_area(1.0))", "square_area(3))"
    )


def test_a_rewritten_module_docstring_before_a_marker_replaces_the_old_one() -> None:
    original = '"""Shapes.\n\nAreas of things.\n"""\n' + SHAPES
    snippet = '"""Shapes and their areas."""\n\n# ... rest of file unchanged ...\n'
    assert merged(original, snippet, language="python") == '"""Shapes and their areas."""\n' + SHAPES


def test_a_renamed_function_is_ambiguous_rather_than_duplicated() -> None:
    original = SHAPES.replace("    return side * side\n", "    area = side * side\n    return area\n")
    snippet = (
        "# ...\n\ndef circle_area(r):\n    return math.pi * r * r\n\n\n"
        "def square(side):\n    area = side * side\n    return area\n\n# ...\n"
    )
    assert ambiguous(original, snippet, language="python").reasons[0].code == "renamed_or_copied"


PAIRS = """import os


def parse(text):
    lines = text.splitlines()
    return [line.split("=") for line in lines if line]


def main():
    pairs = parse(os.environ["CONFIG"])
"""


def test_a_function_shown_renamed_over_its_whole_body_is_renamed_in_place() -> None:
    body = '    lines = text.splitlines()\n    return [line.split("=") for line in lines if line]\n'
    renamed = PAIRS.replace("parse(", "parse_pairs(")
    snippet = f"# ... existing code ...\n\n\ndef parse_pairs(text):\n{body}\n\n# ... existing code ...\n"
    assert merged(PAIRS, snippet, language="python") == renamed.replace("parse_pairs(os", "parse(os")
    call_site = "def main():\n    pairs = parse_pairs(os.environ['CONFIG'])\n".replace("'", '"')
    snippet = snippet + f"\n\n{call_site}"
    assert merged(PAIRS, snippet, language="python") == renamed
    # the snippet still calls the old name: the new function may be a copy
    snippet = snippet.replace("parse_pairs(os", "parse(os")
    ambiguous(PAIRS, snippet, language="python")


def test_a_function_shown_renamed_above_a_marker_in_its_body_is_renamed_in_place() -> None:
    renamed = PAIRS.replace("parse(", "parse_pairs(")
    snippet = (
        "# ... existing code ...\n\n\ndef parse_pairs(text):\n    lines = text.splitlines()\n"
        "    # ... existing code ...\n\n\ndef main():\n    pairs = parse_pairs(os.environ['CONFIG'])\n"
    ).replace("'", '"')
    assert merged(PAIRS, snippet, language="python") == renamed
    # new code elides nothing, but a copy that still calls the original may: not a rename
    ambiguous(PAIRS, snippet.replace("parse_pairs(os", "parse(os"), language="python")


def test_a_stub_method_added_where_the_file_writes_ellipsis_bodies_is_code() -> None:
    original = "from typing import Protocol\n\n\nclass Shape(Protocol):\n    def area(self) -> float: ...\n"
    snippet = (
        "class Shape(Protocol):\n    def area(self) -> float: ...\n\n    def perimeter(self) -> float: ...\n"
    )
    expected = original + "\n    def perimeter(self) -> float: ...\n"
    assert merged(original, snippet, language="python") == expected


def test_a_first_line_naming_the_file_is_not_written_into_it() -> None:
    snippet = "# shapes.py\n# ...\n\ndef square_area(side):\n    return side ** 2\n\n# ...\n"
    expected = SHAPES.replace("return side * side", "return side ** 2")
    assert merged(SHAPES, snippet, language="python") == expected


def test_a_fence_naming_the_file_is_not_part_of_the_snippet() -> None:
    snippet = "```python:shapes.py\n# ...\n\ndef square_area(side):\n    return side ** 2\n\n# ...\n```\n"
    expected = SHAPES.replace("return side * side", "return side ** 2")
    assert merged(SHAPES, snippet, language="python") == expected


def test_an_import_shown_above_a_marker_goes_below_the_docstring_and_imports() -> None:
    snippet = (
        "import cmath\n\n# ... existing code ...\n\ndef main():\n    print(circle_area(1.0), cmath.pi)\n"
    )
    original = '"""Shapes."""\n\n' + SHAPES
    expected = original.replace("import math\n", "import math\nimport cmath\n").replace(
        "print(circle_area(1.0))", "print(circle_area(1.0), cmath.pi)"
    )
    assert merged(original, snippet, language="python") == expected


def test_a_first_import_above_a_marker_keeps_the_blank_line_shown_below_it() -> None:
    original = "export class ApiError extends Error {}\n\nexport function get(path: string) {\n  return fetch(path);\n}\n"
    snippet = (
        'import { token } from "./auth";\n\n// ... existing code ...\n\n'
        "export function get(path: string) {\n  return fetch(path, { headers: { token: token() } });\n}\n"
    )
    expected = 'import { token } from "./auth";\n\n' + original.replace(
        "fetch(path)", "fetch(path, { headers: { token: token() } })"
    )
    assert merged(original, snippet, language="typescript") == expected


def test_a_triple_quoted_string_opened_with_a_line_continuation_stays_one_string() -> None:
    original = (
        'TEMPLATE = """\\\nimport sys\nsys.exit(main())\n"""\n\n\n'
        "def interpreter(path):\n    with open(path) as f:\n        return f.readline()\n\n\n"
        'def main():\n    """Run."""\n    return 0\n'
    )
    snippet = "def interpreter(path):\n    return path.read_text().splitlines()[0]\n"
    expected = original.replace(
        "    with open(path) as f:\n        return f.readline()\n",
        "    return path.read_text().splitlines()[0]\n",
    )
    assert merged(original, snippet, language="python") == expected


COMPOSE = """services:
  web:
    image: app:1
  db:
    image: postgres:15
  mail:
    image: mailhog:1

volumes:
  data: {}
"""


def test_a_snippet_ending_inside_a_block_it_elides_keeps_the_rest_of_the_block() -> None:
    snippet = "services:\n  # ... existing services ...\n  db:\n    image: postgres:16\n"
    expected = COMPOSE.replace("postgres:15", "postgres:16")
    assert merged(COMPOSE, snippet, language="yaml") == expected


def test_a_block_shown_to_its_end_before_a_sibling_still_deletes_its_omitted_last_item() -> None:
    snippet = (
        "services:\n  # ... existing services ...\n  db:\n    image: postgres:15\n\nvolumes:\n  data: {}\n"
    )
    expected = COMPOSE.replace("  mail:\n    image: mailhog:1\n", "")
    assert merged(COMPOSE, snippet, language="yaml") == expected


TOTALS = "def main(items):\n    total = 0\n    for item in items:\n        total += item\n        log(item)\n    return total\n"


def test_code_after_a_loop_whose_body_ends_in_a_marker_is_kept() -> None:
    snippet = (
        "def main(items):\n    # ... existing code ...\n    for item in items:\n        total += item\n"
        "        seen.add(item)\n        # ... existing code ...\n"
    )
    expected = TOTALS.replace("total += item\n", "total += item\n        seen.add(item)\n")
    assert merged(TOTALS, snippet, language="python") == expected


def test_a_toml_marker_at_column_zero_after_a_table_elides_the_tables_after_it_too() -> None:
    original = (
        '[features]\ndefault = []\n\n[[bin]]\nname = "a"\npath = "a.rs"\n\n[[bin]]\nname = "b"\n'
        'path = "b.rs"\n\n[profile.release]\nlto = true\n'
    )
    snippet = "[features]\n# ... existing code ...\n\n[profile.release]\nlto = true\nstrip = true\n"
    assert merged(original, snippet, language="toml") == original + "strip = true\n"


def test_an_ini_section_whose_body_is_elided_keeps_its_body_when_a_section_follows() -> None:
    original = (
        "[tox]\nenvlist = py311, type\n\n[testenv:type]\ndescription = run mypy\ndeps =\n    mypy\n"
        "commands =\n    mypy src\n\n[flake8]\nmax-line-length = 100\n"
    )
    snippet = (
        "[testenv:type]\n# ... unchanged ...\n\n[testenv:docs]\ndescription = build the docs\n"
        "commands =\n    sphinx-build docs html\n\n# ... existing sections ...\n"
    )
    new_section = "[testenv:docs]\ndescription = build the docs\ncommands =\n    sphinx-build docs html\n\n"
    expected = original.replace("[flake8]", new_section + "[flake8]")
    assert merged(original, snippet, path="tox.ini") == expected


def test_a_new_shebang_replaces_the_old_one() -> None:
    original = '#!/usr/bin/env python3\n"""Tool."""\n\nimport sys\n\n\ndef main():\n    return 0\n'
    snippet = '#!/usr/bin/env -S python3 -u\n"""Tool."""\n\n# ... existing code ...\n'
    expected = original.replace("python3\n", "-S python3 -u\n", 1)
    assert merged(original, snippet, language="python") == expected


def test_a_bumped_pin_on_the_last_line_of_a_requirements_file_is_an_edit() -> None:
    original = "click==8.1.7\nhttpx==0.27.0\nrequests==2.32.3\nsentry-sdk==2.5.1\n"
    snippet = "# ... existing requirements ...\nrequests==2.32.3\nsentry-sdk==2.7.0\n"
    assert merged(original, snippet, language="text") == original.replace("2.5.1", "2.7.0")


def test_an_augmented_assignment_shown_changed_is_an_edit() -> None:
    snippet = "def main(items):\n    # ... existing code ...\n    for item in items:\n        total += item * 2\n        # ... existing code ...\n"
    expected = TOTALS.replace("total += item\n", "total += item * 2\n")
    assert merged(TOTALS, snippet, language="python") == expected


@pytest.mark.parametrize(
    ("original", "snippet", "language"),
    [
        (  # a changed `if` a little too unlike the original to be sure it is its edit (an operand
            # put before the original condition, not after it)
            "def load(lines):\n    for line in lines:\n        if not line.strip():\n            continue\n"
            "        yield line\n",
            "def load(lines):\n    for line in lines:\n        if line.startswith('#') or not line.strip():\n"
            "            continue\n        # ... existing code ...\n",
            "python",
        ),
        (  # a new list element like the elided one next to it, with a different first line
            "module.exports = {\n  rules: [\n    {\n      test: /\\.css$/,\n      use: 'css',\n    },\n    {\n"
            "      test: /\\.png$/,\n      type: 'asset',\n    },\n  ],\n};\n",
            "module.exports = {\n  rules: [\n    // ... existing rules ...\n    {\n      test: /\\.woff$/,\n"
            "      type: 'asset',\n    },\n  ],\n};\n",
            "javascript",
        ),
        (  # the first line of a body: edited, or a new line above it? (a shorter message is less alike)
            'class Report:\n    def render(self):\n        self.logger.info("rendering")\n'
            "        self.build_header()\n        self.build_rows()\n",
            '    def render(self):\n        self.logger.info("rendering %d rows", len(self.rows))\n        # ...\n',
            "python",
        ),
    ],
    ids=["if-block", "list-element", "log-message"],
)
def test_new_code_as_alike_to_the_elided_code_next_to_it_as_an_edit_would_be_is_ambiguous(
    original: str, snippet: str, language: str
) -> None:
    result = ambiguous(original, snippet, language=language)
    assert result.reasons[0].code == "edit_or_insertion"


def test_a_long_statement_shown_after_a_marker_with_one_value_changed_is_an_edit() -> None:
    # a second UPDATE like the first but for its text, added where the marker elides the first? No
    # one writes that; the statement is the original's, its text changed
    original = (
        "async function pay(id) {\n  const order = await find(id);\n"
        '  await db.execute("UPDATE orders SET paid = 1 WHERE id = $1", [id]);\n  log(id);\n}\n'
    )
    snippet = (
        "async function pay(id) {\n  // ... existing code ...\n"
        '  await db.execute("UPDATE orders SET paid = 1, at = now() WHERE id = $1", [id]);\n  log(id);\n}\n'
    )
    expected = original.replace("paid = 1 WHERE", "paid = 1, at = now() WHERE")
    assert merged(original, snippet, language="javascript") == expected


def test_an_if_shown_with_an_operand_after_its_condition_over_the_same_body_is_an_edit() -> None:
    original = "def load(lines):\n    for line in lines:\n        if not line.strip():\n            continue\n        yield line\n"
    snippet = (
        "def load(lines):\n    for line in lines:\n        if not line.strip() or line.startswith('#'):\n"
        "            continue\n        # ... existing code ...\n"
    )
    expected = original.replace("strip():", "strip() or line.startswith('#'):")
    assert merged(original, snippet, language="python") == expected


def test_a_method_after_a_marker_below_the_imports_is_not_appended_to_the_last_function() -> None:
    original = "import json\n\n\nclass Order:\n    def to_dict(self):\n        return {}\n\n\ndef total(orders):\n    return 0\n"
    snippet = "import json\n# ... existing code ...\n\n    def to_json(self):\n        return json.dumps(self.to_dict())\n"
    assert ambiguous(original, snippet, language="python").reasons[0].code == "unanchored_insertion"


def test_a_new_call_is_not_anchored_on_a_later_call_of_the_same_function_by_its_name_alone() -> None:
    original = (
        "def render(out, item):\n    out.append(header(item))\n    out.append(version_of(item))\n"
        "    packages = [p.id for p in item.packages]\n    for p in packages:\n        check(p)\n"
        "    out.append(join(packages))\n    return out\n"
    )
    snippet = (
        "def render(out, item):\n    # ... existing code ...\n    out.append(version_of(item))\n"
        "    out.append(name_of(item))\n    # ... existing code ...\n"
    )
    # before: anchored on `out.append(join(packages))`, which deleted the three lines between them
    assert ambiguous(original, snippet, language="python").reasons[0].code == "several_candidates"


def test_methods_shown_as_one_line_stubs_keep_the_blank_lines_between_them() -> None:
    original = "class Repr:\n    def a(self, x):\n        return 1\n\n    def b(self, x):\n        return 2\n"
    snippet = "class Repr:\n    def a(self, x): ...\n    def b(self, x): ...\n\n    def c(self, x):\n        return 3\n"
    expected = original + "\n    def c(self, x):\n        return 3\n"
    assert merged(original, snippet, language="python") == expected


def test_new_code_glued_to_the_first_anchor_takes_the_blank_lines_the_anchor_had() -> None:
    original = "#ifndef RB_H\n#define RB_H\n\n#include <stddef.h>\n\nsize_t rb_len(void);\n\n#endif\n"
    snippet = "#include <stdbool.h>\n#include <stddef.h>\n\n// ... existing code ...\n"
    expected = original.replace("#include <stddef.h>", "#include <stdbool.h>\n#include <stddef.h>")
    assert merged(original, snippet, language="c") == expected


def test_commented_out_lines_with_no_code_below_are_matched_one_by_one() -> None:
    original = '[tool.ruff.lint]\nselect = [\n  "E",\n  "W",\n  # "A",\n  # "B",\n  # "C",\n]\n'
    snippet = (
        '[tool.ruff.lint]\nselect = [\n  # ... existing rules ...\n  "W",\n  "A",\n  # "B",\n  # ...\n]\n'
    )
    # before: the three comments were one item, so `# "B"` read as new and was written twice
    assert merged(original, snippet, language="toml") == original.replace('# "A"', '"A"')


GRAPH = (
    "import heapq\n\n\nclass Graph:\n    def __init__(self):\n        self.nodes = {}\n\n"
    "    def order(self):\n        ready = [n for n in self.nodes if not self.nodes[n]]\n        return ready\n\n"
    "    def size(self):\n        return len(self.nodes)\n\n\ndef build(edges):\n    return Graph()\n"
)
LOOP = (
    "func serve(conn net.Conn) {\n\tdefer conn.Close()\n\tfor i := 0; i < 2; i++ {\n"
    "\t\tif err := send(conn); err != nil {\n\t\t\treturn\n\t\t}\n"
    "\t\tif err := ack(conn); err != nil {\n\t\t\tlog.Print(err)\n\t\t\treturn\n\t\t}\n\t}\n"
    "\tconn.Read(nil)\n}\n"
)


def test_a_method_shown_after_a_top_level_marker_is_placed_in_its_class() -> None:
    snippet = (
        "import heapq\nimport warnings\n\n# ... existing code ...\n\n    def order(self):\n"
        "        ready = [n for n in self.nodes if not self.nodes[n]]\n        heapq.heapify(ready)\n"
        "        return ready\n\n    # ... existing code ...\n"
    )
    expected = GRAPH.replace("import heapq\n", "import heapq\nimport warnings\n").replace(
        "        return ready\n", "        heapq.heapify(ready)\n        return ready\n"
    )
    assert merged(GRAPH, snippet, language="python") == expected


def test_a_statement_inside_an_elided_loop_is_edited_in_place_up_to_the_loops_closer() -> None:
    snippet = (
        "func serve(conn net.Conn) {\n\tdefer conn.Close()\n\t// ... existing code ...\n"
        '\t\tif err := ack(conn); err != nil {\n\t\t\tlog.Printf("ack: %v", err)\n\t\t\treturn\n\t\t}\n\t}\n'
        "\t// ... existing code ...\n}\n"
    )
    expected = LOOP.replace("log.Print(err)", 'log.Printf("ack: %v", err)')
    assert merged(LOOP, snippet, language="go") == expected


@pytest.mark.parametrize(
    ("original", "snippet", "language", "code"),
    [
        (  # the closer says the loop ends after the first `if`: the second would go unasked
            LOOP,
            "func serve(conn net.Conn) {\n\tdefer conn.Close()\n\t// ... existing code ...\n"
            "\t\tif err := send(conn); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n\t// ... existing code ...\n}\n",
            "go",
            "unexplained_deletion",
        ),
        (  # shown right above `build`: `order` ends the class, but `size` follows it
            GRAPH,
            "# ... existing code ...\n    def order(self):\n        return sorted(self.nodes)\n\n\n"
            "def build(edges):\n    return Graph()\n",
            "python",
            "unexplained_deletion",
        ),
        (  # shown right above `build`, but inside `order`, which is not the last block before it
            GRAPH,
            "import heapq\n# ... existing code ...\n        return ready or None\n\n\ndef build(edges):\n"
            "    return Graph()\n",
            "python",
            "unanchored_insertion",
        ),
        (  # the same line in the two methods after the one shown
            "class A:\n    def f(self):\n        return 0\n\n    def g(self):\n        x = 1\n        return x\n\n"
            "    def h(self):\n        x = 1\n        return -x\n",
            "class A:\n    def f(self):\n        return 0\n    # ... existing code ...\n        x = 2\n"
            "        # ... existing code ...\n",
            "python",
            "several_candidates",
        ),
        (  # new top-level code after the fragment, before any anchor
            GRAPH,
            "import heapq\n# ... existing code ...\n        return len(self.nodes) + 1\n\ndef extra():\n"
            "    pass\n# ... existing code ...\n",
            "python",
            "unanchored_insertion",
        ),
    ],
    ids=["closer-ends-block-early", "class-ends-early", "not-the-last-block", "two-blocks", "new-code-after"],
)
def test_code_after_a_marker_deeper_than_its_anchors_is_ambiguous_unless_one_block_holds_it(
    original: str, snippet: str, language: str, code: str
) -> None:
    assert ambiguous(original, snippet, language=language).reasons[0].code == code


def test_a_changed_dockerfile_cmd_after_its_anchor_is_an_edit() -> None:
    # a Dockerfile keeps only its last CMD: a second one right after the first would be dead code
    original = 'FROM python:3.11-slim\nCOPY . /app\n\nEXPOSE 8000\n\nCMD ["gunicorn", "app:wsgi", "--bind", ":8000"]\n'
    snippet = '# ... existing code ...\n\nEXPOSE 8000\n\nCMD ["gunicorn", "app:wsgi", "--bind", ":8000", "-w", "4"]\n'
    expected = original.replace('":8000"]', '":8000", "-w", "4"]')
    assert merged(original, snippet, path="Dockerfile") == expected


def test_a_switch_closer_shown_below_a_marker_is_the_elided_last_cases_own_line() -> None:
    # gofmt puts `case` at the switch's indent, so the last case ends in the switch's `}`
    original = (
        'func name(k int) string {\n\tswitch k {\n\tcase 1:\n\t\treturn "one"\n\tcase 2:\n\t\treturn "two"\n'
        '\t}\n\treturn ""\n}\n'
    )
    snippet = (
        'func name(k int) string {\n\tswitch k {\n\tcase 1:\n\t\treturn "one"\n\tdefault:\n'
        '\t\tpanic(fmt.Sprintf("bad k %d", k))\n\t// ... existing cases ...\n\t}\n\treturn ""\n}\n'
    )
    expected = original.replace("\tcase 2:", '\tdefault:\n\t\tpanic(fmt.Sprintf("bad k %d", k))\n\tcase 2:')
    assert merged(original, snippet, language="go") == expected


CONFIG_RS = (
    "struct Config {\n    threads: usize,\n}\n\nimpl Config {\n    fn new() -> Self {\n        Config { threads: 1 }\n"
    "    }\n\n    fn validate(&self) -> Result<(), String> {\n        if self.threads == 0 {\n"
    '            return Err("zero".into());\n        }\n        Ok(())\n    }\n}\n\nfn main() {}\n'
)
CHECK_RS = '        assert!(self.threads <= 64, "too many threads");\n'


def test_code_after_a_marker_may_end_with_the_closers_of_its_block_and_the_blocks_around_it() -> None:
    snippet = f"// ... existing code ...\n{CHECK_RS}        Ok(())\n    }}\n}}\n\nfn main() {{}}\n"
    expected = CONFIG_RS.replace("        Ok(())\n", CHECK_RS + "        Ok(())\n")
    assert merged(CONFIG_RS, snippet, language="rust") == expected


def test_a_marker_below_the_closers_of_code_after_a_marker_elides_nothing_of_its_block() -> None:
    # the loop's last line rewritten, the loop and function closed, then a marker at column 0: the
    # marker elides what follows the function, not the rest of the loop (the old line is replaced)
    original = (
        "async function poll(api) {\n  for (;;) {\n    const state = await api.state();\n"
        "    if (state.done) {\n      return state;\n    }\n"
        "    await new Promise((resolve) => setTimeout(resolve, 5000));\n  }\n}\n\n"
        "function report(state) {\n  console.log(state);\n}\n"
    )
    snippet = (
        "// ... existing code ...\n    if (state.done) {\n      return state;\n    }\n"
        "    await sleep(POLL_INTERVAL_MS);\n  }\n}\n\n// ... existing code ...\n"
    )
    expected = original.replace(
        "    await new Promise((resolve) => setTimeout(resolve, 5000));", "    await sleep(POLL_INTERVAL_MS);"
    )
    assert merged(original, snippet, language="javascript") == expected


def test_a_signature_over_several_lines_shown_open_above_a_marker_keeps_its_body() -> None:
    # the list of a `for` edited, its `)  ) {` the last line shown: the body is elided, not deleted
    original = (
        "my $A = 1;\n\nfor my $meth (  qw(\n    Next Prev\n    _ChkPos\n)  ) {\n"
        '    *{$Obj."::".$meth} = \\&{$meth};\n}\n\nmy $B = 2;\n'
    )
    snippet = "my $A = 10;\n\nfor my $meth (  qw(\n    Next Prev Count\n    _ChkPos\n)  ) {\n\n# ...\n"
    expected = original.replace("$A = 1;", "$A = 10;").replace("Next Prev\n", "Next Prev Count\n")
    assert merged(original, snippet, language="perl") == expected
    emptied = snippet.replace(")  ) {\n", ")  ) {\n}\n")  # shown closed: emptied
    body = '    *{$Obj."::".$meth} = \\&{$meth};\n'
    assert merged(original, emptied, language="perl") == expected.replace(body, "")


def test_a_clause_after_a_marker_left_open_at_the_snippets_end_elides_the_rest_of_its_block() -> None:
    # `} else {` below a marker, its `for` edited, no `}` shown: the rest of the `else` block and of
    # the function is elided, so the clause goes in the `if`, not after the function's last line
    original = (
        "sub can_run {\n    my $command = shift;\n    if( is_absolute($command) ) {\n        return $command;\n"
        "    } else {\n        for my $dir (\n            File::Spec->path,\n        ) {\n"
        "            push @possibles, $dir;\n        }\n    }\n    return shift @possibles;\n}\n"
    )
    snippet = (
        "sub can_run {\n    # ... existing code ...\n    } else {\n        for my $dir (\n"
        "            ( $SEARCH_PATH ? @$SEARCH_PATH : File::Spec->path ),\n        ) {\n\n# ... existing code ...\n"
    )
    expected = original.replace("File::Spec->path,", "( $SEARCH_PATH ? @$SEARCH_PATH : File::Spec->path ),")
    assert merged(original, snippet, language="perl") == expected


def test_a_shell_function_is_no_command_of_its_name() -> None:
    # `install_shims() {` edited inside an `if`: not the bare call `install_shims` at the file's end
    assert signature_key("install_shims() {", "bash") == signature_key("function install_shims {", "bash")
    assert signature_key("install_shims() {", "bash") != signature_key("install_shims", "bash")
    original = (
        "TIMEOUT=${TIMEOUT:-60}\n\nif ((BASH_VERSINFO[0] > 3)); then\n  install_shims() {\n"
        '    for shim in "${!shims[@]}"; do\n      cp "$PROTO" "$shim"\n    done\n  }\nelse\n'
        '    install_shims() {\n      for shim in $shims; do\n        cp "$PROTO" "$shim"\n      done\n    }\n'
        "fi\n\nmake_shims\ninstall_shims\n"
    )
    snippet = (
        'TIMEOUT=${TIMEOUT:-30}\n# ... existing code ...\n  install_shims() {\n    for shim in "${!shims[@]}"; do\n'
        '      ln "$PROTO" "$shim" || cp "$PROTO" "$shim"\n    done\n  }\n# ... existing code ...\n'
    )
    expected = original.replace("60", "30").replace(
        '      cp "$PROTO" "$shim"', '      ln "$PROTO" "$shim" || cp "$PROTO" "$shim"', 1
    )
    assert merged(original, snippet, language="bash") == expected


def test_a_php_elseif_is_a_clause_that_new_clauses_may_be_shown_above() -> None:
    # `elseif` (PHP, Lua) continues its chain as `else if` does: `refund` shown above `export`,
    # whose body the marker below elides, is new, and `export` keeps its body
    original = (
        "<?php\n$a = 1;\n\nif ($action == 'view') {\n    show($id);\n} elseif ($action == 'cancel') {\n"
        "    cancel($id);\n} elseif ($action == 'export') {\n    header('x');\n    exit;\n}\n\necho 'done';\n"
    )
    snippet = (
        "<?php\n// ... existing code ...\n\n} elseif ($action == 'cancel') {\n    cancel($id);\n"
        "} elseif ($action == 'refund') {\n    refund($id);\n} elseif ($action == 'export') {\n// ... existing code ...\n"
    )
    expected = original.replace(
        "} elseif ($action == 'export')",
        "} elseif ($action == 'refund') {\n    refund($id);\n} elseif ($action == 'export')",
    )
    assert merged(original, snippet, language="php") == expected


def test_a_marker_at_column_zero_elides_the_tail_of_the_method_shown_last_above_it() -> None:
    # `__init__` shown down to an original line, then `# ...` at column 0 and top-level code: the
    # marker elides the rest of the class, so the rest of `__init__` too (no closer ends it)
    original = (
        "import re\n\n\nclass Lexer:\n    def __init__(self, punctuation=False):\n        self.whitespace = ' \\t'\n"
        "        if punctuation is True:\n            punctuation = '();'\n        self.punctuation = punctuation\n"
        "        if punctuation:\n            self.pushback = []\n            self.wordchars += '~-./'\n\n"
        "    def read(self):\n        return self.token\n\n\n_unsafe = re.compile(r'[^\\w@%+=:,./-]').search\n\n\n"
        "def quote(s):\n    return s\n"
    )
    snippet = (
        "class Lexer:\n    def __init__(self, punctuation=False):\n        self.whitespace = ' \\t\\f'\n"
        "        # ... unchanged ...\n        self.punctuation = punctuation\n# ... existing code ...\n\n\n"
        "_unsafe = re.compile(r'[^\\w@%+=:,./~-]').search\n\n\ndef quote(s):\n    # ... unchanged ...\n"
    )
    expected = original.replace("' \\t'", "' \\t\\f'").replace(",./-]", ",./~-]")
    assert merged(original, snippet, language="python") == expected


def test_closers_that_would_end_an_elided_block_early_are_ambiguous() -> None:
    # `validate` moved first: the snippet's second `}` would end `impl` right after it, deleting `new`
    start, end = CONFIG_RS.index("    fn new"), CONFIG_RS.index("    fn validate")
    new = CONFIG_RS[start:end]
    original = CONFIG_RS[:start] + CONFIG_RS[end:].replace(
        "    }\n}\n", "    }\n\n" + new.rstrip("\n") + "\n}\n", 1
    )
    snippet = (
        f"struct Config {{\n    threads: usize,\n}}\n// ... existing code ...\n{CHECK_RS}        Ok(())\n    }}\n}}\n"
        "// ... existing code ...\n"
    )
    assert ambiguous(original, snippet, language="rust").reasons[0].code == "unexplained_deletion"


def test_a_declaration_is_keyed_without_its_modifiers() -> None:
    original = (
        "export function load(id) {\n  return db.get(id);\n}\n\nexport function save(x) {\n  db.put(x);\n}\n"
    )
    snippet = "export async function load(id) {\n  return await db.get(id);\n}\n\n// ... existing code ...\n"
    expected = original.replace(
        "export function load(id) {\n  return db", "export async function load(id) {\n  return await db"
    )
    assert merged(original, snippet, language="javascript") == expected


def test_rust_functions_with_a_restricted_visibility_are_keyed_by_name() -> None:
    original = "pub(crate) fn a() -> u8 {\n    1\n}\n\npub(crate) fn b() -> u8 {\n    2\n}\n"
    snippet = "// ... existing code ...\n\npub(crate) fn b() -> u8 {\n    3\n}\n"
    assert merged(original, snippet, language="rust") == original.replace("    2\n", "    3\n")


HASKELL = (
    "module Main where\n\ntotal :: [Item] -> Double\ntotal xs = sum (map price xs)\n\n"
    "cheapest :: [Item] -> Maybe Item\ncheapest [] = Nothing\ncheapest xs = Just (minimum xs)\n\n"
    "main :: IO ()\nmain = do\n  print (total items)\n"
)


def test_a_haskell_equation_is_named_by_its_left_side_not_its_last_parameter() -> None:
    """`average xs = ...` is a new binding between `total` and a marker, not an edit of
    `cheapest xs = ...` (both end in the parameter `xs`)."""
    snippet = (
        "-- ... existing code ...\n\ntotal :: [Item] -> Double\ntotal xs = sum (map price xs)\n\n"
        "average :: [Item] -> Double\naverage xs = total xs / fromIntegral (length xs)\n\n"
        "-- ... existing code ...\n"
    )
    added = "average :: [Item] -> Double\naverage xs = total xs / fromIntegral (length xs)\n\n"
    expected = HASKELL.replace("cheapest ::", added + "cheapest ::")
    assert merged(HASKELL, snippet, path="Main.hs") == expected


def test_an_edited_haskell_equation_keeps_its_place() -> None:
    snippet = "-- ... existing code ...\n\ncheapest xs = Just (minimumBy (comparing price) xs)\n\n-- ... existing code ...\n"
    expected = HASKELL.replace("Just (minimum xs)", "Just (minimumBy (comparing price) xs)")
    assert merged(HASKELL, snippet, path="Main.hs") == expected


def test_an_fsharp_let_binding_is_named_after_let() -> None:
    original = "module Shop\n\nlet total items =\n    List.sumBy price items\n\nlet cheapest items =\n    List.minBy price items\n"
    snippet = (
        "// ... existing code ...\n\nlet total items =\n    List.sumBy price items\n\n"
        "let average items =\n    total items / float (List.length items)\n\n// ... existing code ...\n"
    )
    added = "let average items =\n    total items / float (List.length items)\n\n"
    assert merged(original, snippet, path="Shop.fs") == original.replace(
        "let cheapest", added + "let cheapest"
    )


def test_a_lua_elseif_continues_its_if() -> None:
    original = (
        "local function size(n)\n  if n < 10 then\n    return 'small'\n  elseif n < 100 then\n    return 'medium'\n"
        "  end\n  return 'large'\nend\n\nreturn size\n"
    )
    snippet = (
        "local function size(n)\n  if n < 10 then\n    return 'small'\n  elseif n < 100 then\n    return 'medium'\n"
        "  elseif n < 1000 then\n    return 'big'\n  end\n  -- ... existing code ...\nend\n"
    )
    expected = original.replace("  end\n", "  elseif n < 1000 then\n    return 'big'\n  end\n", 1)
    assert merged(original, snippet, path="size.lua") == expected


SCALA = (
    "package geometry\n\nimport scala.math.Pi\n\nobject Shapes {\n  def circle(r: Double): Double = Pi * r * r\n\n"
    "  def square(s: Double): Double = s * s\n}\n"
)


def test_an_import_list_that_keeps_the_imported_name_edits_its_import() -> None:
    snippet = (
        "package geometry\n\nimport scala.math.{Pi, sqrt}\n\nobject Shapes {\n  // ... existing code ...\n\n"
        "  def diagonal(s: Double): Double = sqrt(2) * s\n}\n"
    )
    expected = SCALA.replace("math.Pi", "math.{Pi, sqrt}").replace(
        "s * s\n", "s * s\n\n  def diagonal(s: Double): Double = sqrt(2) * s\n"
    )
    assert merged(SCALA, snippet, path="Shapes.scala") == expected


def test_a_list_of_exports_or_modules_that_keeps_a_name_edits_the_list() -> None:
    original = "module Geometry\n\nexport area, perimeter\n\narea(s) = s^2\nperimeter(s) = 4s\n\nend\n"
    snippet = "module Geometry\n\nexport area, perimeter, diagonal\n\n# ... existing code ...\n"
    assert merged(original, snippet, path="Geometry.jl") == original.replace(
        "perimeter\n", "perimeter, diagonal\n"
    )
    original = "import os, sys\n\n\ndef main():\n    return sys.argv\n"
    snippet = "import os, re, sys\n\n\n# ... existing code ...\n"
    assert merged(original, snippet, path="main.py") == original.replace("os, sys", "os, re, sys")


def test_an_import_of_another_name_from_the_same_module_is_no_edit_of_it() -> None:
    original = "use std::fs;\nuse std::io::Read;\n\nfn main() {\n    run();\n}\n"
    snippet = "use std::fs;\nuse std::io::Write;\n// ... existing code ...\n"
    assert ambiguous(original, snippet, language="rust").reasons[0].code == "edit_or_insertion"
    snippet = "use std::fs;\nuse std::io::{Read, Write};\n// ... existing code ...\n"
    assert merged(original, snippet, language="rust") == original.replace("io::Read", "io::{Read, Write}")


JULIA = '''module Shapes

export area

"""
    area(r)

Area of a circle of radius `r`.
"""
function area(r)
    return pi * r^2
end

end # module
'''


def test_a_julia_docstring_goes_with_the_function_below_it() -> None:
    """A new documented function after an anchor: the docstring's `\"\"\"` lines are not anchors to
    the original's docstring."""
    snippet = (
        "# ... existing code ...\nfunction area(r)\n    return pi * r^2\nend\n\n"
        '"""\n    circumference(r)\n\nLength of the circle.\n"""\nfunction circumference(r)\n'
        "    return 2pi * r\nend\n\n# ... existing code ...\n"
    )
    added = '\n"""\n    circumference(r)\n\nLength of the circle.\n"""\nfunction circumference(r)\n    return 2pi * r\nend\n'
    assert merged(JULIA, snippet, path="Shapes.jl") == JULIA.replace("^2\nend\n", "^2\nend\n" + added)


RAW_STRINGS = {  # a method returning a multi-line string whose lines stand at column 0, `run`, a new method
    "Query.kt": (
        '    fun sql() = """\nSELECT id\nFROM users\n"""\n',
        "    fun run() = db.exec(sql())\n",
        '    fun count() = db.exec("SELECT count(*) FROM users")\n',
    ),
    "Query.java": (
        '    String sql() {\n        return """\nSELECT id\nFROM users\n""";\n    }\n',
        "    int run() {\n        return db.exec(sql());\n    }\n",
        '    int count() {\n        return db.exec("SELECT count(*) FROM users");\n    }\n',
    ),
    "Query.cs": (
        '    string Sql() => """\nSELECT id\nFROM users\n""";\n',
        "    int Run() => Db.Exec(Sql());\n",
        '    int Count() => Db.Exec("SELECT count(*) FROM users");\n',
    ),
}


@pytest.mark.parametrize("path", RAW_STRINGS)
def test_lines_of_a_raw_string_belong_to_the_line_that_opens_it(path: str) -> None:
    """Its lines at column 0 do not end the class (that put the new method inside the string)."""
    sql, run, added = RAW_STRINGS[path]
    original = f"class Query {{\n{sql}\n{run}}}\n"
    snippet = f"class Query {{\n    // ... existing code ...\n\n{run}\n{added}}}\n"
    assert merged(original, snippet, path=path) == original.replace(run, f"{run}\n{added}")


def test_markup_shown_inside_a_new_wrapper_while_a_marker_keeps_it_is_ambiguous() -> None:
    """The buttons' ids say they moved into the new `<div>` (restyled, so no longer word for word);
    the marker below keeps the originals too, so the merge would declare each id twice."""
    original = (
        '<form>\n  <input id="email">\n  <button id="cancel">Cancel</button>\n'
        '  <button id="save">Save</button>\n  <p class="hint">Saved drafts stay here.</p>\n</form>\n'
    )
    snippet = (
        '<form>\n  <input id="email">\n  <div class="actions">\n'
        '    <button id="cancel" class="secondary">Cancel</button>\n'
        '    <button id="save" class="primary">Save</button>\n  </div>\n  <!-- ... existing code ... -->\n</form>\n'
    )
    result = ambiguous(original, snippet, path="form.html")
    assert result.reasons[0].code == "moved_or_copied"
    assert "'cancel'" in result.reasons[0].message


def test_a_solidity_contract_is_keyed_by_its_name_so_its_inheritance_list_may_change() -> None:
    original = (
        'import {Ownable} from "./Ownable.sol";\n\n/// @title A vault\ncontract Vault is Ownable {\n'
        "    uint256 public total;\n\n    function deposit(uint256 amount) external {\n        total += amount;\n    }\n}\n"
    )
    snippet = (
        "// ... existing code ...\n\n/// @title A vault\ncontract Vault is Ownable, Pausable {\n"
        "    // ... existing code ...\n}\n"
    )
    assert merged(original, snippet, path="Vault.sol") == original.replace("Ownable {", "Ownable, Pausable {")


def test_a_powershell_function_is_keyed_by_its_whole_dashed_name() -> None:
    original = (
        "function Get-Config([string]$Path) {\n    Get-Content $Path | ConvertFrom-Json\n}\n\n"
        "function Get-User([string]$Name) {\n    Get-LocalUser -Name $Name\n}\n"
    )
    snippet = "# ... existing code ...\n\nfunction Get-User([string]$Name, [switch]$All) {\n    # ... existing code ...\n}\n"
    expected = original.replace("Get-User([string]$Name)", "Get-User([string]$Name, [switch]$All)")
    assert merged(original, snippet, path="users.ps1") == expected


def test_continuation_lines_eight_deeper_do_not_set_the_snippets_indent_unit() -> None:
    """Arguments continued 8 spaces deeper (`parser.add_argument('--info', ...,` then `help=...`)
    outnumber the 4-space block bodies of a snippet: the bodies tell its unit. (Read as 8, every
    continuation line of the merge stood 4 spaces shallower.)"""
    original = (
        "import argparse\n\n\ndef main(args=None):\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--info', default=False,\n            help='Show the info.')\n"
        "    parser.add_argument('source',\n            help='Source directory.')\n"
        "    args = parser.parse_args(args)\n    run(args.source)\n"
    )
    snippet = (
        "def main(args=None):\n    # ... parser setup unchanged ...\n"
        "    parser.add_argument('--info', default=False,\n            help='Show the info.')\n"
        "    parser.add_argument('--exclude', '-x', action='append',\n            metavar='PATTERN',\n"
        "            help='Exclude matching files.')\n"
        "    parser.add_argument('source',\n            help='Source directory.')\n"
        "    # ... unchanged ...\n\n    def keep(path):\n        return not any(\n"
        "            path.match(pattern) for pattern in args.exclude)\n\n    run(args.source, keep)\n"
    )
    expected = original.replace(
        "    parser.add_argument('source',",
        "    parser.add_argument('--exclude', '-x', action='append',\n            metavar='PATTERN',\n"
        "            help='Exclude matching files.')\n    parser.add_argument('source',",
    ).replace(
        "    run(args.source)\n",
        "\n    def keep(path):\n        return not any(\n            path.match(pattern) for pattern in args.exclude)\n"
        "\n    run(args.source, keep)\n",
    )
    assert merged(original, snippet, path="cli.py") == expected


def test_bodies_a_unit_deeper_tell_the_snippets_unit_however_many_continuation_lines() -> None:
    """A Java snippet whose calls continue 8 deeper, step on step, so that even counted twice
    its 4-space method bodies are fewer: bodies stepping by the original's unit tell the unit.
    (Read as 8, every continuation line of the merge stood 4 spaces shallower.)"""
    query = (
        '    List<A> find(String zip) {\n        return jdbc.query(\n                "SELECT " + COLUMNS\n'
        '                        + " WHERE zip = :zip",\n                params()\n'
        '                        .add("zip", zip),\n                keys\n                        .first(),\n'
        "                rows\n                        .limit(),\n                MAPPER);\n    }\n"
    )
    original = (
        'class Dao {\n    private static final String COLUMNS =\n            "id, zip";\n\n'
        "    private final Jdbc jdbc;\n\n" + query + "\n    void close() {\n        jdbc.close();\n    }\n}\n"
    )
    snippet = (
        'class Dao {\n    private static final String COLUMNS =\n            "id, postal";\n\n'
        "    // ... fields unchanged ...\n\n" + query.replace("zip = :zip", "postal = :zip") + "\n"
        "    // ... rest unchanged ...\n}\n"
    )
    expected = original.replace("id, zip", "id, postal").replace("zip = :zip", "postal = :zip")
    assert merged(original, snippet, language="java") == expected


def test_a_text_block_indented_by_twos_does_not_set_the_snippets_indent_unit() -> None:
    """The snippet's JSON steps by 2 spaces as often as its code by 4: the unit is the code's."""
    json = (
        '        String json = """\n            {\n              "order": {\n                "lines": [\n'
        '                  {"qty": 2}\n                ]\n              }\n            }\n            """;\n'
    )
    test = f"    @Test\n    void parses() {{\n{json}        assertThat(parse(json).qty()).isEqualTo(2);\n    }}\n"
    original = (
        f'class OrderTest {{\n{test}\n    @Test\n    void rejects() {{\n        parse("");\n    }}\n}}\n'
    )
    edited = test.replace('{"qty": 2}', '{"qty": 3}').replace("isEqualTo(2)", "isEqualTo(3)")
    snippet = f"    // ... existing code ...\n{edited}\n    // ... existing code ...\n"
    assert merged(original, snippet, path="OrderTest.java") == original.replace(test, edited)


def test_a_cmake_command_is_keyed_by_its_first_argument() -> None:
    """A new `FetchContent_Declare(` is no edit of the elided one below it, which declares another
    package; the one declaring `fmt` is edited."""
    declare = "FetchContent_Declare(\n  {name}\n  GIT_REPOSITORY https://example.com/{name}.git\n  GIT_TAG {tag}\n)\n"
    fmt, catch2 = declare.format(name="fmt", tag="10.1.1"), declare.format(name="Catch2", tag="v3.4.0")
    original = f"include(FetchContent)\n\n{fmt}{catch2}FetchContent_MakeAvailable(fmt)\n"
    new_fmt, spdlog = declare.format(name="fmt", tag="10.2.1"), declare.format(name="spdlog", tag="v1.13.0")
    snippet = f"# ... existing code ...\n\n{new_fmt}{spdlog}# ... existing code ...\nFetchContent_MakeAvailable(fmt spdlog)\n"
    expected = f"include(FetchContent)\n\n{new_fmt}{spdlog}{catch2}FetchContent_MakeAvailable(fmt spdlog)\n"
    assert merged(original, snippet, path="CMakeLists.txt") == expected


def test_a_docstring_example_keeps_its_text_its_marker_shaped_line_and_indentation() -> None:
    """Inside a docstring, `# ... one line per row ...` (the original's own line) is text, not a
    marker, though both its neighbours are edited; an edited line keeps its own indentation."""
    doc = (
        '    """Render a table.\n\n    Example::\n\n        id  | name\n        1   | Ada\n'
        '        # ... one line per row ...\n\n    Cells are left-aligned.\n    """\n'
    )
    original = f"def render(rows):\n{doc}    return format_rows(rows)\n\n\ndef other():\n    return 1\n"
    edited = doc.replace("        1   | Ada", "          1 | Ada").replace(
        "left-aligned.", "aligned by kind."
    )
    snippet = f"def render(rows):\n{edited}    return format_rows(rows)\n\n\n# ... existing code ...\n"
    assert merged(original, snippet, path="table.py") == original.replace(doc, edited)


def test_a_snippet_may_resume_a_template_literal_whose_opening_a_marker_elides() -> None:
    """The first line after the marker ends the second handler's template (the original has it
    inside that template only), so its backtick closes a string: read as opening one, it ran to the
    next backtick, swallowing the new line's code, and the lines left matched both handlers."""
    handler = (
        'router.get("/{name}", (req, res) => {{\n  const html = page(\n    `<h1>{name}</h1>\n'
        '    <a href="/{name}.pdf">PDF</a>`\n  );\n  res.send(html);\n}});\n\n'
    )
    original = handler.format(name="a") + handler.format(name="b") + "module.exports = router;\n"
    added = '  res.set("ETag", `"${req.params.id}"`);\n'
    snippet = (
        f'// ... existing code ...\n    <a href="/b.pdf">PDF</a>`\n  );\n{added}'
        "  res.send(html);\n});\n\nmodule.exports = router;\n"
    )
    edited = handler.format(name="b").replace("  res.send", f"{added}  res.send")
    assert merged(original, snippet, path="routes.js") == original.replace(handler.format(name="b"), edited)


def test_an_overload_is_anchored_by_its_whole_signature() -> None:
    original = (
        "class Pricing {\n    int total(Order o) {\n        int sum = sum(o);\n        return sum;\n    }\n\n"
        "    int total(Order o, int discount) {\n        int sum = sum(o);\n        return sum - discount;\n    }\n\n"
        "    int count(Order o) {\n        return o.size();\n    }\n}\n"
    )
    snippet = (
        "class Pricing {\n    // ...\n\n    int total(Order o, int discount) {\n        int sum = sum(o);\n"
        "        return Math.max(0, sum - discount);\n    }\n\n    // ...\n}\n"
    )
    expected = original.replace("return sum - discount;", "return Math.max(0, sum - discount);")
    assert merged(original, snippet, language="java") == expected


NAMESPACED_CS = (
    "namespace Shop\n{\n    public class Orders\n    {\n        public int Count()\n        {\n            return _db.Count();\n"
    "        }\n    }\n}\n"
)
DELETE_CS = "        public void Delete(int id)\n        {\n            _db.Remove(id);\n        }\n"


@pytest.mark.parametrize(
    ("original", "snippet", "language", "expected"),
    [
        (
            "class A {\n  a() {\n    return 1;\n  }\n}\n",
            "// ... existing code ...\n\n  b() {\n    return 2;\n  }\n}\n",
            "javascript",
            "class A {\n  a() {\n    return 1;\n  }\n\n  b() {\n    return 2;\n  }\n}\n",
        ),
        (  # Allman braces: the members hang under the class's own `{` line
            NAMESPACED_CS,
            f"        // ... existing code ...\n\n{DELETE_CS}    }}\n}}\n",
            "csharp",
            NAMESPACED_CS.replace("        }\n    }\n}\n", f"        }}\n\n{DELETE_CS}    }}\n}}\n"),
        ),
    ],
    ids=["class", "class-in-namespace"],
)
def test_code_shown_above_the_closers_of_the_files_last_block_is_appended_to_that_block(
    original: str, snippet: str, language: str, expected: str
) -> None:
    assert merged(original, snippet, language=language) == expected


def test_closers_that_are_not_the_last_blocks_own_are_no_anchor() -> None:
    snippet = f"        // ... existing code ...\n\n{DELETE_CS}    }}\n}}\n}}\n"  # one `}` too many
    assert ambiguous(NAMESPACED_CS, snippet, language="csharp").reasons[0].code == "unmatched_anchor"


def test_a_list_element_that_elides_part_of_itself_edits_the_element_there() -> None:
    original = (
        '{\n  "configurations": [\n    {\n      "name": "server",\n      "env": {\n        "PORT": "3000"\n      }\n'
        '    },\n    {\n      "name": "tests",\n      "args": ["--watch"]\n    }\n  ]\n}\n'
    )
    snippet = (
        '{\n  "configurations": [\n    {\n      // ... existing code ...\n      "env": {\n        "PORT": "3000",\n'
        '        "DEBUG": "app:*"\n      }\n    },\n    // ... existing code ...\n  ]\n}\n'
    )
    expected = original.replace('"PORT": "3000"\n', '"PORT": "3000",\n        "DEBUG": "app:*"\n')
    assert merged(original, snippet, language="json") == expected


def test_a_method_elided_on_its_header_line_matches_whatever_the_space_before_its_parens() -> None:
    original = "class A {\n  format () {\n    return 1\n  }\n\n  toString () {\n    return this.v\n  }\n}\n"
    snippet = "class A {\n  format () {\n    return 2\n  }\n\n  toString () { ... }\n}\n"
    assert merged(original, snippet, language="javascript") == original.replace("return 1", "return 2")


@pytest.mark.parametrize(
    ("original", "snippet", "language", "expected"),
    [
        (
            "import os\n\n# Defaults\n# TIMEOUT = 30\n# RETRIES = 3\nVERBOSE = False\n",
            "# ... existing code ...\n# TIMEOUT = 30\nRETRIES = 3\nVERBOSE = False\n",
            "python",
            "import os\n\n# Defaults\n# TIMEOUT = 30\nRETRIES = 3\nVERBOSE = False\n",
        ),
        (  # the marker elides the section comment above the line shown
            "import os\n\n# Feature flags\n# ENABLE_X = True\nUSE_CACHE = False\n\n\ndef f():\n    return 1\n",
            "# ... existing code ...\n# ENABLE_X = True\nUSE_CACHE = True\n# ... existing code ...\n",
            "python",
            "import os\n\n# Feature flags\n# ENABLE_X = True\nUSE_CACHE = True\n\n\ndef f():\n    return 1\n",
        ),
    ],
    ids=["uncomment-one", "section-comment-elided"],
)
def test_comments_above_a_one_line_statement_are_matched_on_their_own(
    original: str, snippet: str, language: str, expected: str
) -> None:
    # before: they were the statement's prefix, so the old comment run was written out again
    assert merged(original, snippet, language=language) == expected


def test_comment_lines_the_elided_code_holds_are_not_written_again() -> None:
    # the table's lines shown without its `[server]` header: they cannot be placed at the top level
    original = '[server]\nport = 8080\n# host = "0.0.0.0"\n# workers = 4\n\n[db]\nurl = "sqlite://"\n'
    snippet = '# ... existing code ...\n# host = "0.0.0.0"\nworkers = 4\n\n[db]\n# ... existing code ...\n'
    assert ambiguous(original, snippet, language="toml").reasons[0].code == "unanchored_insertion"


def test_a_closer_that_ends_several_blocks_alike_places_nothing() -> None:
    # marker, a method, `}`: `impl Bag` or `mod tests`? Both end in a `}` at column 0
    original = (
        "struct Bag {\n    items: Vec<u8>,\n}\n\nimpl Bag {\n    pub fn len(&self) -> usize {\n        self.items.len()\n"
        "    }\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn empty() {}\n}\n"
    )
    snippet = (
        "// ... existing code ...\n\n    pub fn clear(&mut self) {\n        self.items.clear();\n    }\n}\n"
    )
    assert ambiguous(original, snippet, language="rust").reasons[0].code == "unmatched_anchor"


def test_one_closer_with_the_indentation_of_a_single_block_appends_to_that_block() -> None:
    # the class's `}` alone, the namespace's left out: the class is the one block it closes
    snippet = f"        // ... existing code ...\n\n{DELETE_CS}    }}\n"
    expected = NAMESPACED_CS.replace("        }\n    }\n}\n", f"        }}\n\n{DELETE_CS}    }}\n}}\n")
    assert merged(NAMESPACED_CS, snippet, language="csharp") == expected


def test_a_comment_shown_below_a_marker_keeps_the_comment_lines_above_it() -> None:
    original = "package main\n\n// Config holds settings.\n// Fields are read from env.\ntype Config struct {\n\tPort int\n}\n"
    snippet = "// ... existing code ...\n// Fields are read from env.\ntype Config struct {\n\tPort int\n\tHost string\n}\n"
    assert merged(original, snippet, language="go") == original.replace(
        "\tPort int\n", "\tPort int\n\tHost string\n"
    )


def test_a_new_function_above_the_first_anchor_gets_the_blank_lines_the_file_has_there() -> None:
    original = "import os\n\n\ndef f():\n    return os.getcwd()\n\n\ndef g():\n    return 1\n"
    snippet = "def helper():\n    return 42\n\n\ndef f():\n    return os.getcwd()\n# ... existing code ...\n"
    expected = original.replace("def f():", "def helper():\n    return 42\n\n\ndef f():")
    assert merged(original, snippet, language="python") == expected


def test_code_after_a_leading_marker_like_the_files_last_lines_is_not_appended() -> None:
    original = 'FROM python:3.12-slim\nRUN pip install flask\nEXPOSE 5000\nCMD ["flask", "run"]\n'
    snippet = '# ... existing code ...\nEXPOSE 8080\nCMD ["flask", "run", "--port", "8080"]\n'
    # before: a second EXPOSE and CMD after the first; `CMD` edits the last line, not adds one
    assert ambiguous(original, snippet, path="Dockerfile").status == "ambiguous"


def test_uncommented_lines_the_merge_would_also_keep_commented_are_ambiguous() -> None:
    original = (
        'services:\n  web:\n    image: app\n    # ports:\n    #   - "8080:80"\n    environment:\n      - DEBUG=0\n'
        "  db:\n    image: postgres\n"
    )
    snippet = '# ... existing code ...\n    image: app\n    ports:\n      - "8080:80"\n    environment:\n# ... existing code ...\n'
    # before: `ports:` written and `# ports:` kept below it, the comments being `environment`'s prefix
    assert ambiguous(original, snippet, language="yaml").reasons[0].code == "still_commented"


def test_a_body_shown_from_a_marker_down_to_its_closer_ends_there() -> None:
    original = 'package main\n\nfunc main() {\n\tprintln("start")\n\tprintln("hi")\n\tprintln("bye")\n}\n'
    snippet = '// ... existing code ...\n\tprintln("hi")\n\tprintln("goodbye")\n}\n'
    # before: the function's tail counted as elided, so `bye` stayed below `goodbye`
    assert merged(original, snippet, language="go") == original.replace('"bye"', '"goodbye"')


def test_the_comment_above_a_one_line_declaration_is_its_doc() -> None:
    original = 'import os\n\n\n# Returns the default port.\ndef default_port(): return 8080\n\n\n# Host.\ndef host(): return "h"\n'
    snippet = (
        "# ... existing code ...\n# Returns the default port (or $PORT).\n"
        'def default_port(): return int(os.environ.get("PORT", 8080))\n# ... existing code ...\n'
    )
    expected = original.replace(
        "port.\ndef default_port(): return 8080",
        'port (or $PORT).\ndef default_port(): return int(os.environ.get("PORT", 8080))',
    )
    assert merged(original, snippet, language="python") == expected


def test_a_whole_file_rewrite_drops_a_comment_it_leaves_out() -> None:
    original = "def a(): return 1\n\n\n# old note\ndef b(): return 2\n"
    snippet = "def a(): return 1\n\n\ndef b(): return 2\n"
    assert merged(original, snippet, language="python") == snippet


def test_a_new_line_commented_out_elsewhere_in_the_file_is_just_new() -> None:
    original = (
        "def find(items, key):\n    for item in items:\n        if item.key == key:\n            return item\n"
        "    # return None\n\n\ndef first(items):\n    return items[0]\n"
    )
    snippet = "# ... existing code ...\n\n\ndef first(items):\n    if not items:\n        return None\n    return items[0]\n"
    expected = original.replace(
        "    return items[0]", "    if not items:\n        return None\n    return items[0]"
    )
    assert merged(original, snippet, language="python") == expected


DOC_GO = (
    "package config\n\n// Parse parses the config file at path.\n// It returns an error if the file does not exist.\n"
    "// Deprecated: use ParseFile.\nfunc Parse(path string) (*Config, error) {\n\treturn ParseFile(path)\n}\n"
)


@pytest.mark.parametrize(
    ("original", "snippet", "language"),
    [
        (  # one doc line, changed, below a marker: the last line edited, or the whole doc replaced?
            DOC_GO,
            "// ... existing code ...\n// Deprecated: use ParseFile instead.\nfunc Parse(path string) (*Config, error) {\n"
            "// ... existing code ...\n",
            "go",
        ),
        (  # the first doc line left out, a line added: elided or deleted?
            DOC_GO,
            "// ... existing code ...\n// It returns an error if the file does not exist.\n// It never returns nil.\n"
            "// Deprecated: use ParseFile.\nfunc Parse(path string) (*Config, error) {\n// ... existing code ...\n",
            "go",
        ),
        (  # a new comment right above a statement that has one
            "import os\n\n# Timeout for HTTP calls, in seconds.\n# Applies to both connect and read.\nTIMEOUT = 30\nRETRIES = 2\n",
            "# ... existing code ...\n# Applies to connect only.\nTIMEOUT = 30\n# ... existing code ...\n",
            "python",
        ),
        (  # the tail of a block comment: code goes in no comment
            "package a\n\nfunc Retry() int {\n\tn := 0\n\t/*\n\t * Retry a few times: the service\n"
            "\t * is flaky at startup.\n\t */\n\tn = 3\n\treturn n\n}\n",
            "package a\n\nfunc Retry() int {\n\t// ... existing code ...\n\t * is flaky at startup (see #1).\n\t */\n"
            "\tn = 3\n\t// ... existing code ...\n}\n",
            "go",
        ),
    ],
    ids=["doc-last-line", "doc-first-line-left-out", "statement-comment", "block-comment-tail"],
)
def test_part_of_a_comment_shown_changed_below_a_marker_is_ambiguous(
    original: str, snippet: str, language: str
) -> None:
    assert ambiguous(original, snippet, language=language).status == "ambiguous"


def test_a_marker_above_changed_decorators_elides_the_comment_above_them() -> None:
    original = (
        "import functools\n\n\n# Cached: the lookup is slow.\n@functools.lru_cache(maxsize=None)\ndef lookup(key):\n"
        "    return key\n"
    )
    snippet = "# ... existing code ...\n@functools.lru_cache(maxsize=128)\ndef lookup(key):\n    return key\n"
    assert merged(original, snippet, language="python") == original.replace("maxsize=None", "maxsize=128")


PARAMETRIZED = """import pytest


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0", 0),
        ("1k", 1024),
        ("1G", 1024 ** 3),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected
"""


def test_a_marker_among_decorator_lines_stands_for_the_original_lines_between_its_neighbours() -> None:
    snippet = (
        '# ... existing code ...\n\n@pytest.mark.parametrize(\n    "text, expected",\n    [\n'
        '        # ... existing cases ...\n        ("1G", 1024 ** 3),\n        ("1T", 1024 ** 4),\n'
        "    ],\n)\ndef test_parse_size(text, expected):\n    assert parse_size(text) == expected\n"
    )
    expected = PARAMETRIZED.replace("3),\n", '3),\n        ("1T", 1024 ** 4),\n')
    assert merged(PARAMETRIZED, snippet, language="python") == expected


@pytest.mark.parametrize(
    "shown_above",
    ['        ("0", 0),\n        ("1k", 1024),\n', '        ("2k", 2048),\n'],
    ids=["anchor-twice", "anchor-not-in-original"],
)
def test_a_marker_among_decorator_lines_without_one_line_around_it_in_the_original_is_ambiguous(
    shown_above: str,
) -> None:
    original = (
        PARAMETRIZED.replace('("1G"', '("1k", 1024),\n        ("1G"') if "1k" in shown_above else PARAMETRIZED
    )
    snippet = (
        f'@pytest.mark.parametrize(\n    "text, expected",\n    [\n{shown_above}        # ...\n'
        '        ("1T", 1024 ** 4),\n    ],\n)\ndef test_parse_size(text, expected):\n'
        "    assert parse_size(text) == expected\n"
    )
    assert ambiguous(original, snippet, language="python").reasons[0].code == "unanchored_insertion"


def test_into_an_empty_original_the_snippets_final_newline_carries_over() -> None:
    assert merged("", "# Hello\nX = 1\n", language="python") == "# Hello\nX = 1\n"


def test_a_new_function_below_a_marker_gets_at_least_the_blank_lines_the_file_has_there() -> None:
    original = "import os\n\n\ndef a():\n    return 1\n\n\ndef c():\n    return 3\n"
    snippet = "# ... existing code ...\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
    expected = original.replace("def c():", "def b():\n    return 2\n\n\ndef c():")
    assert merged(original, snippet, language="python") == expected


@pytest.mark.parametrize(
    ("original", "snippet"),
    [
        (  # between the comment and the code it describes, or above the comment?
            "A = 1\n# Timeout in seconds\nTIMEOUT = 30\n",
            "# ... existing code ...\nRETRIES = 2\nTIMEOUT = 30\n",
        ),
        (  # the comment left out between two lines shown together: resolved, or not copied?
            "import os\n\nDEBUG = True\n# FIXME: remove before release\nALLOW_ALL = True\nKEY = os.environ['KEY']\n",
            "# ... existing code ...\nDEBUG = True\nALLOW_ALL = False\nKEY = os.environ['KEY']\n",
        ),
    ],
    ids=["new-code-above-a-commented-line", "comment-left-out"],
)
def test_a_comment_above_a_statement_is_not_silently_moved_away_from_it_or_dropped(
    original: str, snippet: str
) -> None:
    assert ambiguous(original, snippet, language="python").status == "ambiguous"


@pytest.mark.parametrize(
    ("original", "snippet", "language", "expected"),
    [
        (  # a loop shown down to a line, then a marker at column 0: the rest of the loop stays
            "def main(client):\n    records = []\n    while True:\n        page = client.fetch()\n"
            "        records.extend(page)\n        if not page:\n            break\n    return records\n",
            "# ... existing code ...\n    while True:\n        try:\n            page = client.fetch()\n"
            "        except OSError:\n            return None\n        records.extend(page)\n# ... existing code ...\n",
            "python",
            "def main(client):\n    records = []\n    while True:\n        try:\n            page = client.fetch()\n"
            "        except OSError:\n            return None\n        records.extend(page)\n        if not page:\n"
            "            break\n    return records\n",
        ),
        (  # a function shown from its header without its closing brace: its rest stays
            "func create(w http.ResponseWriter) {\n\tin := read()\n\tuser := store(in)\n\twrite(w, user)\n}\n",
            "func create(w http.ResponseWriter) {\n\tin := read()\n\tin.Email = lower(in.Email)\n"
            "\tuser := store(in)\n// ... existing code ...\n",
            "go",
            "func create(w http.ResponseWriter) {\n\tin := read()\n\tin.Email = lower(in.Email)\n"
            "\tuser := store(in)\n\twrite(w, user)\n}\n",
        ),
        (  # a list item's first line, then a marker at column 0: its other keys stay
            "steps:\n  - name: Lint\n    run: ruff check .\n  - name: Test\n    run: pytest -q\n",
            "# ... existing code ...\n  - name: Lint\n    run: ruff check .\n  - name: Types\n    run: mypy app\n"
            "  - name: Test\n# ... existing code ...\n",
            "yaml",
            "steps:\n  - name: Lint\n    run: ruff check .\n  - name: Types\n    run: mypy app\n  - name: Test\n"
            "    run: pytest -q\n",
        ),
    ],
    ids=["python-loop", "go-no-closer", "yaml-list-item"],
)
def test_a_block_the_snippet_leaves_by_a_marker_keeps_its_rest(
    original: str, snippet: str, language: str, expected: str
) -> None:
    assert merged(original, snippet, language=language) == expected


CLIENT = """export class Client {
  private ws: WebSocket | null = null;

  connect(url: string): void {
    this.ws = new WebSocket(url);
  }

  handle(raw: string): void {
    this.emit(JSON.parse(raw));
  }

  close(): void {
    this.ws?.close();
  }
}
"""


def test_markers_at_column_0_inside_a_class_stand_in_its_body() -> None:
    snippet = (
        "export class Client {\n// ... existing code ...\n\n  handle(raw: string): void {\n"
        "    if (!raw) return;\n    this.emit(JSON.parse(raw));\n  }\n\n// ... existing code ...\n}\n"
    )
    # before: the markers stood at the top level, so the method had no block to go in
    expected = CLIENT.replace("void {\n    this.emit", "void {\n    if (!raw) return;\n    this.emit")
    assert merged(CLIENT, snippet, language="typescript") == expected


def test_an_import_rewritten_over_several_lines_is_an_edit_of_the_one_line_import() -> None:
    original = 'import { describe, it } from "vitest";\n\nimport { a, b } from "../format";\n\ndescribe("a", () => {});\n'
    snippet = 'import { describe, it } from "vitest";\n\nimport {\n  a,\n  b,\n  c,\n} from "../format";\n\n// ... existing code ...\n'
    expected = original.replace(
        'import { a, b } from "../format";', 'import {\n  a,\n  b,\n  c,\n} from "../format";'
    )
    assert merged(original, snippet, language="typescript") == expected


def test_a_first_comment_naming_the_file_with_a_note_is_not_part_of_the_snippet() -> None:
    snippet = "# shapes.py — print the square instead\n# ...\ndef main():\n    print(square_area(2))\n"
    assert merged(SHAPES, snippet, language="python") == SHAPES.replace(
        "circle_area(1.0))", "square_area(2))"
    )


def test_a_block_holding_a_repeated_line_twice_does_not_outscore_one_holding_it_once() -> None:
    check = "\tif err != nil {\n\t\treturn\n\t}\n"
    original = (
        f"func get() {{\n\tid, err := parse()\n{check}\tuser, err := load(id)\n{check}\tshow(user)\n}}\n\n"
        f"func del() {{\n\tid, err := parse()\n{check}\tdrop(id)\n}}\n"
    )
    snippet = f"// ... existing code ...\n\tid, err := parseID()\n{check}// ... existing code ...\n"
    # before: `get` won for holding the `if err` block twice, and the new line went in below the old
    assert ambiguous(original, snippet, language="go").reasons[0].code == "several_candidates"


def test_a_marker_at_the_end_of_a_fragments_block_keeps_the_rest_of_that_block() -> None:
    original = (
        "import sys\n\n\ndef main(args):\n    count = 0\n    for path in args.paths:\n        out = resize(path)\n"
        "        count += 1\n        if args.verbose:\n            print(out)\n    return count\n"
    )
    snippet = (
        "import sys\n\n# ... existing code ...\n    for path in args.paths:\n        if args.dry_run:\n"
        "            continue\n        out = resize(path)\n        # ... existing code ...\n"
    )
    # before: the marker closing the loop body was lifted out of it, so the loop's rest was deleted
    expected = original.replace(
        "        out = resize", "        if args.dry_run:\n            continue\n        out = resize"
    )
    assert merged(original, snippet, language="python") == expected


def test_a_fragment_ending_in_its_own_deep_marker_above_the_functions_closer_keeps_the_rest() -> None:
    original = (
        "fn lex(input: &str) -> Vec<Tok> {\n    let mut out = Vec::new();\n    for c in input.chars() {\n"
        "        match c {\n            '+' => {\n                out.push(Tok::Plus);\n            }\n"
        "            '-' => {\n                out.push(Tok::Minus);\n            }\n"
        "            _ => {}\n        }\n    }\n    out\n}\n"
    )
    snippet = (
        "fn lex(input: &str) -> Vec<Tok> {\n    // ... existing code ...\n            '-' => {\n"
        "                out.push(Tok::Minus);\n            }\n            '*' => {\n"
        "                out.push(Tok::Star);\n            }\n            // ... existing code ...\n}\n"
    )
    # before: the deep marker was read as no marker after the fragment, so it had nowhere to go
    expected = original.replace(
        "            _ => {}",
        "            '*' => {\n                out.push(Tok::Star);\n            }\n            _ => {}",
    )
    assert merged(original, snippet, language="rust") == expected


LEX = (
    "fn lex(input: &str) -> Vec<Tok> {\n    let mut out = Vec::new();\n    for c in input.chars() {\n"
    "        match c {\n            '+' => out.push(Tok::Plus),\n            _ => {\n"
    "                return Err(c);\n            }\n        }\n    }\n    out\n}\n\n"
    "/// A token's width.\nfn width(tok: Tok) -> usize {\n    1\n}\n"
)


def test_a_fragment_ending_in_a_block_left_open_at_a_marker_elides_the_rest_of_the_file() -> None:
    snippet = (
        "fn lex(input: &str) -> Vec<Tok> {\n    // ... existing code ...\n"
        "            '+' => out.push(Tok::Plus),\n            '*' => out.push(Tok::Star),\n"
        "            _ => {\n                // ... existing code ...\n"
    )
    # before: the open `_ => {` was read as the end of what the snippet shows of the match
    expected = LEX.replace("Plus),\n", "Plus),\n            '*' => out.push(Tok::Star),\n")
    assert merged(LEX, snippet, language="rust") == expected


def test_a_block_left_open_at_a_marker_elides_what_follows_it_up_to_the_next_anchor() -> None:
    original = (
        "function lex(input) {\n  const out = [];\n  for (const c of input) {\n    out.push(c);\n  }\n"
        "  return out;\n}\n\n/**\n* A token's width.\n*/\nfunction width(tok) {\n  return 1;\n}\n"
    )
    snippet = (
        "function lex(input) {\n  const out = new Array();\n  for (const c of input) {\n"
        "    // ... existing code ...\n\nfunction width(tok) {\n  return tok.length;\n}\n"
    )
    # before: the comment's lines (items of their own here) were deleted as if closed up; and the
    # blank line shown went between them and the function
    expected = original.replace("[]", "new Array()").replace("return 1;", "return tok.length;")
    assert merged(original, snippet, language="javascript") == expected


def test_a_clause_added_below_a_marker_in_an_else_if_chain_goes_after_the_clause_shown() -> None:
    original = (
        'int run(const char *cmd)\n{\n    int rc;\n    if (strcmp(cmd, "get") == 0) {\n        rc = get();\n'
        '    } else if (strcmp(cmd, "set") == 0) {\n        rc = set();\n'
        '    } else if (strcmp(cmd, "del") == 0) {\n        rc = del();\n    } else {\n        rc = -1;\n'
        "    }\n    return rc;\n}\n"
    )
    snippet = (
        'int run(const char *cmd)\n{\n    /* ... */\n    } else if (strcmp(cmd, "del") == 0) {\n'
        '        rc = del();\n    } else if (strcmp(cmd, "list") == 0) {\n        rc = list();\n'
        "    } else {\n        rc = -1;\n    }\n    /* ... */\n}\n"
    )
    # before: the `set` clause, holding `del` by the same key, tied with the `get` block holding it
    expected = original.replace(
        "        rc = del();\n",
        '        rc = del();\n    } else if (strcmp(cmd, "list") == 0) {\n        rc = list();\n',
    )
    assert merged(original, snippet, language="c") == expected


def test_a_deeper_look_alike_after_a_marker_does_not_push_an_edited_block_out_of_order() -> None:
    original = (
        "function encode(obj) {\n  let out = ''\n  const children = []\n  for (const k of Object.keys(obj)) {\n"
        "    if (typeof obj[k] === 'object') {\n      children.push(k)\n    } else {\n      out += k + eol\n    }\n"
        "  }\n  for (const k of children) {\n    const child = encode(obj[k])\n    out += child\n  }\n"
        "  return out\n}\n"
    )
    snippet = (
        "function encode(obj) {\n  // ... existing code ...\n  for (const k of Object.keys(obj)) {\n"
        "    if (isSection(obj[k])) {\n      children.push(k)\n    } else {\n      out += k + eol\n    }\n"
        "  }\n  // ... existing code ...\n    out += child\n  }\n  return out\n}\n"
    )
    # before: `out += child` paired with `let out = ''` by its key, and the loop fell out of order
    expected = original.replace("typeof obj[k] === 'object'", "isSection(obj[k])")
    assert merged(original, snippet, language="javascript") == expected


def test_rows_added_at_the_end_of_a_table_shown_with_its_closer_below_a_marker() -> None:
    original = (
        "package slug\n\nfunc TestMake(t *testing.T) {\n\ttests := []struct{ name, in, want string }{\n"
        '\t\t{"spaces", "a b", "a-b"},\n\t\t{"case", "AB", "ab"},\n\t}\n\tfor _, tt := range tests {\n'
        "\t\tcheck(t, tt.in, tt.want)\n\t}\n}\n"
    )
    snippet = (
        'func TestMake(t *testing.T) {\n\t// ... existing code ...\n\t\t{"case", "AB", "ab"},\n'
        '\t\t{"empty", "", ""},\n\t}\n\t// ... existing code ...\n}\n'
    )
    # before: the closer at the marker's depth kept the rows from being read as a fragment
    expected = original.replace('"ab"},\n', '"ab"},\n\t\t{"empty", "", ""},\n')
    assert merged(original, snippet, language="go") == expected


BANK = """#include <map>

namespace bank {

class Bank {
public:
    long balance(int id) const {
        return accounts_.at(id);
    }

    void deposit(int id, long cents) {
        accounts_[id] += cents;
    }

private:
    std::map<int, long> accounts_;
};

}  // namespace bank
"""


def test_a_method_added_in_a_cpp_class_whose_public_label_stands_at_the_class_column() -> None:
    snippet = (
        "// ... existing code ...\nclass Bank {\npublic:\n    // ... existing methods ...\n\n"
        "    void deposit(int id, long cents) {\n        // ... unchanged ...\n    }\n\n"
        "    void reset(int id) {\n        accounts_[id] = 0;\n    }\n\n    // ... existing code ...\n};\n\n"
        "}  // namespace bank\n"
    )
    # before: `public:` and `private:` were blocks of their own, the class's `};` the last line of
    # `private:`; the marker above `};` was read as eliding the public methods only, so the private
    # section was deleted (a parse error caught it)
    expected = BANK.replace(
        "    }\n\nprivate:",
        "    }\n\n    void reset(int id) {\n        accounts_[id] = 0;\n    }\n\nprivate:",
    )
    assert merged(BANK, snippet, language="cpp") == expected


def test_members_of_an_allman_style_class_then_its_closer_go_in_the_block_of_its_brace() -> None:
    original = BANK.replace("class Bank {\n", "class Bank\n{\n")
    snippet = (
        "    // ... existing code ...\n    void deposit(int id, long cents) {\n        accounts_[id] += cents;\n"
        "    }\n\n    void reset(int id) {\n        accounts_[id] = 0;\n    }\n\nprivate:\n"
        "    // ... existing code ...\n};\n\n}  // namespace bank\n"
    )
    # the members stand in the block of the `{` line, not in a top-level item: with the labels
    # among the members, only placing them in that block merges this
    expected = original.replace(
        "    }\n\nprivate:",
        "    }\n\n    void reset(int id) {\n        accounts_[id] = 0;\n    }\n\nprivate:",
    )
    assert merged(original, snippet, language="cpp") == expected


def test_a_method_shown_without_its_impl_after_an_enums_end_goes_in_the_one_impl_holding_it() -> None:
    original = (
        "pub enum ConfigError {\n    Parse(String),\n    Missing(&'static str),\n}\n\npub struct Config {\n"
        "    pub name: String,\n    pub workers: usize,\n}\n\nimpl Config {\n"
        "    fn validate(&self) -> Result<(), ConfigError> {\n"
        '        if self.name.is_empty() {\n            return Err(ConfigError::Missing("name"));\n'
        "        }\n        Ok(())\n    }\n}\n"
    )
    snippet = (
        "// ... existing code ...\n    Missing(&'static str),\n    NoWorkers,\n}\n\n// ... existing code ...\n"
        "    fn validate(&self) -> Result<(), ConfigError> {\n        // ... existing checks ...\n"
        '        if self.name.is_empty() {\n            return Err(ConfigError::Missing("name"));\n        }\n'
        "        if self.workers == 0 {\n            return Err(ConfigError::NoWorkers);\n        }\n"
        "        Ok(())\n    }\n// ... existing code ...\n"
    )
    # before: below the enum's `}`, code between two markers and deeper than them found no block
    expected = original.replace("str),\n}", "str),\n    NoWorkers,\n}").replace(
        "        }\n        Ok(())",
        "        }\n        if self.workers == 0 {\n            return Err(ConfigError::NoWorkers);\n        }\n"
        "        Ok(())",
    )
    assert merged(original, snippet, language="rust") == expected


MEMBERS = """import { useCallback, useState } from "react";

export function Members({ teamId }) {
  const [pending, setPending] = useState(null);

  const remove = useCallback(async () => {
    await deleteUser(teamId, pending.id);
    setPending(null);
  }, [teamId, pending]);

  return (
    <div className="members">
      <MemberList teamId={teamId} onRemove={setPending} />
      {pending && (
        <Confirm onConfirm={remove} />
      )}
    </div>
  );
}
"""


def test_code_at_two_depths_of_a_function_goes_in_the_block_holding_the_less_indented() -> None:
    snippet = (
        "// ... existing code ...\n\n  const remove = useCallback(async () => {\n    try {\n"
        "      await deleteUser(teamId, pending.id);\n    } finally {\n      setPending(null);\n    }\n"
        "  }, [teamId, pending]);\n\n  // ... existing code ...\n      {pending && (\n"
        '        <Confirm title="Remove member" onConfirm={remove} />\n      )}\n    </div>\n  );\n}\n'
    )
    # before: the function (holding `const remove`) and the `<div>` inside it (holding
    # `{pending && (`) tied as the block the snippet's members go in
    expected = MEMBERS.replace(
        "    await deleteUser(teamId, pending.id);\n    setPending(null);\n",
        "    try {\n      await deleteUser(teamId, pending.id);\n    } finally {\n      setPending(null);\n    }\n",
    ).replace("<Confirm onConfirm", '<Confirm title="Remove member" onConfirm')
    assert merged(MEMBERS, snippet, language="tsx") == expected


def test_the_end_of_an_elided_element_then_a_new_one_goes_after_that_element() -> None:
    original = (
        "module.exports = {\n  module: {\n    rules: [\n      {\n        test: /\\.css$/,\n"
        "        use: ['style-loader', 'css-loader'],\n      },\n      {\n        test: /\\.png$/,\n"
        "        type: 'asset',\n        parser: { dataUrlCondition: { maxSize: 8192 } },\n      },\n"
        "      {\n        test: /\\.woff2?$/,\n        type: 'asset/resource',\n      },\n    ],\n  },\n};\n"
    )
    snippet = (
        "module.exports = {\n  module: {\n    rules: [\n      // ... existing rules ...\n"
        "        parser: { dataUrlCondition: { maxSize: 8192 } },\n      },\n      {\n"
        "        test: /\\.svg$/,\n        use: ['@svgr/webpack'],\n      },\n      {\n"
        "        test: /\\.woff2?$/,\n        // ...\n      },\n    ],\n  },\n};\n"
    )
    # before: code after the fragment's closer, not a marker, left the fragment unplaceable
    expected = original.replace(
        "8192 } },\n      },\n",
        "8192 } },\n      },\n      {\n        test: /\\.svg$/,\n        use: ['@svgr/webpack'],\n      },\n",
    )
    assert merged(original, snippet, language="javascript") == expected


def test_a_new_switch_arm_below_a_marker_is_no_edit_of_the_arm_above_it() -> None:
    original = (
        "package hooks\n\nfunc handle(event string, body []byte) error {\n\tswitch event {\n"
        '\tcase "push":\n\t\tvar ev PushEvent\n\t\tif err := json.Unmarshal(body, &ev); err != nil {\n'
        "\t\t\treturn err\n\t\t}\n\t\treturn onPush(ev)\n"
        '\tcase "pull_request":\n\t\tvar ev PullRequestEvent\n\t\tif err := json.Unmarshal(body, &ev); err != nil {\n'
        "\t\t\treturn err\n\t\t}\n\t\treturn onPullRequest(ev)\n\tdefault:\n\t\treturn nil\n\t}\n}\n"
    )
    release = (
        '\tcase "release":\n\t\tvar ev ReleaseEvent\n\t\tif err := json.Unmarshal(body, &ev); err != nil {\n'
        "\t\t\treturn err\n\t\t}\n\t\treturn onRelease(ev)\n"
    )
    snippet = (
        "func handle(event string, body []byte) error {\n\tswitch event {\n\t// ... push, pull_request ...\n"
        f"{release}\tdefault:\n\t\treturn nil\n\t}}\n}}\n"
    )
    # before: taken as an edit of the `pull_request` arm it looks like, which was deleted
    assert merged(original, snippet, language="go") == original.replace("\tdefault:", release + "\tdefault:")


def test_an_arm_matching_one_value_fewer_below_a_marker_is_the_arm_edited() -> None:
    # `case .card, .applePay:` shares values with `case .card, .applePay, .paypal:`: no new arm
    original = (
        "enum Method {\n    case card, applePay, paypal, bankTransfer\n\n    var settlesInstantly: Bool {\n"
        "        switch self {\n        case .card, .applePay, .paypal:\n            return true\n"
        "        case .bankTransfer:\n            return false\n        }\n    }\n}\n"
    )
    snippet = (
        "enum Method {\n    case card, applePay, bankTransfer\n\n    var settlesInstantly: Bool {\n"
        "        switch self {\n        case .card, .applePay:\n            return true\n"
        "        // ... existing code ...\n        }\n    }\n}\n"
    )
    expected = original.replace(", paypal", "").replace(", .paypal", "")
    assert merged(original, snippet, language="swift") == expected


def test_a_rewritten_method_body_above_a_column_zero_marker_replaces_the_old_body() -> None:
    original = (
        "import time\n\nRETRIES = 3\n\n\nclass Client:\n    def _get(self, path):\n        self.calls += 1\n"
        "        resp = self.http.get(path)\n        resp.raise_for_status()\n        return resp.json()\n\n"
        "    def current(self):\n        return self._get('/now')\n"
    )
    body = (
        "        for attempt in range(RETRIES):\n            resp = self.http.get(path)\n            if resp.ok:\n"
        '                return resp.json()\n        raise RuntimeError("gave up")\n'
    )
    snippet = (
        "import time\n\nRETRIES = 3\n\n# ... existing code ...\n\n    def _get(self, path):\n        self.calls += 1\n"
        f"{body}\n# ... existing code ...\n"
    )
    old = "        resp = self.http.get(path)\n        resp.raise_for_status()\n        return resp.json()\n"
    # before: the old body stayed below the new one, the marker read as eliding the method's rest
    assert merged(original, snippet, language="python") == original.replace(old, body)


def test_a_key_shown_without_its_table_between_markers_is_edited_in_the_one_table_holding_it() -> None:
    original = (
        '[project]\nname = "x"\ndependencies = [\n    "click",\n]\n\n[tool.ruff]\nline-length = 100\n\n'
        "[tool.coverage.report]\nfail_under = 90\n"
    )
    snippet = (
        '# ...\ndependencies = [\n    "click",\n    "httpx",\n]\n# ...\n[tool.coverage.report]\n'
        "fail_under = 95\n"
    )
    expected = original.replace('"click",\n', '"click",\n    "httpx",\n').replace("= 90", "= 95")
    assert merged(original, snippet, language="toml") == expected
    # two tables hold it as shown: either may be meant
    twice = original.replace("line-length = 100\n", 'line-length = 100\ndependencies = [\n    "click",\n]\n')
    ambiguous(twice, snippet, language="toml")


def test_blank_lines_left_where_prose_and_a_fence_opened_the_snippet_are_not_written() -> None:
    snippet = "Here it is:\n\n```python\nimport sys\nimport math\n# ... existing code ...\n```\n"
    assert merged(SHAPES, snippet, language="python") == "import sys\n" + SHAPES


def test_a_key_shown_without_its_table_that_the_table_above_holds_is_edited_there() -> None:
    original = '[project]\nname = "x"\ndependencies = [\n    "click",\n]\n\n[tool.ruff]\nline-length = 100\n'
    snippet = '# ... existing config ...\ndependencies = [\n    "click",\n    "httpx",\n]\n\n[tool.ruff]\n# ... existing config ...\n'
    # before: a second `dependencies` key went in at the end of [project] (invalid TOML), then
    # it was ambiguous; it is the last key of [project], shown up to the next table
    assert merged(original, snippet, language="toml") == original.replace(
        '"click",\n', '"click",\n    "httpx",\n'
    )
    # a key below it in [project]: shown closed up to the next table, it would be deleted
    below = original.replace("]\n\n[tool", ']\nreadme = "README.md"\n\n[tool')
    assert ambiguous(below, snippet, language="toml").reasons[0].code == "unexplained_deletion"


def test_a_bare_call_opening_line_does_not_anchor_by_itself() -> None:
    original = (
        "export function createApp() {\n  const app = express();\n  app.use(helmet());\n  app.use(\n    cors({ origin: o }),\n"
        "  );\n  app.use(express.json());\n\n  app.get('/health', health);\n\n  app.use('/api/auth', authRouter);\n  return app;\n}\n"
    )
    snippet = (
        "export function createApp() {\n  // ... existing setup ...\n\n  app.get('/health', health);\n\n  app.use(\n"
        "    '/api/auth',\n    rateLimit({ limit: 20 }),\n  );\n  app.use('/api/auth', authRouter);\n  // ... existing code ...\n}\n"
    )
    # before: the new `app.use(` anchored on the `app.use(` of cors, deleting the setup between
    expected = original.replace(
        "  app.use('/api/auth', authRouter);",
        "  app.use(\n    '/api/auth',\n    rateLimit({ limit: 20 }),\n  );\n  app.use('/api/auth', authRouter);",
    )
    assert merged(original, snippet, language="typescript") == expected


def test_a_line_shown_deeper_than_its_only_match_does_not_anchor_there() -> None:
    original = (
        "func run(ctx context.Context) (int, error) {\n\titems, err := fetch(ctx)\n\tif err != nil {\n\t\treturn 0, err\n\t}\n"
        "\tfor _, it := range items {\n\t\terr := publish(it)\n\t\tif err != nil {\n\t\t\treturn 0, err\n\t\t}\n\t}\n\treturn len(items), nil\n}\n"
    )
    snippet = (
        "func run(ctx context.Context) (int, error) {\n\t// ... existing code ...\n\t\terr := publish(it)\n\t\tif err != nil {\n"
        "\t\t\tlog.Print(err)\n\t\t\tcontinue\n\t\t}\n\t// ... existing code ...\n}\n"
    )
    # before: `err := publish` anchored on `items, err := fetch` and the new `if` replaced fetch's check
    result = merge(original, snippet, language="go")
    assert result.status == "ambiguous" or result.merged == original.replace(
        "\t\t\treturn 0, err\n\t\t}", "\t\t\tlog.Print(err)\n\t\t\tcontinue\n\t\t}"
    )


def test_struct_fields_re_aligned_by_the_snippet_take_its_spacing_but_not_for_a_tab() -> None:
    original = (
        "package config\n\ntype Config struct {\n\tAddr     string\n\tLogLevel string\n}\n\n"
        "const (\n\tA\t= 1\n\tB\t= 2\n\tC\t= 4\n)\n"
    )
    snippet = (
        "type Config struct {\n\tAddr            string\n\tShutdownTimeout int\n\tLogLevel        string\n}\n\n"
        "const (\n\tA = 1\n\tB = 3\n\t// ...\n)\n"
    )
    expected = original.replace(
        "\tAddr     string\n\tLogLevel string\n",
        "\tAddr            string\n\tShutdownTimeout int\n\tLogLevel        string\n",
    ).replace("\tB\t= 2", "\tB = 3")
    # before: the original's alignment was copied around the new field; `A\t= 1` keeps its tab
    assert merged(original, snippet, language="go") == expected


def test_a_text_file_takes_new_lines_as_indented_but_a_makefile_recipe_keeps_its_tab() -> None:
    dockerfile = 'FROM node:20\nRUN apk add curl \\\n    && npm ci\nUSER node\nCMD ["node", "server.js"]\n'
    snippet = (
        "# ... existing code ...\nUSER node\nHEALTHCHECK --interval=30s \\\n  CMD wget -qO- http://127.0.0.1/ || exit 1\n"
        'CMD ["node", "server.js"]\n'
    )
    expected = dockerfile.replace(
        "USER node\n",
        "USER node\nHEALTHCHECK --interval=30s \\\n  CMD wget -qO- http://127.0.0.1/ || exit 1\n",
    )
    # before: the continuation line was re-indented to the 4 spaces of the file's other one
    assert merged(dockerfile, snippet, path="Dockerfile") == expected
    makefile = "build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n"
    snippet = "# ... existing targets ...\n\nlint:\n    golangci-lint run\n"
    assert merged(makefile, snippet, path="Makefile") == makefile + "\nlint:\n\tgolangci-lint run\n"


HELPERS = (
    "import re\nimport warnings\n\n\ndef slug(value):\n    return re.sub(r'\\W+', '-', value)\n\n\n"
    "def legacy_slug(value):\n    warnings.warn('use slug', DeprecationWarning)\n    value = value.lower()\n"
    "    value = value.strip()\n    value = value.replace(' ', '-')\n    value = value.replace('_', '-')\n"
    "    value = value.replace('.', '-')\n    value = value.replace('/', '-')\n    return value\n\n\n"
    "def title(value):\n    return value.title()\n"
)


def test_a_function_deleted_with_the_import_only_it_used_is_a_meant_deletion() -> None:
    snippet = "import re\n\n\ndef slug(value):\n    return re.sub(r'\\W+', '-', value)\n\n\ndef title(value):\n    return value.title()\n"
    assert merged(HELPERS, snippet, language="python") == snippet
    # the import kept: the function may have been left out by mistake, not deleted
    kept = "import re\nimport warnings\n\n\ndef slug(value):\n    return re.sub(r'\\W+', '-', value).strip('-')\n\n\ndef title(value):\n    return value.title()\n"
    assert ambiguous(HELPERS, kept, language="python").reasons[0].code == "unexplained_deletion"


EFFECTS = (
    "export function Bell({ userId }: Props) {\n  const [open, setOpen] = useState(false);\n\n"
    "  useEffect(() => {\n    const timer = setInterval(() => poll(userId), 30000);\n"
    "    return () => clearInterval(timer);\n  }, [userId]);\n\n"
    "  const unread = count(userId);\n  return <span>{unread}</span>;\n}\n"
)


def test_a_parameterless_callback_block_below_a_marker_with_another_body_is_unsure() -> None:
    snippet = (
        "export function Bell({ userId }: Props) {\n  // ... existing state and polling effect ...\n\n"
        "  useEffect(() => {\n    if (!open) return;\n    window.addEventListener('keydown', close);\n"
        "  }, [open]);\n\n  const unread = count(userId);\n  // ... rest of component ...\n}\n"
    )
    # before: paired with the polling effect by the call's name, so the new effect replaced it
    assert ambiguous(EFFECTS, snippet, language="tsx").reasons[0].code == "edit_or_insertion"
    below_anchor = (
        "export function Bell({ userId }: Props) {\n  const [open, setOpen] = useState(false);\n\n"
        "  useEffect(() => {\n    const timer = setInterval(() => poll(userId), 60000);\n"
        "    return () => clearInterval(timer);\n  }, [userId]);\n\n  // ... rest of component ...\n}\n"
    )
    assert merged(EFFECTS, below_anchor, language="tsx") == EFFECTS.replace("30000", "60000")


def test_a_callback_block_with_parameters_is_keyed_by_its_whole_header() -> None:
    original = (
        "app.use(express.json());\napp.use(logger);\n\napp.get('/', (req, res) => res.send('ok'));\n\n"
        "app.use((err, req, res, next) => {\n  res.status(500).end();\n});\n\napp.listen(3000);\n"
    )
    snippet = (
        "// ... existing routes ...\n\napp.use((err, req, res, next) => {\n  console.error(err);\n"
        "  res.status(err.status || 500).json({ error: err.message });\n});\n\n// ... existing code ...\n"
    )
    expected = original.replace(
        "  res.status(500).end();\n",
        "  console.error(err);\n  res.status(err.status || 500).json({ error: err.message });\n",
    )
    # before: keyed `app.use` like the two other calls, so nothing anchored it
    assert merged(original, snippet, language="javascript") == expected


WORKFLOW = """jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - name: Install
        run: pip install -e ".[dev]"
      - name: Run tests
        run: pytest -q

  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
      - name: Build
        run: python -m build
"""


def test_an_indented_snippet_goes_in_the_block_that_holds_twice_as_many_of_its_lines() -> None:
    snippet = (
        "    steps:\n      - uses: actions/checkout@v4\n      - name: Set up Python\n"
        "        uses: actions/setup-python@v5\n        with:\n          python-version: ${{ matrix.python }}\n"
        '          cache: pip\n      - name: Install\n        run: pip install -e ".[dev]"\n'
        "      - name: Lint\n        run: ruff check .\n      - name: Run tests\n        # ... unchanged ...\n"
    )
    expected = WORKFLOW.replace(
        "${{ matrix.python }}\n", "${{ matrix.python }}\n          cache: pip\n"
    ).replace('[dev]"\n', '[dev]"\n      - name: Lint\n        run: ruff check .\n')
    # before: both jobs have `steps:`, so "2 places match"
    assert merged(WORKFLOW, snippet, language="yaml") == expected
    shared_only = (
        "    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/cache@v4\n      # ...\n"
    )
    assert ambiguous(WORKFLOW, shared_only, language="yaml").reasons[0].code == "several_candidates"


def test_one_line_elements_opening_with_a_brace_are_siblings_not_continuations() -> None:
    original = (
        "func TestParse(t *testing.T) {\n\ttests := []struct {\n\t\tin   string\n\t\twant int\n\t}{\n"
        '\t\t{in: "1", want: 1},\n\t\t{in: "2", want: 2},\n\t\t{in: "x", want: -1},\n\t}\n'
        "\tfor _, tt := range tests {\n\t\tcheck(t, tt.in, tt.want)\n\t}\n}\n"
    )
    snippet = (
        "func TestParse(t *testing.T) {\n\ttests := []struct {\n\t\tin   string\n\t\twant int\n\t}{\n"
        '\t\t// ... existing cases ...\n\t\t{in: "x", want: -1},\n\t\t{in: "-3", want: -3},\n\t}\n\t// ...\n}\n'
    )
    expected = original.replace("want: -1},\n", 'want: -1},\n\t\t{in: "-3", want: -3},\n')
    # before: each `{` line continued the element above it, so the last one shown was written twice
    assert merged(original, snippet, language="go") == expected


def test_a_rewritten_comment_over_the_first_anchor_replaces_the_original_one_below_the_licence() -> None:
    original = (
        "// Copyright 2024 Example Ltd.\n\n// Package ratelimit implements a simple rate limiter.\n"
        'package ratelimit\n\nimport "time"\n\nconst Window = time.Minute\n'
    )
    snippet = (
        "// Package ratelimit implements a sliding-window rate limiter.\n//\n"
        "// State is per process.\npackage ratelimit\n\n// ... rest of file unchanged ...\n"
    )
    expected = original.replace(
        "// Package ratelimit implements a simple rate limiter.\n",
        "// Package ratelimit implements a sliding-window rate limiter.\n//\n// State is per process.\n",
    )
    # before: the old comment line stayed above the new one
    assert merged(original, snippet, language="go") == expected


def test_a_marker_less_function_rewrite_keeps_the_doc_comment_above_it() -> None:
    original = (
        'const SORTABLE = new Set(["id"]);\n\n/**\n * Build the query.\n */\nfunction build(filters) {\n'
        "  const where = [];\n  return where;\n}\n"
    )
    snippet = "function build(filters, limit = 50) {\n  const where = [];\n  where.push(limit);\n  return where;\n}\n"
    expected = original.replace(
        "function build(filters) {\n  const where = [];\n",
        "function build(filters, limit = 50) {\n  const where = [];\n  where.push(limit);\n",
    )
    # before: read as a rewrite of most of the file, which drops what it leaves out, JSDoc included
    assert merged(original, snippet, language="javascript") == expected


def test_a_php_comment_naming_the_file_below_the_open_tag_is_not_part_of_the_snippet() -> None:
    original = "<?php\n\nclass Posts\n{\n    public function index()\n    {\n        return [];\n    }\n}\n"
    snippet = (
        "<?php\n// app/Posts.php\n\n// ... existing code ...\n\n    public function index()\n    {\n"
        "        return ['all'];\n    }\n\n    // ... existing code ...\n"
    )
    # before: the path comment was written below `<?php`
    assert merged(original, snippet, language="php") == original.replace("[]", "['all']")


def test_an_rspec_example_is_named_by_its_description_so_a_new_one_is_added_not_an_edit() -> None:
    original = (
        'RSpec.describe Builder do\n  context "with invalid input" do\n    it "rejects a negative price" do\n'
        "      expect { add(price: -5) }.to raise_error(ArgumentError, /price/)\n    end\n\n"
        '    it "rejects a blank description" do\n      expect { add(description: " ") }.to raise_error(ArgumentError, /description/)\n'
        "    end\n  end\nend\n"
    )
    snippet = (
        '  context "with invalid input" do\n    # ... existing examples ...\n\n    it "rejects a zero quantity" do\n'
        "      expect { add(quantity: 0) }.to raise_error(ArgumentError, /quantity/)\n    end\n  end\n"
    )
    new = '\n    it "rejects a zero quantity" do\n      expect { add(quantity: 0) }.to raise_error(ArgumentError, /quantity/)\n    end\n'
    expected = original.replace("/description/)\n    end\n", "/description/)\n    end\n" + new)
    # before: keyed by its whole line and alike in body, it replaced the last example
    assert merged(original, snippet, language="ruby") == expected


def test_a_ruby_call_on_a_new_symbol_below_one_on_another_is_new() -> None:
    original = (
        "class Subscription < ApplicationRecord\n  validates :plan, inclusion: { in: PLANS }\n"
        "  validates :current_period_end, presence: true\n\n  def renew!\n    touch\n  end\nend\n"
    )
    snippet = (
        "class Subscription < ApplicationRecord\n  validates :plan, inclusion: { in: PLANS }\n"
        "  validates :seats, numericality: { greater_than: 0 }\n  # ... existing code ...\nend\n"
    )
    # before: `validates :seats, numericality:` was keyed `validates` (read as a `key:`), an edit
    expected = original.replace(
        "PLANS }\n", "PLANS }\n  validates :seats, numericality: { greater_than: 0 }\n"
    )
    assert merged(original, snippet, language="ruby") == expected


def test_a_document_separator_shown_above_an_anchor_is_the_original_one() -> None:
    original = (
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n---\napiVersion: apps/v1\nkind: Deployment\n"
        "spec:\n  replicas: 2\n---\napiVersion: v1\nkind: Service\nspec:\n  type: ClusterIP\n"
    )
    snippet = "# ... ConfigMap and Deployment unchanged ...\n---\napiVersion: v1\nkind: Service\nspec:\n  type: NodePort\n"
    # before: `---` is in the file twice, so it anchored nowhere and was written again
    assert merged(original, snippet, language="yaml") == original.replace("ClusterIP", "NodePort")


def test_a_makefile_phony_line_is_an_item_of_its_own_not_a_chained_call() -> None:
    original = "BIN := .venv/bin\n\n.PHONY: test clean\n\ntest:\n\t$(BIN)/pytest\n\nclean:\n\trm -rf build\n"
    snippet = (
        ".PHONY: test lint clean\n\n# ... unchanged ...\n\ntest:\n\t$(BIN)/pytest\n\nlint:\n\t$(BIN)/ruff check .\n\n"
        "# ... clean unchanged ...\n"
    )
    expected = original.replace("test clean", "test lint clean").replace(
        "pytest\n", "pytest\n\nlint:\n\t$(BIN)/ruff check .\n"
    )
    # before: `.PHONY` read as `.chained()` onto the line above, so the new one went on top
    assert merged(original, snippet, path="Makefile") == expected


ARGS = (
    'def main(args):\n    parser = argparse.ArgumentParser()\n    parser.add_argument(\n        "-t", "--type",\n'
    '        default="text",\n    )\n    parser.add_argument(\n        "year",\n        nargs=\'?\', type=int,\n'
    "    )\n    parser.add_argument(\n        \"month\",\n        nargs='?', type=int,\n    )\n"
    "    return parser.parse_args(args)\n"
)


def test_a_call_with_its_first_string_argument_on_the_next_line_is_keyed_by_it() -> None:
    snippet = (
        'def main(args):\n    # ... existing arguments ...\n    parser.add_argument(\n        "-t", "--type",\n'
        '        default="text",\n    )\n    parser.add_argument(\n        "-f", "--first-weekday",\n'
        "        type=int, default=0,\n    )\n    # ... year / month arguments unchanged ...\n"
        "    return parser.parse_args(args)\n"
    )
    new = '    parser.add_argument(\n        "-f", "--first-weekday",\n        type=int, default=0,\n    )\n'
    expected = ARGS.replace(
        '    parser.add_argument(\n        "year"', new + '    parser.add_argument(\n        "year"'
    )
    # before: keyed `parser.add_argument` like the `year` call below it, so it was written over it
    assert merged(ARGS, snippet, language="python") == expected


def test_a_jsx_expression_child_below_an_element_is_its_sibling_not_a_continuation() -> None:
    original = (
        'export function Row({ user }) {\n  return (\n    <li>\n      <div className="meta">\n'
        "        <span>{user.name}</span>\n        <span>{user.email}</span>\n      </div>\n    </li>\n  );\n}\n"
    )
    snippet = (
        'export function Row({ user, showEmail }) {\n  // ... existing code ...\n      <div className="meta">\n'
        "        <span>{user.name}</span>\n        {showEmail && <span>{user.email}</span>}\n      </div>\n"
        "  // ... existing code ...\n}\n"
    )
    expected = original.replace("{ user }", "{ user, showEmail }").replace(
        "        <span>{user.email}</span>\n", "        {showEmail && <span>{user.email}</span>}\n"
    )
    # before: `{showEmail && ...}` continued the `<span>` above it, and the line deep in the body
    # after a marker had no anchor at its function's level
    assert merged(original, snippet, language="tsx") == expected


def test_a_line_deep_in_a_loop_between_two_markers_goes_in_the_block_that_holds_it() -> None:
    original = (
        "def load(rows):\n    total = 0\n    for row in rows:\n        amount = parse(row)\n"
        "        if amount <= 0:\n            continue\n        total += amount\n    return total\n"
    )
    snippet = (
        "def load(rows):\n    # ... existing code ...\n        amount = parse(row)\n        if amount == 0:\n"
        "            continue\n    # ... existing code ...\n"
    )
    assert merged(original, snippet, language="python") == original.replace("amount <= 0", "amount == 0")
    new_only = "def load(rows):\n    # ...\n        log(row)\n    # ...\n"
    assert ambiguous(original, new_only, language="python").reasons[0].code == "unanchored_insertion"


def test_a_ruby_instance_variable_line_is_a_statement_of_its_own_not_a_decorator() -> None:
    original = (
        "class Counter\n  def initialize\n    @count = 0\n  end\n\n"
        "  def increment(step)\n    @count = @count + 1\n    save!\n  end\nend\n"
    )
    snippet = "  def increment(step)\n    @count = @count + step\n    # ...\n  end\n"
    expected = original.replace("@count + 1", "@count + step")
    assert merged(original, snippet, language="ruby") == expected


RENEW = """class Renewals
  def call
    @subscriptions.each do |subscription|
      if subscription.cancel_at_period_end?
        subscription.cancel!
        next
      end

      if subscription.last_payment_at < @now - 30.days
        @logger.warn("stale payment method for #{subscription.id}")
        subscription.update!(status: "past_due")
        next
      end

      charge(subscription)
    end
  end
end
"""


def test_a_condition_edited_deep_in_a_body_between_markers_finds_its_block_by_its_first_line() -> None:
    snippet = (
        "  def call\n    # ...\n      if subscription.last_payment_at < @now - 45.days\n"
        '        @logger.warn("stale payment method for #{subscription.id}")\n    # ...\n  end\n'
    )
    assert merged(RENEW, snippet, language="ruby") == RENEW.replace("30.days", "45.days")


def test_the_same_first_line_under_an_unlike_condition_does_not_find_a_block() -> None:
    snippet = (
        "  def call\n    # ...\n      if subscription.trial? && subscription.card_expired?\n"
        '        @logger.warn("stale payment method for #{subscription.id}")\n    # ...\n  end\n'
    )
    ambiguous(RENEW, snippet, language="ruby")


GETOPTS = """#!/usr/bin/env bash
set -euo pipefail

VERBOSE=0
OUT=""

while getopts ":vo:h" opt; do
  case "$opt" in
    v) VERBOSE=1 ;;
    o) OUT="$OPTARG" ;;
    h) echo "usage: $0 [-v] [-o file]"; exit 0 ;;
  esac
done

echo "verbose=$VERBOSE out=$OUT"
"""


def test_an_edited_loop_whose_first_line_inside_is_short_is_found_by_its_first_lines() -> None:
    snippet = (
        'VERBOSE=0\nOUT=""\nQUIET=0\n\n# ... existing code ...\n\nwhile getopts ":vqo:h" opt; do\n'
        '  case "$opt" in\n    v) VERBOSE=1 ;;\n    q) QUIET=1 ;;\n    # ... existing code ...\n'
        "  esac\ndone\n\n# ... existing code ...\n"
    )
    expected = GETOPTS.replace('OUT=""\n', 'OUT=""\nQUIET=0\n').replace(":vo:h", ":vqo:h")
    expected = expected.replace("VERBOSE=1 ;;\n", "VERBOSE=1 ;;\n    q) QUIET=1 ;;\n")
    assert merged(GETOPTS, snippet, language="bash") == expected


def test_a_closer_below_a_marker_that_elides_a_rescue_clause_is_the_methods_own() -> None:
    original = (
        "class CLI\n  def run\n    service = parse\n    deploy(service)\n    0\n"
        "  rescue OptionParser::InvalidOption => e\n    warn e.message\n    64\n  end\n\n"
        "  def parse\n    ARGV.first\n  end\nend\n"
    )
    snippet = (
        "  def run\n    service = parse\n    return 0 if dry_run?\n    deploy(service)\n    0\n"
        "  # ... rescue unchanged ...\n  end\n\n  # ... rest of the class unchanged ...\n"
    )
    expected = original.replace("    deploy(service)\n", "    return 0 if dry_run?\n    deploy(service)\n")
    assert merged(original, snippet, language="ruby") == expected


def test_another_function_called_on_the_same_arguments_above_an_anchor_may_replace_the_call_there() -> None:
    original = (
        "std::vector<int> sample(int n)\n{\n    std::vector<int> v(n);\n    std::iota(v.begin(), v.end(), 0);\n"
        "    std::random_shuffle(v.begin(), v.end());\n    return v;\n}\n"
    )
    snippet = (
        "std::vector<int> sample(int n)\n{\n    // ... existing code ...\n    static std::mt19937 rng(42);\n"
        "    std::shuffle(v.begin(), v.end(), rng);\n    return v;\n}\n"
    )
    assert ambiguous(original, snippet, language="cpp").reasons[0].code == "edit_or_insertion"


def test_a_signature_broken_over_several_lines_in_the_snippet_still_aligns_its_body() -> None:
    original = (
        "class Orders:\n    def place(self, cart: Cart) -> Order:\n        self.validate(cart)\n"
        "        order = Order(cart)\n        self.repo.save(order)\n        return order\n\n"
        "    def cancel(self, order_id: str) -> None:\n        self.repo.delete(order_id)\n"
    )
    snippet = (
        "    def place(\n        self,\n        cart: Cart,\n        key: str | None = None,\n    ) -> Order:\n"
        "        self.validate(cart)\n        # ... existing code ...\n        self.repo.save(order)\n"
        "        self.seen[key] = order\n        return order\n\n    # ... existing code ...\n"
    )
    expected = original.replace(
        "    def place(self, cart: Cart) -> Order:\n",
        "    def place(\n        self,\n        cart: Cart,\n        key: str | None = None,\n    ) -> Order:\n",
    ).replace(
        "        self.repo.save(order)\n", "        self.repo.save(order)\n        self.seen[key] = order\n"
    )
    assert merged(original, snippet, language="python") == expected


def test_a_signature_over_several_lines_shown_on_one_line_unchanged_keeps_the_originals_lines() -> None:
    original = (
        "export function place(\n  cart,\n  code = null,\n) {\n  validate(cart);\n  return save(cart);\n}\n"
    )
    snippet = "export function place(cart, code = null) {\n  validate(cart);\n  log(cart);\n  // ...\n}\n"
    expected = original.replace("  validate(cart);\n", "  validate(cart);\n  log(cart);\n")
    assert merged(original, snippet, language="javascript") == expected


def test_a_marker_ending_a_block_left_open_elides_the_rest_of_the_block_around_it() -> None:
    original = (
        "fn count(lines: &[String], re: &Regex) -> usize {\n    let mut matches = 0;\n    for line in lines {\n"
        '        if re.is_match(line) {\n            matches += 1;\n            println!("{line}");\n        }\n'
        "    }\n    matches\n}\n"
    )
    snippet = (
        "fn count(lines: &[String], re: &Regex) -> usize {\n    let mut matches = 0;\n    for line in lines {\n"
        "        let line = line.trim();\n        if re.is_match(line) {\n            // ... existing code ...\n}\n"
    )
    expected = original.replace(
        "    for line in lines {\n", "    for line in lines {\n        let line = line.trim();\n"
    )
    assert merged(original, snippet, language="rust") == expected


def test_the_one_block_between_anchors_shown_with_a_new_header_over_an_elided_body_is_its_edit() -> None:
    original = (
        "export function List({ todos }: Props) {\n  return (\n    <ul>\n      {todos.map((todo) => (\n"
        "        <li key={todo.id}>{todo.title}</li>\n      ))}\n    </ul>\n  );\n}\n"
    )
    snippet = (
        "export function List({ todos }: Props) {\n  // ... existing code ...\n    <ul>\n"
        "      {visible(todos).map((todo) => (\n        {/* ... existing JSX ... */}\n      ))}\n    </ul>\n"
        "  // ... existing code ...\n}\n"
    )
    expected = original.replace("{todos.map(", "{visible(todos).map(")
    assert merged(original, snippet, language="tsx") == expected


SERVER = """func NewServer(addr string, logger *slog.Logger) *Server {
	return &Server{
		httpServer: &http.Server{
			Addr:              addr,
			ReadHeaderTimeout: 5 * time.Second,
		},
		logger: logger,
	}
}
"""


def test_the_one_new_item_eliding_code_inside_it_edits_the_one_block_there_and_the_rest_goes_around() -> None:
    snippet = (
        "func NewServer(addr string, logger *slog.Logger, opts ...Option) *Server {\n\ts := &Server{\n"
        "\t\thttpServer: &http.Server{\n\t\t\t// ... existing fields ...\n\t\t},\n\t\tlogger: logger,\n\t}\n"
        "\tfor _, opt := range opts {\n\t\topt(s)\n\t}\n\treturn s\n}\n"
    )
    expected = (
        SERVER.replace("logger *slog.Logger)", "logger *slog.Logger, opts ...Option)")
        .replace("\treturn &Server{", "\ts := &Server{")
        .replace("\t}\n}", "\t}\n\tfor _, opt := range opts {\n\t\topt(s)\n\t}\n\treturn s\n}")
    )
    assert merged(SERVER, snippet, language="go") == expected


def test_a_new_item_eliding_code_under_a_header_unlike_the_one_block_there_is_ambiguous() -> None:
    snippet = (
        "func NewServer(addr string, logger *slog.Logger) *Server {\n\tgo func() {\n"
        "\t\t// ... existing code ...\n\t}()\n\treturn nil\n}\n"
    )
    assert ambiguous(SERVER, snippet, language="go").status == "ambiguous"


SYNC = (
    "def sync(session, store):\n"
    '    log.info("sync starting")\n'
    "    rows = fetch_rows(session)\n"
    "    count = store.write(rows)\n"
    "    store.commit()\n"
    "    return count\n"
)


@pytest.mark.parametrize(
    "wrapped",
    ["    rows = fetch_rows(session)\n    count = store.write(rows)\n", "    rows = fetch_rows(session)\n"],
    ids=["two-lines", "one-line"],
)
def test_a_new_block_below_an_anchor_wrapping_elided_lines_replaces_them(wrapped: str) -> None:
    wrapper = "    try:\n" + wrapped.replace("    ", "        ") + "    except IOError:\n        return 0\n"
    snippet = (
        'def sync(session, store):\n    log.info("sync starting")\n'
        + wrapper
        + "    # ... existing code ...\n"
    )
    assert merged(SYNC, snippet, language="python") == SYNC.replace(wrapped, wrapper)


def test_a_new_block_between_two_markers_wrapping_elided_lines_goes_where_they_stood() -> None:
    original = (
        "deploy() {\n"
        '  log "building $IMAGE"\n'
        '  docker build -t "$IMAGE" .\n'
        '  docker push "$IMAGE"\n'
        '  kubectl set image "deployment/$APP" "$APP=$IMAGE"\n'
        "}\n"
    )
    snippet = (
        "deploy() {\n"
        "  # ... existing code ...\n"
        '  if [[ -z "$SKIP_BUILD" ]]; then\n'
        '    docker build -t "$IMAGE" .\n'
        '    docker push "$IMAGE"\n'
        "  fi\n"
        "  # ... existing code ...\n"
        "}\n"
    )
    expected = original.replace(
        '  docker build -t "$IMAGE" .\n  docker push "$IMAGE"\n',
        '  if [[ -z "$SKIP_BUILD" ]]; then\n    docker build -t "$IMAGE" .\n    docker push "$IMAGE"\n  fi\n',
    )
    assert merged(original, snippet, language="bash") == expected


USAGE = """#!/usr/bin/env bash
set -euo pipefail

usage() {
  cat <<EOF
Usage: deploy.sh -e ENV [-n]

  -e ENV   target environment
  -n       dry run
  -h       show this help
EOF
}

main() {
  usage
}
"""


def test_a_heredoc_shown_whole_replaces_the_original_heredoc() -> None:
    snippet = (
        "# ... existing code ...\nusage() {\n  cat <<EOF\nUsage: deploy.sh -e ENV [-M] [-n]\n\n"
        "  -e ENV   target environment\n  -M       skip migrations\n  -n       dry run\n  -h       show this help\n"
        "EOF\n}\n# ... existing code ...\n"
    )
    expected = USAGE.replace("[-n]", "[-M] [-n]").replace(
        "  -n       dry run", "  -M       skip migrations\n  -n       dry run"
    )
    assert merged(USAGE, snippet, language="bash") == expected


def test_a_marker_inside_a_heredoc_shown_without_its_opening_line_deletes_nothing() -> None:
    snippet = (
        "# ... existing code ...\nUsage: deploy.sh -e ENV [-M] [-n]\n\n  -e ENV   target environment\n"
        "  -M       skip migrations\n  -n       dry run\n# ... existing code ...\n"
    )
    # before: the heredoc's lines were code at their own columns, and the marker at column 0 ended
    # the block of `-n`, so `-h` below it was deleted
    assert ambiguous(USAGE, snippet, language="bash").status == "ambiguous"


def test_new_code_that_writes_out_elided_lines_from_two_places_is_ambiguous() -> None:
    snippet = (
        "def sync(session, store):\n"
        '    log.info("sync starting")\n'
        "    try:\n"
        "        rows = fetch_rows(session)\n"
        "        count = store.write(rows)\n"
        "    finally:\n"
        "        store.commit()\n"
        "    # ... existing code ...\n"
    )
    result = ambiguous(SYNC, snippet, language="python")
    assert result.reasons[0].code == "unanchored_insertion"


def test_a_control_block_unwrapped_below_an_anchor_replaces_the_block() -> None:
    original = SYNC.replace(
        "    rows = fetch_rows(session)\n    count = store.write(rows)\n",
        "    if store.enabled:\n        rows = fetch_rows(session)\n        count = store.write(rows)\n",
    )
    snippet = (
        "def sync(session, store):\n"
        '    log.info("sync starting")\n'
        "    rows = fetch_rows(session)\n"
        "    count = store.write(rows)\n"
        "    # ... existing code ...\n"
    )
    assert merged(original, snippet, language="python") == SYNC


def test_a_function_swapped_with_its_neighbour_above_a_marker_is_moved() -> None:
    original = "def alpha():\n    return 1\n\n\ndef beta():\n    value = compute()\n    return value + 2\n"
    snippet = "def beta():\n    value = compute()\n    return value + 2\n\n\ndef alpha():\n    return 1\n\n\n# ...\n"
    expected = "def beta():\n    value = compute()\n    return value + 2\n\n\ndef alpha():\n    return 1\n"
    assert merged(original, snippet, language="python") == expected


def test_two_functions_shown_in_swapped_order_with_code_between_them_elided_is_ambiguous() -> None:
    functions = {name: f"def {name}():\n    return {name!r}\n" for name in "abcd"}
    original = "\n\n".join(functions.values())
    snippet = "# ...\n" + "\n\n".join(functions[name] for name in "db") + "\n\n# ...\n"
    result = ambiguous(original, snippet, language="python")
    assert result.reasons[0].code == "moved_or_copied"


def test_a_function_shown_word_for_word_out_of_order_among_aligned_neighbours_is_moved() -> None:
    functions = {name: f"def {name}():\n    return {name!r}\n" for name in "abcdef"}
    original = "\n\n".join(functions.values())
    snippet = "\n\n".join(functions[name] for name in "eab") + "\n\n# ... existing code ...\n"
    expected = "\n\n".join(functions[name] for name in "eabcdf")
    assert merged(original, snippet, language="python") == expected


def test_the_first_annotation_of_an_item_shown_above_a_marker_is_the_originals() -> None:
    original = (
        "class Orders {\n"
        '    @PostMapping("/{id}/cancel")\n'
        "    public void cancel(UUID id) {\n        service.cancel(id);\n    }\n\n"
        '    @DeleteMapping("/{id}")\n'
        "    @PreAuthorize(\"hasRole('ADMIN')\")\n"
        "    public void delete(UUID id) {\n        service.delete(id);\n    }\n"
        "}\n"
    )
    snippet = (
        "class Orders {\n"
        '    @PostMapping("/{id}/cancel")\n'
        "    public void cancel(UUID id) {\n        service.cancel(id);\n    }\n\n"
        '    @PostMapping("/{id}/refund")\n'
        "    public void refund(UUID id) {\n        service.refund(id);\n    }\n\n"
        '    @DeleteMapping("/{id}")\n'
        "    // ... existing code ...\n"
        "}\n"
    )
    expected = original.replace(
        '    @DeleteMapping("/{id}")\n',
        '    @PostMapping("/{id}/refund")\n'
        "    public void refund(UUID id) {\n        service.refund(id);\n    }\n\n"
        '    @DeleteMapping("/{id}")\n',
    )
    assert merged(original, snippet, language="java") == expected


def test_a_marker_deep_in_the_last_block_shown_of_a_method_keeps_the_rest_of_the_method() -> None:
    original = (
        "class Queue:\n"
        "    def put(self, item):\n"
        '        """Put an item into the queue."""\n'
        "        with self.not_full:\n"
        "            if self.maxsize > 0:\n"
        "                self.wait_for_room()\n"
        "            self._put(item)\n"
        "            self.not_empty.notify()\n"
        "\n"
        "    def get(self):\n"
        "        return self._get()\n"
    )
    snippet = (
        "class Queue:\n"
        "    def put(self, item):\n"
        "        # ... docstring unchanged ...\n"
        "        with self.not_full:\n"
        "            if self.closed:\n"
        "                raise Closed\n"
        "            if self.maxsize > 0:\n"
        "                # ... existing code ...\n"
        "\n"
        "    # ... existing code ...\n"
        "\n"
        "    def close(self):\n"
        "        self.closed = True\n"
    )
    expected = (
        original.replace(
            "            if self.maxsize > 0:\n",
            "            if self.closed:\n                raise Closed\n            if self.maxsize > 0:\n",
        )
        + "\n    def close(self):\n        self.closed = True\n"
    )
    assert merged(original, snippet, language="python") == expected


def test_a_jsx_condition_wrapping_an_elided_element_replaces_it() -> None:
    original = (
        "export function Settings() {\n  return (\n    <div>\n      <h1>Settings</h1>\n"
        '      <Section title="API access">\n        <Key />\n      </Section>\n'
        '      <Section title="Data">\n        <Export />\n      </Section>\n    </div>\n  );\n}\n'
    )
    snippet = (
        "      <h1>Settings</h1>\n      {/* ... existing code ... */}\n      {isOwner && (\n"
        '        <Section title="API access">\n          <Key />\n        </Section>\n      )}\n'
        "      {/* ... existing code ... */}\n"
    )
    expected = original.replace(
        '      <Section title="API access">\n        <Key />\n      </Section>\n',
        '      {isOwner && (\n        <Section title="API access">\n          <Key />\n        </Section>\n      )}\n',
    )
    assert merged(original, snippet, language="tsx") == expected


LOAD = """def load(path):
    try:
        with open(path) as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except PermissionError:
        raise
    finally:
        log("done")
    return data
"""
FETCH = """async function fetchUser(id) {
  try {
    const res = await fetch(`/api/users/${id}`);
    return await res.json();
  } catch (err) {
    console.error(err);
    throw err;
  }
}
"""
LOADER = """class Loader
  def load(path)
    File.read(path)
  rescue Errno::ENOENT
    nil
  ensure
    @loaded = true
  end
end
"""


@pytest.mark.parametrize(
    ("original", "snippet", "old", "new", "language"),
    [
        # the clauses after the one shown stay
        (
            LOAD,
            'def load(path):\n    # ...\n    except FileNotFoundError:\n        return ""\n    # ...\n',
            "return None",
            'return ""',
            "python",
        ),
        (
            LOAD,
            'def load(path):\n    # ...\n    finally:\n        log("load done")\n    return data\n',
            '"done"',
            '"load done"',
            "python",
        ),
        (
            FETCH,
            '// ...\n  } catch (err) {\n    console.error("fetchUser failed", err);\n    throw err;\n  }\n}\n',
            "console.error(err)",
            'console.error("fetchUser failed", err)',
            "javascript",
        ),
        (
            LOADER,
            'class Loader\n  def load(path)\n    # ...\n  rescue Errno::ENOENT\n    ""\n  # ...\n  end\nend\n',
            "nil",
            '""',
            "ruby",
        ),
    ],
)
def test_a_clause_shown_below_a_marker_edits_that_clause_of_the_elided_block(
    original: str, snippet: str, old: str, new: str, language: str
) -> None:
    assert merged(original, snippet, language=language) == original.replace(old, new)


@pytest.mark.parametrize("after", ["", "    # ...\n", "# ...\n"])
def test_a_block_shown_unchanged_up_to_where_the_snippet_ends_is_ambiguous(after: str) -> None:
    # `c()` may be elided by the marker below the block, or deleted
    original = "def f(x):\n    start()\n    if x:\n        a()\n        b()\n        c()\n    finish()\n"
    snippet = f"def f(x):\n    # ...\n    if x:\n        a()\n        b()\n{after}"
    assert ambiguous(original, snippet, language="python").reasons[0].code == "elided_or_deleted"


@pytest.mark.parametrize("after", ["", "    # ...\n", "# ...\n"])
def test_a_block_shown_unchanged_below_an_edit_keeps_its_rest(after: str) -> None:
    """`def formatyear(self, theyear, width=4):` edited, its docstring shown as it stands, then the
    snippet ends: deleting the body but its docstring is no reading of that; the rest is elided.
    (It was ambiguous, as it stays where the snippet edits nothing.)"""
    original = (
        'class Cal:\n    def day(self, d):\n        return d\n\n    def year(self, y, width=3):\n        """A year."""\n'
        "        v = []\n        return v\n\n    def month(self, m):\n        return [m]\n"
    )
    snippet = f'class Cal:\n    # ... existing code ...\n    def year(self, y, width=4):\n        """A year."""\n{after}'
    assert merged(original, snippet, language="python") == original.replace("width=3", "width=4")


STORE = """class Store:
    def get(self, key):
        value = self.data.get(key)
        return value

    def put(self, key, value):
        self.data[key] = value
        return None

    def drop(self, key):
        self.data.pop(key)
        return None


def helper():
    return 1
"""
STORE_JS = """export class Store {
  get(key) {
    const value = this.data.get(key);
    return value;
  }

  put(key, value) {
    this.data.set(key, value);
  }
}
"""
HAS = "    def has(self, key):\n        return key in self.data\n"
HAS_JS = "  has(key) {\n    return this.data.has(key);\n  }\n"


@pytest.mark.parametrize(
    ("original", "snippet", "anchor", "new", "language"),
    [
        (
            STORE,
            f"# ...\n        return value\n\n{HAS}\n    # ...\n",
            "        return value\n",
            f"\n{HAS}",
            "python",
        ),
        (STORE, f"# ...\n        return value\n\n{HAS}", "        return value\n", f"\n{HAS}", "python"),
        (
            STORE,
            "# ...\n        self.data.pop(key)\n        return None\n\n\ndef other():\n    return 2\n\n\n# ...\n",
            "        self.data.pop(key)\n        return None\n",
            "\n\ndef other():\n    return 2\n",
            "python",
        ),
        (
            STORE_JS,
            f"// ...\n    return value;\n  }}\n\n{HAS_JS}// ...\n",
            "    return value;\n  }\n",
            f"\n{HAS_JS}",
            "javascript",
        ),
        (
            STORE_JS,
            "// ...\n    this.data.set(key, value);\n  }\n}\n\nexport function other() {}\n",
            "    this.data.set(key, value);\n  }\n}\n",
            "\nexport function other() {}\n",
            "javascript",
        ),
    ],
)
def test_the_last_lines_of_a_block_then_less_indented_code_go_after_that_block(
    original: str, snippet: str, anchor: str, new: str, language: str
) -> None:
    assert merged(original, snippet, language=language) == original.replace(anchor, anchor + new)


@pytest.mark.parametrize(
    "snippet",
    [
        "# ...\n        return None\n\n    def clear(self):\n        self.data.clear()\n# ...\n",  # ends two methods
        "# ...\n        return value\n\n\ndef other():\n    pass\n# ...\n",  # not the class's last lines
    ],
)
def test_the_last_lines_of_no_one_block_then_less_indented_code_are_ambiguous(snippet: str) -> None:
    ambiguous(STORE, snippet, language="python")


def test_a_marker_of_an_embedded_language_is_never_written_into_the_file() -> None:
    # `-- ...` in SQL inside a Java text block: no marker of Java's, yet no code either
    original = 'class Q {\n    static final String SQL = """\n        SELECT id,\n               name,\n               email\n          FROM users\n        """;\n}\n'
    snippet = 'class Q {\n    static final String SQL = """\n        SELECT id,\n               -- ... existing columns ...\n               email,\n               phone\n          FROM users\n        """;\n}\n'
    assert ambiguous(original, snippet, language="java").reasons[0].code == "marker_in_output"


def test_an_array_entry_is_keyed_by_its_key_before_an_arrow() -> None:
    # PHP's `'sku' => [...]` edited above a marker replaces the original entry, not joins it
    original = "<?php\n$rules = [\n    'name' => ['required'],\n    'sku' => ['required', 'unique:products'],\n    'price' => ['numeric'],\n];\n"
    snippet = "<?php\n$rules = [\n    'name' => ['required'],\n    'sku' => ['required', Rule::unique('products')],\n    // ... other rules ...\n];\n"
    assert merged(original, snippet, language="php") == original.replace(
        "'unique:products'", "Rule::unique('products')"
    )


MEMBERS_AND_BILLING = (
    "<ul>\n  <li>\n    <a href='/members'>Members</a>\n  </li>\n"
    "  <li>\n    <a href='/billing'>Billing</a>\n  </li>\n</ul>\n"
)


def test_a_block_unlike_the_one_item_a_marker_stands_for_is_added_beside_it() -> None:
    # as an edit of the Billing `<li>`, the new one would leave the marker below it nothing
    snippet = (
        "<ul>\n  <li>\n    <a href='/members'>Members</a>\n  </li>\n"
        "  <li>\n    <a href='/keys'>API keys</a>\n  </li>\n  <!-- ... existing items ... -->\n</ul>\n"
    )
    added = "  <li>\n    <a href='/keys'>API keys</a>\n  </li>\n"
    expected = MEMBERS_AND_BILLING.replace(
        "  <li>\n    <a href='/billing'>", added + "  <li>\n    <a href='/billing'>"
    )
    assert merged(MEMBERS_AND_BILLING, snippet, language="html") == expected


def test_a_block_close_to_the_one_item_a_marker_stands_for_is_ambiguous() -> None:
    # the Billing `<li>` edited, with a marker for nothing below it, or a new one above it?
    snippet = (
        "<ul>\n  <li>\n    <a href='/members'>Members</a>\n  </li>\n"
        "  <li>\n    <a href='/billing'>Billing and plans</a>\n  </li>\n  <!-- ... existing items ... -->\n"
        "</ul>\n"
    )
    assert ambiguous(MEMBERS_AND_BILLING, snippet, language="html").reasons[0].code == "edit_or_insertion"


def test_new_table_rows_unlike_the_one_row_a_marker_stands_for_are_added_above_it() -> None:
    # Go's table-driven test: rows with other names are new; the marker keeps the last row
    original = (
        "func TestAdd(t *testing.T) {\n\ttests := []struct {\n\t\tname string\n\t\ta, want int\n\t}{\n"
        '\t\t{\n\t\t\tname: "zero",\n\t\t\ta:    0,\n\t\t\twant: 0,\n\t\t},\n'
        '\t\t{\n\t\t\tname: "overflow is an error",\n\t\t\ta:    math.MaxInt,\n\t\t\twant: -1,\n\t\t},\n'
        "\t}\n\tfor _, tt := range tests {\n\t\tcheck(t, tt)\n\t}\n}\n"
    )
    new_row = '\t\t{\n\t\t\tname: "negative input",\n\t\t\ta:    -3,\n\t\t\twant: 3,\n\t\t},\n'
    snippet = (
        "func TestAdd(t *testing.T) {\n\t// ... existing code ...\n"
        '\t\t{\n\t\t\tname: "zero",\n\t\t\ta:    0,\n\t\t\twant: 0,\n\t\t},\n'
        f"{new_row}\t\t// ... existing cases ...\n\t}}\n\t// ... existing code ...\n}}\n"
    )
    expected = original.replace('\t\t{\n\t\t\tname: "overflow', new_row + '\t\t{\n\t\t\tname: "overflow')
    assert merged(original, snippet, language="go") == expected


def test_a_new_condition_block_that_stands_edited_in_another_block_is_ambiguous() -> None:
    # the marker inside the first loop spans its end: the `if` block is the second loop's, edited
    original = (
        'while test $# -gt 0\ndo\n\tcase "$1" in\n\t-q) quiet=1 ;;\n\tesac\n\tshift\ndone\n\n'
        'for commit in $(git rev-list HEAD)\ndo\n\tif test -s "$GIT_DIR/MERGE_RR"\n\tthen\n'
        '\t\tgit show -s "$commit"\n\t\tgit rerere\n\t\tgit checkout -q "$commit" -- .\n\tfi\ndone\n'
    )
    snippet = (
        'while test $# -gt 0\ndo\n\t# ... existing code ...\n\tif test -s "$GIT_DIR/MERGE_RR"\n\tthen\n'
        '\t\ttest $quiet = 1 ||\n\t\tgit show -s "$commit"\n\t\tgit rerere\n\t\tgit checkout -q "$commit" -- .\n'
        "\tfi\ndone\n"
    )
    assert ambiguous(original, snippet, language="bash").reasons[0].code == "moved_or_copied"


STORE = """import os
import sys


class Store:
    def __init__(self, path):
        self.path = path
        self.items = {}

    def load(self):
        with open(self.path) as f:
            for line in f:
                key, value = line.split("=", 1)
                self.items[key] = value.strip()
        return self.items

    def save(self):
        with open(self.path, "w") as f:
            for key, value in self.items.items():
                f.write(f"{key}={value}\\n")


def main():
    store = Store(sys.argv[1])
    print(store.load())
"""
LOOP_TAIL = "# ... existing code ...\n                self.items[key] = value.strip()\n"
STORE_HEAD = "import os\nimport sys\n" + LOOP_TAIL


def test_code_stepping_out_of_a_deep_fragment_stands_beside_the_blocks_it_ends() -> None:
    # the end of `load`'s loop, `load`'s last line, a new method, then the next one's header
    snippet = (
        STORE_HEAD + "        return self.items\n\n    def clear(self):\n        self.items = {}\n\n"
        "    def save(self):\n# ... existing code ...\n"
    )
    added = "    def clear(self):\n        self.items = {}\n\n"
    assert merged(STORE, snippet, language="python") == STORE.replace("    def save", added + "    def save")


def test_lines_left_out_where_the_snippet_steps_out_of_a_block_are_deleted() -> None:
    snippet = STORE_HEAD + "\n    def save(self):\n# ... existing code ...\n"
    assert merged(STORE, snippet, language="python") == STORE.replace("        return self.items\n", "")


def test_stepping_out_over_a_whole_elided_block_is_ambiguous() -> None:
    # `save` would be dropped by stepping from `load`'s loop out to the top level
    snippet = LOOP_TAIL + "\n\ndef main():\n# ... existing code ...\n"
    assert ambiguous(STORE, snippet, language="python").reasons[0].code == "unexplained_deletion"


ROUTES = """app.get("/todos", async (req, res, next) => {
  try {
    res.json(await db.list());
  } catch (err) {
    next(err);
  }
});

app.post("/todos", async (req, res, next) => {
  try {
    const todo = await db.create(req.body);
    res.status(201).json(todo);
  } catch (err) {
    next(err);
  }
});

app.listen(3000);
"""


def test_a_tail_may_step_out_through_a_clause_and_the_closers_of_its_blocks() -> None:
    # every handler ends in the same `} catch` and `});`: the line above them places the new route
    route = 'app.delete("/todos/:id", async (req, res) => {\n  res.status(204).end();\n});\n'
    snippet = (
        "// ... existing code ...\n    res.status(201).json(todo);\n  } catch (err) {\n    next(err);\n"
        "  }\n});\n\n" + route + "\n// ... existing code ...\n"
    )
    expected = ROUTES.replace("\napp.listen", "\n" + route + "\napp.listen")
    assert merged(ROUTES, snippet, language="javascript") == expected


def test_a_tail_edited_and_stepping_out_to_its_functions_closer_is_an_edit() -> None:
    original = (
        "package main\n\nfunc count(items []string) int {\n\tn := 0\n\tfor _, it := range items {\n"
        '\t\tif it == "" {\n\t\t\tcontinue\n\t\t}\n\t\tn++\n\t}\n\treturn n\n}\n\nfunc main() {\n}\n'
    )
    # `n++` shown as `n += len(it)`: the loop's last line, edited; then the function's own end
    snippet = (
        '// ... existing code ...\n\t\tif it == "" {\n\t\t\tcontinue\n\t\t}\n\t\tn += len(it)\n\t}\n'
        "\treturn n\n}\n// ... existing code ...\n"
    )
    expected = original.replace("\t\tn++\n", "\t\tn += len(it)\n")
    assert merged(original, snippet, language="go") == expected


POLLER = """import time


def start(job):
    job.open()
    watch(job)
    job.run()


def watch(job):
    while job.alive:
        time.sleep(job.interval)
        if job.stale():
            job.log("stale, restarting")
            job.restart()
        job.beat()
        job.count += 1
        job.flush()


def stop(job):
    job.close()
"""


def test_a_long_function_deleted_with_its_one_call_closed_up_is_deleted() -> None:
    snippet = "# ... existing code ...\n    job.open()\n    job.run()\n\n\ndef stop(job):\n# ... existing code ...\n"
    expected = POLLER.replace("    watch(job)\n", "").replace(
        POLLER[POLLER.index("def watch") : POLLER.index("def stop")], ""
    )
    assert merged(POLLER, snippet, language="python") == expected


def test_a_long_function_closed_up_while_its_call_stays_is_ambiguous() -> None:
    snippet = "# ... existing code ...\n    job.run()\n\n\ndef stop(job):\n# ... existing code ...\n"
    assert ambiguous(POLLER, snippet, language="python").reasons[0].code == "unexplained_deletion"


def test_destructured_parameters_spread_over_several_lines_are_the_one_line_signatures_edit() -> None:
    original = (
        "export function List({ items, empty }: ListProps) {\n  const shown = items.slice(0, 10);\n"
        "  if (shown.length === 0) {\n    return <p>{empty}</p>;\n  }\n  return <ul>{shown}</ul>;\n}\n"
    )
    snippet = (
        "export function List({\n  items,\n  empty,\n  limit = 10,\n}: ListProps) {\n"
        "  const shown = items.slice(0, limit);\n  // ... existing code ...\n}\n"
    )
    header = snippet[: snippet.index("\n  const")]
    expected = original.replace("export function List({ items, empty }: ListProps) {", header)
    expected = expected.replace("slice(0, 10)", "slice(0, limit)")
    assert merged(original, snippet, language="tsx") == expected


SLICE_THEN = (
    "const slice = createSlice({{\n  reducers: {{\n    added(state) {{\n      state.n += 1;\n    }},\n  }},\n}});\n\n"
    "{}\n\nexport default slice.reducer;\n"
)
SLICE_TAIL_THEN = (
    "// ... existing code ...\n    added(state) {{\n      state.n += 1;\n    }},\n    cleared(state) {{\n"
    "      state.n = 0;\n    }},\n  }},\n}});\n\n{}\n\n// ... existing code ...\n"
)


@pytest.mark.parametrize(
    ("shown", "edited"),
    [
        # were it a new line, `added` would be declared twice: the line below, edited (on one line
        # or spread over two)
        ("export const { added } = slice.actions;", "export const { added, cleared } = slice.actions;"),
        ("export const { added } = slice.actions;", "export const { added, cleared } =\n  slice.actions;"),
        # as a new statement, it would export `added` twice
        ("export { added };", "export {\n  added,\n  cleared,\n};"),
    ],
)
def test_a_binding_of_a_name_the_line_below_binds_edits_that_line(shown: str, edited: str) -> None:
    original = SLICE_THEN.format(shown)
    expected = SLICE_THEN.format(edited).replace(
        "    },\n  },\n});", "    },\n    cleared(state) {\n      state.n = 0;\n    },\n  },\n});"
    )
    assert merged(original, SLICE_TAIL_THEN.format(edited), language="typescript") == expected


def test_new_code_spread_over_lines_much_like_the_one_line_below_it_is_ambiguous() -> None:
    # a statement with no name: the line below, edited, or a new one beside it?
    original = SLICE_THEN.format("[added].forEach(register);")
    snippet = SLICE_TAIL_THEN.format("[added, cleared]\n  .forEach(register);")
    assert ambiguous(original, snippet, language="javascript").reasons[0].code == "edit_or_insertion"


def test_a_state_hook_binding_other_names_is_a_new_line_beside_the_first() -> None:
    original = (
        "function Counter() {\n  const [count, setCount] = useState(0);\n  const label = `n=${count}`;\n"
        "  return <b>{label}</b>;\n}\n"
    )
    snippet = (
        "function Counter() {\n  const [count, setCount] = useState(0);\n  const [step, setStep] = useState(1);\n"
        "  // ... existing code ...\n}\n"
    )
    expected = original.replace("useState(0);\n", "useState(0);\n  const [step, setStep] = useState(1);\n")
    assert merged(original, snippet, language="tsx") == expected


def test_kotlin_test_functions_named_in_backticks_are_told_apart_by_their_names() -> None:
    tests = {
        name: f'    @Test\n    fun `{name}`() {{\n        assertEquals({k}, parse("{k}"))\n    }}\n'
        for k, name in enumerate(["reads a number", "reads a negative number", "rejects a letter"])
    }
    original = "class ParseTest {\n" + "\n".join(tests.values()) + "}\n"
    added = '    @Test\n    fun `reads zero`() {\n        assertEquals(0, parse("0"))\n    }\n'
    snippet = f"class ParseTest {{\n{tests['reads a number']}\n{added}\n    // ... remaining tests ...\n}}\n"
    expected = original.replace(tests["reads a number"], tests["reads a number"] + "\n" + added)
    assert merged(original, snippet, language="kotlin") == expected


GET_BRANCH = (
    "  if (req.method === 'GET') {\n    const rows = await db.list(id);\n    return res.json(rows);\n  }\n\n"
)
DELETE_BRANCH = (
    "  if (req.method === 'DELETE') {\n    await db.remove(id);\n    return res.status(204).end();\n  }\n"
)
HANDLER = f"export default async function handler(req, res) {{\n  const id = req.query.id;\n{GET_BRANCH}{DELETE_BRANCH}}}\n"


def test_a_new_branch_testing_another_value_of_the_elided_one_is_added_beside_it() -> None:
    # `=== 'PUT'` beside `=== 'GET'`, with another body: another method's branch, not GET's edited
    put = (
        "  if (req.method === 'PUT') {\n    const row = await db.update(id, req.body);\n"
        "    if (!row) return res.status(404).end();\n    return res.json(row);\n  }\n\n"
    )
    snippet = f"  // ... GET handler unchanged ...\n\n{put}{DELETE_BRANCH}}}\n"
    assert merged(HANDLER, snippet, language="javascript") == HANDLER.replace(
        DELETE_BRANCH, put + DELETE_BRANCH
    )


def test_a_branch_testing_another_value_with_other_lines_inside_is_added_beside_it() -> None:
    # written after GET's pattern, but on other names: PUT's new branch (this once deleted GET's)
    put = "  if (req.method === 'PUT') {\n    const row = await db.update(id, req.body);\n    return res.json(row);\n  }\n\n"
    snippet = f"  // ... GET handler unchanged ...\n\n{put}{DELETE_BRANCH}}}\n"
    assert merged(HANDLER, snippet, language="javascript") == HANDLER.replace(
        DELETE_BRANCH, put + DELETE_BRANCH
    )


def test_a_branch_testing_another_value_with_the_elided_ones_body_is_ambiguous() -> None:
    # GET's branch with its value edited, or a new one setting the same names as GET's?
    put = GET_BRANCH.replace("'GET'", "'PUT'").replace("db.list(id)", "db.find(id)")
    snippet = f"  // ... GET handler unchanged ...\n\n{put}{DELETE_BRANCH}}}\n"
    assert ambiguous(HANDLER, snippet, language="javascript").reasons[0].code == "edit_or_insertion"


def test_a_branch_whose_value_is_mended_is_the_branch_edited() -> None:
    original = HANDLER.replace("'GET'", "'GTE'")
    snippet = f"  // ... existing code ...\n\n{GET_BRANCH}{DELETE_BRANCH}}}\n"
    assert merged(original, snippet, language="javascript") == HANDLER


PARSE_USER = (
    "export function parseUser(raw: Raw): User {\n  return {\n    id: String(raw.id),\n"
    '    userName: String(raw.user_name ?? ""),\n    email: String(raw.email),\n  };\n}\n'
)


def test_a_new_key_with_the_computed_value_of_the_elided_key_there_is_ambiguous() -> None:
    # `userName` renamed `displayName`, or a second key copied from it?
    snippet = (
        "export function parseUser(raw: Raw): User {\n  return {\n    id: String(raw.id),\n"
        '    displayName: String(raw.user_name ?? ""),\n    // ... existing code ...\n  };\n}\n'
    )
    assert ambiguous(PARSE_USER, snippet, language="typescript").reasons[0].code == "edit_or_insertion"


def test_a_new_key_with_the_plain_type_of_the_elided_key_there_is_added() -> None:
    # `nickname: string;` above `name: string;`: a second field, as fields are written
    original = "export interface User {\n  id: string;\n  name: string;\n  email: string;\n}\n"
    snippet = "export interface User {\n  id: string;\n  nickname: string;\n  // ... existing fields ...\n}\n"
    expected = original.replace("  name:", "  nickname: string;\n  name:")
    assert merged(original, snippet, language="typescript") == expected


def test_a_c_macro_shown_with_another_value_is_the_macro_edited() -> None:
    original = "#include <stdio.h>\n\n#define MAX_LINE 256\n#define CAPACITY 128\n\nint main(void) {\n    return 0;\n}\n"
    snippet = "/* ... includes ... */\n\n#define MAX_LINE 1024\n#define CAPACITY 128\n\n/* ... existing code ... */\n"
    assert merged(original, snippet, language="c") == original.replace("256", "1024")


def test_table_rows_shown_without_their_function_end_in_a_marker_for_the_rest() -> None:
    # the marker below the rows keeps the rows after them; `}` closes the table, not the rows
    rows = [
        f'\t\t{{name: "{n}", in: "{n[:2]}", want: {k}}},\n'
        for k, n in enumerate(["bytes", "kilo", "mega", "giga"])
    ]
    original = (
        "package units\n\nfunc TestParse(t *testing.T) {\n\ttests := []struct {\n\t\tname string\n\t\tin   string\n"
        f"\t\twant int\n\t}}{{\n{''.join(rows)}\t}}\n\tfor _, tt := range tests {{\n\t\tcheck(t, tt)\n\t}}\n}}\n"
    )
    edited = rows[1].replace("want: 1", "want: 1000")
    snippet = f"// ... existing code ...\n{rows[0]}{edited}\t\t// ... remaining rows ...\n\t}}\n// ... existing code ...\n"
    assert merged(original, snippet, language="go") == original.replace(rows[1], edited)


def test_a_match_arm_is_known_by_its_whole_pattern() -> None:
    # `Some(0) =>` is a new arm above `Some(n) =>`, not its edit
    original = "fn f(x: Option<i32>) -> i32 {\n    match x {\n        Some(n) => n * 2,\n        None => 0,\n    }\n}\n"
    snippet = "fn f(x: Option<i32>) -> i32 {\n    match x {\n        Some(0) => -1,\n        // ... existing arms ...\n    }\n}\n"
    expected = original.replace("        Some(n)", "        Some(0) => -1,\n        Some(n)")
    assert merged(original, snippet, language="rust") == expected


FETCH = (
    "import requests\n\n\ndef fetch(url):\n    resp = requests.get(url)\n    resp.raise_for_status()\n"
    "    return resp.json()\n\n\ndef main():\n    print(fetch('x'))\n"
)
WRAPPED = FETCH.replace(
    "    resp = requests.get(url)\n    resp.raise_for_status()\n    return resp.json()\n",
    "    try:\n        resp = requests.get(url)\n        resp.raise_for_status()\n        return resp.json()\n"
    "    except requests.HTTPError as e:\n        log.error(e)\n        raise\n",
)


@pytest.mark.parametrize(
    "body",
    [
        "        # ... existing code ...\n",
        "        resp = requests.get(url)\n        # ... existing code ...\n        return resp.json()\n",
    ],
    ids=["all-elided", "ends-shown"],
)
def test_a_new_block_around_a_marker_wraps_the_elided_code_one_level_deeper(body: str) -> None:
    snippet = f"def fetch(url):\n    try:\n{body}    except requests.HTTPError as e:\n        log.error(e)\n        raise\n"
    # before: the marker inside the new `try:` was written into the file
    assert merged(FETCH, snippet, language="python") == WRAPPED


def test_a_new_braced_block_around_a_marker_wraps_the_elided_code_with_its_clauses_and_closer() -> None:
    original = "function load(path) {\n  const text = fs.readFileSync(path);\n  return JSON.parse(text);\n}\n"
    snippet = (
        "function load(path) {\n  try {\n    // ... existing code ...\n  } catch (err) {\n"
        "    throw new Error(`cannot load ${path}`);\n  }\n}\n"
    )
    expected = (
        "function load(path) {\n  try {\n    const text = fs.readFileSync(path);\n    return JSON.parse(text);\n"
        "  } catch (err) {\n    throw new Error(`cannot load ${path}`);\n  }\n}\n"
    )
    assert merged(original, snippet, language="javascript") == expected


def test_a_new_try_wraps_elided_code_though_the_file_has_a_try_elsewhere() -> None:
    original = FETCH + "\n\ndef close():\n    try:\n        conn.close()\n    except OSError:\n        pass\n"
    snippet = (
        "def fetch(url):\n    try:\n        # ... existing code ...\n    except requests.HTTPError as e:\n"
        "        log.error(e)\n        raise\n\n\n# ... rest unchanged ...\n"
    )
    # before: `try:` was found in close() and taken for a block shown, so the marker was written
    assert merged(original, snippet, language="python") == WRAPPED + original[len(FETCH) :]


@pytest.mark.parametrize(
    ("language", "original", "opener", "closer"),
    [
        (
            "typescript",
            "async function token(): Promise<string> {\n  const t = await load();\n  save(t);\n  return t;\n}\n",
            "  return mutex.runExclusive(async () => {\n",
            "  });\n",
        ),
        (
            "kotlin",
            "suspend fun export(id: Long): File {\n    val rows = db.rowsFor(id)\n    write(rows)\n    return out\n}\n",
            "    withContext(Dispatchers.IO) {\n",
            "    }\n",
        ),
        (
            "lua",
            "function M.load(path)\n  local raw = read(path)\n  apply(decode(raw))\n  return raw\nend\n",
            "  local ok, err = pcall(function()\n",
            "  end)\n",
        ),
        (
            "ruby",
            "def checkout(cart)\n  order = Order.create!(cart: cart)\n  cart.clear!\n  order\nend\n",
            "  Order.transaction do\n",
            "  end\n",
        ),
    ],
    ids=["arrow-callback", "trailing-lambda", "lua-function", "ruby-do"],
)
def test_a_new_call_passing_a_block_around_a_marker_wraps_the_elided_code(
    language: str, original: str, opener: str, closer: str
) -> None:
    lines = original.splitlines(keepends=True)
    indent = opener[: len(opener) - len(opener.lstrip())]
    comment = {"ruby": "#", "lua": "--"}.get(language, "//")
    snippet = f"{lines[0]}{opener}{indent * 2}{comment} ... existing code ...\n{closer}{lines[-1]}"
    body = "".join(f"{indent}{line}" for line in lines[1:-1])
    # before: the marker inside the new block was written into the file
    assert merged(original, snippet, language=language) == f"{lines[0]}{opener}{body}{closer}{lines[-1]}"


def test_a_block_passed_to_a_call_the_file_makes_twice_is_new_where_shown() -> None:
    original = (
        "func image() -> UIImage? {\n    queue.sync {\n        return cached\n    }\n}\n\n"
        "func insert(_ image: UIImage) {\n    storage.append(image)\n    evictIfNeeded()\n}\n\n"
        "func clear() {\n    queue.sync {\n        storage.removeAll()\n    }\n}\n"
    )
    snippet = (
        "func insert(_ image: UIImage) {\n    queue.sync {\n        // ... existing code ...\n    }\n}\n"
    )
    expected = original.replace(
        "    storage.append(image)\n    evictIfNeeded()\n",
        "    queue.sync {\n        storage.append(image)\n        evictIfNeeded()\n    }\n",
    )
    assert merged(original, snippet, language="swift") == expected


@pytest.mark.parametrize(
    ("opener", "closer"),
    [("setState({", "});"), ("const run = async () => {", "};")],
    ids=["object", "function"],
)
def test_an_object_or_a_new_function_around_a_marker_wraps_nothing(opener: str, closer: str) -> None:
    original = "function save(user) {\n  const id = user.id;\n  store.put(id, user);\n  return id;\n}\n"
    snippet = f"function save(user) {{\n  {opener}\n    // ... existing code ...\n  {closer}\n}}\n"
    assert ambiguous(original, snippet, language="javascript").status == "ambiguous"


@pytest.mark.parametrize(
    "marker_indent", ["      ", "        ", "          "], ids=["half-in", "one-in", "two-in"]
)
def test_a_wrapped_marker_indented_loosely_wraps_the_code_one_unit_in(marker_indent: str) -> None:
    original = (
        "fun export(id: Long): File {\n    val rows = db.rowsFor(id)\n    write(rows)\n    return out\n}\n"
    )
    snippet = f"fun export(id: Long): File {{\n    try {{\n{marker_indent}// ... existing code ...\n    }} finally {{ close() }}\n}}\n"
    expected = (
        "fun export(id: Long): File {\n    try {\n        val rows = db.rowsFor(id)\n        write(rows)\n"
        "        return out\n    } finally { close() }\n}\n"
    )
    # before: a marker 2 spaces in made the snippet's unit 2, so all of it stood 4 spaces too deep;
    # one 4 spaces too deep wrapped the code 8 deeper
    assert merged(original, snippet, language="kotlin") == expected


def test_a_block_found_elsewhere_in_the_file_around_a_marker_wraps_nothing() -> None:
    original = (
        "def save(items, db):\n    for item in items:\n        db.add(item)\n        db.flush()\n\n\n"
        "def load(rows, db):\n    count = len(rows)\n    total = sum(rows)\n    return count, total\n"
    )
    snippet = (
        "def load(rows, db):\n    for item in items:\n        # ... existing code ...\n"
        "    return count, total\n"
    )
    assert ambiguous(original, snippet, language="python").status == "ambiguous"


SETUP_C = (
    "static int setup(void) {\n    int flags = 0;\n\n#ifdef _WIN32\n    _setmode(_fileno(stdout), _O_BINARY);\n"
    '#endif\n\n    if (getenv("COMPACT"))\n        flags |= COMPACT;\n\n    return flags;\n}\n\n'
    "static int teardown(void) {\n    return 0;\n}\n"
)


def test_a_preprocessor_line_at_column_zero_inside_a_function_stays_in_its_body() -> None:
    snippet = (
        'static int setup(void) {\n    /* ... */\n    if (getenv("COMPACT"))\n        flags |= COMPACT;\n\n'
        '    if (getenv("ASCII"))\n        flags |= ASCII;\n    /* ... */\n}\n'
    )
    expected = SETUP_C.replace(
        "flags |= COMPACT;\n", 'flags |= COMPACT;\n\n    if (getenv("ASCII"))\n        flags |= ASCII;\n'
    )
    # before: `#ifdef` at column 0 ended the function's body, so its code below was no anchor
    assert merged(SETUP_C, snippet, language="c") == expected


def test_a_comment_at_column_zero_inside_a_function_stays_in_its_body() -> None:
    original = (
        "def f():\n    a = 1\n# b = 2\n    c = 3\n    return c\n\n\ndef g():\n    c = 3\n    return c\n"
    )
    snippet = "def f():\n    # ... existing code ...\n    c = 4\n    return c\n\n\n# ... rest unchanged ...\n"
    # before: `# b = 2` ended f's body, so the edit went above it and f's old tail stayed below
    assert merged(original, snippet, language="python") == original.replace(
        "    c = 3\n    return c\n\n\n", "    c = 4\n    return c\n\n\n"
    )


def test_a_job_commented_out_at_column_zero_hides_no_job_below_it() -> None:
    original = (
        "jobs:\n  lint:\n    steps:\n      - uses: actions/checkout@v4\n      - run: make deps\n      - run: make lint\n"
        "#  old:\n#    steps:\n#      - run: make old\n"
        "  test:\n    steps:\n      - uses: actions/checkout@v4\n      - run: make deps\n      - run: make test\n"
    )
    snippet = "      # ... existing steps ...\n      - run: make deps\n      - run: make cache\n      # ... rest unchanged ...\n"
    # before: the commented-out job held `test:` as its own, and code in a comment is never searched,
    # so the step went into `lint` though `test` has the same steps
    assert ambiguous(original, snippet, language="yaml").reasons[0].code == "several_candidates"


def test_a_marker_at_the_end_of_a_step_that_names_the_next_step_keeps_it() -> None:
    original = (
        "steps:\n  - uses: actions/checkout@v4\n  - name: Set up Python\n    uses: actions/setup-python@v5\n"
        "    with:\n      python-version: '3.12'\n  - name: Install dependencies\n    run: |\n"
        "      pip install -U pip\n      pip install -r requirements.txt\n  - name: Test\n    run: pytest\n"
    )
    snippet = (
        "steps:\n  - uses: actions/checkout@v4\n  - name: Set up Python\n    # ... setup and dependency steps unchanged ...\n"
        "  - name: Test\n    run: pytest -x\n"
    )
    # before: the marker stood for the rest of `Set up Python` alone, so `Install dependencies` was deleted
    assert merged(original, snippet, language="yaml") == original.replace("run: pytest", "run: pytest -x")


def test_names_added_to_a_row_of_an_enum_edit_that_row() -> None:
    original = "public enum Kind {\n    LPAREN, RPAREN, LBRACE, RBRACE,\n    COMMA, DOT, COLON, SEMICOLON,\n    PLUS, MINUS,\n    EOF\n}\n"
    snippet = (
        "public enum Kind {\n    LPAREN, RPAREN, LBRACE, RBRACE,\n    COMMA, DOT, COLON, SEMICOLON, QUESTION, COALESCE,\n"
        "    // ... rest unchanged ...\n}\n"
    )
    # before: read as a new row beside the old one (written twice, once the marker stood above it)
    assert merged(original, snippet, language="java") == original.replace(
        "SEMICOLON,", "SEMICOLON, QUESTION, COALESCE,"
    )


def test_a_marker_ending_the_last_arm_shown_keeps_the_arms_after_it() -> None:
    original = (
        'func describe(_ e: E) -> String {\n    switch e {\n    case .a:\n        return "a"\n    case .b(let x):\n'
        '        let y = x * 2\n        return "b\\(y)"\n    case .c:\n        return "c"\n    case .d:\n        return "d"\n    }\n}\n'
    )
    snippet = (
        'func describe(_ e: E) -> String {\n    switch e {\n    case .a:\n        return "A"\n    case .b(let x):\n'
        "        // ... rest unchanged ...\n    }\n}\n"
    )
    # before: the marker stood for the rest of `.b` alone, so `.c` and `.d` were deleted
    assert merged(original, snippet, language="swift") == original.replace('return "a"', 'return "A"')


def test_clauses_matching_tuples_are_items_of_their_own() -> None:
    original = (
        "defmodule M do\n  def run(x) do\n    case send(x) do\n      {:ok, id} ->\n        ack(id)\n\n"
        "      {:error, :invalid, reason} ->\n        discard(reason)\n\n      {:error, :timeout, _} ->\n"
        "        retry(x)\n    end\n  end\nend\n"
    )
    snippet = (
        "    case send(x) do\n      # ... earlier clauses ...\n      {:error, :invalid, reason} ->\n        discard(reason)\n\n"
        "      {:error, :suppressed, reason} ->\n        suppress(reason)\n\n      {:error, :timeout, _} ->\n"
        "        # ... unchanged ...\n    end\n"
    )
    expected = original.replace(
        "      {:error, :timeout, _} ->",
        "      {:error, :suppressed, reason} ->\n        suppress(reason)\n\n      {:error, :timeout, _} ->",
    )
    # before: each `{...} ->` line was read as the `{` of a block continuing the clause above
    assert merged(original, snippet, language="elixir") == expected


MATCH_EVENT = (
    "fn handle(&mut self, event: Event) -> Action {\n    match event {\n        Event::Key(k) => self.key(k),\n"
    "        Event::Paste(text) => {\n            self.buffer.insert_str(&text);\n            Action::Redraw\n        }\n"
    "        Event::Resize(w, h) => self.resize(w, h),\n        _ => Action::None,\n    }\n}\n"
)


def test_a_match_arm_shown_with_a_guard_added_edits_that_arm() -> None:
    snippet = (
        "fn handle(&mut self, event: Event) -> Action {\n    match event {\n        // ... key events ...\n"
        "        Event::Paste(text) if !text.is_empty() => {\n            self.buffer.insert_str(&text);\n"
        "            Action::Redraw\n        }\n        // ... other arms ...\n    }\n}\n"
    )
    # before: a new arm between two markers, placed by nothing
    expected = MATCH_EVENT.replace("Event::Paste(text) =>", "Event::Paste(text) if !text.is_empty() =>")
    assert merged(MATCH_EVENT, snippet, language="rust") == expected


def test_a_new_guarded_arm_above_its_unguarded_one_shown_too_is_new() -> None:
    snippet = (
        "fn handle(&mut self, event: Event) -> Action {\n    match event {\n        Event::Key(k) => self.key(k),\n"
        "        Event::Paste(text) if text.is_empty() => Action::None,\n        Event::Paste(text) => {\n"
        "            self.buffer.insert_str(&text);\n            Action::Redraw\n        }\n        // ... other arms ...\n    }\n}\n"
    )
    expected = MATCH_EVENT.replace(
        "        Event::Paste(text) => {",
        "        Event::Paste(text) if text.is_empty() => Action::None,\n        Event::Paste(text) => {",
    )
    assert merged(MATCH_EVENT, snippet, language="rust") == expected


def test_a_ruby_hash_on_the_lines_below_an_edited_call_is_no_block_of_that_call() -> None:
    original = (
        'def create_label(id)\n  body = { id: id }\n  response = post("/labels", body)\n  {\n'
        '    tracking: response.fetch("tracking"),\n    url: response.fetch("url"),\n  }\nend\n'
    )
    snippet = (
        'def create_label(id)\n  body = { id: id }\n  response = instrument("label") { post("/labels", body) }\n'
        "  # ... existing code ...\nend\n"
    )
    expected = original.replace('post("/labels", body)', 'instrument("label") { post("/labels", body) }')
    # before: the `{` line was read as opening a block of the call's line, so the edit replaced the hash
    assert merged(original, snippet, language="ruby") == expected


READ_CONF = (
    "def read_conf(path):\n    conf = {}\n    for line in open(path):\n        key, _, val = line.partition('=')\n"
    "        if key == 'INDENT':\n            conf['indent'] = int(val)\n"
    "        if key == 'STRIP':\n            conf['strip'] = int(val)\n    return conf\n"
)


def test_code_and_markers_shown_deeper_than_a_body_go_in_the_one_block_that_holds_them() -> None:
    # the loop's header is elided, and the markers stand as deep as the code inside the loop
    snippet = (
        "def read_conf(path):\n        # ...\n        if key == 'INDENT':\n            conf['indent'] = int(val)\n"
        "        if key == 'SORT':\n            conf['sort'] = int(val)\n        # ...\n"
    )
    expected = READ_CONF.replace(
        "        if key == 'STRIP'",
        "        if key == 'SORT':\n            conf['sort'] = int(val)\n        if key == 'STRIP'",
    )
    assert merged(READ_CONF, snippet, language="python") == expected


CHECK_AGE = (
    "def check(self, value, max_age):\n    if max_age is not None:\n        age = now() - value.ts\n"
    "        if age > max_age:\n            raise Expired(f'age {age} > {max_age}', payload=value)\n"
    "        if age < 0:\n            raise Expired(f'age {age} < 0', payload=value)\n    return value\n"
)


SKEW_CHECK = (  # the last `if` of the `if max_age` block, edited
    "def check(self, value, max_age):\n    # ...\n        if age > max_age:\n"
    "            raise Expired(f'age {age} > {max_age}', payload=value)\n"
    "        if age < -SKEW:\n            raise Expired(f'age {age} < -{SKEW}', payload=value)\n"
)


def test_an_edited_last_block_above_a_less_indented_marker_edits_the_original() -> None:
    snippet = SKEW_CHECK + "    # ...\n"
    expected = CHECK_AGE.replace("if age < 0:", "if age < -SKEW:").replace("< 0'", "< -{SKEW}'")
    # the marker elides what follows the `if max_age` block, so no marker is left standing for
    # the original `if age < 0`: the new block edits it (before: ambiguous, edit or insertion)
    assert merged(CHECK_AGE, snippet, language="python") == expected


def test_an_edited_last_block_above_a_marker_as_deep_as_it_is_ambiguous() -> None:
    snippet = SKEW_CHECK + "        # ...\n    return value\n"
    assert ambiguous(CHECK_AGE, snippet, language="python").reasons[0].code == "edit_or_insertion"


def test_a_name_set_by_a_call_is_known_apart_from_its_declaration() -> None:
    original = (
        "int encode(uint8_t *out, size_t len)\n{\n    uint16_t crc;\n\n    out[0] = MAGIC;\n"
        "    crc = crc16(&out[1], len);\n    put_be16(&out[len], crc);\n    return 0;\n}\n"
    )
    snippet = "int encode(uint8_t *out, size_t len)\n{\n    /* ... */\n    crc = crc16(SEED, &out[1], len);\n    /* ... */\n}\n"
    # before: `uint16_t crc;` and the assignment shared the key `crc`, so the line had no anchor
    expected = original.replace("crc16(&out", "crc16(SEED, &out")
    assert merged(original, snippet, language="c") == expected


DECORATED_ROUTES = (
    "class Users:\n    @get('/a')\n    def a(self):\n        return 1\n\n"
    "    @post('/b')\n    @status(204)\n    def b(self):\n        return 2\n"
)


def test_a_decorator_shown_alone_above_a_marker_anchors_on_its_item() -> None:
    snippet = (
        "class Users:\n    # ...\n        return 1\n\n    @put('/n')\n    def n(self):\n        return 3\n\n"
        "    @post('/b')\n    # ...\n"
    )
    expected = DECORATED_ROUTES.replace(
        "    @post", "    @put('/n')\n    def n(self):\n        return 3\n\n    @post"
    )
    # before: `@post('/b')` alone matched no item, so the new method had no anchor below it
    assert merged(DECORATED_ROUTES, snippet, language="python") == expected


def test_a_decorator_shown_alone_that_starts_two_items_is_placed_by_the_line_above() -> None:
    # `@post('/b')` starts two items, so the outline anchors nothing on it; read as hunks, the new
    # method stands between `return 1` and the `@post('/b')` right below it, the second item's
    original = DECORATED_ROUTES.replace("@get('/a')", "@post('/b')\n    @status(201)")
    snippet = "class Users:\n    # ...\n        return 1\n\n    @put('/n')\n    def n(self):\n        return 3\n\n    @post('/b')\n    # ...\n"
    new = "    @put('/n')\n    def n(self):\n        return 3\n\n"
    assert merged(original, snippet, language="python") == original.replace(
        "    @post('/b')\n    @status(204)", new + "    @post('/b')\n    @status(204)"
    )


CARD = (
    "export function Card({ title, body }: Props) {\n  const id = useId();\n  return createPortal(\n"
    '    <section aria-labelledby={id}>\n      <div className="card">\n        <h2 id={id}>{title}</h2>\n'
    "        <p>{body}</p>\n      </div>\n    </section>,\n    document.body,\n  );\n}\n"
)


def test_a_closer_below_a_less_indented_marker_ends_an_elided_block_not_the_fragment() -> None:
    snippet = (
        "export function Card({ title, body }: Props) {\n  // ... existing code ...\n"
        "        <p>{body}</p>\n        <small>{date}</small>\n    {/* ... */}\n  );\n}\n"
    )
    # `);` closes `return createPortal(`, whose end the marker above it elides
    expected = CARD.replace("<p>{body}</p>\n", "<p>{body}</p>\n        <small>{date}</small>\n")
    assert merged(CARD, snippet, language="tsx") == expected


HANDLE = (
    "def handle(req):\n    try:\n        event = parse(req)\n    except ValueError:\n        return 400\n"
    "    for item in event.items:\n        process(item)\n        audit(item)\n    return 200\n"
)


def test_a_new_try_around_an_original_block_shown_by_its_header_wraps_that_block() -> None:
    snippet = (
        "def handle(req):\n    # ... parsing unchanged ...\n    try:\n        for item in event.items:\n"
        "            # ... existing code ...\n    except StoreError:\n        log.exception('failed')\n"
        "        return 500\n    return 200\n"
    )
    expected = HANDLE.replace(
        "    for item in event.items:\n        process(item)\n        audit(item)\n",
        "    try:\n        for item in event.items:\n            process(item)\n            audit(item)\n"
        "    except StoreError:\n        log.exception('failed')\n        return 500\n",
    )
    # before: the new `try:` was paired with the original one (both known as `try:` alone)
    assert merged(HANDLE, snippet, language="python") == expected


REPORT = (
    "def summarize(samples):\n    ordered = sorted(samples)\n    return {'p50': ordered[len(ordered) // 2]}\n\n\n"
    "def _fmt(value):\n    return f'{value:,.1f}'\n\n\n"
    "def render(summary):\n    cells = [_fmt(v) for v in summary.values()]\n    return ' '.join(cells)\n"
)


def test_a_function_left_out_between_two_shown_but_still_called_is_not_deleted() -> None:
    snippet = (
        "def summarize(samples):\n    # ... existing code ...\n    return {'p50': ordered[len(ordered) // 2 - 1]}\n\n\n"
        "def render(summary):\n    # ... existing code ...\n    return '  '.join(cells)\n"
    )
    # `_fmt` is gone from between them, yet `render` calls it: deleted, or just not copied out?
    result = ambiguous(REPORT, snippet, language="python")
    assert result.reasons[0].code == "unexplained_deletion" and "def _fmt" in result.reasons[0].message


def test_a_function_left_out_between_two_shown_and_no_longer_called_is_deleted() -> None:
    original = REPORT.replace("[_fmt(v) for", "[str(v) for")
    snippet = (
        "def summarize(samples):\n    ordered = sorted(samples)\n    return {'p50': ordered[len(ordered) // 2]}\n\n\n"
        "def render(summary):\n    # ... existing code ...\n"
    )
    assert merged(original, snippet, language="python") == original.replace(
        "def _fmt(value):\n    return f'{value:,.1f}'\n\n\n", ""
    )


def test_a_new_block_wrapping_a_shown_line_keeps_the_blank_line_above_that_line() -> None:
    original = (
        "def load(entries):\n    for entry in entries:\n        if not entry.sku:\n            continue\n\n"
        "        price = parse_price(entry.price, entry.currency)\n        images = list(entry.images)\n"
        "        save(entry, price, images)\n"
    )
    snippet = (
        "def load(entries):\n    for entry in entries:\n        # ... existing code ...\n        try:\n"
        "            price = parse_price(entry.price, entry.currency)\n        except ValueError:\n"
        "            continue\n        images = list(entry.images)\n        # ... existing code ...\n"
    )
    expected = original.replace(
        "        price = parse_price(entry.price, entry.currency)\n",
        "        try:\n            price = parse_price(entry.price, entry.currency)\n        except ValueError:\n"
        "            continue\n",
    )
    assert merged(original, snippet, language="python") == expected


def test_a_signature_continued_on_a_second_line_leaves_the_body_depth_to_the_marker() -> None:
    original = (
        "def parse_object(s_and_end, strict, scan_once,\n               memo=None, _w=match):\n"
        "    s, end = s_and_end\n    pairs = []\n    while True:\n        key = read_key(s, end)\n"
        "        try:\n            value, end = scan_once(s, end)\n        except StopIteration as err:\n"
        "            raise DecodeError('Expecting value', s, err.value) from None\n"
        "        pairs.append((key, value))\n    return pairs\n"
    )
    snippet = (
        "def parse_object(s_and_end, strict, scan_once,\n               memo=None, _w=match):\n"
        "    # ... existing code ...\n        try:\n            value, end = scan_once(s, end)\n"
        "        except StopIteration as err:\n"
        "            raise DecodeError('Expecting value for key %r' % key, s, err.value) from None\n"
        "    # ... existing code ...\n"
    )
    # before: the second line of the signature was this level's one anchor, 15 columns deep, so
    # the loop's code below the marker was no fragment of an elided block
    expected = original.replace("'Expecting value',", "'Expecting value for key %r' % key,")
    assert merged(original, snippet, language="python") == expected


EVICT = (
    "fn insert(&mut self, key: K, size: usize) {\n    let mut evicted = Vec::new();\n"
    "    while self.used + size > self.capacity {\n        let old = self.order.pop_front().unwrap();\n"
    "        evicted.push(old);\n    }\n    self.used += size;\n}\n"
)


def test_a_condition_extended_over_a_body_all_elided_edits_the_one_loop_there() -> None:
    snippet = (
        "fn insert(&mut self, key: K, size: usize) {\n    // ... existing code ...\n"
        "    while self.used + size > self.capacity && !self.order.is_empty() {\n        // ... existing code ...\n"
        "    }\n    // ... existing code ...\n}\n"
    )
    expected = EVICT.replace("self.capacity {", "self.capacity && !self.order.is_empty() {")
    assert merged(EVICT, snippet, language="rust") == expected


def test_a_condition_over_a_body_all_elided_with_two_loops_there_is_ambiguous() -> None:
    original = EVICT.replace(
        "    self.used += size;\n",
        "    while self.used > self.high {\n        self.shrink();\n    }\n    self.used += size;\n",
    )
    snippet = (
        "fn insert(&mut self, key: K, size: usize) {\n    // ... existing code ...\n"
        "    while self.used + size > self.capacity && !self.order.is_empty() {\n        // ... existing code ...\n"
        "    }\n    // ... existing code ...\n}\n"
    )
    assert ambiguous(original, snippet, language="rust").status == "ambiguous"


STATUS_SWIFT = """enum Status {
    case draft
    case published

    var title: String {
        switch self {
        case .draft:
            return "Draft"
        case .published:
            return "Published"
        }
    }

    var icon: String {
        switch self {
        case .draft:
            return "pencil"
        case .published:
            return "globe"
        }
    }
}
"""


def test_cases_written_at_their_switch_column_stay_inside_the_switch() -> None:
    snippet = (
        "enum Status {\n    case draft\n    case published\n    case archived\n\n    var title: String {\n"
        "        switch self {\n        // ... existing cases ...\n        case .published:\n"
        '            return "Published"\n        case .archived:\n            return "Archived"\n        }\n'
        "    }\n\n    var icon: String {\n        switch self {\n        // ... existing cases ...\n"
        '        case .published:\n            return "globe"\n        case .archived:\n'
        '            return "archivebox"\n        }\n    }\n}\n'
    )
    expected = (
        STATUS_SWIFT.replace("    case published\n", "    case published\n    case archived\n")
        .replace('"Published"\n', '"Published"\n        case .archived:\n            return "Archived"\n')
        .replace('"globe"\n', '"globe"\n        case .archived:\n            return "archivebox"\n')
    )
    # before: the switch held no cases, so the new one went after its closer
    assert merged(STATUS_SWIFT, snippet, language="swift") == expected


def test_one_more_name_in_a_c_declaration_list_edits_the_declaration() -> None:
    original = (
        "int main(int argc, char **argv)\n{\n    int ret, len, test;\n    char *outname;\n\n"
        "    test = 0;\n    return ret;\n}\n"
    )
    snippet = (
        "int main(int argc, char **argv)\n{\n    int ret, len, test, keep;\n    // ... existing code ...\n"
        "    test = 0;\n    keep = 0;\n    return ret;\n}\n"
    )
    expected = original.replace("test;\n", "test, keep;\n").replace(
        "test = 0;\n", "test = 0;\n    keep = 0;\n"
    )
    # before: keyed by its last name (`keep`), the line was new and `int ret, len, test;` stayed
    assert merged(original, snippet, language="c") == expected


POLL_GO = """func poll(p *Proxy) {
	for {
		time.Sleep(p.interval)
		if out, err := p.label(); err != nil {
			log.Printf("error polling: %v", err)
		} else if s := string(out); p.label != s {
			log.Printf("updated: %q", s)
			p.Close()
			break
		}
	}
}
"""


def test_a_new_clause_above_the_original_one_shown_with_a_marker_goes_into_the_chain() -> None:
    snippet = (
        "func poll(p *Proxy) {\n\tfor {\n\t\t// ... existing code ...\n\t\tif out, err := p.label(); err != nil {\n"
        '\t\t\tlog.Printf("error polling: %v", err)\n\t\t} else if len(out) == 0 {\n'
        '\t\t\tlog.Printf("empty label")\n\t\t} else if s := string(out); p.label != s {\n'
        "\t\t\t// ... existing code ...\n\t\t}\n\t}\n}\n"
    )
    expected = POLL_GO.replace(
        "\t\t} else if s", '\t\t} else if len(out) == 0 {\n\t\t\tlog.Printf("empty label")\n\t\t} else if s'
    )
    # before: the new clause held the original's, marker and all, and was written out whole
    assert merged(POLL_GO, snippet, language="go") == expected


DECODE_JS = """const decode = (lines) => {
  const out = {}
  for (const line of lines) {
    if (!line) {
      continue
    }
    const [key, value] = line.split('=')
    if (key === '__proto__') {
      continue
    }
    out[key] = value
  }
  return out
}
"""


def test_a_condition_with_an_operand_more_over_a_short_body_edits_its_block() -> None:
    snippet = (
        "const decode = (lines) => {\n  // ... existing code ...\n"
        "    if (key === '__proto__' || key === 'constructor') {\n      continue\n    }\n"
        "  // ... existing code ...\n}\n"
    )
    expected = DECODE_JS.replace("'__proto__') {", "'__proto__' || key === 'constructor') {")
    # before: `continue` is too short to tell the block by, so the line had no anchor
    assert merged(DECODE_JS, snippet, language="javascript") == expected


def test_a_condition_with_an_operand_more_where_two_blocks_have_it_is_ambiguous() -> None:
    original = DECODE_JS.replace(
        "    out[key] = value\n", "    if (key === '__proto__') {\n      continue\n    }\n"
    )
    snippet = (
        "const decode = (lines) => {\n  // ... existing code ...\n"
        "    if (key === '__proto__' || key === 'constructor') {\n      continue\n    }\n"
        "  // ... existing code ...\n}\n"
    )
    assert ambiguous(original, snippet, language="javascript").status == "ambiguous"


def test_a_loop_shown_with_an_operand_more_above_its_first_line_and_a_marker_edits_the_loop() -> None:
    original = (
        "async function fetchAll(client, opts) {\n  const issues = [];\n  let page = 1;\n"
        "  while (page <= opts.pages) {\n    const response = await client.list({ page });\n"
        "    issues.push(...response.data);\n    page += 1;\n  }\n  return issues;\n}\n"
    )
    snippet = (
        "  // ... existing code ...\n  while (page <= opts.pages && issues.length < opts.limit) {\n"
        "    const response = await client.list({ page });\n  // ... existing code ...\n"
    )
    expected = original.replace("opts.pages) {", "opts.pages && issues.length < opts.limit) {")
    # before: the header too unlike the original's, the loop was new and the original one stayed
    assert merged(original, snippet, language="javascript") == expected


PAGE_HTML = """<!DOCTYPE html>
<html>
<head>
  <style>
    body { margin: 0; }
    .muted { color: #666; }
  </style>
</head>
<body>
  <p id="summary" class="muted"></p>
  <script>
    const summary = document.getElementById('summary');
    const money = new Intl.NumberFormat('en-US');

    function show(total) {
      summary.textContent = money.format(total);
    }
  </script>
</body>
</html>
"""


def test_markers_in_the_comments_of_an_html_files_script_and_style_elide_code() -> None:
    snippet = (
        "<!-- ... existing markup ... -->\n  <style>\n    /* ... existing rules ... */\n"
        "    .error { color: #c00; }\n  </style>\n<!-- ... existing markup ... -->\n  <script>\n"
        "    // ... existing code ...\n    function show(total) {\n"
        "      summary.textContent = 'Total: ' + money.format(total);\n    }\n  </script>\n"
        "<!-- ... existing markup ... -->\n"
    )
    expected = PAGE_HTML.replace(
        "    .muted { color: #666; }\n", "    .muted { color: #666; }\n    .error { color: #c00; }\n"
    ).replace("= money.format(total)", "= 'Total: ' + money.format(total)")
    # before: `//` and `/* */` were no comments of an HTML file, so the markers were new lines
    assert merged(PAGE_HTML, snippet, language="html") == expected


def test_runs_of_code_between_top_level_markers_each_go_in_their_own_class() -> None:
    original = (
        "class Reader:\n    def __init__(self, conn):\n        self.conn = conn\n\n    def read(self, n):\n"
        "        return self.conn.recv(n)\n\n\nclass Writer:\n    def __init__(self, conn):\n"
        "        self.conn = conn\n\n    def write(self, data):\n        self.conn.sendall(data)\n"
    )
    snippet = (
        "# ... existing code ...\n    def read(self, n):\n        return self.conn.recv(n) or b''\n"
        "# ... existing code ...\n    def write(self, data):\n        if data:\n            self.conn.sendall(data)\n"
    )
    expected = original.replace("recv(n)\n", "recv(n) or b''\n").replace(
        "        self.conn.sendall(data)\n", "        if data:\n            self.conn.sendall(data)\n"
    )
    # before: two classes held the snippet's code, so it was ambiguous, though each run fits one
    assert merged(original, snippet, language="python") == expected


CONFIG_PY = """class Config:
    def load(self):
        self.a = 1
        self.b = 2
        self.c = 3
        return self

    def check(self):
        if self.a < 0:
            raise ValueError("a")
        return True
"""


def test_lines_deep_in_a_method_then_a_marker_then_the_next_method_step_out_of_the_first() -> None:
    snippet = (
        "# ... existing code ...\n        self.b = 2\n        self.d = 4\n        # ... existing code ...\n\n"
        "    def check(self):\n        # ... existing checks ...\n        return bool(self)\n"
    )
    expected = CONFIG_PY.replace("self.b = 2\n", "self.b = 2\n        self.d = 4\n").replace(
        "return True", "return bool(self)"
    )
    # before: a run of code had to end its block to step out of it; a marker could not end it
    assert merged(CONFIG_PY, snippet, language="python") == expected


def test_a_new_check_on_other_names_than_the_elided_one_above_it_is_added() -> None:
    snippet = (
        "    def check(self):\n        # ... existing checks ...\n        if self.d < 0:\n"
        '            raise ValueError("d")\n        return True\n'
    )
    expected = CONFIG_PY.replace(
        '"a")\n', '"a")\n        if self.d < 0:\n            raise ValueError("d")\n'
    )
    # before: as alike as an edit of `if self.a < 0:`, it was ambiguous
    assert merged(CONFIG_PY, snippet, language="python") == expected


FROM_ENV_RS = """fn from_env() -> Result<Config, Error> {
    let mut cfg = Config::default();
    if let Some(n) = parse_var::<usize>("SERVER_MAX_BODY_BYTES")? {
        cfg.max_body_bytes = n;
    }
    if let Some(secs) = parse_var::<u64>("SERVER_SHUTDOWN_GRACE_SECS")? {
        cfg.shutdown_grace = Duration::from_secs(secs);
    }
    Ok(cfg)
}
"""


def test_a_block_under_another_quoted_name_setting_another_field_is_new() -> None:
    snippet = (
        "fn from_env() -> Result<Config, Error> {\n    // ... existing code ...\n"
        '    if let Some(n) = parse_var::<usize>("SERVER_MAX_BODY_BYTES")? {\n        cfg.max_body_bytes = n;\n'
        '    }\n    if let Some(secs) = parse_var::<u64>("SERVER_REQUEST_TIMEOUT_SECS")? {\n'
        "        cfg.request_timeout = Duration::from_secs(secs);\n    }\n    // ... existing code ...\n}\n"
    )
    new = (
        '    if let Some(secs) = parse_var::<u64>("SERVER_REQUEST_TIMEOUT_SECS")? {\n'
        "        cfg.request_timeout = Duration::from_secs(secs);\n    }\n"
    )
    expected = FROM_ENV_RS.replace("    if let Some(secs)", new + "    if let Some(secs)")
    # before: read as an edit of the SHUTDOWN_GRACE block, which it replaced
    assert merged(FROM_ENV_RS, snippet, language="rust") == expected


FINDER_JS = """class Finder {
  find () {
    const checks = (() => {
      const list = [
        {
          name: 'config',
          check: () => this.fromConfig()
        },
        {
          name: 'env',
          check: () => this.fromEnv()
        }
      ]

      if (this.win) {
        list.push({ name: 'launcher', check: () => this.fromLauncher() })
      }

      list.push({ name: 'python3', check: () => this.fromPath('python3') })
      return list
    })()
    return checks
  }
}
"""


def test_code_that_steps_out_of_a_list_inside_a_function_called_at_once_stays_in_the_function() -> None:
    snippet = (
        "  find () {\n    // ... existing code ...\n        {\n          name: 'env',\n"
        "          check: () => this.fromEnv()\n        }\n      ]\n\n"
        "      list.push({ name: 'python3', check: () => this.fromPath('python3') })\n      // ... existing code ...\n"
    )
    expected = FINDER_JS.replace(
        "      if (this.win) {\n        list.push({ name: 'launcher', check: () => this.fromLauncher() })\n      }\n\n",
        "",
    )
    # before: the `{` shown stands in both elements, and `})()` closes its block with no closer of
    # its own, so two places fit and it was ambiguous
    assert merged(FINDER_JS, snippet, language="javascript") == expected


ROWS_TSX = """export function Rows({ orders }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Date</th>
          <th className="numeric">
            <button onClick={sortByTotal}>Total</button>
          </th>
        </tr>
      </thead>
      <tbody>
        {orders.map((order) => (
          <tr key={order.id}>
            <td>{formatDate(order.createdAt)}</td>
            <td>
              <Link to={`/orders/${order.id}`}>#{order.number}</Link>
            </td>
            <td>{order.customer.name}</td>
            <td className="numeric">{formatMoney(order.total)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
"""


def test_a_new_cell_known_by_its_tag_alone_is_not_the_edit_of_another_cell() -> None:
    snippet = (
        "          <tr key={order.id}>\n            {/* ... existing cells ... */}\n"
        "            <td>{order.customer.name}</td>\n            <td>\n"
        "              <StatusBadge status={order.status} />\n            </td>\n"
        '            <td className="numeric">{formatMoney(order.total)}</td>\n          </tr>\n'
    )
    expected = ROWS_TSX.replace(
        "<td>{order.customer.name}</td>\n",
        "<td>{order.customer.name}</td>\n            <td>\n              <StatusBadge status={order.status} />\n"
        "            </td>\n",
    )
    # before: paired with the one other `<td>` over several lines, it replaced the link's cell
    assert merged(ROWS_TSX, snippet, language="tsx") == expected


def test_an_opening_tag_shown_above_a_marker_as_deep_as_it_keeps_its_content() -> None:
    snippet = (
        "        <tr>\n          <th>Date</th>\n          <th>Status</th>\n"
        '          <th className="numeric">\n          {/* ... */}\n'
    )
    expected = ROWS_TSX.replace("<th>Date</th>\n", "<th>Date</th>\n          <th>Status</th>\n")
    # before: the element's content and closing tag were deleted
    assert merged(ROWS_TSX, snippet, language="tsx") == expected


def test_a_header_shown_alone_above_a_marker_as_deep_as_it_keeps_its_body() -> None:
    original = (
        "size_t ringbuf_len(const ringbuf_t *rb)\n{\n    return rb->len;\n}\n\n"
        "void ringbuf_clear(ringbuf_t *rb)\n{\n    rb->head = rb->tail = rb->len = 0;\n}\n"
    )
    snippet = (
        "/* ... existing code ... */\n\nsize_t ringbuf_cap(const ringbuf_t *rb)\n{\n    return rb->cap;\n}\n\n"
        "void ringbuf_clear(ringbuf_t *rb)\n/* ... existing code ... */\n"
    )
    expected = original.replace(
        "void ringbuf_clear",
        "size_t ringbuf_cap(const ringbuf_t *rb)\n{\n    return rb->cap;\n}\n\nvoid ringbuf_clear",
    )
    # before: its `{` on the next line, the header was read as the whole function, the body deleted
    assert merged(original, snippet, language="c") == expected


def test_a_string_resumed_at_the_first_line_is_read_from_there() -> None:
    """A snippet may start inside a string (the first line resumed): its closer closes it, and the
    next string opens where its opener stands; read plainly, the parity is the other way round."""
    lines = ["SELECT 1", '""".strip()', "x = 1", 'y = """', "a", '"""']
    inside = [
        k for k, at in enumerate(string_columns(lines, columns(lines), "python", [0])) if at == CONTINUED
    ]
    assert inside == [0, 1, 4, 5]
    plain = [k for k, at in enumerate(string_columns(lines, columns(lines), "python")) if at == CONTINUED]
    assert plain == [2, 3]


def test_quotes_in_a_regular_expression_literal_open_no_string() -> None:
    """`/[",\\n]/.test(s) ? \u0060"${s}"\u0060 : s`: the regex's `"` opens no string, so the template
    literal after it closes on its own line and the lines below stay code. (The quotes paired off
    wrongly, a backtick was left open and every line down to the next backtick read as a string,
    the classes below inside the first.)"""
    lines = [
        "class Csv {",
        "  quote(s) {",
        '    return /[",\\n]/.test(s) ? `"${s.replace(/"/g, \'""\')}"` : s;',
        "  }",
        "}",
        "",
        "class Json {",
        "  render() {",
        "    return `[${this.rows}]`;",
        "  }",
        "}",
    ]
    assert CONTINUED not in string_columns(lines, columns(lines), "typescript")
    # a division is no regular expression
    lines = ["const r = a / b;", "const t = `x", "y`;"]
    assert string_columns(lines, columns(lines), "javascript")[2] == CONTINUED


def test_a_line_shown_after_a_marker_is_not_written_again_beside_its_original() -> None:
    """The route entry below the second marker is the tail of `routes`, shown to anchor the new
    `:put` line; a plan that writes it as new code at the end of the file, its original copied too,
    is refused (as text there is no parse check to catch it)."""
    original = (
        "(ns a)\n\n(defn create\n  [x]\n  (-> (resp x)\n      (status 201)))\n\n(defn delete\n  [x]\n  (del x))\n\n"
        '(defn routes\n  []\n  [["/items" {:get list-items}]\n   ["/items/:id" {:get get-item\n'
        "                  :delete delete-item}]])\n"
    )
    snippet = (
        ";; ... existing code ...\n      (status 201)))\n\n(defn update\n  [x]\n  (upd x))\n\n;; ... existing code ...\n\n"
        '   ["/items/:id" {:get get-item\n                  :put update-item\n                  :delete delete-item}]])\n'
    )
    result = ambiguous(original, snippet, language="text")
    assert result.reasons[0].code == "unanchored_insertion"


SLACK_KT = (
    "object Templates {\n\n"
    '    val FAILED = """\n        :x: *Deploy failed*\n        Step: {step}\n        // see runbook\n    """.trimIndent()\n\n'
    '    val CHANNEL = "#deploys"\n}\n\n'
    "class Notifier(private val client: Client) {\n\n"
    "    fun failed(step: String) {\n        post(Templates.FAILED, step)\n    }\n\n"
    "    private fun post(template: String, value: String) {\n        client.post(template, value)\n    }\n}\n"
)


def test_a_string_resumed_after_a_marker_is_read_with_its_opening_put_back() -> None:
    """The snippet shows the raw string's last lines and a new constant below it: read with the
    string's opening line and elided lines put back, it is a whole statement followed by new code
    (read as it stood, the closing quotes opened a string and no line matched). The plan copies
    the put-back lines from the original, so it renders against the snippet as given."""
    rolled = '    val ROLLED_BACK = """\n        |Rolled back {service}\n    """.trimMargin()\n'
    snippet = f'// ... existing code ...\n        // see runbook\n    """.trimIndent()\n\n{rolled}\n// ... existing code ...\n'
    expected = SLACK_KT.replace('""".trimIndent()\n\n', f'""".trimIndent()\n\n{rolled}\n', 1)
    assert merged(SLACK_KT, snippet, path="Slack.kt") == expected


def test_runs_between_markers_may_each_stand_in_their_own_class() -> None:
    """A constant added to one class and a method using it to the next, neither class's header
    shown: each run is aligned inside the one class that holds it."""
    snippet = (
        '// ... existing code ...\n    val CHANNEL = "#deploys"\n    val ESCALATE = "#oncall"\n'
        "    // ... existing code ...\n\n    fun failed(step: String) {\n        post(Templates.FAILED, step)\n"
        "    }\n\n    fun escalated(step: String) {\n        post(Templates.ESCALATE, step)\n    }\n\n"
        "    // ... existing code ...\n"
    )
    expected = SLACK_KT.replace('"#deploys"\n', '"#deploys"\n    val ESCALATE = "#oncall"\n').replace(
        "step)\n    }\n\n",
        "step)\n    }\n\n    fun escalated(step: String) {\n        post(Templates.ESCALATE, step)\n    }\n\n",
    )
    assert merged(SLACK_KT, snippet, path="Slack.kt") == expected


def test_an_expression_bodied_member_is_known_by_its_name() -> None:
    """C#'s `T Name(args) =>` was keyed as a match arm, by its whole text: a new parameter made it
    another member, and the edited one was added beside the original."""
    original = (
        "public static class Report\n{\n    public static int Total(IEnumerable<int> xs) =>\n        xs.Sum();\n\n"
        "    public static int Count(IEnumerable<int> xs) =>\n        xs.Count();\n}\n"
    )
    snippet = (
        "// ... existing code ...\n    public static int Total(IEnumerable<int> xs, int floor = 0) =>\n"
        "        xs.Where(x => x > floor).Sum();\n\n// ... existing code ...\n"
    )
    expected = original.replace(
        "xs) =>\n        xs.Sum()", "xs, int floor = 0) =>\n        xs.Where(x => x > floor).Sum()"
    )
    assert merged(original, snippet, path="Report.cs") == expected
    assert signature_key("Some(0) =>", "rust") == "Some(0)"  # a match arm still by its pattern
    assert signature_key("x if matches(x) =>", "rust") == "x if matches(x)"


def test_a_renamed_method_called_by_its_old_name_beside_the_new_one_is_ambiguous() -> None:
    """`refill();` shown first in a body, a marker below: added above `update();`, or replacing
    it? The rename of `update()` to `refill()` says replacing; a plan that keeps `update();`
    right below `refill();` is refused."""
    original = (
        "class Bucket {\npublic:\n    bool take() {\n        update();\n        return tokens_ > 0;\n    }\n\n"
        "    void update() {\n        last_ = now();\n    }\n\n    void update_all() {\n        last_ = 0;\n    }\n};\n"
    )
    snippet = (
        "class Bucket {\npublic:\n    bool take() {\n        refill();\n        // ... existing code ...\n    }\n\n"
        "    void refill() {\n        // ... existing code ...\n    }\n\n    void update_all() {\n"
        "        // ... existing code ...\n    }\n};\n"
    )
    result = ambiguous(original, snippet, language="cpp")
    assert result.reasons[0].code == "unexplained_deletion"


def form_field(name: str, label: str, description: str) -> str:
    return (
        f'      <FormField\n        control={{form.control}}\n        name="{name}"\n'
        f"        render={{({{ field }}) => (\n          <FormItem>\n            <FormLabel>{label}</FormLabel>\n"
        f"            <Input {{...field}} />\n            <FormDescription>{description}</FormDescription>\n"
        "          </FormItem>\n        )}\n      />\n"
    )


ADDRESS_FORM = (
    "export function AddressForm({ form }: Props) {\n  return (\n    <Form>\n"
    + form_field("line1", "Address line 1", "Street and number")
    + form_field("line2", "Address line 2", "Optional")
    + form_field("city", "City", "As on your bill")
    + "    </Form>\n  );\n}\n"
)


def test_look_alike_blocks_are_told_apart_by_the_first_line_the_original_has_once() -> None:
    """Three `<FormField` blocks share their key and skeleton; the edited one is the one holding
    `name="line2"`, the first line shown inside that the original has once."""
    edited = form_field("line2", "Address line 2", "Leave blank if not needed")
    snippet = (
        f"// ... existing code ...\n{edited}      {{/* ... other fields ... */}}\n// ... existing code ...\n"
    )
    expected = ADDRESS_FORM.replace(form_field("line2", "Address line 2", "Optional"), edited)
    assert merged(ADDRESS_FORM, snippet, path="AddressForm.tsx") == expected


def test_a_new_look_alike_block_copying_a_later_line_of_another_is_not_taken_as_its_edit() -> None:
    """A new field whose first telling line (`name="line3"`) the original has not, then a line
    only the `line2` field has: no edit of `line2`, though that line points there."""
    new = form_field("line3", "Address line 3", "Optional")
    snippet = (
        f"// ... existing code ...\n{new}      {{/* ... other fields ... */}}\n// ... existing code ...\n"
    )
    ambiguous(ADDRESS_FORM, snippet, path="AddressForm.tsx")


def test_a_markup_element_with_an_id_is_known_by_its_tag_and_id() -> None:
    """Seven rows alike but for their id and name: a row whose attributes changed is the edit of
    the row with its id."""
    row = '        <tr id="svc-{0}">\n          <th scope="row">{0}</th>\n          <td>ok</td>\n        </tr>\n'
    names = ["api", "db", "search", "queue"]
    original = "<table>\n  <tbody>\n" + "".join(row.format(name) for name in names) + "  </tbody>\n</table>\n"
    edited = row.format("search").replace('">', '" class="degraded">', 1).replace("<td>ok", "<td>slow")
    snippet = f"<!-- ... -->\n{edited}<!-- ... -->\n"
    assert merged(original, snippet, path="status.html") == original.replace(row.format("search"), edited)
    assert signature_key('<div data-id="3" class="x">', "html") == '<div data-id="3" class="x">'


def spec_context(tier: str, cents: str) -> str:
    return (
        f'    context "when the customer is {tier}" do\n'
        f'      it "applies the tier discount" do\n        expect(discount).to eq({cents})\n      end\n\n'
        f'      it "does not exceed the cap" do\n        cart.quantity = 1_000\n        expect(discount).to eq(100_00)\n'
        "      end\n    end\n"
    )


DISCOUNT_SPEC = (
    'RSpec.describe PriceCalculator do\n  describe "#discount" do\n'
    + spec_context("gold", "5_00")
    + "\n"
    + spec_context("silver", "3_00")
    + "\n"
    + spec_context("bronze", "1_00")
    + "  end\nend\n"
)
SILVER_CAP = (
    "# ... existing specs ...\n\n"
    '      it "applies the tier discount" do\n        expect(discount).to eq(3_00)\n      end\n\n'
    '      it "does not exceed the cap" do\n        cart.quantity = 1_000\n        expect(discount).to eq(50_00)\n'
    "      end\n    end\n\n    # ... existing specs ...\n"
)


def test_look_alike_blocks_tied_on_the_snippet_are_told_apart_by_its_first_telling_line() -> None:
    """Three contexts hold the same two examples; only the silver one has `eq(3_00)`, the first
    line shown that the original has once, beside the same line. The context's `end`, shown
    before a marker outside it, closes the context: it is not written again."""
    expected = DISCOUNT_SPEC.replace(
        spec_context("silver", "3_00"), spec_context("silver", "3_00").replace("eq(100_00)", "eq(50_00)")
    )
    assert merged(DISCOUNT_SPEC, SILVER_CAP, path="price_spec.rb") == expected


def test_a_closer_shown_before_an_outer_marker_ends_its_block_once() -> None:
    """The one silver context: its `end` shown, then a marker outside it; the merge wrote the `end`
    a second time (Ruby's grammar takes a stray `end`, so no parse check caught it)."""
    original = DISCOUNT_SPEC.replace('"applies the tier discount"', '"applies gold"', 1).replace(
        '"does not exceed the cap"', '"caps gold"', 1
    )
    original = original.replace(spec_context("bronze", "1_00"), "")
    expected = original.replace(
        "eq(100_00)\n      end\n    end\n\n  end", "eq(50_00)\n      end\n    end\n\n  end"
    )
    assert expected != original
    assert merged(original, SILVER_CAP, path="price_spec.rb") == expected


def test_a_closer_before_an_outer_marker_that_would_end_its_block_early_is_ambiguous() -> None:
    """The loop's `}` and the function's `}` shown after the `if`, then a marker: the function
    would end right after the loop, dropping `return ok();`."""
    original = (
        'function scan(hooks) {\n  for (const h of hooks) {\n    if (h.name === "x") {\n      log(h);\n    }\n  }\n'
        "  return ok();\n}\n\nfunction other() {\n  return 1;\n}\n"
    )
    snippet = (
        '// ... existing code ...\n    if (h.name === "x") {\n      log(h);\n      h.seen = true;\n    }\n  }\n}\n'
        "// ... existing code ...\n"
    )
    ambiguous(original, snippet, path="scan.js")


def test_a_new_line_that_stands_once_elsewhere_does_not_tell_look_alikes_apart() -> None:
    """The same five lines end two methods; the new line below them, `self.write_paragraph()`,
    stands once in the original, higher up in one of them: it tells nothing."""
    body = "        self.indent()\n        try:\n            yield\n        finally:\n            self.dedent()\n"
    original = (
        "class Formatter:\n    def section(self, name):\n        self.write_paragraph()\n"
        f"        self.write_heading(name)\n{body}\n    def indentation(self):\n{body}"
    )
    snippet = f"# ... existing code ...\n{body}            self.write_paragraph()\n# ... existing code ...\n"
    ambiguous(original, snippet, path="formatter.py")


def test_a_typed_arm_of_a_switch_expression_is_known_by_its_type() -> None:
    assert signature_key("ConcurrencyException c => new ProblemDetails", "csharp") == "ConcurrencyException"
    assert signature_key("ConcurrencyException => new ProblemDetails", "csharp") == "ConcurrencyException"
    assert signature_key("Some(x) =>", "rust") == "Some(x)"


def test_a_marker_ending_nested_blocks_elides_their_rest_where_no_closer_shows_their_end() -> None:
    """`# ... rest of put unchanged ...` deep in `with` and `if`, then the next method: Python
    has no closer to say the `with` ends after the `if`, so its last lines are elided, not
    deleted."""
    original = (
        "class Queue:\n    def put(self, item):\n        with self.not_full:\n            if self.maxsize > 0:\n"
        "                self.wait_for_room()\n            self._put(item)\n            self.not_empty.notify()\n\n"
        "    def get(self):\n        with self.not_empty:\n            return self._get()\n"
    )
    snippet = (
        "class Queue:\n    def put(self, item):\n        with self.not_full:\n            if self.is_shutdown:\n"
        "                raise ShutDown\n            if self.maxsize > 0:\n                # ... rest of put unchanged ...\n\n"
        "    def get(self):\n        with self.not_empty:\n            if self.is_shutdown:\n                raise ShutDown\n"
        "            return self._get()\n"
    )
    guard = "            if self.is_shutdown:\n                raise ShutDown\n"
    expected = original.replace("            if self.maxsize", guard + "            if self.maxsize").replace(
        "            return self._get()", guard + "            return self._get()"
    )
    assert merged(original, snippet, path="queue.py") == expected


def test_a_new_comment_beside_an_elided_one_much_like_it_is_ambiguous() -> None:
    """The usage line shown with one more option, a marker below: its edit, or a second usage
    line? (The merge kept both.)"""
    original = (
        '# Imports customers.\n#\n#   bin/import [--dry-run] FILE\n\nrequire "csv"\n\n'
        "class Importer\n  def call\n    1\n  end\nend\n"
    )
    snippet = (
        "# Imports customers.\n#\n#   bin/import [--dry-run] [--encoding ENC] FILE\n\n# ... requires ...\n\n"
        "class Importer\n  # ... existing code ...\nend\n"
    )
    assert ambiguous(original, snippet, path="import.rb").reasons[0].code == "edit_or_insertion"


TELEMETRY_TS = (
    "export class Telemetry {\n  track(name: string): void {\n    this.queue.push(name);\n    void this.sendBatch();\n  }\n\n"
    "  private schedule(ms: number): void {\n    setTimeout(() => void this.sendBatch(), ms);\n  }\n\n"
    "  private async sendBatch(): Promise<void> {\n    const batch = this.queue.splice(0);\n    await post(batch);\n  }\n}\n"
)


def test_a_header_renamed_over_an_elided_body_is_the_rename_its_calls_show() -> None:
    """`private async drainQueue(): Promise<void> {` over a marker: new code would write the
    marker, and the calls shown renamed say it is `sendBatch` renamed."""
    snippet = (
        "  track(name: string): void {\n    this.queue.push(name);\n    void this.drainQueue();\n  }\n\n"
        "  private schedule(ms: number): void {\n    setTimeout(() => void this.drainQueue(), ms);\n  }\n\n"
        "  private async drainQueue(): Promise<void> {\n    // ... existing code ...\n  }\n"
    )
    expected = TELEMETRY_TS.replace("sendBatch", "drainQueue")
    assert merged(TELEMETRY_TS, snippet, path="telemetry.ts") == expected


def test_a_header_the_original_lacks_over_an_elided_body_is_no_rename_without_its_calls() -> None:
    """`def flush_all(queue):` over a marker, a new function below it: the original has no
    `flush_all`, and nothing else in the snippet names it; `send_batch`, which reads the same but
    for its name, may be its anchor or not."""
    original = (
        "def send_batch(queue):\n    batch = list(queue)\n    post(batch)\n\n\n"
        "def track(queue, name):\n    queue.append(name)\n    send_batch(queue)\n"
    )
    snippet = (
        "# ... existing code ...\n\ndef flush_all(queue):\n    # ... existing code ...\n\n\n"
        "def close(queue):\n    queue.clear()\n\n# ... existing code ...\n"
    )
    ambiguous(original, snippet, path="telemetry.py")


def test_a_markup_element_below_a_marker_unlike_the_one_there_is_ambiguous() -> None:
    """A `<button>` after `<!-- ... filter buttons ... -->` where the footer's one button stands, no
    line of it kept: an edit of that button, or a new one after it? (The merge replaced it.)"""
    original = (
        '<template>\n  <footer>\n    <button\n      v-for="f in filters"\n      :class="{ active: filter === f }"\n'
        '      @click="filter = f"\n    >\n      {{ f }}\n    </button>\n  </footer>\n</template>\n'
    )
    snippet = (
        "<template>\n  <footer>\n    <!-- ... filter buttons ... -->\n    <button\n"
        '      v-if="todos.length > remaining"\n      class="todo-list__clear"\n      @click="clearCompleted"\n'
        "    >\n      Clear completed\n    </button>\n  </footer>\n</template>\n"
    )
    assert ambiguous(original, snippet, path="TodoList.vue").reasons[0].code == "edit_or_insertion"
    # the same element with a line of it extended is its edit
    extended = original.replace('"filter = f"', '"filter = f; save()"')
    shown = "<template>\n  <footer>\n    <!-- ... -->\n" + extended.split("<footer>\n", 1)[1]
    assert merged(original, shown, path="TodoList.vue") == extended


def test_a_chained_call_below_a_marker_on_other_arguments_is_ambiguous_unless_the_marker_names_it() -> None:
    """`.swipeActions(edge: .leading)` below a marker where `.swipeActions(edge: .trailing)`
    ends the chain: SwiftUI takes both, so it may be a second one. (The merge replaced it.) A
    marker that names the original one by the word that differs stands for it: this one is new."""
    original = (
        "struct ListView: View {\n    var body: some View {\n        ForEach(items) { item in\n"
        "            Row(item: item)\n                .onTapGesture {\n                    player.play(item)\n                }\n"
        "                .swipeActions(edge: .trailing) {\n                    Button {\n"
        "                        viewModel.togglePlayed(item)\n                    } label: {\n"
        '                        Label("Played", systemImage: "checkmark.circle")\n                    }\n'
        "                    .tint(.blue)\n                }\n        }\n    }\n}\n"
    )
    snippet = (
        "struct ListView: View {\n    var body: some View {\n        ForEach(items) { item in\n"
        "                // ... row, tap gesture and swipe action unchanged ...\n"
        "                .swipeActions(edge: .leading) {\n                    Button {\n"
        "                        viewModel.download(item)\n                    } label: {\n"
        '                        Label("Download", systemImage: "arrow.down.circle")\n                    }\n'
        "                    .tint(.green)\n                }\n        }\n    }\n}\n"
    )
    ambiguous(original, snippet, path="ListView.swift")
    leading = snippet.split("                .swipeActions", 1)[1].rsplit("        }\n    }\n}\n", 1)[0]
    expected = original.replace(
        "                }\n        }\n",
        "                }\n                .swipeActions" + leading + "        }\n",
        1,
    )
    for marker in ("row, tap gesture and trailing swipe action unchanged", "existing .trailing actions"):
        named = snippet.replace("row, tap gesture and swipe action unchanged", marker)
        assert merged(original, named, path="ListView.swift") == expected
    # a marker naming the new one's word as well says nothing of which one it stands for
    both = snippet.replace("row, tap gesture and swipe action", "leading or trailing swipe action")
    ambiguous(original, both, path="ListView.swift")


def test_a_yaml_service_shown_alone_then_a_top_level_marker_and_key() -> None:
    """`  worker:` shown without `services:`, then `# ...` at column 0, then `volumes:`: the service
    is edited where it stands and the top-level key after it. (The service was written again above
    the file, caught only by the parse check; the blank lines below it crashed the merge first.)"""
    service = (
        "    build: .\n    environment:\n      <<: *env\n    volumes:\n      - ./src:/app/src\n"
        "    depends_on:\n      - db\n\n"
    )
    original = (
        "x-env: &env\n  LOG_LEVEL: debug\n\nservices:\n  web:\n"
        + service
        + "  worker:\n"
        + service
        + "  db:\n    image: postgres:16\n\nvolumes:\n  pgdata:\n"
    )
    snippet = (
        "  worker:\n    build: .\n    environment:\n      <<: *env\n    volumes:\n      - ./src:/app/src\n"
        "      - scratch:/tmp/work\n    # ... depends_on unchanged\n\n# ...\n\nvolumes:\n  pgdata:\n  scratch:\n"
    )
    edited = service.replace("/app/src\n", "/app/src\n      - scratch:/tmp/work\n")
    expected = original.replace("  worker:\n" + service, "  worker:\n" + edited) + "  scratch:\n"
    assert merged(original, snippet, path="compose.yaml") == expected
    # the marker at the services' depth (the blank lines below the service crashed the merge): read
    # as hunks, it stands for the rest of the services, to the same file
    assert merged(original, snippet.replace("\n# ...\n", "\n  # ...\n"), path="compose.yaml") == expected


def test_a_column_zero_marker_below_a_deeper_one_ends_the_function_above() -> None:
    """`def a(x):` with its body a marker, then `# ... b() unchanged ...` at column 0, then the tail
    of `b`: the second marker ends `a`. (It was read as standing inside `a`, one step deep, so
    `b`'s tail replaced `a`'s last line and `b` itself was gone.)"""
    original = (
        "import os\n\n\ndef a(x):\n    y = x + 1\n    return y\n\n\n"
        "def b(items):\n    keep = set()\n    for item in items:\n        if item.ok:\n            keep.add(item)\n"
        "        if item.big:\n            keep.add(item.name)\n    return keep\n\n\nargs = a(1)\nprint(args)\n"
    )
    snippet = (
        "def a(x):\n    # ... existing code ...\n\n\n# ... b() unchanged ...\n"
        "        if item.big:\n            keep.add(item.name.lower())\n    return keep\n\n\nargs = a(1)\n# ... rest ...\n"
    )
    expected = original.replace("keep.add(item.name)", "keep.add(item.name.lower())")
    assert merged(original, snippet, path="keep.py") == expected


def test_a_call_block_above_a_marker_unlike_the_one_there_is_ambiguous_unless_the_marker_names_it() -> None:
    """A `ListTile(` for Tasks shown after the Calendar tile, above a marker, where the Contacts
    tile stands: an edit of it, every line changed, or a new tile? A marker naming Contacts says
    new. (The merge replaced the Contacts tile.)"""

    def tile(icon: str, name: str) -> str:
        return (
            f"          ListTile(\n            leading: const Icon(Icons.{icon}),\n"
            f"            title: const Text('{name}'),\n            onTap: () => _go(context, Routes.{name.lower()}),\n"
            "          ),\n"
        )

    head = "Widget build(BuildContext context) {\n  return Drawer(\n    child: ListView(\n      children: [\n"
    tail = "          const Divider(),\n" + tile("logout", "Exit") + "      ],\n    ),\n  );\n}\n"
    original = head + tile("inbox", "Inbox") + tile("event", "Calendar") + tile("people", "Contacts") + tail
    shown = tile("event", "Calendar") + tile("task_alt", "Tasks")
    expected = original.replace(
        tile("people", "Contacts"), tile("task_alt", "Tasks") + tile("people", "Contacts")
    )
    named = shown + "          // ... Contacts and the rest unchanged ...\n"
    assert merged(original, named, path="drawer.dart") == expected
    ambiguous(original, shown + "          // ... rest unchanged ...\n", path="drawer.dart")


def test_a_block_shown_from_its_first_item_edited_up_to_where_the_snippet_stops_is_ambiguous() -> None:
    """A container shown from `- name: log-shipper` to its edited `resources:`, where the snippet
    stops with no marker: its `volumeMounts:` below left out, or deleted? (The merge deleted it.)"""
    container = (
        "        - name: {name}\n          image: {name}:1\n          resources:\n            limits:\n"
        "              cpu: 100m\n          volumeMounts:\n            - name: conf\n              mountPath: /etc/{name}\n"
    )
    original = (
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n"
        + container.format(name="nginx")
        + container.format(name="shipper")
        + "      volumes:\n        - name: conf\n"
    )
    shown = container.format(name="shipper").split("          volumeMounts:")[0].replace("100m", "500m")
    assert ambiguous(original, shown, path="deploy.yaml").reasons[0].code == "elided_or_deleted"


def test_a_method_moved_with_its_body_elided_is_filled_from_where_it_stood() -> None:
    """`_request` shown below the public methods, its body a marker: moved, its body carried over
    from its old place, which closes up; an edit shown inside it stays."""
    request = (
        "    def _request(self, path):\n        url = self.base + path\n        reply = self.http.get(url)\n"
        "        reply.raise_for_status()\n        return reply.json()\n"
    )
    original = (
        "class Client:\n    def __init__(self, base, http):\n        self.base = base\n        self.http = http\n\n"
        + request
        + "\n    def user(self, name):\n        return self._request(f'/users/{name}')\n\n"
        "    def repo(self, name):\n        return self._request(f'/repos/{name}')\n"
    )
    snippet = (
        "class Client:\n    def __init__(self, base, http):\n        # ... existing code ...\n\n"
        "    def user(self, name):\n        # ... existing code ...\n\n"
        "    def repo(self, name):\n        return self._request(f'/repos/{name}')\n\n"
        "    def _request(self, path):\n        # ... existing code (moved unchanged) ...\n"
    )
    expected = original.replace(request + "\n", "") + "\n" + request
    assert merged(original, snippet, path="client.py") == expected
    edited = snippet.replace("(moved unchanged) ...\n", "...\n        return reply.json()['data']\n")
    assert merged(original, edited, path="client.py") == expected.replace(
        "return reply.json()\n", "return reply.json()['data']\n"
    )
    # its old place under a marker, not closed up: moved, or only shown out of order?
    kept = snippet.replace(
        "    def __init__(self, base, http):\n        # ... existing code ...\n\n", "    # ...\n\n"
    )
    assert ambiguous(original, kept, path="client.py").reasons[0].code == "moved_or_copied"
    # moved out of the class: no move this level sees (its lines would keep the old depth)
    out = snippet.replace(
        "\n    def _request(self, path):\n        # ", "\ndef _request(self, path):\n    # "
    )
    ambiguous(original, out, path="client.py")


def test_a_function_moved_is_deleted_where_it_stood() -> None:
    """`human_size` shown above `parse_args`, its old place closed up: moved, not lost."""
    helper = 'def human_size(num):\n    """`num` bytes for people."""\n    if num < 0:\n        raise ValueError(num)\n'
    helper += '    for unit in ("B", "KiB", "MiB"):\n        if num < 1024:\n            return f"{num:.1f} {unit}"\n'
    helper += '        num /= 1024\n    return f"{num:.1f} GiB"\n\n\n'
    parse = "def parse_args(argv=None):\n    parser = make_parser()\n    return parser.parse_args(argv)\n\n\n"
    select = (
        "def select(paths):\n    keep = set(paths)\n    log.info('kept %d', len(keep))\n    return keep\n\n\n"
    )
    original = (
        "import logging\n\nlog = logging.getLogger()\n\n\n"
        + parse
        + select
        + helper
        + "args = parse_args()\n"
    )
    snippet = (
        "# ... imports ...\nlog = logging.getLogger()\n\n\n"
        + helper
        + parse
        + "def select(paths):\n    # ... existing code ...\n    return keep\n\n\nargs = parse_args()\n"
    )
    expected = (
        "import logging\n\nlog = logging.getLogger()\n\n\n"
        + helper
        + parse
        + select
        + "args = parse_args()\n"
    )
    assert merged(original, snippet, path="rotate.py") == expected


def test_a_class_dropped_from_all_is_deleted_by_closing_up() -> None:
    """`LifoQueue` gone from `__all__`, the classes around it shown closed up: meant, not lost."""
    lifo = "class LifoQueue(Queue):\n    def _init(self, maxsize):\n        self.queue = []\n\n"
    lifo += "    def _qsize(self):\n        return len(self.queue)\n\n    def _put(self, item):\n"
    lifo += "        self.queue.append(item)\n\n    def _get(self):\n        return self.queue.pop()\n\n\n"
    queue = "class Queue:\n    def _init(self, maxsize):\n        self.queue = deque()\n\n\n"
    simple = "class SimpleQueue:\n    def put(self, item):\n        self._queue.append(item)\n"
    original = "__all__ = ['Queue', 'LifoQueue', 'SimpleQueue']\n\n" + queue + lifo + simple
    snippet = (
        "__all__ = ['Queue', 'SimpleQueue']\n\n"
        + queue
        + "class SimpleQueue:\n    # ... rest unchanged ...\n"
    )
    expected = "__all__ = ['Queue', 'SimpleQueue']\n\n" + queue + simple
    assert merged(original, snippet, path="queue.py") == expected
    # left in `__all__`, its deletion is unexplained
    kept = snippet.replace("['Queue', 'SimpleQueue']", "['Queue', 'LifoQueue', 'SimpleQueue']")
    assert ambiguous(original, kept, path="queue.py").reasons[0].code == "unexplained_deletion"


def test_an_edited_block_left_open_above_a_shallower_marker_keeps_the_rest_of_its_parent() -> None:
    """`if (...) {` with its test changed, `continue`, then `// ...` at column 0, the loop never
    closed: the rest of the loop is elided, not deleted."""
    original = (
        "const decode = (str) => {\n  const out = {}\n  for (const line of str.split('\\n')) {\n"
        "    if (!line || line.match(/^\\s*[;#]/)) {\n      continue\n    }\n    const match = line.match(re)\n"
        "    if (!match) {\n      continue\n    }\n    out[match[1]] = match[2]\n  }\n  return out\n}\n"
    )
    snippet = (
        "// ... existing code ...\n  for (const line of str.split('\\n')) {\n"
        "    if (!line || line.match(/^\\s*([;#]|\\/\\/)/)) {\n      continue\n// ... existing code ...\n"
    )
    expected = original.replace("/^\\s*[;#]/", "/^\\s*([;#]|\\/\\/)/")
    assert merged(original, snippet, path="ini.js") == expected


def test_a_block_above_a_marker_that_dives_into_deeper_code_keeps_its_rest() -> None:
    """`metadata:` shown with `name:` alone, then `# ...` at column 0 leading into `env:` deep in
    the spec: the marker skips from `name:` down to `env:`, so `namespace:` and `labels:` stay.
    (The merge read `metadata:` as shown whole and deleted them.)"""
    job = (
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: {name}\n  namespace: billing\n  labels:\n"
        "    tier: jobs\nspec:\n  schedule: '0 2 * * *'\n  jobTemplate:\n    spec:\n      template:\n"
        "        spec:\n          containers:\n            - name: job\n              env:\n"
        "                - name: LOG_LEVEL\n                  value: info\n              resources:\n"
        "                limits:\n                  memory: 512Mi\n"
    )
    original = job.format(name="invoices") + "---\n" + job.format(name="payments")
    snippet = (
        "# ... invoices unchanged ...\n---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: payments\n"
        "# ...\n              env:\n                - name: LOG_LEVEL\n                  value: info\n"
        "                - name: RETRIES\n                  value: '4'\n              resources:\n# ...\n"
    )
    second = job.format(name="payments")
    edited = second.replace("info\n", "info\n                - name: RETRIES\n                  value: '4'\n")
    assert merged(original, snippet, path="jobs.yaml") == job.format(name="invoices") + "---\n" + edited


def test_a_parameter_renamed_while_elided_code_still_uses_its_old_name_is_ambiguous() -> None:
    """`options` renamed `opts` in the signature and the lines shown, the rest of the body elided
    though it still uses `options`: rename those too, or leave them to break? (The merge renamed the
    shown ones only.) All uses shown, a new binding of the old name, or a type changed: merged."""
    original = (
        "export function sync(\n  api: Api,\n  options: SyncOptions,\n): Report {\n"
        "  const report = { dryRun: options.dryRun };\n  for (const item of api.items()) {\n"
        "    if (options.skip(item)) continue;\n    report.seen += 1;\n  }\n  return report;\n}\n"
    )
    head = "export function sync(\n  api: Api,\n  opts: SyncOptions,\n): Report {\n"
    snippet = head + "  const report = { dryRun: opts.dryRun };\n  // ... rest unchanged ...\n}\n"
    found = ambiguous(original, snippet, path="sync.ts")
    assert found.reasons[0].code == "renamed_yet_kept"
    every_use = head + "  const report = { dryRun: opts.dryRun };\n  for (const item of api.items()) {\n"
    every_use += "    if (opts.skip(item)) continue;\n    report.seen += 1;\n  }\n  // ...\n}\n"
    assert merged(original, every_use, path="sync.ts") == original.replace("options", "opts")
    rebound = head + "  const options = withDefaults(opts);\n  // ... rest unchanged ...\n}\n"
    expected = original.replace(
        "  options: SyncOptions,\n): Report {\n", "  opts: SyncOptions,\n): Report {\n"
    )
    expected = expected.replace("Report {\n", "Report {\n  const options = withDefaults(opts);\n", 1)
    assert merged(original, rebound, path="sync.ts") == expected
    typed = "def label(x: int) -> str:\n    y = int(x) * 2\n    return str(y)\n"
    shown = "def label(x: float) -> str:\n    # ... existing code ...\n"
    assert merged(typed, shown, path="scale.py") == typed.replace("x: int", "x: float")


def test_new_code_below_a_fragment_that_closes_its_block_replaces_what_followed_that_block() -> None:
    """A marker, a line deep in `let current = match ... {`, its `};`, then new code and the next
    anchor: the new code stands where `let next = current + by;` stood. Many lines between the
    block and the anchor dropped that way are an unexplained deletion."""
    head = (
        "fn incr(&mut self, key: String, by: i64) -> Reply {\n    let current = match self.get(&key) {\n"
        "        None => 0,\n        Some(n) => *n,\n        Some(_) => return Reply::Error(WRONG_TYPE),\n    };\n"
    )
    tail = "    self.data.insert(key, next);\n    Reply::Int(next)\n}\n"
    original = head + "    let next = current + by;\n" + tail
    snippet = (
        "fn incr(&mut self, key: String, by: i64) -> Reply {\n    // ... existing code ...\n"
        "        Some(_) => return Reply::Error(WRONG_TYPE),\n    };\n"
        "    let Some(next) = current.checked_add(by) else {\n        return Reply::Error(OVERFLOW);\n    };\n"
        "    self.data.insert(key, next);\n    // ... existing code ...\n}\n"
    )
    new = "    let Some(next) = current.checked_add(by) else {\n        return Reply::Error(OVERFLOW);\n    };\n"
    assert merged(original, snippet, path="store.rs") == head + new + tail
    many = "".join(f'    log("step {k}", current);\n' for k in range(12))
    found = ambiguous(head + many + "    let next = current + by;\n" + tail, snippet, path="store.rs")
    assert found.reasons[0].code == "unexplained_deletion"


def test_a_run_that_steps_out_may_end_its_block_in_new_lines_replacing_its_last_ones() -> None:
    """Deep in a retry loop, `time.Sleep(backoff)` become a timer and a `select`, then the loop's
    `}` and the code after the loop: the run ends the loop with new lines, so the one line they
    replace goes. Many lines left out that way would be an unexplained deletion."""
    loop = (
        "\tfor attempt < max {\n\t\tattempt++\n\t\terr = copyOne(ctx, obj)\n\t\tif err == nil {\n\t\t\tbreak\n\t\t}\n"
        '\t\tlog.Debug("retrying", "attempt", attempt)\n{rest}\t}\n'
    )
    before = "func run(ctx context.Context, obj Object) error {\n\tvar err error\n\tattempt := 0\n"
    after = '\n\tif err != nil {\n\t\treturn fmt.Errorf("copy %s: %w", obj.Key, err)\n\t}\n\treturn nil\n}\n'
    sleep = "\t\ttime.Sleep(backoff)\n"
    timer = (
        "\t\ttimer := time.NewTimer(backoff)\n\t\tselect {\n\t\tcase <-timer.C:\n\t\tcase <-ctx.Done():\n"
        "\t\t\ttimer.Stop()\n\t\t}\n"
    )
    snippet = (
        "func run(ctx context.Context, obj Object) error {\n\t// ... unchanged ...\n"
        '\t\tlog.Debug("retrying", "attempt", attempt)\n' + timer + "\t}\n\n\tif err != nil {\n"
        "\t// ... unchanged ...\n}\n"
    )
    original = before + loop.replace("{rest}", sleep) + after
    assert merged(original, snippet, path="run.go") == before + loop.replace("{rest}", timer) + after
    many = "".join(f'\t\tmetrics.Inc("retry_{k}")\n' for k in range(10))
    ambiguous(before + loop.replace("{rest}", sleep + many) + after, snippet, path="run.go")


def test_a_python_run_that_steps_out_after_new_looking_lines_does_not_drop_the_block_end() -> None:
    """No closer shows where a Python block ends: a run deep in `done()` that stops at the comment
    above the original's last loop, then code stepping out, only stopped showing the loop; it does
    not replace it. (The comment alone replaced the loop.)"""
    original = (
        "def done(self, *nodes):\n    for node in nodes:\n        if node in self.info:\n"
        "            info = self.info[node]\n            info.state = DONE\n\n            # wake the successors\n"
        "            for succ in info.successors:\n                self.ready.append(succ)\n"
        "        self.finished += 1\n    return self.finished\n"
    )
    snippet = (
        "def done(self, *nodes):\n    # ... existing code ...\n            info.state = DONE\n"
        "            self.order.append(node)\n\n            # wake the successors\n        self.finished += 1\n"
        "    # ... existing code ...\n"
    )
    expected = original.replace("DONE\n", "DONE\n            self.order.append(node)\n")
    assert merged(original, snippet, path="graph.py") == expected
    # new code last, then the step out: the loop replaced, or only not shown? (a `}` would say)
    ambiguous(original, snippet.replace("\n            # wake the successors\n", "\n"), path="graph.py")


def test_a_setext_heading_is_one_line_with_its_underline() -> None:
    """A changelog of `1.0.0 / 2024-08-31` over `=====` sections: a new section at the top, one
    entry fixed further down. (The merge wrote two underlines under a heading shown, its underline
    aligned on its own.)"""
    section = "{v} / 2024-0{m}-01\n==================\n\n  * {note}\n\n"
    notes = ["Drop node <18", "Fix sorting", "Order by specificity", "Fix regression"]
    original = "".join(section.format(v=f"1.0.{4 - m}", m=m + 1, note=n) for m, n in enumerate(notes))
    snippet = (
        "unreleased\n==========\n\n  * Fix wildcard subtags\n\n1.0.4 / 2024-01-01\n==================\n\n"
        "<!-- ... unchanged ... -->\n\n1.0.2 / 2024-03-01\n==================\n\n  * Order by  specificity\n\n"
        "1.0.1 / 2024-04-01\n==================\n<!-- ... rest unchanged ... -->\n"
    )
    expected = "unreleased\n==========\n\n  * Fix wildcard subtags\n\n" + original.replace(
        "Order by specificity", "Order by  specificity"
    )
    assert merged(original, snippet, path="HISTORY.md") == expected


def test_a_clause_shown_last_above_a_shallower_marker_keeps_its_body() -> None:
    """`else` shown alone as the last line of an edited `if`, then `# ...` at column 0: the marker
    elides the `else` body too. (The merge deleted `echo "$prefix"`.)"""
    original = (
        'main() {\n    if [[ -n $DEF ]]; then\n        echo "$DEF"\n    else\n        if [[ -z $BYPASS ]]; then\n'
        '            echo "no match" >&2\n        else\n            echo "$prefix"\n        fi\n'
        "        exitcode=1\n    fi\n}\n"
    )
    snippet = (
        '# ...\n        if [[ -z $BYPASS ]]; then\n            [[ -n $QUIET ]] || echo "no match" >&2\n'
        "        else\n# ...\n"
    )
    expected = original.replace('echo "no match"', '[[ -n $QUIET ]] || echo "no match"')
    assert merged(original, snippet, path="latest.sh") == expected


def test_a_self_closing_element_with_attributes_added_is_an_edit_of_the_original() -> None:
    """The layout's last line, `<Toaster richColors />`, shown with `closeButton` and more added:
    the same element edited, not a second one above it. (The merge kept both.) An attribute
    whose name only starts alike is no such edit."""
    original = "<div>\n  <slot />\n  <Footer />\n</div>\n\n<Toaster richColors />\n"
    edited = '<Toaster richColors closeButton position="top-center" />'
    snippet = "<!-- ... existing markup ... -->\n  <Footer />\n</div>\n\n" + edited + "\n"
    assert merged(original, snippet, path="layout.svelte") == original.replace(
        "<Toaster richColors />", edited
    )
    form = "<div>\n  <Head />\n  <Field required />\n</div>\n"
    shown = '<div>\n  <Head />\n  <Field requiredIf="email" />\n  <!-- ... -->\n</div>\n'
    expected = form.replace("  <Field required />", '  <Field requiredIf="email" />\n  <Field required />')
    assert merged(form, shown, path="form.svelte") == expected


def test_a_discarded_value_is_keyed_by_the_value_not_by_the_underscore() -> None:
    """`let _ = writeln!(out, "clients: {}", ...)` new below the first two `let _ = writeln!` lines:
    keyed `_`, it paired with the third such line further down, and the eight lines between were
    deleted. Keyed by its value it is new."""
    assert signature_key('let _ = writeln!(out, "top paths:");', "rust") == '_ = writeln!(out, "top paths:");'
    assert signature_key("_ = conn.Close()", "go") == "_ = conn.Close"
    original = (
        "pub fn render(s: &Summary) -> String {\n    let mut out = String::new();\n"
        '    let _ = writeln!(out, "requests: {}", s.requests);\n    let _ = writeln!(out, "bytes: {}", s.bytes);\n'
        '    if s.malformed > 0 {\n        out.push_str("malformed\\n");\n    }\n'
        '    let _ = writeln!(out, "top paths:");\n    out\n}\n'
    )
    snippet = (
        "pub fn render(s: &Summary) -> String {\n    // ... existing code ...\n"
        '    let _ = writeln!(out, "bytes: {}", s.bytes);\n    let _ = writeln!(out, "clients: {}", s.ips);\n'
        "    // ... existing code ...\n}\n"
    )
    clients = '    let _ = writeln!(out, "clients: {}", s.ips);\n'
    expected = original.replace("s.bytes);\n", "s.bytes);\n" + clients)
    assert merged(original, snippet, path="render.rs") == expected


def test_a_snippet_that_stops_inside_an_if_else_keeps_what_follows_it() -> None:
    """A nested `format_time` shown down to `if unit is not None:` and its first line, then a
    marker at the depth of `format_time` itself: the `else:` is elided, and so is the `return`
    below the statement. (The merge kept the `else:` and deleted the `return`.)"""
    original = (
        "def main(args=None):\n    precision = 3\n\n    def format_time(dt):\n        unit = time_unit\n"
        "        if unit is not None:\n            scale = units[unit]\n        else:\n            scale = 1.0\n"
        "        return '%.*g %s' % (precision, dt / scale, unit)\n\n    print(format_time(1.5))\n"
    )
    snippet = (
        "def main(args=None):\n    # ... existing code ...\n    def format_time(dt):\n        unit = time_unit\n"
        "        if dt <= 0:\n            return '0 sec'\n        if unit is not None:\n"
        "            scale = units[unit]\n    # ... existing code ...\n"
    )
    expected = original.replace(
        "unit = time_unit\n", "unit = time_unit\n        if dt <= 0:\n            return '0 sec'\n"
    )
    assert merged(original, snippet, path="timeit.py") == expected


def test_a_snippet_cut_off_inside_a_braces_block_keeps_the_blocks_rest() -> None:
    """The snippet stops inside `render`, its `}` not shown and no marker after the last line: cut
    off, not a request to delete the rest. The new line goes in after its anchors, and the rest of
    the block (and of the loop it stops in) stays. (The merge read the rest as deleted.)"""
    original = (
        "fn render(s: &Summary) -> String {\n    let mut out = String::new();\n"
        '    out.push_str("requests");\n    for row in &s.rows {\n        out.push_str(&row.name);\n'
        "        out.push('\\n');\n    }\n    if s.malformed > 0 {\n        out.push_str(\"malformed\");\n"
        '    }\n    out.push_str("end");\n    out.push_str("done");\n    out.push_str("bye");\n'
        '    out.push_str("now");\n    out\n}\n\nfn main() {}\n'
    )
    snippet = (
        "fn render(s: &Summary) -> String {\n    let mut out = String::new();\n"
        '    out.push_str("requests");\n    out.push_str("clients");\n'
    )
    expected = original.replace('"requests");\n', '"requests");\n    out.push_str("clients");\n')
    assert merged(original, snippet, path="render.rs") == expected
    deep = (
        "fn render(s: &Summary) -> String {\n    let mut out = String::new();\n"
        '    out.push_str("requests");\n    for row in &s.rows {\n        out.push_str(&row.name);\n'
        "        out.push_str(&row.id);\n"
    )
    expected = original.replace("&row.name);\n", "&row.name);\n        out.push_str(&row.id);\n")
    assert merged(original, deep, path="render.rs") == expected
    # nothing of the block anchored: nothing says where the new lines go among the old
    ambiguous(
        original, 'fn render(s: &Summary) -> String {\n    out.push_str("clients");\n', path="render.rs"
    )


def test_imports_alone_between_the_first_two_markers_join_the_originals_imports() -> None:
    """`# [keep existing imports]`, a new import, `# ... existing code ...`, then a function: the
    new import has no anchor of its own, but imports go with the imports. (The merge answered
    'new code between two markers has no anchor'.) Other new code there still has none."""
    original = "import os\nimport sys\n\nfrom .a import B\n\nX = 1\n\n\ndef f():\n    return X\n"
    tail = "\n# ... existing code ...\n\n\ndef f():\n    return X + 1\n"
    expected = original.replace("import B\n", "import B\nfrom .throttle import R\n").replace("X\n", "X + 1\n")
    for marker in ("# ... existing imports ...", "# [keep existing imports]", "# ... existing code ..."):
        assert merged(original, f"{marker}\nfrom .throttle import R\n{tail}", path="a.py") == expected
    ambiguous(original, f"# ... existing code ...\nY = 2\n{tail}", path="a.py")
    script = (
        'import fs from "node:fs";\nimport path from "node:path";\n\nexport function main() {\n  run();\n}\n'
    )
    snippet = (
        '// ... existing imports ...\nimport os from "node:os";\n// ... existing code ...\n'
        "export function main() {\n  run(os.cpus());\n}\n"
    )
    expected = script.replace('"node:path";\n', '"node:path";\nimport os from "node:os";\n').replace(
        "run()", "run(os.cpus())"
    )
    assert merged(script, snippet, path="main.js") == expected


def test_a_closing_word_used_as_a_key_or_a_kotlin_when_starts_its_own_item() -> None:
    """`done: done ?? this.done,` is an argument, not the `done` that closes a shell loop, and
    Kotlin's `when (x) {` is a statement, not the `when` of a Ruby `case`: each read as continuing
    the line above, so the line above owned it and a snippet anchored on it found no anchor."""
    original = (
        "Task copyWith({bool? done}) {\n  return Task(\n    id: id,\n    notes: notes ?? this.notes,\n"
        "    done: done ?? this.done,\n    due: due,\n  );\n}\n"
    )
    snippet = (
        "Task copyWith({bool? done}) {\n  return Task(\n    // ... existing code ...\n"
        "    done: done ?? this.done,\n    pinned: pinned ?? this.pinned,\n    // ... existing code ...\n  );\n}\n"
    )
    expected = original.replace("this.done,\n", "this.done,\n    pinned: pinned ?? this.pinned,\n")
    assert merged(original, snippet, path="task.dart") == expected
    kotlin = (
        'fun f(x: Int): String {\n    val a = 1\n    when (x) {\n        1 -> println("one")\n'
        '        else -> println("other")\n    }\n    return "a"\n}\n'
    )
    snippet = (
        'fun f(x: Int): String {\n    // ... existing code ...\n    when (x) {\n        1 -> println("one")\n'
        '        2 -> println("two")\n        else -> println("other")\n    }\n    // ... existing code ...\n}\n'
    )
    expected = kotlin.replace('"one")\n', '"one")\n        2 -> println("two")\n')
    assert merged(kotlin, snippet, path="f.kt") == expected


def test_a_ruby_when_shown_last_keeps_the_whens_after_it() -> None:
    """`case kind`, `when :a` and its new body, then a marker: the `when` clauses after it are
    elided, as an `elsif` would be. (The merge read the `when :b` below as the rest of the first
    `when`'s body and deleted it.)"""
    ruby = "def f\n  case kind\n  when :a\n    1\n  when :b\n    2\n  else\n    3\n  end\n  done\nend\n"
    snippet = "def f\n  case kind\n  when :a\n    10\n  # ... existing code ...\nend\n"
    assert merged(ruby, snippet, path="k.rb") == ruby.replace("    1\n", "    10\n")


def test_a_header_shown_over_a_marker_keeps_the_signature_the_marker_elides() -> None:
    """`class ProfileViewModel(`, a marker, then a member: the marker stands for the constructor's
    parameters, `) : ViewModel() {` and the members above the one shown. (The merge dropped the
    parameters and the line that opens the body; only the parse check kept it from the file.)"""
    original = (
        "class ProfileViewModel(\n    private val repository: ProfileRepository,\n) : ViewModel() {\n\n"
        "    private val state = MutableStateFlow(0)\n\n    fun load() {\n        state.value = 1\n    }\n\n"
        "    fun save() {\n        repository.save()\n    }\n}\n"
    )
    snippet = (
        "class ProfileViewModel(\n    // ... existing code ...\n\n    fun save() {\n"
        "        repository.save(state.value)\n    }\n}\n"
    )
    expected = original.replace("save()\n    }", "save(state.value)\n    }")
    assert merged(original, snippet, path="ProfileViewModel.kt") == expected
    # a parameter shown after the marker is no member of the body
    place = "def place(\n    order,\n    *,\n    tax=0,\n):\n    total = order.total\n    return total\n"
    ambiguous(place, "def place(\n    # ... existing code ...\n    rush=False,\n", path="place.py")


GO_SWITCH = (
    'package m\n\nfunc f(x int) string {\n\ty := 0\n\tswitch x {\n\tcase 1:\n\t\treturn "one"\n'
    '\tcase 2:\n\t\treturn "two"\n\t}\n\treturn "other"\n}\n'
)


def test_case_labels_as_deep_as_their_switch_are_read_inside_it() -> None:
    """gofmt writes a switch's `case` labels as deep as the `switch`. A label shown right below a
    marker at that depth goes inside the elided switch, and a `}` below the labels closes that
    switch, not the last label. (The labels were read as siblings of the switch, the last one
    owning its `}`: added after the switch, or placed nowhere.)"""
    edited = GO_SWITCH.replace('"two"', '"TWO"')
    snippet = 'func f(x int) string {\n\t// ... existing code ...\n\tcase 2:\n\t\treturn "TWO"\n\t// ... existing code ...\n}\n'
    assert merged(GO_SWITCH, snippet, path="m.go") == edited
    snippet = (
        'func f(x int) string {\n\t// ... existing code ...\n\tcase 2:\n\t\treturn "TWO"\n'
        '\tcase 3:\n\t\treturn "three"\n\t}\n\treturn "other"\n}\n'
    )
    expected = edited.replace('"TWO"\n', '"TWO"\n\tcase 3:\n\t\treturn "three"\n')
    assert merged(GO_SWITCH, snippet, path="m.go") == expected
    # in the switch's own body a new label below the marker is one of its labels
    snippet = (
        "func f(x int) string {\n\t// ... existing code ...\n\tswitch x {\n\t// ... existing code ...\n"
        '\tcase 3:\n\t\treturn "three"\n\t}\n\t// ... existing code ...\n}\n'
    )
    expected = GO_SWITCH.replace('"two"\n', '"two"\n\tcase 3:\n\t\treturn "three"\n')
    assert merged(GO_SWITCH, snippet, path="m.go") == expected


def test_code_stepping_out_of_a_gofmt_switch_in_a_loop_stands_beside_the_loop() -> None:
    """The last labels of a switch in a `for` shown after a marker, a new one among them, then the
    switch's `}` (as deep as its labels), the loop's `}` and the function's last line: that line
    stands beside the loop, not inside it. (The switch's `}` was read as a line of the last label,
    so `return nil` was sought inside the loop and the merge called a deletion.)"""
    original = (
        "package m\n\nfunc run(ops []int) error {\n\tn := 0\n\tfor _, op := range ops {\n\t\tswitch op {\n"
        "\t\tcase 1:\n\t\t\tn++\n\t\tcase 2:\n\t\t\tn--\n\t\tdefault:\n"
        '\t\t\treturn fmt.Errorf("unknown op %d", op)\n\t\t}\n\t}\n\treturn nil\n}\n'
    )
    snippet = (
        "// ... existing code ...\n\t\tcase 2:\n\t\t\tn--\n\t\tcase 3:\n\t\t\tn *= 2\n\t\tdefault:\n"
        '\t\t\treturn fmt.Errorf("unknown op %d", op)\n\t\t}\n\t}\n\treturn nil\n}\n'
    )
    expected = original.replace("\t\t\tn--\n", "\t\t\tn--\n\t\tcase 3:\n\t\t\tn *= 2\n")
    assert merged(original, snippet, path="m.go") == expected


def test_a_fragment_whose_last_line_edits_its_blocks_last_line_shows_that_blocks_end() -> None:
    """A function's last lines after a marker, the very last one's argument edited, then the next
    function: the fragment shows its block's end (an edit of the last line), so nothing of the
    block is deleted. (The edited call read as another line, the block as ended early.)"""
    original = (
        "def plot(ax):\n    ax.grid(True)\n    ax.legend()\n    ax.set_xlabel('v')\n\n\n"
        "def main():\n    plot(None)\n"
    )
    snippet = (
        "# ... existing code ...\n    ax.legend()\n    ax.set_xlabel('order $v$')\n\n\n"
        "def main():\n    plot(None)\n"
    )
    assert merged(original, snippet, language="python") == original.replace("'v'", "'order $v$'")


def test_a_marker_between_a_doc_comments_first_lines_and_its_item_elides_the_rest_of_the_doc() -> None:
    """`///` lines with a new section among them, then `// ... rest of the doc comment ...` glued
    above `pub fn load`: the marker stands for the doc's lines below the last one shown, so the
    shown ones edit the doc's head. (They were written as a second doc comment above the whole
    original one.)"""
    original = (
        "impl Config {\n    /// Reads the file at `path`.\n    ///\n    /// # Examples\n    ///\n    /// Load one:\n"
        "    ///\n    /// ```\n"
        '    /// let c = Config::load("k.toml")?;\n    /// println!("{}", c.name);\n    /// ```\n'
        "    pub fn load(path: &Path) -> Config {\n"
        "        todo!()\n    }\n}\n"
    )
    snippet = (
        "impl Config {\n    /// Reads the file at `path`.\n    ///\n    /// # Errors\n    ///\n"
        "    /// Fails when the file cannot be read.\n    ///\n    /// # Examples\n"
        "    // ... rest of the doc comment unchanged ...\n    pub fn load(path: &Path) -> Config {\n"
        "        // ...\n    }\n}\n"
    )
    expected = original.replace(
        "    ///\n    /// # Examples",
        "    ///\n    /// # Errors\n    ///\n    /// Fails when the file cannot be read.\n    ///\n    /// # Examples",
    )
    assert merged(original, snippet, language="rust") == expected


def test_a_banner_comment_shown_last_in_a_class_is_the_comment_above_the_next_method() -> None:
    """A method edited below a marker, then the three-line banner above the next method, then a
    marker for the rest of the file at column 0: the banner is the next method's comment, shown,
    not new lines. (Its first line was read as that comment, the other two written again below
    the method.)"""
    original = (
        "class P:\n    def __init__(self):\n        self.prog = 'p'\n\n    def fmt(self):\n"
        "        return F(self.prog)\n\n    # ======\n    # Printing\n    # ======\n    def show(self):\n"
        "        print(self.fmt())\n\n    def hide(self):\n        pass\n\n\ndef main():\n    P().show()\n"
    )
    snippet = (
        "class P:\n    # ... existing code ...\n\n    def fmt(self):\n        return F(self.prog, width=80)\n\n"
        "    # ======\n    # Printing\n    # ======\n\n# ... rest of the file ...\n"
    )
    expected = original.replace("F(self.prog)", "F(self.prog, width=80)")
    assert merged(original, snippet, language="python") == expected


def test_a_new_method_like_an_elided_one_but_for_a_rename_made_throughout_is_ambiguous() -> None:
    """`zip_code` renamed `postal_code` in the column list shown, and a method shown below a marker
    that is the elided `findByZipCode` with that rename carried in, the old name gone from the
    snippet: renamed, or a copy beside it? (It was added, the old method kept on a column that no
    longer exists.) A look-alike whose old name the snippet still shows is new."""
    finder = (
        "    List<A> findBy{Name}(String {name}) {{\n        return jdbc.query(\n"
        '                "SELECT " + COLUMNS + " WHERE {column} = :{name}",\n'
        '                params().add("{name}", {name}));\n    }}\n'
    )
    original = (
        'class Dao {\n    private static final String COLUMNS =\n            "id, city, zip_code";\n\n'
        + finder.format(Name="City", name="city", column="city")
        + "\n"
        + finder.format(Name="ZipCode", name="zipCode", column="zip_code")
        + "\n    void close() {\n        jdbc.close();\n    }\n}\n"
    )
    postal = finder.format(Name="PostalCode", name="postalCode", column="postal_code")
    snippet = (
        'class Dao {\n    private static final String COLUMNS =\n            "id, city, postal_code";\n\n'
        "    // ... findByCity unchanged ...\n\n"
        + postal
        + "\n    void close() {\n        jdbc.close();\n    }\n}\n"
    )
    result = merge(original, snippet, language="java")
    assert result.status == "ambiguous"
    assert result.reasons[0].code == "renamed_or_copied"
    # the column list left as it was: `zip_code` still shown, so the finder is a new one beside it
    kept = snippet.replace('"id, city, postal_code"', '"id, city, zip_code"')
    expected = original.replace("    void close()", postal + "\n    void close()")
    assert merged(original, kept, language="java") == expected


def test_a_markdown_subsection_then_a_shallower_heading_goes_inside_the_section_that_holds_it() -> None:
    """`### Nightly` shown first, then `## Limitations` with a list item added: the subsection is
    aligned inside `## Quick start`, the one section holding it, and the rest among the sections
    after that one; a list item's continuation line keeps its two spaces though the README indents
    code by eight. (No block held both headings, so `### Nightly` matched two places.)"""
    original = (
        "# tool\n\nIntro.\n\n## Quick start\n\n### Stable\n\nTo install:\n\n```sh\nrustup component add fmt\n```\n\n"
        "### Nightly\n\nTo install:\n\n```sh\nrustup component add fmt --toolchain nightly\n```\n\n"
        "## Limitations\n\n* `a(x)`: Return the valid range or null\n  if it is not valid.\n* `b(y)`: Return it.\n\n"
        "        indented code\n        more code\n            deeper code\n\n## Running\n\nRun it:\n\n"
        "        tool run\n\nOr:\n\n        tool run --all\n"
    )
    snippet = (
        "### Nightly\n\nTo install:\n\n```sh\nrustup toolchain install nightly --component fmt\n```\n\n"
        "## Limitations\n\n* `a(x)`: Return the valid range or null\n  if it is not valid.\n"
        "* `c(z)`: Return both, or null\n  if they are disjoint.\n* `b(y)`: Return it.\n\n<!-- rest unchanged -->\n"
    )
    expected = original.replace(
        "rustup component add fmt --toolchain nightly", "rustup toolchain install nightly --component fmt"
    ).replace("* `b(y)`", "* `c(z)`: Return both, or null\n  if they are disjoint.\n* `b(y)`")
    assert merged(original, snippet, language="markdown") == expected


def test_a_line_amid_new_code_like_one_further_on_in_the_original_is_not_moved() -> None:
    """A new `# %%` cell whose `fig.tight_layout()` the original has once, in a later cell: the
    line stands between new lines, so it is a line of the new cell, not that one moved there. (It
    was "shown moved and kept where it was".)"""
    original = (
        "import matplotlib.pyplot as plt\n\n# %%\nfeats = load()\nprint(feats.shape)\n\n"
        "# %% [markdown]\n# ## Baseline\n\n# %%\nfig, ax = plt.subplots()\nax.plot(feats.x)\n"
        "fig.tight_layout()\nfig.savefig('x.png')\n"
    )
    cell = (
        "# %%\ncorr = feats.corr()\nfig, ax = plt.subplots(figsize=(7, 6))\nax.imshow(corr)\n"
        "fig.tight_layout()\nfig.savefig('corr.png')\n\n"
    )
    snippet = (
        "# ... earlier cells unchanged ...\n\nfeats = load()\nprint(feats.shape)\n\n"
        + cell
        + "# %% [markdown]\n# ## Baseline\n\n# ... remaining cells unchanged ...\n"
    )
    expected = original.replace("print(feats.shape)\n\n", "print(feats.shape)\n\n" + cell, 1)
    assert merged(original, snippet, language="python") == expected


def test_a_row_sharing_only_its_first_field_with_the_last_row_is_appended_not_an_edit() -> None:
    """`{ method: 'POST', path: '/orders/:id/refund', ... }` below a marker, above the `];`: a
    row is known by its first field, and the last route is the one `POST`, but the two share no
    other field: another route, appended; the marker keeps the cancel route. (It replaced it.)"""
    original = (
        "export const routes: Route[] = [\n  { method: 'GET', path: '/health', handler: health },\n"
        "  { method: 'GET', path: '/orders', handler: listOrders },\n"
        "  { method: 'POST', path: '/orders/:id/cancel', handler: cancelOrder },\n];\n\nmount(routes);\n"
    )
    row = "  { method: 'POST', path: '/orders/:id/refund', handler: refundOrder, roles: ['admin'] },\n"
    snippet = "export const routes: Route[] = [\n  // ... other routes unchanged\n" + row + "];\n"
    expected = original.replace("];\n", row + "];\n", 1)
    assert merged(original, snippet, language="typescript") == expected
    # a row that keeps most of its fields is that row edited
    edited = "  { method: 'POST', path: '/orders/:id/cancel', handler: cancelOrder, roles: ['admin'] },\n"
    snippet = "export const routes: Route[] = [\n  // ... other routes unchanged\n" + edited + "];\n"
    expected = original.replace(
        "  { method: 'POST', path: '/orders/:id/cancel', handler: cancelOrder },\n", edited
    )
    assert merged(original, snippet, language="typescript") == expected


def test_a_licence_comments_star_lines_do_not_outvote_a_files_tabs() -> None:
    """A C header whose licence comment (` * ...`, one space in) has more lines than its code has
    tab-indented ones: the unit is still the tab, so a snippet's tabs stay tabs. (The comment's
    lines counted as space-indented, the unit read as 4 spaces, and new fields were written with
    4 spaces in a tab-indented struct.)"""
    licence = "/*\n" + "".join(f" * Line {n} of the licence.\n" for n in range(8)) + " */\n"
    original = (
        licence + "struct cfg {\n\t__le16 size;\t/* read-only */\n\t__le16 mode;\t/* read-write */\n};\n"
    )
    snippet = "struct cfg {\n\t// ... unchanged ...\n\t__le16 mode;\t/* read-write */\n\t__le16 reset;\t/* read-write */\n};\n"
    expected = original.replace("};\n", "\t__le16 reset;\t/* read-write */\n};\n")
    assert merged(original, snippet, language="c") == expected


def test_a_switch_label_right_above_a_new_one_falls_through_its_body_is_not_elided() -> None:
    """`case LZMA_MEM_ERROR:` shown right above a new `case LZMA_MEMLIMIT_ERROR:` and the body
    they share: the first label's body is empty (it falls through), not elided, so its old body
    goes. (It was kept below the new one's, `break;` and all.)"""
    original = (
        "static const char *message(int ret)\n{\n\tconst char *msg;\n\tswitch (ret) {\n"
        '\tcase LZMA_MEM_ERROR:\n\t\tmsg = "Memory allocation failed";\n\t\tbreak;\n\n'
        '\tcase LZMA_FORMAT_ERROR:\n\t\tmsg = "Not .xz";\n\t\tbreak;\n\t}\n\treturn msg;\n}\n'
    )
    snippet = (
        "static const char *message(int ret)\n{\n\tconst char *msg;\n\tswitch (ret) {\n"
        '\tcase LZMA_MEM_ERROR:\n\tcase LZMA_MEMLIMIT_ERROR:\n\t\tmsg = "Memory allocation failed or limit reached";\n'
        "\t\tbreak;\n\n\t// ... existing code ...\n}\n"
    )
    expected = original.replace(
        '\tcase LZMA_MEM_ERROR:\n\t\tmsg = "Memory allocation failed";',
        '\tcase LZMA_MEM_ERROR:\n\tcase LZMA_MEMLIMIT_ERROR:\n\t\tmsg = "Memory allocation failed or limit reached";',
    )
    assert merged(original, snippet, language="c") == expected


def test_a_function_rewritten_whole_keeps_the_originals_tab_only_blank_lines() -> None:
    """A C function shown whole with two lines edited, its blank lines empty where the original's
    hold a tab: those stay as they were, below the line above them, found or edited. (They were
    written empty, the original's bytes lost.)"""
    original = (
        "static inline cpVect\nwrap(const cpBB bb, const cpVect v)\n{\n\tcpFloat dx = fabs(bb.r - bb.l);\n"
        "\tcpFloat x = (dx > 0.0f) ? dx : 1.0f;\n\t\n\tcpFloat dy = fabs(bb.t - bb.b);\n\t\n"
        "\treturn cpv(x, dy);\n}\n\nstatic int other(void)\n{\n\treturn 0;\n}\n"
    )
    snippet = (
        "// ... existing code ...\n\nstatic inline cpVect\nwrap(const cpBB bb, const cpVect v)\n{\n"
        "\tcpFloat dx = fabs(bb.r - bb.l);\n\tcpFloat x = (dx >= 0.0f) ? dx : 1.0f;\n\n"
        "\tcpFloat dy = fabs(bb.t - bb.b);\n\n\treturn cpv(x, dy);\n}\n\n// ... existing code ...\n"
    )
    expected = original.replace("(dx > 0.0f)", "(dx >= 0.0f)")
    assert merged(original, snippet, language="c") == expected


def test_a_template_tag_at_a_lines_start_is_an_item_of_its_own_not_a_brace_continuation() -> None:
    """`{% endif %}` and `{% if show_form %}` open their lines with `{`: template tags, not the `{`
    of a block continuing the line above. The snippet's first line, `{% if show_form %}`, is the
    original's, found by itself. (It was glued to the `{% endif %}` above, so written again.)"""
    original = (
        '{% if message %}\n<div class="message">{{ message }}</div>\n{% endif %}\n\n'
        '{% if show_form %}\n<div id="edit">\n  <table>\n    <tr>\n      <th>Key</th>\n    </tr>\n'
        "    <tr>\n      <th>&nbsp;</th>\n    </tr>\n  </table>\n</div>\n{% endif %}\n"
    )
    row = "    <tr>\n      <th>Expires in</th>\n    </tr>\n"
    snippet = (
        '{% if show_form %}\n<div id="edit">\n  <table>\n    <tr>\n      <th>Key</th>\n    </tr>\n'
        + row
        + "    <tr>\n      <th>&nbsp;</th>\n<!-- ... -->\n"
    )
    expected = original.replace("    <tr>\n      <th>&nbsp;", row + "    <tr>\n      <th>&nbsp;")
    assert merged(original, snippet, language="html") == expected


def test_a_list_item_shown_by_its_first_line_right_above_a_marker_keeps_its_other_lines() -> None:
    """A play's tasks extended, then its handler shown by its `- name:` line alone and a marker
    for the rest of the file, as deep as the play: the handler's other lines are elided, not
    deleted. (They were dropped: the marker was read as ending the play there.)"""
    original = (
        "- name: Configure database servers\n  hosts: dbservers\n  tasks:\n"
        "    - name: Ensure PostgreSQL is running\n      ansible.builtin.service:\n        name: postgresql\n"
        "        state: started\n  handlers:\n    - name: Restart postgresql\n"
        "      ansible.builtin.service:\n        name: postgresql\n        state: restarted\n\n"
        "- name: Configure web servers\n  hosts: web\n"
    )
    task = "\n    - name: Create application database\n      community.postgresql.postgresql_db:\n        name: app\n"
    snippet = (
        "- name: Configure database servers\n  hosts: dbservers\n  # ...\n"
        "    - name: Ensure PostgreSQL is running\n      ansible.builtin.service:\n        name: postgresql\n"
        "        state: started\n"
        + task
        + "  handlers:\n    - name: Restart postgresql\n# ... rest unchanged ...\n"
    )
    expected = original.replace("        state: started\n", "        state: started\n" + task, 1)
    assert merged(original, snippet, language="yaml") == expected


def test_a_call_passing_the_same_keyword_as_the_next_element_is_another_element() -> None:
    """`path("<int:pk>/export.csv", ..., name=...)` shown after the `invoice` route, a marker
    below: each element is a call of its own, so passing `name=` as the next one does says
    nothing; it is a new route, the marker below standing for the last one, `reorder`. (It
    replaced `reorder`, taken for its edit.)"""
    routes = [("", "order_list", "order-list"), ("<int:pk>/invoice/", "order_invoice", "order-invoice")]
    routes += [("<int:pk>/reorder/", "order_reorder", "order-reorder")]
    lines = [f'    path("{url}", views.{view}, name="{name}"),\n' for url, view, name in routes]
    original = "order_patterns = [\n" + "".join(lines) + "]\n"
    new = '    path("<int:pk>/export.csv", views.order_export_csv, name="order-export-csv"),\n'
    snippet = (
        "order_patterns = [\n"
        + lines[0]
        + "    # ... existing order routes ...\n"
        + lines[1]
        + new
        + "    # ... existing order routes ...\n]\n"
    )
    expected = original.replace(lines[1], lines[1] + new)
    assert merged(original, snippet, language="python") == expected


def test_a_comments_first_sentence_shown_last_in_a_block_keeps_the_rest_of_the_comment() -> None:
    """A key added to a step's `with:`, the first line of the comment below it shown, then a marker
    less indented: the comment's other lines, glued below its first, are left out, not deleted by
    closing up. A commented-out line (`# "B",`) is no sentence: it may be deleted so."""
    original = (
        "steps:\n  - name: Initialize CodeQL\n    uses: github/codeql-action/init@v3\n    with:\n"
        '      languages: "python"\n      # If you wish to specify custom queries, you can do so here.\n'
        "      # By default, queries listed here will override any in a config file.\n"
        "      # queries: ./path/to/local/query\n  - name: Analyze\n    uses: github/codeql-action/analyze@v3\n"
    )
    snippet = (
        "steps:\n  - name: Initialize CodeQL\n    uses: github/codeql-action/init@v3\n    with:\n"
        '      languages: "python"\n      queries: security-extended\n'
        "      # If you wish to specify custom queries, you can do so here.\n  # ... unchanged ...\n\n"
        "  - name: Analyze\n    uses: github/codeql-action/analyze@v3\n"
    )
    expected = original.replace('"python"\n', '"python"\n      queries: security-extended\n')
    assert merged(original, snippet, language="yaml") == expected


def test_an_ansible_when_key_is_a_mapping_key_not_a_condition() -> None:
    """A task shown by its `- name:`, a marker for its module arguments, and its `when:` edited:
    in YAML `when:` is a key, so the edited line pairs with the task's own `when:`. (It was keyed
    by its whole text, as a Kotlin `when` is, and written beside the old one.)"""
    original = (
        "- hosts: web\n  tasks:\n    - name: Open HTTP in firewalld\n      ansible.posix.firewalld:\n"
        "        service: http\n        state: enabled\n      when: firewall_enabled | bool\n\n"
        "    - name: Open HTTP in ufw\n      community.general.ufw:\n        rule: allow\n"
        "      when: firewall_enabled | bool\n"
    )
    snippet = (
        "# ... existing code ...\n    - name: Open HTTP in firewalld\n      # ... module arguments unchanged ...\n"
        '      when: firewall_enabled | bool and ansible_os_family == "RedHat"\n# ... existing code ...\n'
    )
    expected = original.replace(
        "enabled\n      when: firewall_enabled | bool\n",
        'enabled\n      when: firewall_enabled | bool and ansible_os_family == "RedHat"\n',
    )
    assert merged(original, snippet, language="yaml") == expected


def test_json_written_one_space_a_level_keeps_the_snippets_indentation() -> None:
    """A `required` array added to a definition of a JSON schema indented one space a level, as
    the file is: its lines stay as shown. (One-space steps were no unit, the units read as 2 and
    4, and the new element was written two spaces deeper.)"""
    original = (
        '{\n "definitions": {\n  "Replacing": {\n   "additionalProperties": false,\n   "properties": {\n'
        '    "WillReplace": {\n     "type": "boolean"\n    }\n   },\n   "type": "object"\n  },\n'
        '  "Rolling": {\n   "type": "object"\n  }\n }\n}\n'
    )
    required = '   "required": [\n    "WillReplace"\n   ],\n'
    snippet = (
        '  "Replacing": {\n   "additionalProperties": false,\n   "properties": {\n    "WillReplace": {\n'
        '     "type": "boolean"\n    }\n   },\n' + required + '   "type": "object"\n  },\n  "Rolling": {\n'
    )
    expected = original.replace(
        '   },\n   "type": "object"\n  },', "   },\n" + required + '   "type": "object"\n  },'
    )
    assert merged(original, snippet, language="json") == expected


def test_a_snippet_in_emacs_style_tabs_and_spaces_is_written_as_shown() -> None:
    """An Erlang file indented Emacs's way (4 spaces, then a tab for 8 columns, then a tab and 4
    spaces), its spaces outnumbering its tabs, and a snippet copying that style, tabs and all: its
    lines stay as shown. (The snippet's unit read as a tab and the file's as 4 spaces, so each tab
    became 4 spaces.)"""
    clause = "handle_call({{{name}, Node}}, _From, Nodes) ->\n    case lists:keymember(Node, 2, Nodes) of\n"
    clause += (
        "\ttrue ->\n\t    {{reply, {name}ed, Nodes}};\n\tfalse ->\n\t    {{reply, no, Nodes}}\n    end;\n"
    )
    setup = "init([]) ->\n" + "".join(f"    ok = step({n}),\n" for n in range(30)) + "    {ok, []}.\n\n"
    original = setup + "".join(
        clause.format(name=name) for name in ("attach", "spawn", "stop", "info", "ping")
    )
    new = clause.format(name="detach")
    snippet = clause.format(name="attach") + new + clause.format(name="spawn") + "%% ... existing code ...\n"
    expected = original.replace(clause.format(name="spawn"), new + clause.format(name="spawn"))
    assert merged(original, snippet, language="erlang") == expected


def test_one_of_an_arrays_look_alike_objects_is_told_by_its_first_telling_line() -> None:
    """A launch configuration shown alone, `...` for its rest: one of three objects that all
    start `{` and `"type": "node",`. Its `"name"` line stands in one of them only, so that one is
    edited. (None matched, and the object was added at the top of the file.) A name that no
    object has tells nothing."""
    entry = '    {\n      "type": "node",\n      "name": "%s",\n      "port": %d,\n      "console": "internal"\n    }'
    objects = ",\n".join(entry % (name, port) for name, port in (("API", 1), ("Worker", 2), ("Tests", 3)))
    original = '{\n  "version": "0.2.0",\n  "configurations": [\n' + objects + "\n  ]\n}\n"
    snippet = '    {\n      "type": "node",\n      "name": "%s",\n      "port": 9230,\n      ...\n    },\n'
    expected = original.replace('"Worker",\n      "port": 2,', '"Worker",\n      "port": 9230,')
    assert merged(original, snippet % "Worker", path="launch.json") == expected
    ambiguous(original, snippet % "Scheduler", path="launch.json")


def test_a_snippet_cut_off_below_a_signature_over_several_lines_keeps_the_rest() -> None:
    """The snippet stops inside `export const Table = memo(function Table({`, whose signature
    ends `}: Props) {` and whose `});` closes the call around: cut off there too. (The rest was
    read as elided or deleted.)"""
    original = (
        'import { memo } from "react";\n\n'
        "export const Table = memo(function Table({\n  rows,\n  onSelect,\n}: Props) {\n"
        "  if (rows.length === 0) {\n    return <p>None yet.</p>;\n  }\n  const sorted = sortRows(rows);\n"
        "  return (\n    <table>\n      <Rows rows={sorted} onSelect={onSelect} />\n    </table>\n  );\n});\n"
    )
    snippet = (
        "// ... existing code ...\n\n"
        "export const Table = memo(function Table({\n  rows,\n  onSelect,\n}: Props) {\n"
        "  if (rows.length === 0) {\n    return <p>None yet. Push a commit.</p>;\n  }\n"
    )
    expected = original.replace("None yet.", "None yet. Push a commit.")
    assert merged(original, snippet, path="table.tsx") == expected
    # half the file, no marker: still cut off, not the whole new file (which dropped the rest)
    alone = original.removeprefix('import { memo } from "react";\n\n')
    assert merged(alone, snippet.removeprefix("// ... existing code ...\n\n"), path="table.tsx") == (
        expected.removeprefix('import { memo } from "react";\n\n')
    )


def test_a_loop_header_shown_alone_over_a_marker_edits_the_original_loop() -> None:
    """`for (let page = 2; page <= totalPages; page++) {`, then a marker as deep as it: the loop's
    header edited, its body elided. (It was read as a new header above the original loop, and only
    the parse check kept the file from having both.)"""
    original = (
        "class Inventory {\n  async listAll(id: string): Promise<Item[]> {\n    const first = await this.list(id, 1);\n"
        "    const all = [...first.items];\n    for (let page = 2; page < first.pages; page++) {\n"
        "      const next = await this.list(id, page);\n      all.push(...next.items);\n    }\n    return all;\n  }\n}\n"
    )
    snippet = (
        "  async listAll(id: string): Promise<Item[]> {\n    // ... existing code ...\n"
        "    const all = [...first.items];\n    for (let page = 2; page <= first.pages; page++) {\n"
        "    // ... existing code ...\n"
    )
    expected = original.replace("page < first", "page <= first")
    assert merged(original, snippet, path="inventory.ts") == expected
    python = (
        "def rotate_all(rotators):\n    done = 0\n    for i in range(len(rotators) + 1):\n"
        "        rotators[i].rotate()\n        done += 1\n    return done\n"
    )
    snippet = "def rotate_all(rotators):\n    done = 0\n    for i in range(len(rotators)):\n    # ... rest unchanged ...\n"
    assert merged(python, snippet, path="rotate.py") == python.replace(") + 1):", ")):")


def test_a_marker_below_a_call_left_open_elides_the_calls_other_lines() -> None:
    """`grp.add_argument('-C', '--coverdir', metavar='DIR',` and its next line, the `(` not
    closed, then a marker as deep as the call: the marker elides the call's other lines too.
    (They were deleted, and only the parse check kept the file from losing them.)"""
    original = (
        "def main():\n    grp = parser.add_argument_group('Modifiers')\n"
        "    grp.add_argument('-C', '--coverdir',\n            help='Directory where the report files go. '\n"
        "                 'One file per module.')\n    grp.add_argument('-m', '--missing', action='store_true')\n"
        "    return parser\n"
    )
    snippet = (
        "    # ... other options unchanged ...\n    grp.add_argument('-C', '--coverdir', metavar='DIR',\n"
        "            help='Directory where the report files go. '\n    # ... other options unchanged ...\n"
    )
    expected = original.replace("'--coverdir',\n", "'--coverdir', metavar='DIR',\n")
    assert merged(original, snippet, path="trace.py") == expected


JAVA_SERVICE = (
    "public class UserService {\n\n    private final Repo repo;\n\n"
    "    public User register(String email) {\n        return repo.save(new User(email));\n    }\n\n"
    "    public User updateEmail(long id, String email) {\n        User user = repo.find(id);\n"
    "        user.setEmail(email);\n        return repo.save(user);\n    }\n\n"
    "    public List<User> search(String query) {\n        return repo.search(query);\n    }\n}\n"
)
DEACTIVATE = (
    "public void deactivate(long id) {\n    User user = repo.find(id);\n    user.setActive(false);\n"
    "    repo.save(user);\n}\n"
)


def test_new_code_between_markers_goes_where_the_markers_names_meet() -> None:
    """A marker naming `register()` and `updateEmail()`, a new method, a marker naming `search()`:
    the method goes between updateEmail and search. Names that do not meet stay ambiguous."""
    body = "".join(f"    {line}\n" if line else "\n" for line in DEACTIVATE.splitlines())
    snippet = (
        "public class UserService {\n    // ... existing fields, register() and updateEmail() ...\n\n"
        f"{body}\n    // ... search() unchanged ...\n}}\n"
    )
    expected = JAVA_SERVICE.replace("\n\n    public List", f"\n\n{body}\n    public List")
    assert merged(JAVA_SERVICE, snippet, path="UserService.java") == expected
    apart = snippet.replace("register() and updateEmail()", "register()")
    assert ambiguous(JAVA_SERVICE, apart, path="UserService.java").status == "ambiguous"


def test_a_class_body_pasted_at_the_class_headers_column_is_read_inside_the_class() -> None:
    """`public class UserService {` with its members below at column 0, as assistants paste them:
    the members are read one level inside the class and land at the original's indentation."""
    snippet = (
        "public class UserService {\n// ... existing fields, register() and updateEmail() ...\n\n"
        f"{DEACTIVATE}\n// ... search() unchanged ...\n}}\n"
    )
    body = "".join(f"    {line}\n" if line else "\n" for line in DEACTIVATE.splitlines())
    expected = JAVA_SERVICE.replace("\n\n    public List", f"\n\n{body}\n    public List")
    assert merged(JAVA_SERVICE, snippet, path="UserService.java") == expected


def test_a_marker_as_deep_as_an_edited_python_block_keeps_the_blocks_rest() -> None:
    """`if to_addrs is None:` with its first statement edited, then `# ...` as deep as the `if`:
    the marker elides the block's other statements too. Shown word for word, the block may show
    a deletion of its last statement instead: still ambiguous."""
    original = (
        "def send(msg, to_addrs=None):\n    if to_addrs is None:\n"
        "        fields = [msg['To'], msg['Bcc'], msg['Cc']]\n        to_addrs = [a for a in fields if a]\n"
        "    return deliver(msg, to_addrs)\n"
    )
    snippet = (
        "def send(msg, to_addrs=None):\n    if to_addrs is None:\n"
        "        fields = [msg['To'], msg['Cc'], msg['Bcc']]\n    # ... existing code ...\n"
    )
    expected = original.replace("msg['Bcc'], msg['Cc']", "msg['Cc'], msg['Bcc']")
    assert merged(original, snippet, path="mail.py") == expected
    as_is = snippet.replace("msg['Cc'], msg['Bcc']", "msg['Bcc'], msg['Cc']")
    assert ambiguous(original, as_is, path="mail.py").status == "ambiguous"


def test_a_new_clause_of_a_multi_clause_function_is_not_an_edit_of_the_next_one() -> None:
    """Elixir's `def handle_call({:delete, key}, ...)` shown right after the `:put` clause, then a
    marker: one more clause, not an edit of the `:stats` clause below (which was deleted)."""
    original = (
        "defmodule Store do\n  def handle_call({:put, key, value}, _from, state) do\n"
        "    {:reply, :ok, Map.put(state, key, value)}\n  end\n\n"
        "  def handle_call(:stats, _from, state) do\n"
        "    stats = %{\n      size: map_size(state.entries),\n      hits: state.hits,\n      misses: state.misses\n    }\n\n"
        "    {:reply, stats, state}\n  end\n\n  def handle_call(request, _from, state) do\n"
        '    Logger.warning("unexpected call: #{inspect(request)}")\n    {:reply, {:error, :unknown_call}, state}\n  end\nend\n'
    )
    clause = "  def handle_call({:delete, key}, _from, state) do\n    {:reply, :ok, Map.delete(state, key)}\n  end\n"
    snippet = (
        "defmodule Store do\n  def handle_call({:put, key, value}, _from, state) do\n"
        "    {:reply, :ok, Map.put(state, key, value)}\n  end\n\n"
        f"{clause}\n  # ... existing code ...\nend\n"
    )
    expected = original.replace("\n\n  def handle_call(:stats", f"\n\n{clause}\n  def handle_call(:stats")
    assert merged(original, snippet, path="store.ex") == expected


def test_block_comment_markers_of_ocaml_haskell_and_powershell() -> None:
    """`(* ... *)`, `{- ... -}` and `<# ... #>` elide code like any marker; they are never written
    into the file (an OCaml file merged as plain text kept them)."""
    original = "let a = 1\n\nlet f x =\n  x + 1\n\nlet b = 2\n"
    snippet = "(* ... *)\n\nlet f x =\n  x + 2\n\n(* ... *)\n"
    assert merged(original, snippet, path="m.ml") == original.replace("x + 1", "x + 2")
    haskell = "module M where\n\na :: Int\na = 1\n\nf :: Int -> Int\nf x = x + 1\n"
    assert merged(haskell, "{- ... existing code ... -}\n\nf :: Int -> Int\nf x = x + 2\n", path="M.hs") == (
        haskell.replace("x + 1", "x + 2")
    )
    powershell = "<#\n.SYNOPSIS\nActivates it.\n#>\nfunction Enable {\n    $on = 1\n}\n"
    snippet = "<# ... help unchanged ... #>\nfunction Enable {\n    $on = 2\n}\n"
    assert merged(powershell, snippet, path="Activate.ps1") == powershell.replace("$on = 1", "$on = 2")


def test_an_uncommented_worded_ellipsis_line_is_a_marker_in_plain_text() -> None:
    """`... (steps 1-2 unchanged) ...` in a plain-text runbook stands for the steps it names; it
    was written into the file, the steps deleted."""
    original = (
        "TRIAGE\n    1. Check the worker pool.\n    2. Check the failing endpoint.\n"
        "    3. Check database latency.\n        - If p99 > 200 ms, page the DBA.\n\nRECOVERY\n    1. Drain.\n"
    )
    snippet = (
        "TRIAGE\n    ... (steps 1-2 unchanged) ...\n    3. Check database latency.\n"
        "        - If p99 > 200 ms, page the DBA.\n        - Else restart the pool.\n\nRECOVERY\n    ...\n"
    )
    expected = original.replace("page the DBA.\n", "page the DBA.\n        - Else restart the pool.\n")
    assert merged(original, snippet, path="runbook.txt") == expected


def test_a_block_testing_another_name_beside_a_look_alike_is_new() -> None:
    """`if (Test-Path Env:_OLD_PYTHONPATH)` shown below the anchor where the original has
    `if (Test-Path Env:_OLD_PATH)`: a new block beside it (a word added to the name), not an edit
    of it. (The PATH block was replaced.)"""
    block = "    if (Test-Path -Path Env:_OLD_{0}) {{\n        Copy-Item -Path Env:_OLD_{0} -Destination Env:{0}\n    }}\n"
    original = (
        "function deactivate {\n" + block.format("PYTHONHOME") + "\n" + block.format("PATH") + "\n"
        "    Remove-Item -Path env:VIRTUAL_ENV\n}\n"
    )
    snippet = (
        "function deactivate {\n" + block.format("PYTHONHOME") + "\n" + block.format("PYTHONPATH") + "\n"
        "    # ... existing code ...\n}\n"
    )
    expected = original.replace(
        "\n" + block.format("PATH"), "\n" + block.format("PYTHONPATH") + "\n" + block.format("PATH")
    )
    assert merged(original, snippet, path="Activate.ps1") == expected


def test_a_block_shown_to_an_edited_line_with_new_code_above_it_may_end_there() -> None:
    """A function shown up to an edited line, a new line above it, then the snippet's end: the
    rest may be elided or deleted, as when nothing new is shown above (it was deleted)."""
    original = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n\n\ndef g():\n    pass\n"
    for snippet in ("def f():\n    a = 1\n    x = 5\n    b = 3\n", "def f():\n    a = 1\n    b = 3\n"):
        assert ambiguous(original, snippet, path="f.py").reasons[0].code == "elided_or_deleted"


def test_a_closer_shown_after_a_marker_is_not_written_above_its_original() -> None:
    """`$$;` below a marker inside a PL/pgSQL body closes the function whose rest the marker
    elides; it was written as new code above the original `END;` and `$$;`."""
    original = (
        "CREATE FUNCTION touch()\nRETURNS trigger\nLANGUAGE plpgsql\nAS $$\nBEGIN\n    NEW.updated_at := now();\n"
        "    RETURN NEW;\nEND;\n$$;\n\n"
        "CREATE FUNCTION reserve_stock(p_sku text, p_quantity integer)\nRETURNS bigint\nLANGUAGE plpgsql\nAS $$\n"
        "DECLARE\n    v_available integer;\nBEGIN\n    IF p_quantity <= 0 THEN\n"
        "        RAISE EXCEPTION 'quantity must be positive';\n    END IF;\n\n"
        "    SELECT on_hand - reserved\n      INTO v_available\n      FROM stock\n     WHERE sku = p_sku;\n"
        "    RETURN v_available;\nEND;\n$$;\n\n"
        "CREATE FUNCTION release_order(p_order uuid)\nRETURNS integer\nLANGUAGE plpgsql\nAS $$\nBEGIN\n"
        "    RETURN 0;\nEND;\n$$;\n"
    )
    snippet = (
        "-- ... existing code ...\n\n"
        "CREATE FUNCTION reserve_stock(p_sku text, p_quantity integer)\nRETURNS bigint\nLANGUAGE plpgsql\nAS $$\n"
        "DECLARE\n    v_available integer;\nBEGIN\n    IF p_quantity <= 0 THEN\n"
        "        RAISE EXCEPTION 'quantity must be positive';\n    END IF;\n\n"
        "    PERFORM pg_advisory_xact_lock(hashtext(p_sku));\n\n"
        "    SELECT on_hand - reserved\n    -- ... rest of reserve_stock unchanged ...\n$$;\n\n-- ... existing code ...\n"
    )
    result = ambiguous(original, snippet, path="stock.sql")
    assert result.reasons[0].code == "unanchored_insertion"


TEN_HELPERS = "".join(f"def helper_{n}(x):\n    y = x + {n}\n    return y * {n}\n\n\n" for n in range(1, 5))


def test_a_deletion_by_closing_up_is_meant_when_the_snippet_writes_nothing_new() -> None:
    """Two functions shown next to each other where the original has four long ones between: with
    markers elsewhere and no new line anywhere, the snippet says only that deletion. Left ambiguous
    where the function above ends in a marker (it may elide what follows) or without markers."""
    original = f"import os\n\n\ndef first(x):\n    return x\n\n\n{TEN_HELPERS}def last(x):\n    return -x\n"
    snippet = "# ... existing code ...\n\n\ndef first(x):\n    return x\n\n\ndef last(x):\n    return -x\n"
    assert merged(original, snippet, path="helpers.py") == original.replace(TEN_HELPERS, "")
    open_above = snippet.replace("    return x\n", "    # ... existing code ...\n")
    assert ambiguous(original, open_above, path="helpers.py").reasons[0].code == "unexplained_deletion"
    no_markers = snippet.replace("# ... existing code ...\n\n\n", "")
    assert ambiguous(original, no_markers, path="helpers.py").status == "ambiguous"


def test_a_block_whose_closer_is_shown_keeps_no_tail_for_a_shallower_marker_below() -> None:
    """`'connections' => [`, two entries, its `],` shown, then `// ...` less deep: the entry after
    the last shown one is closed up (deleted or, when long, ambiguous), not kept."""
    entry = "        '{0}' => [\n            'driver' => '{0}',\n        ],\n\n"
    original = (
        "<?php\n\nreturn [\n\n    'connections' => [\n\n"
        + "".join(entry.format(name) for name in ("sqlite", "pgsql", "sqlsrv"))
        + "    ],\n\n    'migrations' => 'migrations',\n\n];\n"
    )
    snippet = (
        "<?php\n\n// ...\n\n    'connections' => [\n\n"
        + "".join(entry.format(name) for name in ("sqlite", "pgsql"))
        + "    ],\n\n// ...\n"
    )
    assert merged(original, snippet, path="database.php") == original.replace(entry.format("sqlsrv"), "")


def test_a_javascript_standard_method_with_new_parameters_is_an_edit_of_it() -> None:
    # `mute (replace) {` where `mute () {` stands: the same method, by its name (not a new one)
    original = (
        "class MuteStream {\n  get rows () {\n    return 1\n  }\n\n  mute () {\n    this.muted = true\n  }\n\n"
        "  unmute () {\n    this.muted = false\n  }\n}\n"
    )
    snippet = (
        "class MuteStream {\n  // ... existing code ...\n\n  mute (replace) {\n    this.muted = true\n"
        "    this.replace = replace\n  }\n\n  unmute () {\n    this.muted = false\n  }\n}\n"
    )
    expected = original.replace(
        "  mute () {\n    this.muted = true\n",
        "  mute (replace) {\n    this.muted = true\n    this.replace = replace\n",
    )
    assert merged(original, snippet, language="javascript") == expected
    assert signature_key("static async load (id) {", "typescript") == "static async load"
    assert signature_key("} else if (x) {", "javascript") == "} else if (x) {"
    assert signature_key("catch (err) {", "javascript") == "catch (err) {"


def test_an_edited_first_line_of_a_block_left_open_does_not_drop_the_rest() -> None:
    # the marker may elide `p.ul.Close()` or the edit may replace the block's body: never deleted unasked
    original = (
        "package p\n\nfunc (p *Proxy) closeOnIdle() {\n\tfor {\n\t\tif idle() {\n"
        '\t\t\tlog.Println("graceful shutdown from idle timeout")\n\t\t\tp.ul.Close()\n\t\t}\n\t}\n}\n'
    )
    snippet = (
        "// ... existing code ...\n\t\tif idle() {\n"
        '\t\t\tp.logger().Println("graceful shutdown from idle timeout")\n// ... existing code ...\n'
    )
    result = ambiguous(original, snippet, language="go")
    assert result.reasons[0].code == "elided_or_deleted"


def test_a_python_line_dedented_to_no_block_is_ambiguous() -> None:
    # 10 spaces: inside the `if` (12) or after it in the loop (8)? Python would not even parse it
    original = (
        "def sync(accounts):\n    for account in accounts:\n        if account.stale:\n"
        "            refresh(account)\n            count += 1\n        save(account)\n"
    )
    snippet = "        if account.stale:\n            refresh(account)\n            count += 1\n          audit(account)\n        # ...\n"
    assert ambiguous(original, snippet, language="python").reasons[0].code == "new_parse_errors"


def test_a_lone_member_and_a_marker_do_not_go_above_the_file() -> None:
    original = (
        "using System;\n\nnamespace App\n{\n    public class EmailSender\n    {\n        public void Send() { }\n"
        "    }\n\n    public class SmsSender\n    {\n        public void Send() { }\n    }\n}\n"
    )
    snippet = "        private static string Mask(string value)\n        {\n            return value;\n        }\n\n        // [rest of class unchanged]\n"
    ambiguous(original, snippet, language="csharp")


def test_a_line_continued_onto_a_new_one_below_is_edited_not_written_twice() -> None:
    """`this.country === other.country` shown with `&&` and a new operand below it, after a
    marker: the original's last operand edited (it was ambiguous)."""
    original = (
        "class Address {\n  equals(other) {\n    return (\n      this.street === other.street &&\n"
        "      this.city === other.city &&\n      this.country === other.country\n    );\n  }\n}\n"
    )
    snippet = (
        "class Address {\n  equals(other) {\n    return (\n      // ... existing comparisons ...\n"
        "      this.country === other.country &&\n      this.region === other.region\n    );\n  }\n}\n"
    )
    expected = original.replace("other.country\n", "other.country &&\n      this.region === other.region\n")
    assert merged(original, snippet, language="typescript") == expected


def test_a_call_given_one_argument_more_is_an_edit_of_the_original_line() -> None:
    """`await _http.GetAsync(url, cancellationToken)` right below the line before it, where
    `GetAsync(url)` stands: the call edited, not a second one above it (it was ambiguous)."""
    original = (
        "class Sync\n{\n    async Task<Page> Fetch(int page)\n    {\n"
        '        var url = $"products?page={page}";\n        using var response = await _http.GetAsync(url);\n'
        "        if (!response.IsSuccessStatusCode)\n        {\n            throw new Failed(url);\n        }\n"
        "        return await Read(response);\n    }\n}\n"
    )
    snippet = (
        "class Sync\n{\n    async Task<Page> Fetch(int page, CancellationToken ct)\n    {\n"
        '        var url = $"products?page={page}";\n        using var response = await _http.GetAsync(url, ct);\n'
        "        // ... existing code ...\n    }\n}\n"
    )
    expected = original.replace("int page)", "int page, CancellationToken ct)").replace(
        "GetAsync(url)", "GetAsync(url, ct)"
    )
    assert merged(original, snippet, language="csharp") == expected


def test_a_new_operand_below_the_edited_last_one_edits_none_of_those_elided() -> None:
    """`&& Objects.equals(costCenter, ...)` below the original's last operand, shown edited (its
    `;` moved down): new, though elided operands above share its call; no edit of one of them."""
    original = (
        "class Employee {\n    public boolean equals(Object o) {\n        Employee that = (Employee) o;\n"
        "        return id.equals(that.id)\n                && Objects.equals(department, that.department)\n"
        "                && Objects.equals(managerId, that.managerId);\n    }\n}\n"
    )
    snippet = (
        "class Employee {\n    public boolean equals(Object o) {\n        // ... existing code ...\n"
        "                && Objects.equals(managerId, that.managerId)\n"
        "                && Objects.equals(costCenter, that.costCenter);\n    }\n}\n"
    )
    expected = original.replace(
        "that.managerId);\n",
        "that.managerId)\n                && Objects.equals(costCenter, that.costCenter);\n",
    )
    assert merged(original, snippet, language="java") == expected


@pytest.mark.parametrize(
    "snippet, step",
    [
        # the chain's last steps, the `;` moved to a new one
        (
            "        return new Builder()\n                // ... existing steps ...\n"
            "                .managerId(managerId)\n                .costCenter(costCenter);\n",
            "                .managerId(managerId)\n                .costCenter(costCenter);\n",
        ),
        # a step added between two shown, markers around them
        (
            "        return new Builder()\n                // ... existing steps ...\n"
            "                .fullName(fullName)\n                .nickname(nickname)\n"
            "                .email(email)\n                // ... existing steps ...\n",
            None,
        ),
    ],
    ids=["last-steps", "middle-step"],
)
def test_a_step_added_to_a_chain_shown_in_part_is_placed_by_its_neighbours(
    snippet: str, step: str | None
) -> None:
    """Each `.step(...)` of a chain is an item of its own: shown in part between markers, the
    chain's steps pair by name (it was ambiguous: the chain was one item)."""
    original = (
        "class E {\n    public Builder toBuilder() {\n        return new Builder()\n                .id(id)\n"
        "                .fullName(fullName)\n                .email(email)\n                .managerId(managerId);\n"
        "    }\n}\n"
    )
    shown = "class E {\n    public Builder toBuilder() {\n" + snippet + "    }\n}\n"
    if step is None:
        expected = original.replace("(fullName)\n", "(fullName)\n                .nickname(nickname)\n")
    else:
        expected = original.replace("                .managerId(managerId);\n", step)
    assert merged(original, shown, language="java") == expected


def test_a_marker_below_a_chains_first_step_as_deep_as_its_steps_elides_some_of_them() -> None:
    """`raw.rename(...)`, `# ... existing steps ...`, the last `.assign(` block shown and a new step
    below it, the steps as deep as the first: the marker and the steps continue the chain, as in
    the original, so the `.assign(` block pairs with the original's (it was written twice)."""
    original = (
        "def clean(raw):\n    return (\n        raw.rename(columns=RENAMES)\n"
        '        .assign(ts=lambda d: pd.to_datetime(d["ts"]))\n        .sort_values("ts")\n'
        '        .assign(\n            dew=lambda d: d["temp"] - 5,\n        )\n'
        '        .set_index("ts")\n    )\n'
    )
    snippet = (
        "def clean(raw):\n    return (\n        raw.rename(columns=RENAMES)\n        # ... existing steps ...\n"
        '        .assign(\n            dew=lambda d: d["temp"] - 5,\n        )\n'
        '        .assign(kmh=lambda d: d["ms"] * 3.6)\n        .set_index("ts")\n    )\n'
    )
    expected = original.replace(
        "        )\n        .set_index",
        '        )\n        .assign(kmh=lambda d: d["ms"] * 3.6)\n        .set_index',
    )
    assert merged(original, snippet, language="python") == expected


@pytest.mark.parametrize("listed, status", [("pad, plural", "ok"), ("pad", "ambiguous")])
def test_a_new_exports_object_that_leaves_out_a_name_the_file_exports_by_name_is_ambiguous(
    listed: str, status: str
) -> None:
    """`module.exports = {...}` appended where the file exports each function by `exports.x = ...`:
    the object replaces those exports, so one left out of it would no longer be exported."""
    original = (
        "exports.pad = function pad (s, n) {\n  return s.padStart(n)\n}\n\n"
        "exports.plural = function plural (n, w) {\n  return n === 1 ? w : w + 's'\n}\n"
    )
    snippet = f"// ... existing code ...\n\nmodule.exports = {{ {listed} }}\n"
    result = merge(original, snippet, language="javascript")
    assert result.status == status
    if status == "ambiguous":
        assert "'plural'" in result.reasons[0].message


def test_a_marker_between_a_methods_attributes_elides_some_of_them() -> None:
    """`[Theory]`, `// ... existing rows ...`, then the rows shown and the method: the marker
    stands for the original's rows between, and the new row goes above the method (it was
    ambiguous: `[Theory]` read as new code between two markers)."""
    original = (
        'public class CaseTests\n{\n    [Theory]\n    [InlineData("a", "A")]\n    [InlineData("bc", "BC")]\n'
        '    [InlineData("", "")]\n    public void Upper(string input, string expected)\n    {\n'
        "        Assert.Equal(expected, input.ToUpper());\n    }\n\n    [Theory]\n"
        '    [InlineData("", "")]\n    public void Lower(string input, string expected)\n    {\n'
        "        Assert.Equal(expected, input.ToLower());\n    }\n}\n"
    )
    snippet = (
        "    // ... other tests ...\n\n    [Theory]\n    // ... existing rows ...\n"
        '    [InlineData("bc", "BC")]\n    [InlineData("d1", "D1")]\n    [InlineData("", "")]\n'
        "    public void Upper(string input, string expected)\n    {\n"
        "        Assert.Equal(expected, input.ToUpper());\n    }\n\n    // ... remaining tests ...\n"
    )
    expected = original.replace('"BC")]\n', '"BC")]\n    [InlineData("d1", "D1")]\n', 1)
    assert merged(original, snippet, language="csharp") == expected


def test_an_argument_line_passing_the_same_keyword_is_an_edit_of_the_original() -> None:
    """`args.legacy, workers=min(args.workers, 8),` above a marker inside a long call: the line
    that passes `workers=` edited, not a second one written above it (the call would take the
    keyword twice)."""
    original = (
        "def main(args):\n    if not compile_dir(dest, maxlevels,\n                       args.legacy, workers=args.workers,\n"
        "                       stripdir=args.stripdir,\n                       optimize=args.opt_levels,\n"
        "                       hardlink_dupes=args.hardlink_dupes):\n        success = False\n"
    )
    snippet = (
        "def main(args):\n    if not compile_dir(dest, maxlevels,\n"
        "                       args.legacy, workers=min(args.workers, 8),\n"
        "                       # ... remaining keyword arguments unchanged ...\n"
        "                       hardlink_dupes=args.hardlink_dupes):\n        success = False\n"
    )
    expected = original.replace("workers=args.workers,", "workers=min(args.workers, 8),")
    assert merged(original, snippet, language="python") == expected


GO_STORE = (
    "package store\n\nfunc (s *Store) Create(c *Customer) error {\n\treturn s.insert(c)\n}\n\n"
    "func (s *Store) Get(id int64) (*Customer, error) {\n\treturn s.find(id)\n}\n\n"
    "func (s *Store) Delete(id int64) error {\n\treturn s.remove(id)\n}\n"
)


def test_a_note_where_moved_code_stood_deletes_it_and_is_not_written() -> None:
    """`// (Delete moved up, it used to follow Get)` at the file's end, `Delete` shown above
    `Get`: the old copy goes and the note is no code (it was written into the file)."""
    snippet = (
        "// ... existing code ...\n\treturn s.insert(c)\n}\n\n"
        "func (s *Store) Delete(id int64) error {\n\treturn s.remove(id)\n}\n\n"
        "func (s *Store) Get(id int64) (*Customer, error) {\n\treturn s.find(id)\n}\n\n"
        "// (Delete moved up, it used to follow Get at the end of the file)\n"
    )
    expected = (
        "package store\n\nfunc (s *Store) Create(c *Customer) error {\n\treturn s.insert(c)\n}\n\n"
        "func (s *Store) Delete(id int64) error {\n\treturn s.remove(id)\n}\n\n"
        "func (s *Store) Get(id int64) (*Customer, error) {\n\treturn s.find(id)\n}\n"
    )
    assert merged(GO_STORE, snippet, language="go") == expected


def test_code_said_to_have_moved_between_bare_markers_is_ambiguous() -> None:
    # moved up, but to where? It was left in place, the note written above it
    snippet = (
        "// ... existing code ...\n\n// Delete moved up so it sits with the other write methods.\n"
        "func (s *Store) Delete(id int64) error {\n\treturn s.remove(id)\n}\n\n// ... existing code ...\n"
    )
    ambiguous(GO_STORE, snippet, language="go")


def test_a_new_last_statement_making_the_call_the_old_last_one_makes_is_ambiguous() -> None:
    """`main(argv).then(...)` shown last, the snippet ending there, where the file ends with
    `process.exitCode = main(argv);`: a rewrite of that line, or a second call above it? (Both
    were kept: main ran twice.) A new statement calling something else is added."""
    original = (
        'import { run } from "./run";\n\nfunction main(argv: string[]): number {\n  return run(argv);\n}\n\n'
        "process.exitCode = main(process.argv.slice(2));\n"
    )
    shown = (
        "// ... existing code ...\n\n"
        "async function main(argv: string[]): Promise<number> {\n  return await run(argv);\n}\n\n"
    )
    snippet = shown + "main(process.argv.slice(2)).then((code) => {\n  process.exitCode = code;\n});\n"
    result = ambiguous(original, snippet, language="typescript")
    assert result.reasons[0].code == "edit_or_insertion"
    added = shown + 'console.log("started");\n'
    expected = original.replace("}\n\n", '}\n\nconsole.log("started");\n\n').replace(
        "function main(argv: string[]): number {\n  return run(argv);",
        "async function main(argv: string[]): Promise<number> {\n  return await run(argv);",
    )
    assert merged(original, added, language="typescript") == expected


def test_a_declaration_shown_under_a_new_name_is_no_rename_of_one_still_called() -> None:
    """`fun refresh()` over `viewModelScope.launch {` and a marker, where `reload()` starts the
    same way but `init` calls it: renaming it would leave that call broken, so it is no rename
    (it was taken as one, `reload` rewritten as `refresh`)."""
    original = (
        "class InboxViewModel : ViewModel() {\n    init {\n        reload()\n    }\n\n"
        "    fun reload() {\n        viewModelScope.launch {\n            fetch(cursor = null)\n        }\n    }\n\n"
        "    fun markRead(id: String) {\n        viewModelScope.launch {\n            repository.markRead(id)\n"
        "        }\n    }\n}\n"
    )
    snippet = (
        "class InboxViewModel : ViewModel() {\n    // ... existing code ...\n\n    fun refresh() {\n"
        "        viewModelScope.launch {\n            _state.value = UiState.Loading\n"
        "            // ... existing code ...\n        }\n    }\n\n    // ... existing code ...\n}\n"
    )
    ambiguous(original, snippet, language="kotlin")
    # unless the original calls it nowhere else: then it was renamed
    uncalled = original.replace("        reload()\n", "        start()\n")
    expected = uncalled.replace("fun reload()", "fun refresh()").replace(
        "launch {\n            fetch",
        "launch {\n            _state.value = UiState.Loading\n            fetch",
    )
    assert merged(uncalled, snippet, language="kotlin") == expected


BACKUP_LOOP = (
    "def main(dbs):\n    failures = 0\n    for db in dbs:\n        try:\n            dump = dump_database(db)\n"
    "            upload(dump)\n        except subprocess.CalledProcessError as exc:\n"
    '            log.error("backup of %s failed: %s", db, exc)\n            failures += 1\n'
    '        except RuntimeError as exc:\n            log.error("%s", exc)\n            failures += 1\n'
    "    return failures\n\n\ndef prune(days):\n    return cleanup(days)\n"
)
BACKUP_LOOP_EDIT = (
    "# ... existing code ...\n    for db in dbs:\n        try:\n            dump = dump_database(db, timeout)\n"
    "            upload(dump)\n        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:\n"
    '            log.error("backup of %s failed: %s", db, exc)\n            failures += 1\n'
)
BACKUP_LOOP_EDITED = BACKUP_LOOP.replace("dump_database(db)", "dump_database(db, timeout)").replace(
    "except subprocess.CalledProcessError as exc:",
    "except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:",
)


def test_a_handler_shown_catching_more_edits_its_clause_and_keeps_the_next() -> None:
    snippet = BACKUP_LOOP_EDIT + "# ... rest unchanged ...\n"
    # before: the edited `except` was new, replacing both of the original's
    assert merged(BACKUP_LOOP, snippet, language="python") == BACKUP_LOOP_EDITED


def test_clauses_after_the_last_one_shown_stay_when_a_marker_outside_follows() -> None:
    snippet = BACKUP_LOOP_EDIT + (
        "# ... existing code ...\n\n\ndef prune(days):\n    return cleanup(days, dry_run=False)\n"
    )
    expected = BACKUP_LOOP_EDITED.replace("cleanup(days)", "cleanup(days, dry_run=False)")
    assert merged(BACKUP_LOOP, snippet, language="python") == expected


def test_a_catch_shown_with_a_type_added_edits_that_catch() -> None:
    original = (
        "class Fetcher {\n    byte[] fetch(URI uri) {\n        try {\n            return client.get(uri);\n"
        '        } catch (IOException e) {\n            log.warn("fetch of {} failed", uri, e);\n'
        "            return null;\n        } catch (IllegalStateException e) {\n"
        "            throw new FetchError(uri, e);\n        }\n    }\n\n    void close() {\n"
        "        client.close();\n    }\n}\n"
    )
    snippet = (
        "class Fetcher {\n    byte[] fetch(URI uri) {\n        try {\n            return client.get(uri);\n"
        '        } catch (IOException | TimeoutException e) {\n            log.warn("fetch of {} failed", uri, e);\n'
        "            return null;\n        // ... other handlers ...\n    }\n    // ... rest unchanged ...\n}\n"
    )
    expected = original.replace("catch (IOException e)", "catch (IOException | TimeoutException e)")
    assert merged(original, snippet, language="java") == expected


def test_comments_between_a_block_ending_in_a_marker_and_the_next_item_stay() -> None:
    original = (
        "class Client:\n    def _getline(self):\n        line = self.file.readline()\n"
        "        if self._debugging: print('*get*', line)\n        if not line:\n            raise EOFError\n"
        "        return line.rstrip()\n\n"
        "    # Internal: get a response from the server.\n    # Raise error_proto unless it starts with '+'.\n\n"
        "    def _getresp(self):\n        resp = self._getline()\n"
        "        if self._debugging: print('*resp*', resp)\n        return resp\n"
    )
    snippet = (
        "class Client:\n    def _getline(self):\n        line = self.file.readline()\n"
        "        _log.debug('*get* %r', line)\n        if not line:\n            raise EOFError\n"
        "        # ... rest of _getline unchanged ...\n\n"
        "    def _getresp(self):\n        resp = self._getline()\n        _log.debug('*resp* %r', resp)\n"
        "        return resp\n"
    )
    expected = original.replace("if self._debugging: print('*get*', line)", "_log.debug('*get* %r', line)")
    expected = expected.replace("if self._debugging: print('*resp*', resp)", "_log.debug('*resp* %r', resp)")
    # before: the two comment lines were deleted, as if the snippet had closed up around them
    assert merged(original, snippet, language="python") == expected


CLIENT_SYNC = (
    "class Client:\n    def __init__(self, url):\n        self._http = httpx.Client(base_url=url)\n\n"
    "    def close(self):\n        self._http.close()\n\n    def __enter__(self):\n        return self\n\n"
    "    def __exit__(self, *exc):\n        self.close()\n\n    def _check(self, resp):\n"
    "        resp.raise_for_status()\n        return resp.json()\n\n    def get(self, key):\n"
    "        return self._check(self._http.get(key))\n"
)


def test_new_code_above_a_marker_naming_the_rest_replaces_its_counterparts() -> None:
    snippet = (
        "class Client:\n    def __init__(self, url):\n        self._http = httpx.AsyncClient(base_url=url)\n\n"
        "    async def aclose(self):\n        await self._http.aclose()\n\n"
        "    async def __aenter__(self):\n        return self\n\n    async def __aexit__(self, *exc):\n"
        "        await self.aclose()\n\n    # ... _check unchanged ...\n\n    async def get(self, key):\n"
        "        return self._check(await self._http.get(key))\n"
    )
    expected = (
        "class Client:\n    def __init__(self, url):\n        self._http = httpx.AsyncClient(base_url=url)\n\n"
        "    async def aclose(self):\n        await self._http.aclose()\n\n"
        "    async def __aenter__(self):\n        return self\n\n    async def __aexit__(self, *exc):\n"
        "        await self.aclose()\n\n    def _check(self, resp):\n        resp.raise_for_status()\n"
        "        return resp.json()\n\n    async def get(self, key):\n"
        "        return self._check(await self._http.get(key))\n"
    )
    # before: the sync close/__enter__/__exit__ stayed beside their async counterparts
    assert merged(CLIENT_SYNC, snippet, language="python") == expected


def test_new_code_above_a_marker_naming_the_rest_leaves_unlike_items_be() -> None:
    snippet = (
        "class Client:\n    def __init__(self, url):\n        self._http = httpx.Client(base_url=url)\n\n"
        "    def ping(self):\n        return self._http.get('/ping').is_success\n\n"
        "    # ... _check unchanged ...\n\n    def get(self, key):\n"
        "        return self._check(self._http.get(key, timeout=5))\n"
    )
    expected = CLIENT_SYNC.replace(
        "    def close(self):",
        "    def ping(self):\n        return self._http.get('/ping').is_success\n\n    def close(self):",
    ).replace("self._http.get(key)", "self._http.get(key, timeout=5)")
    assert merged(CLIENT_SYNC, snippet, language="python") == expected


CART_TESTS = (
    "describe('Cart', () => {\n  it('starts empty', () => {\n    const cart = new Cart();\n"
    "    expect(cart.total()).toBe(0);\n  });\n\n  it('sums line totals', () => {\n    const cart = new Cart();\n"
    "    cart.add({ sku: 'A1', price: 250, qty: 2 });\n    cart.add({ sku: 'B2', price: 1000, qty: 1 });\n"
    "    console.log(cart.items);\n    expect(cart.total()).toBe(1500);\n  });\n\n  it('merges skus', () => {\n"
    "    const cart = new Cart();\n    cart.add({ sku: 'A1', price: 250, qty: 1 });\n"
    "    cart.add({ sku: 'A1', price: 250, qty: 3 });\n    expect(cart.total()).toBe(1000);\n  });\n});\n"
)


def test_lines_the_original_has_once_pick_the_block_among_look_alikes() -> None:
    snippet = (
        "// ... existing code ...\n    cart.add({ sku: 'B2', price: 1000, qty: 1 });\n"
        "    expect(cart.total()).toBe(1500);\n// ... existing code ...\n"
    )
    # before: three tests hold `cart.add(` and `expect(`: several candidates
    assert merged(CART_TESTS, snippet, language="typescript") == CART_TESTS.replace(
        "    console.log(cart.items);\n", ""
    )


def test_one_line_the_original_has_once_does_not_pick_a_block_alone() -> None:
    snippet = (
        "// ... existing code ...\n    const cart = new Cart();\n    cart.add({ sku: 'B2', price: 1000, qty: 1 });\n"
        "    cart.clear();\n// ... existing code ...\n"
    )
    ambiguous(CART_TESTS, snippet, language="typescript")


def test_a_line_once_under_the_same_header_picks_the_block_among_look_alikes() -> None:
    original = (
        "impl fmt::Display for ConfigError {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n"
        '        match self {\n            ConfigError::Missing(key) => write!(f, "missing key `{key}`"),\n'
        '            ConfigError::Io(err) => write!(f, "could not read config: {err}"),\n        }\n    }\n}\n\n'
        "impl std::error::Error for ConfigError {\n    fn source(&self) -> Option<&(dyn Error + 'static)> {\n"
        "        match self {\n            ConfigError::Io(err) => Some(err),\n            _ => None,\n        }\n"
        "    }\n}\n"
    )
    snippet = (
        "// ... existing code ...\n        match self {\n"
        '            ConfigError::MissingKey(key) => write!(f, "missing key `{key}`"),\n'
        '            ConfigError::Io(err) => write!(f, "could not read config: {err}"),\n// ... existing code ...\n'
    )
    expected = original.replace("ConfigError::Missing(key)", "ConfigError::MissingKey(key)")
    assert merged(original, snippet, language="rust") == expected


SETTINGS = (
    'import os\n\nBATCH_SIZE = int(os.environ.get("INGEST_BATCH_SIZE", "200"))\n'
    'POLL_SECS = float(os.environ.get("INGEST_POLL_SECS", "2.5"))\n\nDATA_DIR = "data"\n\n\n'
    'def worker_options():\n    return {\n        "batch_size": BATCH_SIZE,\n        "poll": POLL_SECS,\n'
    '        "data": DATA_DIR,\n    }\n'
)


def test_a_constant_renamed_where_it_is_used_too_is_an_edit() -> None:
    snippet = (
        '# ... existing code ...\nBATCH_SIZE = int(os.environ.get("INGEST_BATCH_SIZE", "200"))\n'
        'POLL_INTERVAL = float(os.environ.get("INGEST_POLL_SECS", "2.5"))\n# ... existing code ...\n'
        '        "batch_size": BATCH_SIZE,\n        "poll": POLL_INTERVAL,\n# ... existing code ...\n'
    )
    # before: a new constant beside POLL_SECS, or POLL_SECS renamed? Ambiguous
    expected = SETTINGS.replace("POLL_SECS =", "POLL_INTERVAL =").replace(": POLL_SECS", ": POLL_INTERVAL")
    assert merged(SETTINGS, snippet, language="python") == expected


def test_a_constant_under_a_new_name_used_nowhere_shown_may_be_a_copy() -> None:
    snippet = (
        '# ... existing code ...\nBATCH_SIZE = int(os.environ.get("INGEST_BATCH_SIZE", "200"))\n'
        'POLL_INTERVAL = float(os.environ.get("INGEST_POLL_SECS", "2.5"))\n# ... existing code ...\n'
    )
    ambiguous(SETTINGS, snippet, language="python")


def test_a_decorator_left_out_below_shown_code_is_deleted() -> None:
    original = (
        "@base.Hidden\n@base.ReleaseTracks(base.ReleaseTrack.GA)\nclass Peer(base.Command):\n"
        "    def Run(self, args):\n        volume = client.Peer(args.name)\n        return volume\n\n\n"
        "@base.Hidden\n@base.ReleaseTracks(base.ReleaseTrack.BETA)\nclass PeerBeta(Peer):\n"
        '    """Peer, in beta."""\n'
    )
    snippet = (
        "# ... existing code ...\n        volume = client.Peer(args.name)\n        return volume\n\n\n"
        '@base.ReleaseTracks(base.ReleaseTrack.BETA)\nclass PeerBeta(Peer):\n    """Peer, in beta."""\n'
    )
    expected = original.replace(
        "@base.Hidden\n@base.ReleaseTracks(base.ReleaseTrack.BETA)",
        "@base.ReleaseTracks(base.ReleaseTrack.BETA)",
    )
    # before: shown below code, the decorator left out was taken for elided by a marker
    assert merged(original, snippet, language="python") == expected


def test_a_typescript_field_made_optional_is_an_edit_of_that_field() -> None:
    original = (
        "export class SocialLinksDto {\n  @IsString()\n  @IsUrl({ require_protocol: true })\n  website!: string;\n\n"
        "  @IsString()\n  @IsUrl({ require_protocol: true })\n  github!: string;\n}\n"
    )
    snippet = (
        "export class SocialLinksDto {\n  // ... website unchanged ...\n\n  @IsOptional()\n  @IsString()\n"
        "  @IsUrl({ require_protocol: true })\n  github?: string;\n}\n"
    )
    expected = original.replace(
        "  @IsString()\n  @IsUrl({ require_protocol: true })\n  github!:",
        "  @IsOptional()\n  @IsString()\n  @IsUrl({ require_protocol: true })\n  github?:",
    )
    # before: `github?:` and `github!:` had different keys, so the field was written twice
    assert merged(original, snippet, language="typescript") == expected
    assert signature_key("readonly github?: string;", "typescript") == "github"
    assert signature_key("id!: number;", "typescript") == "id"


def test_a_clause_header_the_snippet_ends_on_keeps_its_body() -> None:
    original = (
        '<ul>\n  {#each members as member (member.id)}\n    <li>\n      <img src={member.avatar} alt="" />\n\n'
        "      {#if member.pending}\n"
        '        <span class="badge">Invited</span>\n        {#if isOwner}\n          <button class="link">Revoke</button>\n        {/if}\n'
        "      {:else if member.role === 'owner'}\n        <span class=\"badge badge--owner\">Owner</span>\n"
        "      {:else}\n        <span>{member.role}</span>\n      {/if}\n    </li>\n  {/each}\n</ul>\n"
    )
    snippet = (
        "  {#each members as member (member.id)}\n    <li>\n      <!-- ... avatar ... -->\n\n"
        "      {#if member.pending}\n"
        '        <span class="badge">Invited</span>\n        {#if isOwner}\n          <button class="link link--danger">Revoke</button>\n        {/if}\n'
        "      {:else if member.role === 'owner'}\n"
    )
    expected = original.replace('"link">Revoke', '"link link--danger">Revoke')
    # before: cut off at the clause's header, the snippet deleted the clause's body
    assert merged(original, snippet, language="svelte") == expected


def test_a_file_scoped_namespace_shown_renamed_edits_the_original_one() -> None:
    original = (
        "using System;\nusing System.Linq;\n\nnamespace Acme.Orders;\n\npublic sealed class OrderProcessor\n{\n"
        "    public int Count { get; }\n}\n"
    )
    snippet = (
        "using System;\nusing System.Diagnostics;\nusing System.Linq;\n\nnamespace Acme.Orders.Processing;\n\n"
        "// ... rest of file unchanged ...\n"
    )
    expected = original.replace("using System;\n", "using System;\nusing System.Diagnostics;\n").replace(
        "namespace Acme.Orders;", "namespace Acme.Orders.Processing;"
    )
    # before: a second namespace statement beside the first
    assert merged(original, snippet, language="csharp") == expected


def test_a_package_shown_renamed_edits_the_original_one() -> None:
    original = "package com.acme.text;\n\nimport java.util.List;\n\npublic final class Words {\n}\n"
    snippet = "package com.acme.common.text;\n\n// ... rest unchanged ...\n"
    expected = original.replace("com.acme.text", "com.acme.common.text")
    assert merged(original, snippet, language="java") == expected


def test_new_code_to_the_snippets_last_marker_replaces_its_counterpart_above_the_items_named() -> None:
    original = (
        "const TERMINAL = new Set([Status.Done]);\n\n/**\n * The label shown in the list.\n */\n"
        "export function statusLabel(status: Status): string {\n  switch (status) {\n"
        '    case Status.Open:\n      return "Open";\n    default:\n      return "Done";\n  }\n}\n\n'
        "export function statusTone(status: Status): Tone {\n  return TONES[status];\n}\n\n"
        "export function isTerminal(status: Status): boolean {\n  return TERMINAL.has(status);\n}\n"
    )
    snippet = (
        "// ... existing code ...\nconst TERMINAL = new Set([Status.Done]);\n\n"
        "const LABELS: Record<Status, string> = {\n"
        '  [Status.Open]: "Open",\n  [Status.Done]: "Done",\n};\n\n'
        "/**\n * The label shown in the list.\n */\n"
        "export const statusLabel = (status: Status): string => LABELS[status];\n\n"
        "// ... statusTone, etc. unchanged ...\n"
    )
    expected = (
        "const TERMINAL = new Set([Status.Done]);\n\n"
        "const LABELS: Record<Status, string> = {\n"
        '  [Status.Open]: "Open",\n  [Status.Done]: "Done",\n};\n\n'
        "/**\n * The label shown in the list.\n */\n"
        "export const statusLabel = (status: Status): string => LABELS[status];\n\n"
        "export function statusTone(status: Status): Tone {\n  return TONES[status];\n}\n\n"
        "export function isTerminal(status: Status): boolean {\n  return TERMINAL.has(status);\n}\n"
    )
    # before: the old `function statusLabel` stayed below the new one
    assert merged(original, snippet, language="typescript") == expected


FILTER = (
    'import os\n\n\ndef filter(names, pat):\n    """The names that match pat."""\n    result = []\n'
    "    pat = os.path.normcase(pat)\n    match = compile_pattern(pat)\n    if os.path is posixpath:\n"
    "        # normcase on posix is a no-op: leave it out of the loop\n"
    "        for name in names:\n            if match(name):\n                result.append(name)\n    else:\n"
    "        for name in names:\n            if match(os.path.normcase(name)):\n                result.append(name)\n"
    "    return result\n\n\ndef fnmatchcase(name, pat):\n    return compile_pattern(os.fspath(pat))(name) is not None\n"
)


NEW_FILTER_BODY = (
    "    match = compile_pattern(os.path.normcase(pat))\n    # normcase is a no-op on posix: skip it there.\n"
    "    normcase = None if os.path is posixpath else os.path.normcase\n"
    "    return [name for name in names\n            if match(name if normcase is None else normcase(name))]\n"
)


def test_a_python_function_shown_whole_above_the_next_one_is_rewritten_however_short() -> None:
    snippet = (
        '# ... imports ...\n\n\ndef filter(names, pat):\n    """The names that match pat."""\n'
        + NEW_FILTER_BODY
        + "\n\ndef fnmatchcase(name, pat):\n    # ... unchanged ...\n"
    )
    start, end = FILTER.index("    result = []"), FILTER.index("\n\n\ndef fnmatchcase")
    expected = FILTER[:start] + NEW_FILTER_BODY.rstrip("\n") + FILTER[end:]
    # before: 13 lines deleted for 5 written, unexplained
    assert merged(FILTER, snippet, language="python") == expected


def test_a_line_shown_quoted_anew_edits_the_original_line() -> None:
    original = (
        '#!/bin/bash\nset -eo pipefail\n\nROOT=$(dirname "$0")\n\n# Work from the project root.\ncd $ROOT\n\n'
        "nox -s lint\nnox -s tests\n"
    )
    snippet = '#!/bin/bash\n# ... existing code ...\n# Work from the project root.\ncd "$ROOT"\n\n# ... rest unchanged ...\n'
    # before: `cd "$ROOT"` a new line beside `cd $ROOT`, or its edit? Ambiguous
    assert merged(original, snippet, language="bash") == original.replace("cd $ROOT", 'cd "$ROOT"')


def test_a_lua_method_is_known_by_its_name_after_the_colon() -> None:
    assert signature_key("function M:dump(path)", "lua") == "function M:dump"
    assert signature_key("module Foo::Bar", "ruby") == "module Foo"  # no name after a lone `:`
    original = (
        'local config = require("app.config")\nlocal log = require("app.log")\n\nlocal M = {}\n\n'
        "function M:get(key)\n  return self.items[key]\nend\n\nfunction M:keys()\n  return sorted(self.items)\nend\n\n"
        "return M\n"
    )
    snippet = (
        "-- ... existing code ...\n\nfunction M:dump(path)\n  local fh = assert(io.open(path, 'w'))\n"
        "  fh:write(encode(self.items))\n  fh:close()\nend\n\nreturn M\n"
    )
    expected = original.replace(
        "\nreturn M\n",
        "\nfunction M:dump(path)\n  local fh = assert(io.open(path, 'w'))\n  fh:write(encode(self.items))\n"
        "  fh:close()\nend\n\nreturn M\n",
    )
    # before: `function M` was the key of every method, so the new one might edit any of them
    assert merged(original, snippet, language="lua") == expected


def test_a_member_added_below_the_last_line_of_the_last_method_shown_closed_up() -> None:
    original = (
        "using System;\nusing System.Linq;\n\nnamespace Acme.Text\n{\n    public static class Words\n    {\n        public static int Count(string s)\n"
        "        {\n            return Split(s).Length;\n        }\n\n        private static string[] Split(string s)\n"
        "        {\n            var trimmed = s.Trim();\n            return trimmed.Split(' ', StringSplitOptions.RemoveEmptyEntries);\n"
        "        }\n    }\n}\n"
    )
    snippet = (
        "using System;\nusing System.Linq;\n\n// ... existing code ...\n\n            return trimmed.Split(' ', StringSplitOptions.RemoveEmptyEntries);\n"
        "        }\n\n        public static string Initials(string s) =>\n"
        "            string.Concat(Split(s).Select(w => w[0]));\n    }\n}\n"
    )
    expected = original.replace(
        "        }\n    }\n}\n",
        "        }\n\n        public static string Initials(string s) =>\n"
        "            string.Concat(Split(s).Select(w => w[0]));\n    }\n}\n",
    )
    # before: shown from the last method's last line on, the code seemed to end the class early
    assert merged(original, snippet, language="csharp") == expected


def test_a_typescript_method_made_async_is_the_same_method() -> None:
    assert signature_key("async read(key: string): Promise<Buffer | null> {", "typescript") == "read"
    assert signature_key("private async load(id) {", "typescript") == "load"
    assert signature_key("static create(x) {", "typescript") == "static create"  # another member
    original = (
        "export class FileCache {\n  stats(): Stats {\n    return { hits: this.hits };\n  }\n\n"
        "  read(key: string, cb: Callback<Buffer>): void {\n    fs.readFile(this.fileFor(key), (err, data) => {\n"
        "      if (err) return cb(err);\n      this.hits++;\n      cb(null, data);\n    });\n  }\n\n"
        "  clear(cb: Callback<void>): void {\n    fs.rm(this.root, { recursive: true }, cb);\n  }\n}\n"
    )
    snippet = (
        "export class FileCache {\n  // ... stats unchanged ...\n\n  async read(key: string): Promise<Buffer> {\n"
        "    const data = await fs.promises.readFile(this.fileFor(key));\n    this.hits++;\n    return data;\n  }\n\n"
        "  // ... clear unchanged ...\n}\n"
    )
    start, end = original.index("  read(key"), original.index("\n\n  clear(")
    expected = (
        original[:start]
        + "  async read(key: string): Promise<Buffer> {\n    const data = await fs.promises.readFile(this.fileFor(key));\n"
        + "    this.hits++;\n    return data;\n  }"
        + original[end:]
    )
    # before: `async read` and `read` had different keys: new code between two markers, unplaced
    assert merged(original, snippet, language="typescript") == expected


def test_runs_in_two_blocks_apart_need_no_marker_at_the_snippets_ends() -> None:
    original = (
        "<!DOCTYPE html>\n<html>\n<head>\n  <title>Status</title>\n  <style>\n    .ok { color: green; }\n"
        '    .down { color: red; }\n  </style>\n</head>\n<body>\n  <h1 id="banner">Status</h1>\n  <script>\n'
        "    const POLL_MS = 30000;\n    setInterval(refresh, POLL_MS);\n  </script>\n</body>\n</html>\n"
    )
    snippet = (
        "  <style>\n    .ok { color: green; }\n    .down { color: red; font-weight: bold; }\n  </style>\n"
        "<!-- ... -->\n  <script>\n    const POLL_MS = 15000;\n    setInterval(refresh, POLL_MS);\n  </script>\n"
    )
    expected = original.replace("red; }", "red; font-weight: bold; }").replace("30000", "15000")
    # before: <head> and <body> each hold one run, so neither was the one block for the snippet
    assert merged(original, snippet, language="html") == expected


SYMBOLS = (
    "struct FilePresentation {\n    let url: URL\n\n    var symbolName: String {\n        switch url.pathExtension {\n"
    + "".join(
        f'        case "{ext}":\n            return "{sym}"\n'
        for ext, sym in [
            ("pdf", "doc.richtext"),
            ("txt", "doc.text"),
            ("png", "photo"),
            ("mov", "film"),
            ("mp3", "waveform"),
        ]
    )
    + '        default:\n            return "doc"\n        }\n    }\n\n    var isPreviewable: Bool {\n'
    + '        symbolName != "doc"\n    }\n}\n'
)


def test_a_code_block_shown_whole_and_mostly_new_is_rewritten_however_short() -> None:
    snippet = (
        "struct FilePresentation {\n    // ... existing code ...\n\n    var symbolName: String {\n"
        '        Self.symbols[url.pathExtension, default: "doc"]\n    }\n\n    // ... existing code ...\n}\n'
    )
    start, end = SYMBOLS.index("        switch url"), SYMBOLS.index("    }\n\n    var isPreviewable")
    expected = SYMBOLS[:start] + '        Self.symbols[url.pathExtension, default: "doc"]\n' + SYMBOLS[end:]
    # before: 13 lines deleted for one written, unexplained
    assert merged(SYMBOLS, snippet, language="swift") == expected


def test_a_type_shown_whole_with_one_new_member_may_be_cut_short() -> None:
    snippet = 'struct FilePresentation {\n    var isHidden: Bool {\n        url.lastPathComponent.hasPrefix(".")\n    }\n}\n'
    assert ambiguous(SYMBOLS, snippet, language="swift").reasons[0].code == "unexplained_deletion"


REPORTS = (
    "public sealed class Reports\n{\n    public List<Summary> TopCustomers(int days, int limit)\n    {\n"
    "        var totals = new Dictionary<string, Summary>();\n        foreach (var order in Recent(days))\n        {\n"
    "            totals[order.CustomerId] = totals.GetValueOrDefault(order.CustomerId).Add(order);\n        }\n"
    "        var list = totals.Values.ToList();\n        list.Sort((a, b) => b.Revenue.CompareTo(a.Revenue));\n"
    "        return list.Take(limit).ToList();\n    }\n\n    public decimal Revenue(int days)\n    {\n"
    "        return Recent(days).Sum(o => o.Total);\n    }\n}\n"
)


def test_a_method_shown_with_another_return_type_edits_the_original_method() -> None:
    snippet = (
        "// ... existing code ...\n    public IReadOnlyList<Summary> TopCustomers(int days, int limit)\n    {\n"
        "        return Recent(days).GroupBy(o => o.CustomerId).Select(Summary.Of)\n"
        "            .OrderByDescending(s => s.Revenue).Take(limit).ToList();\n    }\n\n"
        "    // ... Revenue unchanged ...\n}\n"
    )
    start, end = REPORTS.index("    public List<Summary>"), REPORTS.index("\n\n    public decimal Revenue")
    expected = (
        REPORTS[:start]
        + "    public IReadOnlyList<Summary> TopCustomers(int days, int limit)\n    {\n"
        + "        return Recent(days).GroupBy(o => o.CustomerId).Select(Summary.Of)\n"
        + "            .OrderByDescending(s => s.Revenue).Take(limit).ToList();\n    }"
        + REPORTS[end:]
    )
    # before: its key (return type and name) matched nothing in the original
    assert merged(REPORTS, snippet, language="csharp") == expected


def test_a_cpp_template_line_belongs_to_the_declaration_below_it() -> None:
    specialization = "template <>\nstruct hash<geo::{0}> {{\n  std::size_t operator()(const geo::{0}& v) const noexcept {{\n    return v.id;\n  }}\n}};\n"
    original = (
        "namespace std {\n\n"
        + "\n".join(specialization.format(t) for t in ("Point", "Box", "Tile"))
        + "\n}  // namespace std\n"
    )
    snippet = (
        "template <>\nstruct hash<geo::Point> {\n  // ...\n};\n\n"
        + specialization.format("Segment")
        + "\n// ... Box and Tile unchanged ...\n\n}  // namespace std\n"
    )
    expected = original.replace(
        "template <>\nstruct hash<geo::Box>",
        specialization.format("Segment") + "\ntemplate <>\nstruct hash<geo::Box>",
    )
    # before: the new struct took the `template <>` line of the one below, which lost it; and each
    # specialization had the key `struct hash`, so the new one might have edited any
    assert merged(original, snippet, language="cpp") == expected


def test_a_log_call_shown_at_another_level_edits_the_original_call() -> None:
    original = (
        "def acquire(self, host, tokens=1):\n    while True:\n        wait = self.bucket(host).time_until(tokens)\n"
        "        if wait <= 0:\n            return\n        if self.deadline_passed(wait):\n"
        "            raise RateLimitExceeded(host, wait)\n"
        '        log.debug("rate limited on %s, sleeping %.3fs", host, wait)\n        self._sleep(wait)\n'
    )
    snippet = (
        "def acquire(self, host, tokens=1):\n    # ... existing code ...\n"
        '        log.info("rate limited on %s, sleeping %.3fs", host, wait)\n        self._sleep(wait)\n'
    )
    # before: a new `log.info` line above the `log.debug` one it replaces
    assert merged(original, snippet, language="python") == original.replace("log.debug", "log.info")


def test_access_labels_half_a_unit_in_are_no_step_of_the_indent_unit() -> None:
    original = (
        "class Locker {\n public:\n  explicit Locker(Isolate* isolate);\n  ~Locker();\n\n private:\n"
        "  void Initialize(Isolate* isolate);\n\n  bool has_lock_;\n  internal::Isolate* isolate_;\n};\n"
    )
    snippet = (
        "class Locker {\n  // ... public API unchanged ...\n\n private:\n  void Initialize(Isolate* isolate);\n\n"
        "  bool has_lock_;\n  bool was_unlocked_ = false;\n  internal::Isolate* isolate_;\n};\n"
    )
    expected = original.replace("  bool has_lock_;\n", "  bool has_lock_;\n  bool was_unlocked_ = false;\n")
    # before: ` private:` one space in made the snippet's unit one space, so its members went 4 in
    assert merged(original, snippet, language="cpp") == expected


TABLE_JS = (
    "module.exports = function (rows, opts) {\n  if (!opts) opts = {};\n  var hsep = opts.hsep || '  ';\n"
    "  var align = opts.align || [];\n  var sizes = widths(rows);\n\n  return map(rows, function (row) {\n"
    "    return map(row, function (c, ix) {\n      var n = sizes[ix] - c.length;\n      return c + pad(n);\n"
    "    }).join(hsep).replace(/\\s+$/, '');\n  }).join('\\n');\n};\n"
)


def test_a_marker_after_code_on_its_line_stands_below_that_code() -> None:
    snippet = (
        "module.exports = function (rows, opts) {\n  if (!opts) opts = {};\n"
        "  var hsep = opts.hsep || '  '; // ... rest of setup unchanged\n  var trimEnd = opts.trimEnd !== false;\n"
        "\n  return map(rows, function (row) {\n    var line = map(row, function (c, ix) { // ... padding unchanged\n"
        "    }).join(hsep);\n    return trimEnd ? line.replace(/\\s+$/, '') : line;\n  }).join('\\n');\n};\n"
    )
    expected = (
        TABLE_JS.replace(
            "  var sizes = widths(rows);\n",
            "  var sizes = widths(rows);\n  var trimEnd = opts.trimEnd !== false;\n",
        )
        .replace(
            "    return map(row, function (c, ix) {\n",
            "    var line = map(row, function (c, ix) {\n",
        )
        .replace(
            "    }).join(hsep).replace(/\\s+$/, '');\n",
            "    }).join(hsep);\n    return trimEnd ? line.replace(/\\s+$/, '') : line;\n",
        )
    )
    # before: the comment was code with an elision comment, written into the file: ambiguous
    assert merged(TABLE_JS, snippet, language="javascript") == expected


def test_a_line_glued_below_a_marker_joins_the_glued_lines_it_elides() -> None:
    original = (
        "class Sorter:\n    def __init__(self, graph=None):\n        self._node2info = {}\n"
        "        self._ready_nodes = None\n        self._nfinished = 0\n\n        if graph is not None:\n"
        "            self.load(graph)\n"
    )
    snippet = (
        "    def __init__(self, graph=None):\n        self._node2info = {}\n        # ... other counters unchanged\n"
        "        self._nedges = 0\n\n        if graph is not None:\n            self.load(graph)\n"
    )
    expected = original.replace(
        "        self._nfinished = 0\n", "        self._nfinished = 0\n        self._nedges = 0\n"
    )
    # before: the blank line above the anchor went above the new line too
    assert merged(original, snippet, language="python") == expected


def test_a_new_import_above_a_marker_naming_the_items_below_replaces_no_import() -> None:
    original = (
        "import sys\nfrom datetime import datetime\nfrom pathlib import Path\n\nlogger = logging.getLogger(__name__)\n\n"
        'SCHEMA = "CREATE TABLE t (x)"\n\n\ndef main():\n    return 0\n'
    )
    snippet = (
        "import sys\nfrom datetime import datetime\nfrom logging.handlers import RotatingFileHandler\n"
        "# ... logger and SCHEMA unchanged ...\n\n\ndef main():\n    return 0\n"
    )
    expected = original.replace(
        "from pathlib import Path\n",
        "from logging.handlers import RotatingFileHandler\nfrom pathlib import Path\n",
    )
    # before: both keys end in `import`, so the new import was taken for the counterpart of `from
    # pathlib import Path`, which it replaced
    assert merged(original, snippet, language="python") == expected


def test_an_import_left_out_of_a_block_yet_still_used_is_not_deleted() -> None:
    original = (
        'package api\n\nimport (\n\t"encoding/json"\n\t"net/http"\n\t"strconv"\n)\n\n'
        'func (a *API) list(w http.ResponseWriter, r *http.Request) {\n\tn, _ := strconv.Atoi(r.URL.Query().Get("n"))\n'
        "\tjson.NewEncoder(w).Encode(a.items[:n])\n}\n"
        + "".join(
            f"\nfunc (a *API) get{i}(w http.ResponseWriter, r *http.Request) {{\n"
            f'\tid, _ := strconv.Atoi(r.PathValue("id"))\n\tjson.NewEncoder(w).Encode(a.items[id+{i}])\n}}\n'
            for i in range(4)
        )
    )
    snippet = (
        'package api\n\nimport (\n\t"net/http"\n)\n\n'
        "func (a *API) archive(w http.ResponseWriter, r *http.Request) {\n\tw.WriteHeader(http.StatusNoContent)\n}\n"
    )
    # before: `encoding/json` and `strconv` were deleted though `list` still uses them
    assert ambiguous(original, snippet, language="go").reasons[0].code == "unexplained_deletion"
    edited = snippet.replace('\t"net/http"\n', '\t"encoding/json"\n\t"net/http"\n\t"strconv"\n')
    assert "archive" in merged(original, edited, language="go")  # all kept: no complaint


def test_a_sql_definition_over_several_lines_is_one_item_up_to_its_semicolon() -> None:
    function = "CREATE FUNCTION {0}(text)\nRETURNS setof {1}\nAS 'MODULE_PATHNAME','{2}'\nLANGUAGE C STABLE STRICT;\n"
    original = "\n".join(
        [
            function.format("crosstab3", "crosstab_3", "crosstab"),
            function.format("crosstab4", "crosstab_4", "crosstab"),
            "-- obsolete:\n" + function.format("crosstab", "record", "crosstab"),
            function.format("connectby", "record", "connectby_text"),
        ]
    )
    snippet = (
        "-- ... existing code ...\n\n"
        + function.format("crosstab4", "crosstab_4", "crosstab")
        + "\n"
        + function.format("crosstab5", "crosstab_5", "crosstab")
        + "\n-- ... existing code ...\n"
    )
    expected = original.replace(
        "\n-- obsolete:", "\n" + function.format("crosstab5", "crosstab_5", "crosstab") + "\n-- obsolete:"
    )
    # before: each line an item, the new function's lines were aligned with the obsolete one's
    assert merged(original, snippet, language="sql") == expected


def test_an_annotated_declaration_on_one_line_is_no_prefix_of_the_next() -> None:
    original = (
        "data class EpisodeEntity(\n    @PrimaryKey val guid: String,\n    val title: String,\n"
        '    @ColumnInfo(name = "audio_url") val audioUrl: String,\n'
        '    @ColumnInfo(name = "published_at") val publishedAt: Instant,\n    val explicit: Boolean,\n'
        '    @ColumnInfo(name = "is_played") val isPlayed: Boolean = false,\n)\n'
    )
    snippet = (
        "data class EpisodeEntity(\n    // ...\n"
        '    @ColumnInfo(name = "published_at") val publishedAt: Instant,\n'
        '    @ColumnInfo(name = "duration_seconds") val durationSeconds: Int?,\n    val explicit: Boolean,\n'
        "    // ...\n)\n"
    )
    expected = original.replace(
        "    val explicit: Boolean,\n",
        '    @ColumnInfo(name = "duration_seconds") val durationSeconds: Int?,\n    val explicit: Boolean,\n',
    )
    # before: the two `@ColumnInfo(...) val ...` lines were read as annotations of `val explicit`,
    # and the parameters above them deleted
    assert merged(original, snippet, language="kotlin") == expected
    assert annotations_alone('@GetMapping("/x")') and annotations_alone("@app.route(")
    assert not annotations_alone('@ColumnInfo(name = "x") val x: Int,')


def test_an_import_of_one_name_beside_another_from_the_same_package_is_new() -> None:
    original = (
        "package app\n\nimport androidx.compose.material3.Card\nimport androidx.compose.material3.MaterialTheme\n"
        "import androidx.compose.material3.Text\nimport androidx.compose.runtime.Composable\n\n"
        "@Composable\nfun Note(title: String) {\n    Card { Text(title) }\n}\n"
    )
    snippet = (
        "import androidx.compose.material3.Card\nimport androidx.compose.material3.Icon\n// ...\n\n"
        "@Composable\nfun Note(title: String) {\n    Card { Text(title); Icon(pin) }\n}\n"
    )
    expected = original.replace(
        "material3.Card\n", "material3.Card\nimport androidx.compose.material3.Icon\n"
    ).replace("Card { Text(title) }", "Card { Text(title); Icon(pin) }")
    # before: `import ...material3.Icon` might have edited `import ...material3.MaterialTheme`
    assert merged(original, snippet, language="kotlin") == expected


def test_a_callback_call_shown_with_other_parameters_is_written_over_its_elided_original() -> None:
    original = (
        "<script setup>\nconst isDirty = ref(false);\n\nonMounted(() => load());\n\n"
        "onBeforeRouteLeave(() => {\n  if (!isDirty.value) {\n    return true;\n  }\n"
        "  return window.confirm('Discard changes?');\n});\n</script>\n"
    )
    snippet = (
        "<script setup>\n// ... existing code ...\n\nonBeforeRouteLeave((to) => {\n"
        "  if (!isDirty.value || to.query.force === '1') {\n    return true;\n  }\n"
        "  return window.confirm('Discard changes?');\n});\n</script>\n"
    )
    # the outline wrote a second guard beside the first, which stayed, and is refused; the hunk
    # reader reads both shown lines as restating the two above `return true;`, and replaces them
    expected = original.replace(
        "(() => {\n  if (!isDirty.value) {", "((to) => {\n  if (!isDirty.value || to.query.force === '1') {"
    )
    assert merged(original, snippet, language="vue") == expected


def test_code_less_indented_than_a_fragment_is_never_taken_into_the_fragments_block() -> None:
    original = (
        "use std::time::Duration;\nuse tokio::sync::mpsc;\n\npub struct Batcher {\n    buffer: Vec<Event>,\n}\n\n"
        "impl Batcher {\n    pub fn new() -> Self {\n        Self { buffer: Vec::new() }\n    }\n\n"
        "    pub async fn run(mut self, mut rx: mpsc::Receiver<Event>) {\n        while let Some(e) = rx.recv().await {\n"
        "            self.buffer.push(e);\n        }\n    }\n}\n"
    )
    snippet = (
        "use tokio::sync::{mpsc, watch};\n\n// ... existing code ...\n\n"
        "    pub async fn run(mut self, mut rx: mpsc::Receiver<Event>, stop: watch::Receiver<bool>) {\n"
        "        while let Some(e) = rx.recv().await {\n            self.buffer.push(e);\n        }\n    }\n"
    )
    # before: the `use` line was written inside `impl Batcher`, above `new`, the old one kept; read
    # as hunks, it rewrites the one `use` line much like it
    expected = original.replace("use tokio::sync::mpsc;", "use tokio::sync::{mpsc, watch};").replace(
        "rx: mpsc::Receiver<Event>)", "rx: mpsc::Receiver<Event>, stop: watch::Receiver<bool>)"
    )
    assert merged(original, snippet, language="rust") == expected


def test_a_new_block_holding_the_elided_line_right_above_it_is_ambiguous() -> None:
    original = (
        '#!/usr/bin/env bash\nset -e\nBUILD_PATH="$(mktemp -d)"\n\nbuild "${BUILD_PATH}"\nSTATUS=$?\n\n'
        'rm -fr "${BUILD_PATH}"\n\nexit "${STATUS}"\n'
    )
    snippet = (
        '#!/usr/bin/env bash\n# ... existing code ...\n\nif [ -n "${KEEP_BUILD_PATH}" ]; then\n'
        '  echo "build directory kept at ${BUILD_PATH}" 1>&2\nelse\n  rm -fr "${BUILD_PATH}"\nfi\n\nexit "${STATUS}"\n'
    )
    # before: the `if` was written below the `rm` line it wraps, which stayed
    assert ambiguous(original, snippet, language="bash").reasons[0].code == "moved_or_copied"


def test_a_comment_left_out_below_new_code_that_replaced_the_lines_above_it_goes_with_them() -> None:
    original = (
        "class Lexer:\n    def get_token(self):\n        if self.pushback:\n            return self.pushback.pop()\n"
        "        raw = self.read_token()\n        if raw == self.source:\n            self.push_source(raw)\n"
        "            return self.get_token()\n        # Neither inclusion nor EOF\n        if self.debug:\n"
        '            print("token=" + raw)\n        return raw\n\n    def read_token(self):\n        return self.next()\n'
    )
    snippet = (
        "class Lexer:\n    def get_token(self):\n        while True:\n            if self.pushback:\n"
        "                return self.pushback.pop()\n            raw = self.read_token()\n"
        "            if raw != self.source:\n                break\n            self.push_source(raw)\n"
        '        if self.debug:\n            print("token=" + raw)\n        return raw\n\n'
        "    # ... read_token unchanged ...\n"
    )
    start, end = original.index("        if self.pushback:"), original.index("        if self.debug:")
    expected = (
        original[:start]
        + snippet[snippet.index("        while True:") : snippet.index("        if self.debug:")]
        + original[end:]
    )
    # before: `# Neither inclusion nor EOF` stayed, below the loop that replaced the code it spoke of
    assert merged(original, snippet, language="python") == expected


def test_a_line_shown_reassigning_beside_the_kept_original_is_ambiguous() -> None:
    """`s := setup(t)` shown where `s, teardown := setup(t)` stands: the outline wrote it above the
    kept original, `s` assigned twice. Edited (and `defer teardown()` deleted?), or new? Refused."""
    test = "func Test{}(t *testing.T) {{\n\ts, teardown := setup(t)\n\tdefer teardown()\n\n\ts.{}()\n}}\n"
    original = "package kv\n\n" + test.format("Put", "Put") + "\n" + test.format("Get", "Get")
    shown = "func Test{}(t *testing.T) {{\n\ts := setup(t)\n\n\t// ... existing code ...\n}}\n"
    snippet = shown.format("Put") + "\n" + shown.format("Get")
    result = merge(original, snippet, language="go")
    assert result.status == "ambiguous" and result.reasons[0].code == "edit_or_insertion"


def test_a_directive_shown_with_a_new_value_beside_the_kept_original_is_ambiguous() -> None:
    """`client_max_body_size 50m;` shown below a marker that elides `client_max_body_size 10m;`:
    the outline kept the old directive and wrote the new one below it. A guard's `return -errno;`
    above the function's `return 0;`, less indented, and a field beside a field are no such line."""
    original = (
        "server {\n    listen 443 ssl;\n    ssl_protocols TLSv1.2 TLSv1.3;\n\n    client_max_body_size 10m;\n\n"
        "    allow 203.0.113.0/24;\n    deny all;\n}\n"
    )
    snippet = (
        "server {\n    listen 443 ssl;\n    # ... ssl settings unchanged ...\n\n    client_max_body_size 50m;\n\n"
        "    allow 203.0.113.0/24;\n    deny all;\n}\n"
    )
    result = merge(original, snippet, language="text", path="nginx.conf")
    assert result.status == "ambiguous" and result.reasons[0].code == "edit_or_insertion"
    assert not reassigns("\treturn 0;", "\t\treturn -errno;")
    assert not reassigns("    private String name;", "    private String carrier;")


def test_a_line_shown_renamed_beside_the_kept_original_is_no_addition() -> None:
    """`private long rejectedTotal;` where `private long rejected;` stands, every use of `rejected`
    shown renamed: the outline added the field and kept the old one; refused, the hunk reader
    renames it. A method beside a like one stays an addition."""
    original = (
        "public class Window {\n    private final int limit;\n    private long rejected;\n    private long accepted;\n\n"
        "    public Window(int limit) {\n        this.limit = limit;\n    }\n\n    void reject() {\n        rejected++;\n    }\n\n"
        "    long total() {\n        return rejected + accepted;\n    }\n}\n"
    )
    snippet = (
        "public class Window {\n    private final int limit;\n    private long rejectedTotal;\n    // ... existing code ...\n"
        "    void reject() {\n        rejectedTotal++;\n    }\n\n    long total() {\n        return rejectedTotal + accepted;\n"
        "    }\n}\n"
    )
    assert merged(original, snippet, language="java") == original.replace("rejected", "rejectedTotal")
    # the old name still in the snippet, but only in a string and on a line the original has as is
    text = '    public String toString() {\n        return "rejected=" + rejected;\n    }\n'
    described = original.replace("    long total", "    /** Of the rejected, how many. */\n    long total")
    described = described.replace("}\n}\n", "}\n\n" + text + "}\n")
    shown = snippet.replace("    long total", "    /** Of the rejected, how many. */\n    long total")
    shown = shown.replace("    }\n}\n", "    }\n\n" + text.replace("+ rejected", "+ rejectedTotal") + "}\n")
    result = merge(described, shown, language="java")
    assert result.status == "ambiguous" and result.reasons[0].code == "renamed_or_copied"
    added = "    void accept() {\n        accepted++;\n    }\n\n"
    snippet = (
        "public class Window {\n    // ... existing code ...\n"
        + added
        + "    long total() {\n    // ... existing code ...\n}\n"
    )
    assert merged(original, snippet, language="java") == original.replace(
        "    long total", added + "    long total"
    )


def test_a_body_marker_above_the_next_function_shown_keeps_what_is_between() -> None:
    """`# ... rest of the function ...` ending a body, the next function shown below it: the marker
    is the block's last line, no closer shown after it, so it elides what follows up to the next
    line shown, a function between them too, short or long. A closer shown below the marker ends
    what it elides: a function between that and the next one shown is deleted by closing up."""
    between = "def middle(b):\n" + "".join(f"    b = b + {k}\n" for k in range(10)) + "    return b\n\n\n"
    original = (
        "def first(a):\n    x = a + 1\n    y = x * 2\n    return y\n\n\n"
        + between
        + "def last(c):\n    return c\n"
    )
    snippet = (
        "def first(a):\n    x = a + 2\n    # ... rest of the function ...\n\ndef last(c):\n    return c - 1\n"
    )
    expected = original.replace("a + 1", "a + 2").replace("return c\n", "return c - 1\n")
    assert merged(original, snippet, language="python") == expected
    short = original.replace(between, "def middle(b):\n    return b\n\n\n")
    assert merged(short, snippet, language="python") == expected.replace(
        between, "def middle(b):\n    return b\n\n\n"
    )
    braced = (
        "function first(a) {\n  const x = a + 1;\n  return x;\n}\n\nfunction middle(b) {\n  return b;\n}\n\n"
    )
    braced += "function last(c) {\n  return c;\n}\n"
    closed = "function first(a) {\n  const x = a + 2;\n  // ... rest of the function ...\n}\n\n"
    closed += "function last(c) {\n  return c - 1;\n}\n"
    assert merged(braced, closed, language="javascript") == (
        "function first(a) {\n  const x = a + 2;\n  return x;\n}\n\nfunction last(c) {\n  return c - 1;\n}\n"
    )
    # the same closer elided: what it elides runs on past it, to the next function shown
    left_open = closed.replace(
        "  // ... rest of the function ...\n}\n", "  // ... rest of the function ...\n"
    )
    assert merged(braced, left_open, language="javascript") == braced.replace("a + 1", "a + 2").replace(
        "return c;", "return c - 1;"
    )


def test_a_condition_rewritten_over_the_same_body_is_an_edit_and_keeps_its_else() -> None:
    """`if isinstance(longopts, str):` over `longopts = [longopts]`, where `if type(longopts) ==
    type(""):` stands over that line: the condition rewritten, not a second check; the marker
    below elides the `else:` that continues it."""
    original = (
        "def getopt(args, longopts=()):\n    opts = []\n"
        '    if type(longopts) == type(""):\n        longopts = [longopts]\n'
        "    else:\n        longopts = list(longopts)\n    return opts, longopts\n"
    )
    snippet = (
        "def getopt(args, longopts=()):\n    opts = []\n    if isinstance(longopts, str):\n"
        "        longopts = [longopts]\n    # ... rest unchanged ...\n"
    )
    expected = original.replace('type(longopts) == type("")', "isinstance(longopts, str)")
    assert merged(original, snippet, language="python") == expected
    # over another name, the same line is a second check
    other = snippet.replace("isinstance(longopts, str)", "isinstance(args, str)")
    assert merged(original, other, language="python") != expected.replace(
        "isinstance(longopts", "isinstance(args"
    )


def test_a_call_of_a_new_helper_replaces_the_elided_lines_moved_into_it() -> None:
    """The guard now the body of `def _check_prepared(self):`, and `self._check_prepared()` shown
    below a marker where the guard stood: the call takes its place, blank lines and all."""
    guard = (
        '        if self._ready is None:\n            raise ValueError("prepare() must be called first")\n'
    )
    original = (
        "class Sorter:\n    def prepare(self):\n        self._ready = []\n\n"
        '    def get_ready(self):\n        """Return the ready nodes."""\n' + guard + "\n"
        "        # hand them out\n        result = tuple(self._ready)\n        return result\n\n"
        '    def done(self, node):\n        """Mark a node done."""\n'
        + guard
        + "        self._ready.remove(node)\n"
    )
    helper = "    def _check_prepared(self):\n" + guard + "\n"
    snippet = (
        "class Sorter:\n    def prepare(self):\n        self._ready = []\n\n"
        + helper
        + "    def get_ready(self):\n"
        "        # ... docstring unchanged ...\n        self._check_prepared()\n\n"
        "        # hand them out\n        # ... existing code ...\n\n    def done(self, node):\n"
        "        # ... docstring unchanged ...\n        self._check_prepared()\n        self._ready.remove(node)\n"
    )
    expected = original.replace(guard, "        self._check_prepared()\n")
    expected = expected.replace("    def get_ready", helper + "    def get_ready")
    assert merged(original, snippet, language="python") == expected
    # another call there: new beside the guard, which stays
    traced = snippet.replace(
        "self._check_prepared()\n        self._ready", "self._trace()\n        self._ready"
    )
    assert merged(original, traced, language="python").endswith(
        guard + "        self._trace()\n        self._ready.remove(node)\n"
    )


def test_lines_shown_below_a_loop_that_restate_the_lines_after_it_edit_them() -> None:
    """A marker, the end of a loop, then `self.print_topics(..., 15, self.width)` lines where
    `self.print_topics(..., 15,80)` lines follow the loop below `self.stdout.write(...)`: shown
    right below the loop, they edit those, and the line between them and the loop is deleted."""
    original = (
        "class Cmd:\n    def do_help(self, arg):\n        if arg:\n            self.show(arg)\n        else:\n"
        "            names = self.get_names()\n            for name in names:\n"
        "                if name.startswith('do_'):\n                    self.cmds.append(name)\n"
        "                else:\n                    self.undoc.append(name)\n"
        "            self.stdout.write(self.leader)\n"
        "            self.print_topics(self.doc_header, self.cmds, 15,80)\n"
        "            self.print_topics(self.undoc_header, self.undoc, 15,80)\n\n"
        "    def finish(self):\n        pass\n"
    )
    snippet = (
        "class Cmd:\n    def do_help(self, arg):\n        # ... existing code ...\n                else:\n"
        "                    self.undoc.append(name)\n"
        "            self.print_topics(self.doc_header, self.cmds, 15, self.width)\n"
        "            self.print_topics(self.undoc_header, self.undoc, 15, self.width)\n\n    # ... existing code ...\n"
    )
    expected = original.replace("            self.stdout.write(self.leader)\n", "").replace(
        "15,80", "15, self.width"
    )
    assert merged(original, snippet, language="python") == expected


def test_a_docstring_resumed_below_its_class_shown_above_the_marker_puts_back_only_its_head() -> None:
    """`class Report:`, `# ... docstring unchanged ...`, then the docstring's last lines: the
    elided head put back is the docstring's own, not the class line again (written twice, its
    marker would be read as new code)."""
    original = (
        'import sys\n\n\nclass Report:\n    """A report ready for printing.\n\n    Attributes:\n\n'
        '    - :attr:`title` The title.\n    - :attr:`rows` The rows.\n    """\n\n'
        "    def __init__(self, title, rows):\n        self.title = title\n        self.rows = rows\n\n"
        "    def format(self):\n        yield self.title\n"
        + "".join(f"        yield self.rows[{k}]\n" for k in range(10))
        + "\n"
        "    def print(self, *, file=None):\n        if file is None:\n            file = sys.stderr\n"
        "        for line in self.format():\n            print(line, file=file)\n"
    )
    snippet = (
        'class Report:\n    # ... docstring unchanged ...\n    - :attr:`rows` The rows.\n    """\n\n'
        "    default_file = None\n\n    def __init__(self, title, rows):\n        # ... existing code ...\n\n"
        "    def print(self, *, file=None):\n        if file is None:\n            file = self.default_file or sys.stderr\n"
        "        for line in self.format():\n            print(line, file=file)\n"
    )
    expected = original.replace(
        '    """\n\n    def __init__', '    """\n\n    default_file = None\n\n    def __init__'
    ).replace("file = sys.stderr", "file = self.default_file or sys.stderr")
    assert merged(original, snippet, language="python") == expected


def test_an_annotation_added_after_a_marker_that_the_original_has_elsewhere_is_new() -> None:
    """`@Override` (or a C# `[HttpGet("{id:int}")]` run) added above a method right after a
    marker, where the original has the same line above another class's method: an annotation is
    one of many, not that line shown out of its place."""
    original = (
        "public class Shapes {\n    static final class Circle {\n        double r;\n\n        @Override\n"
        '        public String toString() {\n            return "circle " + r;\n        }\n    }\n\n'
        "    static final class Square {\n        double side;\n\n        public String toString() {\n"
        '            return "square " + side;\n        }\n    }\n}\n'
    )
    snippet = (
        "public class Shapes {\n    // ... existing code ...\n    static final class Square {\n        // ... fields ...\n\n"
        '        @Override\n        public String toString() {\n            return "square " + side;\n        }\n    }\n}\n'
    )
    expected = original.replace(
        '        public String toString() {\n            return "square',
        '        @Override\n        public String toString() {\n            return "square',
    )
    assert merged(original, snippet, language="java") == expected
    attributes = '        [HttpGet("{id:int}")]\n        [ProducesResponseType(200)]\n        [ProducesResponseType(404)]\n'
    original = (
        "namespace Shop\n{\n    public class Products\n    {\n        private readonly Db _db;\n\n"
        + attributes
        + "        public Product GetById(int id)\n        {\n            return _db.Find(id);\n        }\n    }\n\n"
        "    public class Categories\n    {\n        private readonly Db _db;\n\n"
        "        public Category GetById(int id)\n        {\n            return _db.FindCategory(id);\n        }\n    }\n}\n"
    )
    snippet = (
        "    public class Categories\n    {\n        // ... fields ...\n\n"
        + attributes
        + "        public Category GetById(int id)\n        {\n            return _db.FindCategory(id);\n        }\n    }\n}\n"
    )
    expected = original.replace(
        "        public Category GetById", attributes + "        public Category GetById"
    )
    assert merged(original, snippet, language="csharp") == expected


def test_a_block_shared_by_two_found_by_its_class_whose_comment_the_snippet_leaves_out() -> None:
    """`module CRM` twice in the file; the snippet shows the first one's `class ContactMerger`
    without the comment above it: that line tells the modules apart all the same."""
    original = (
        "module CRM\n  # Merges duplicate contacts.\n  class ContactMerger\n    LIMIT = 10\n\n    def merge(a, b)\n"
        "      authorize!(a, b)\n      a.absorb(b)\n    end\n  end\nend\n\n"
        "module CRM\n  class ContactMergeJob\n    def perform(id)\n      run(id)\n    end\n  end\nend\n"
    )
    snippet = (
        "module CRM\n  class ContactMerger\n    # ...\n\n    def merge(a, b)\n"
        '      raise MergeError, "cannot merge a contact into itself" if a.id == b.id\n'
        "      authorize!(a, b)\n      # ...\n    end\n  end\nend\n"
    )
    guard = '      raise MergeError, "cannot merge a contact into itself" if a.id == b.id\n'
    expected = original.replace("      authorize!", guard + "      authorize!")
    assert merged(original, snippet, language="ruby") == expected


def test_a_statement_shown_with_its_value_now_bound_is_an_edit_of_it() -> None:
    """`let bytes = fs::copy(&src, &dst)?;` below a marker where `fs::copy(&src, &dst)?;` stands:
    its result now kept, the same statement edited, not a second copy above it."""
    original = (
        "fn copy_one(src: &Path, dst: &Path) -> Result<()> {\n    fs::create_dir_all(dst.parent().unwrap())?;\n"
        '    fs::copy(src, dst)\n        .with_context(|| format!("copying {}", src.display()))?;\n'
        "    progress.inc(1);\n    Ok(())\n}\n"
    )
    snippet = (
        "fn copy_one(src: &Path, dst: &Path) -> Result<()> {\n    // ... existing code ...\n"
        '    let bytes = fs::copy(src, dst)\n        .with_context(|| format!("copying {}", src.display()))?;\n'
        '    progress.inc(1);\n    log::debug!("copied {bytes} bytes");\n    Ok(())\n}\n'
    )
    expected = original.replace("    fs::copy(src", "    let bytes = fs::copy(src").replace(
        "    progress.inc(1);\n", '    progress.inc(1);\n    log::debug!("copied {bytes} bytes");\n'
    )
    assert merged(original, snippet, language="rust") == expected


def test_a_statement_edited_under_its_comment_is_found_by_that_comment() -> None:
    """`// Open a tcp connection to the proxy.` over `if hconn, err = net.DialTimeout(...)` where
    that comment stands over `net.Dial(...)`, between two markers: the comment tells the place,
    and the statement under it is edited. Four `return` bodies alike say nothing."""
    original = (
        "func (c *Client) connect() (conn net.Conn, err error) {\n\taddr := c.addr()\n"
        "\tif err = c.check(addr); err != nil {\n\t\treturn\n\t}\n\n"
        '\t// Open a tcp connection to the proxy.\n\tif conn, err = net.Dial("tcp", addr); err != nil {\n\t\treturn\n\t}\n\n'
        "\tif err = c.verify(conn); err != nil {\n\t\treturn\n\t}\n\treturn conn, nil\n}\n"
    )
    snippet = (
        "func (c *Client) connect() (conn net.Conn, err error) {\n\t// ... existing code ...\n\n"
        "\t// Open a tcp connection to the proxy.\n"
        '\tif conn, err = net.DialTimeout("tcp", addr, 5*time.Second); err != nil {\n\t\treturn\n\t}\n\n'
        "\t// ... existing code ...\n}\n"
    )
    expected = original.replace('net.Dial("tcp", addr)', 'net.DialTimeout("tcp", addr, 5*time.Second)')
    assert merged(original, snippet, language="go") == expected


def test_two_initialisers_are_told_apart_by_their_headers_qualifiers_and_all() -> None:
    """Two Swift `init`s, one `init(` over a parameter list of several lines, one `init(from
    decoder: Decoder) throws {`: that header, `throws` and all, tells its `init` from the other,
    so the lines added in each go where they are shown."""
    original = (
        "struct Episode: Codable {\n    var title: String\n    var duration: Double\n\n"
        "    enum CodingKeys: String, CodingKey {\n        case title\n        case duration\n    }\n\n"
        "    init(\n        title: String,\n        duration: Double\n    ) {\n"
        "        self.title = title\n        self.duration = duration\n    }\n\n"
        "    init(from decoder: Decoder) throws {\n        let container = try decoder.container(keyedBy: CodingKeys.self)\n"
        "        title = try container.decode(String.self, forKey: .title)\n"
        "        duration = try container.decode(Double.self, forKey: .duration)\n    }\n\n"
        "    func encode(to encoder: Encoder) throws {\n        var container = encoder.container(keyedBy: CodingKeys.self)\n"
        "        try container.encode(title, forKey: .title)\n        try container.encode(duration, forKey: .duration)\n    }\n}\n"
    )
    snippet = (
        "struct Episode: Codable {\n    // ...\n\n    enum CodingKeys: String, CodingKey {\n        // ...\n        case duration\n        case artwork\n    }\n\n"
        "    init(\n        // ...\n        duration: Double,\n"
        "        artwork: URL? = nil\n    ) {\n        // ...\n        self.duration = duration\n"
        "        self.artwork = artwork\n    }\n\n    init(from decoder: Decoder) throws {\n        // ...\n"
        "        duration = try container.decode(Double.self, forKey: .duration)\n"
        "        artwork = try container.decodeIfPresent(URL.self, forKey: .artwork)\n    }\n\n"
        "    func encode(to encoder: Encoder) throws {\n        // ...\n        try container.encode(duration, forKey: .duration)\n"
        "        try container.encodeIfPresent(artwork, forKey: .artwork)\n    }\n}\n"
    )
    artwork = "        artwork = try container.decodeIfPresent(URL.self, forKey: .artwork)\n"
    expected = (
        original.replace("        case duration\n", "        case duration\n        case artwork\n")
        .replace("        duration: Double\n", "        duration: Double,\n        artwork: URL? = nil\n")
        .replace(
            "        self.duration = duration\n",
            "        self.duration = duration\n        self.artwork = artwork\n",
        )
        .replace("forKey: .duration)\n    }\n\n", "forKey: .duration)\n" + artwork + "    }\n\n")
        .replace(
            "encode(duration, forKey: .duration)\n",
            "encode(duration, forKey: .duration)\n        try container.encodeIfPresent(artwork, forKey: .artwork)\n",
        )
    )
    assert merged(original, snippet, language="swift") == expected


def test_a_condition_with_an_operand_more_is_an_edit_of_the_first_branch_of_its_chain() -> None:
    """`if not line or line.startswith('#'):` over a marker that elides the `elif`s after it,
    where `if not line:` heads that chain: its condition and branch edited, the chain kept; not
    a second check above the first."""
    original = (
        "class Cmd:\n    def parseline(self, line):\n        line = line.strip()\n        if not line:\n"
        "            return None, None, line\n        elif line[0] == '?':\n            line = 'help ' + line[1:]\n"
        "        elif line[0] == '!':\n            line = 'shell ' + line[1:]\n        return line.split(None, 1)\n"
    )
    snippet = (
        "class Cmd:\n    def parseline(self, line):\n        line = line.strip()\n"
        "        if not line or line.startswith('#'):\n            return None, None, ''\n        # ... existing code ...\n"
    )
    expected = original.replace(
        "        if not line:\n            return None, None, line\n",
        "        if not line or line.startswith('#'):\n            return None, None, ''\n",
    )
    assert merged(original, snippet, language="python") == expected


def test_a_deprecated_function_between_whole_neighbours_shown_adjacent_is_deleted() -> None:
    """Two methods shown whole and adjacent where the original has a ten-line `@deprecated` one
    between them: a deletion that long goes unsaid no more, its deprecation saying it is meant.
    The same method not marked deprecated stays ambiguous."""
    legacy = (
        "    /** @deprecated promo codes were replaced by coupons. */\n"
        "    public Cart applyLegacyPromo(String cartId, String promo) {\n"
        + "".join(f'        log.warn("legacy promo {k}");\n' for k in range(8))
        + "        return apply(cartId, promo);\n    }\n\n"
    )
    original = (
        "public class Carts {\n    public Cart apply(String cartId, String code) {\n        return find(cartId).with(code);\n    }\n\n"
        + legacy
        + "    public void clear(String cartId) {\n        find(cartId).clear();\n    }\n}\n"
    )
    snippet = (
        "public class Carts {\n    public Cart apply(String cartId, String code) {\n        return find(cartId).with(code);\n    }\n\n"
        '    public void clear(String cartId) {\n        find(cartId).clear();\n        log.info("cleared");\n    }\n}\n'
    )
    expected = original.replace(legacy, "").replace("clear();\n", 'clear();\n        log.info("cleared");\n')
    assert merged(original, snippet, language="java") == expected
    plain = original.replace("    /** @deprecated promo codes were replaced by coupons. */\n", "")
    plain = plain.replace("applyLegacyPromo", "applyPromo").replace("legacy promo", "promo")
    assert ambiguous(plain, snippet, language="java").reasons[0].code == "unexplained_deletion"


def test_a_body_marker_above_its_shown_closer_keeps_the_many_lines_to_the_next_function() -> None:
    """`// ... existing code ...` ending a body, its `}` shown, then the next function: the
    many lines between are elided too, as where no closer is shown."""
    between = "function middle(b) {\n" + "".join(f"  b += {k};\n" for k in range(10)) + "  return b;\n}\n\n"
    original = (
        "function first(a) {\n  const x = a + 1;\n  return x * 2;\n}\n\n"
        + between
        + "function last(c) {\n  return c;\n}\n"
    )
    snippet = "function first(a) {\n  const x = a + 2;\n  // ... existing code ...\n}\n\nfunction last(c) {\n  return c - 1;\n}\n"
    expected = original.replace("a + 1", "a + 2").replace("return c;", "return c - 1;")
    assert merged(original, snippet, language="javascript") == expected


def test_a_function_kept_between_a_body_marker_and_the_next_one_that_lost_its_last_use_is_ambiguous() -> None:
    """`_format_currency` between a function that ends in a marker and the next shown one, kept
    as elided, while the edit shown rewrites its one call inline: kept dead, or deleted with its
    use? Refused. Still called elsewhere, it is kept."""
    helper = (
        "def _format_currency(amount, currency):\n"
        + "".join(f"    amount = round(amount, {k})\n" for k in range(9))
        + '    return f"{amount} {currency}"\n\n\n'
    )
    original = (
        "def build_rows(invoices):\n    rows = []\n    for inv in invoices:\n"
        "        rows.append(_format_currency(inv.net, inv.currency))\n    return rows\n\n\n"
        + helper
        + "def write_csv(rows, path):\n    with open(path, 'w') as f:\n        f.writelines(rows)\n"
    )
    snippet = (
        "def build_rows(invoices):\n    rows = []\n    for inv in invoices:\n"
        '        rows.append(f"{inv.net:.2f} {inv.currency}")\n    # ... rest of the function ...\n\n\n'
        "def write_csv(rows, path):\n    with open(path, 'w', encoding='utf-8') as f:\n        f.writelines(rows)\n"
    )
    result = merge(original, snippet, language="python")
    assert result.status == "ambiguous" and result.reasons[0].code == "elided_or_deleted"
    used = original + "\n\ndef total(inv):\n    return _format_currency(inv.gross, inv.currency)\n"
    assert "def _format_currency" in merged(used, snippet, language="python")
    # short, the same: the marker elides it, and its last use is gone
    short = original.replace(
        helper, 'def _format_currency(amount, currency):\n    return f"{amount} {currency}"\n\n\n'
    )
    assert merge(short, snippet, language="python").reasons[0].code == "elided_or_deleted"


def test_a_function_ending_in_a_marker_keeps_the_line_below_it_that_registers_it() -> None:
    """`def test_rgb` shown with its body a marker, then `def test_pbm`: `tests.append(test_rgb)`
    between them goes with the function the marker keeps, not deleted by closing up. A line
    between that names another function is kept too: the marker elides what follows it up to the
    next line shown."""
    original = (
        "tests = []\n\ndef test_rgb(h, f):\n    if h.startswith(b'\\001\\332'):\n        return 'rgb'\n\n"
        "tests.append(test_rgb)\n\ndef test_pbm(h, f):\n    if h[:2] == b'P1':\n        return 'pbm'\n\n"
        "tests.append(test_pbm)\n"
    )
    snippet = (
        "# ... existing code ...\n\ndef test_rgb(h, f):\n    # ... unchanged ...\n\n"
        "def test_pbm(h, f):\n    if h[:2] in (b'P1', b'P4'):\n        return 'pbm'\n\n# ... existing code ...\n"
    )
    expected = original.replace("if h[:2] == b'P1':", "if h[:2] in (b'P1', b'P4'):")
    assert merged(original, snippet, language="python") == expected
    other = original.replace("tests.append(test_rgb)", "tests.append(test_gif)")
    assert merged(other, snippet, language="python") == other.replace(
        "if h[:2] == b'P1':", "if h[:2] in (b'P1', b'P4'):"
    )


def test_a_block_paired_below_a_marker_keeps_its_tail_for_a_deeper_marker_below_it() -> None:
    """`if not optstring:` (for `if optstring == '':`) shown down to its inner `if`, then `# ...
    rest unchanged ...` as deep as that `if`: the rest of its body is elided, not deleted."""
    original = (
        "def do_shorts(opts, optstring, args):\n    while optstring != '':\n        opt, optstring = optstring[0], optstring[1:]\n"
        "        if takes_arg(opt):\n            if optstring == '':\n                if not args:\n"
        "                    raise GetoptError(opt)\n                optstring, args = args[0], args[1:]\n"
        "            optarg, optstring = optstring, ''\n        else:\n            optarg = ''\n"
        "        opts.append((opt, optarg))\n    return opts, args\n"
    )
    snippet = (
        "def do_shorts(opts, optstring, args):\n    while optstring:\n        opt, optstring = optstring[0], optstring[1:]\n"
        "        if takes_arg(opt):\n            if not optstring:\n                if not args:\n"
        "                    raise GetoptError(opt)\n                # ... rest unchanged ...\n"
    )
    expected = original.replace("while optstring != '':", "while optstring:").replace(
        "if optstring == '':", "if not optstring:"
    )
    assert merged(original, snippet, language="python") == expected


def test_a_condition_chain_rewritten_over_the_same_bodies_is_an_edit_of_the_chain() -> None:
    """`if args[0].startswith('--'):` ... `else:` over a marker, where `if args[0][:2] == '--':`
    stands over the same first body line: the chain edited, its `else` body elided, no marker
    written out."""
    original = (
        "def gnu_getopt(args, longopts):\n    opts = []\n    while args:\n        if args[0] == '--':\n            break\n"
        "        if args[0][:2] == '--':\n            opts, args = do_longs(opts, args[0][2:], longopts, args[1:])\n"
        "        elif args[0][:1] == '-':\n            opts, args = do_shorts(opts, args[0][1:], args[1:])\n"
        "        else:\n            rest.append(args[0])\n            args = args[1:]\n    return opts, rest\n"
    )
    snippet = (
        "def gnu_getopt(args, longopts):\n    # ... existing code ...\n    while args:\n        if args[0] == '--':\n            break\n"
        "        if args[0].startswith('--'):\n            opts, args = do_longs(opts, args[0][2:], longopts, args[1:])\n"
        "        elif args[0].startswith('-'):\n            opts, args = do_shorts(opts, args[0][1:], args[1:])\n"
        "        else:\n            # ... unchanged ...\n    return opts, rest\n"
    )
    expected = original.replace("args[0][:2] == '--'", "args[0].startswith('--')").replace(
        "args[0][:1] == '-'", "args[0].startswith('-')"
    )
    assert merged(original, snippet, language="python") == expected


def test_look_alike_blocks_made_a_loop_over_a_new_table_of_their_strings_are_deleted() -> None:
    """Copy-pasted `if "APP_BIND_PORT" in env:` blocks replaced by a loop over a new table whose
    rows hold their strings: the many lines deleted are meant. Without the table the loop
    explains nothing, and the deletion stays unsaid."""
    block = (
        '    if "{var}" in env:\n        try:\n            overrides["{attr}"] = int(env["{var}"])\n'
        "        except ValueError:\n"
        '            raise ConfigError("{var} must be an integer") from None\n\n'
    )
    pairs = [("APP_BIND_PORT", "bind_port"), ("APP_DB_TIMEOUT", "db_timeout"), ("APP_CACHE_TTL", "cache_ttl")]
    blocks = "".join(block.format(var=var, attr=attr) for var, attr in pairs)
    original = (
        "import os\n\n\ndef apply_env(env):\n    overrides = {}\n"
        + blocks
        + '    if "APP_URL" in env:\n        overrides["url"] = env["APP_URL"]\n    return overrides\n'
    )
    table = "".join(f'    ("{var}", "{attr}"),\n' for var, attr in pairs)
    loop = (
        "    for var, attr in _INT_OVERRIDES:\n        if var not in env:\n            continue\n        try:\n"
        "            overrides[attr] = int(env[var])\n        except ValueError:\n"
        '            raise ConfigError(f"{var} must be an integer") from None\n\n'
    )
    snippet = (
        "import os\n\n_INT_OVERRIDES = (\n"
        + table
        + ")\n\n\ndef apply_env(env):\n    overrides = {}\n"
        + loop
        + '    if "APP_URL" in env:\n        # ... existing code ...\n'
    )
    expected = original.replace("import os\n\n\n", "import os\n\n_INT_OVERRIDES = (\n" + table + ")\n\n\n")
    assert merged(original, snippet, language="python") == expected.replace(blocks, loop)
    untabled = snippet.replace(table, '    ("APP_OTHER", "other"),\n')
    assert ambiguous(original, untabled, language="python").reasons[0].code == "unexplained_deletion"


def test_code_deleted_by_closing_up_whose_lines_the_snippet_writes_in_a_new_function_moved_there() -> None:
    """A loop of thirteen lines gone from between a guard and the `return` shown closed up, its
    lines written in a new `order_total()` above: moved, the deletion meant. Lines of a list
    (parameters shown re-wrapped) tell nothing of the kind."""
    body = "".join(f"        total += item.price * {k} + item.tax_{k}\n" for k in range(10))
    original = (
        "def render(order):\n    if order is None:\n        return ''\n\n"
        "    total = 0\n    for item in order.items:\n" + body + "\n"
        "    return f'{order.id}: {total}'\n"
    )
    snippet = (
        "def order_total(order):\n    total = 0\n    for item in order.items:\n"
        + body
        + "    return total\n\n\n"
        "def render(order):\n    if order is None:\n        return ''\n\n"
        "    return f'{order.id}: {order_total(order)}'\n"
    )
    expected = (
        "def order_total(order):\n    total = 0\n    for item in order.items:\n"
        + body
        + "    return total\n\n\n"
        "def render(order):\n    if order is None:\n        return ''\n\n"
        "    return f'{order.id}: {order_total(order)}'\n"
    )
    assert merged(original, snippet, language="python") == expected
    elsewhere = snippet.replace(body, "".join(f"        total += item.cost * {k}\n" for k in range(10)))
    assert ambiguous(original, elsewhere, language="python").reasons[0].code == "unexplained_deletion"


def test_a_short_function_below_a_body_ending_in_a_marker_that_the_snippet_calls_is_kept() -> None:
    """`article_detail` between `article_list` (its body ending in a marker) and the next view: short
    enough to be deleted by closing up, but the snippet's `urlpatterns` still routes to it, so the
    marker elides it. Not named anywhere in the snippet, it is kept all the same: the marker, the
    body's last line, elides what follows it up to the next line shown."""
    original = (
        "def article_list(request):\n    qs = search(request)\n    return render(qs)\n\n\n"
        "def article_detail(request, slug):\n    return render(get(slug))\n\n\n"
        "def popular_tags(request):\n    return render(tags())\n\n\n"
        "urlpatterns = [\n    path('a/', article_list),\n    path('a/<slug>/', article_detail),\n]\n"
    )
    snippet = (
        "def article_list(request):\n    qs = search(request, year=request.GET.get('year'))\n    # ... existing code ...\n\n\n"
        "def popular_tags(request):\n    return render(tags())\n\n\n"
        "urlpatterns = [\n    path('a/', article_list),\n    path('a/<slug>/', article_detail),\n"
        "    path('tags/', popular_tags),\n]\n"
    )
    expected = original.replace("qs = search(request)", "qs = search(request, year=request.GET.get('year'))")
    expected = expected.replace(
        "    path('a/<slug>/', article_detail),\n",
        "    path('a/<slug>/', article_detail),\n    path('tags/', popular_tags),\n",
    )
    assert merged(original, snippet, language="python") == expected
    unrouted = original.replace("    path('a/<slug>/', article_detail),\n", "")
    shown = snippet.replace("    path('a/<slug>/', article_detail),\n", "")
    assert "def article_detail" in merged(unrouted, shown, language="python")


def test_a_new_call_after_a_marker_that_opens_as_one_elided_call_does_is_new() -> None:
    """`router.post(` shown below `// ... existing routes ...`, its arguments a new route, where
    the original's one `router.post(` opens another route: the head of a new call, not that one
    shown to anchor what follows."""
    route = (
        '  router.post(\n    "/:id/members",\n    wrap(async (req, res) => {\n'
        "      res.status(201).json(await repo.addMember(req.params.id, req.body));\n    }),\n  );\n\n"
    )
    original = (
        'export function createRouter(repo) {\n  const router = Router();\n\n  router.get(\n    "/",\n'
        "    wrap(async (req, res) => {\n      res.json(await repo.list());\n    }),\n  );\n\n"
        '  router.post(\n    "/",\n    wrap(async (req, res) => {\n      res.status(201).json(await repo.create(req.body));\n'
        "    }),\n  );\n\n  return router;\n}\n"
    )
    snippet = (
        "export function createRouter(repo) {\n  // ... existing routes ...\n\n"
        + route
        + "  return router;\n}\n"
    )
    assert merged(original, snippet, language="javascript") == original.replace(
        "  return router;", route + "  return router;"
    )


def test_a_new_check_on_another_field_of_a_go_receiver_after_an_anchor_is_no_edit_of_the_next() -> None:
    """`if c.IdleTimeout < 0 {` below the `ShutdownTimeout` check, a marker below it, where `if
    c.MaxBodyBytes <= 0 {` comes next: the receiver `c` is read by every check, so the two test
    other names, and the new check is added, not an edit of the elided one."""
    original = (
        'func (c *Config) Validate() error {\n\tif c.ShutdownTimeout < 0 {\n\t\treturn errors.New("shutdown")\n\t}\n'
        '\tif c.MaxBodyBytes <= 0 {\n\t\treturn errors.New("max body")\n\t}\n\treturn nil\n}\n'
    )
    snippet = (
        'func (c *Config) Validate() error {\n\tif c.ShutdownTimeout < 0 {\n\t\treturn errors.New("shutdown")\n\t}\n'
        '\tif c.IdleTimeout < 0 {\n\t\treturn errors.New("idle")\n\t}\n\t// ... rest unchanged ...\n'
    )
    added = '\tif c.IdleTimeout < 0 {\n\t\treturn errors.New("idle")\n\t}\n'
    expected = original.replace("\tif c.MaxBodyBytes", added + "\tif c.MaxBodyBytes")
    assert merged(original, snippet, language="go") == expected


def test_a_zig_test_block_is_known_by_its_name_so_a_new_one_after_a_marker_is_added() -> None:
    assert signature_key('test "pop on empty buffer" {', "zig") == 'test "pop on empty buffer"'
    assert signature_key('resource "aws_s3_bucket" "logs" {', "hcl") == 'resource "aws_s3_bucket" "logs"'
    original = (
        'const std = @import("std");\n\npub fn pop(x: u32) u32 {\n    return x;\n}\n\n'
        'test "pop returns its argument" {\n    try std.testing.expectEqual(@as(u32, 1), pop(1));\n}\n\n'
        'test "pop on zero" {\n    try std.testing.expectEqual(@as(u32, 0), pop(0));\n}\n'
    )
    added = 'test "pop on a large value" {\n    try std.testing.expectEqual(@as(u32, 9000), pop(9000));\n}\n'
    snippet = f"// ... existing code ...\n\n{added}"
    assert merged(original, snippet, language="zig") == original + "\n" + added


def test_a_new_line_extending_an_elided_one_before_the_anchor_is_ambiguous() -> None:
    # `unset FORCE DRY_RUN` where `unset FORCE` stands elided: that line edited (and the `if` below
    # it replaced by the loop), or a second `unset` added? Not a place to guess
    original = (
        '#!/usr/bin/env bash\nset -e\n\nunset FORCE\nif [ "$1" = "-f" ]; then\n  FORCE=true\n  shift\nfi\n\n'
        '[ "$#" -gt 0 ] || usage 1 >&2\n\nversions=("$@")\n'
    )
    snippet = (
        '#!/usr/bin/env bash\n# ... existing code ...\n\nunset FORCE DRY_RUN\nwhile [ "$#" -gt 0 ]; do\n'
        '  case "$1" in\n  -f | --force ) FORCE=true ;;\n  -n | --dry-run ) DRY_RUN=true ;;\n'
        '  * ) break ;;\n  esac\n  shift\ndone\n\n[ "$#" -gt 0 ] || usage 1 >&2\n# ... existing code ...\n'
    )
    result = ambiguous(original, snippet, language="bash")
    assert result.reasons[0].code == "edit_or_insertion"
    assert "extends the elided 'unset FORCE'" in result.reasons[0].message
    # and a line that is an elided one with a guard written before it: the statement guarded, or the
    # same statement added a second time above itself?
    profiles = (
        "class Repo {\n    fun get(id: String): Profile {\n        cache[id]?.takeIf { it.fresh }?.let { return it }\n"
        "        val stored = dao.find(id)\n        return refresh(id, stored)\n    }\n}\n"
    )
    guarded = (
        "class Repo {\n    fun get(id: String, force: Boolean = false): Profile {\n"
        "        if (!force) cache[id]?.takeIf { it.fresh }?.let { return it }\n        // ... existing code ...\n"
        "        return refresh(id, stored)\n    }\n}\n"
    )
    result = ambiguous(profiles, guarded, language="kotlin")
    assert "extends the elided 'cache[id]" in result.reasons[0].message


def test_a_function_inside_another_deleted_while_its_body_still_uses_it_is_ambiguous() -> None:
    # `function destroy()` closed up between its neighbours, yet `createDebug.destroy = destroy`
    # stays (elided): a deletion that leaves a use dangling is no deletion the snippet meant
    original = (
        "function setup(env) {\n  createDebug.destroy = destroy;\n  createDebug.enable = enable;\n\n"
        "  function enable(names) {\n    createDebug.names = names;\n  }\n\n"
        "  function coerce(val) {\n    return val;\n  }\n\n"
        "  function destroy() {\n    console.warn('deprecated');\n  }\n\n"
        "  createDebug.enable(createDebug.load());\n  return createDebug;\n}\n"
    )
    snippet = (
        "function setup(env) {\n  // ... existing code ...\n\n  function enable(names) {\n"
        "    createDebug.names = [...new Set(names)];\n  }\n\n  function coerce(val) {\n    return val;\n  }\n\n"
        "  createDebug.enable(createDebug.load());\n  return createDebug;\n}\n"
    )
    result = ambiguous(original, snippet, language="javascript")
    assert result.reasons[0].message == "'function destroy' would be deleted, yet the file still uses it"
    # with its use deleted too, the deletion is plain
    unused = original.replace("  createDebug.destroy = destroy;\n", "")
    expected = unused.replace(
        "createDebug.names = names;", "createDebug.names = [...new Set(names)];"
    ).replace("  function destroy() {\n    console.warn('deprecated');\n  }\n\n", "")
    assert merged(unused, snippet, language="javascript") == expected


def test_a_quoted_key_with_a_slash_is_a_key_so_its_value_changed_is_an_edit() -> None:
    assert signature_key('"@npmcli/template-oss": "5.2.0",') == '"@npmcli/template-oss"'
    original = (
        '{\n  "name": "pacote",\n  "devDependencies": {\n    "@npmcli/arborist": "^9.0.2",\n'
        '    "@npmcli/template-oss": "5.1.0",\n    "nock": "^13.2.4",\n    "tap": "^16.0.1"\n  }\n}\n'
    )
    snippet = (
        '{\n  // ... existing fields ...\n  "devDependencies": {\n    "@npmcli/arborist": "^9.0.2",\n'
        '    "@npmcli/template-oss": "5.2.0",\n    // ... rest unchanged ...\n  }\n}\n'
    )
    assert merged(original, snippet, language="json") == original.replace('"5.1.0"', '"5.2.0"')


def test_a_handler_below_a_marker_in_its_try_body_is_the_original_handler_rewritten() -> None:
    original = (
        "class Uploader {\n    List<String> uploadAll(Path dir) {\n        List<String> ids = new ArrayList<>();\n"
        "        try (var stream = Files.list(dir)) {\n            for (Path file : stream.toList()) {\n"
        "                ids.add(upload(file));\n            }\n        } catch (Exception e) {\n"
        "            e.printStackTrace();\n        }\n        return ids;\n    }\n}\n"
    )
    snippet = (
        "class Uploader {\n    List<String> uploadAll(Path dir) {\n        List<String> ids = new ArrayList<>();\n"
        "        try (var stream = Files.list(dir)) {\n            /* ... loop unchanged ... */\n"
        '        } catch (IOException e) {\n            LOG.error("cannot list {}", dir, e);\n        }\n'
        "        return ids;\n    }\n}\n"
    )
    # the marker is deeper than the `catch`: it elides the loop, and the handler shown is the one
    # the `try` has, narrowed, not a second one after it
    expected = original.replace("catch (Exception e)", "catch (IOException e)").replace(
        "e.printStackTrace();", 'LOG.error("cannot list {}", dir, e);'
    )
    assert merged(original, snippet, language="java") == expected
    # under a bare `try {` the file has twice, the marker may as well elide the handler
    twice = original.replace("try (var stream = Files.list(dir)) {", "try {").replace(
        "    List<String> uploadAll",
        "    void warm() {\n        try {\n            load();\n"
        "        } catch (Exception e) {\n            e.printStackTrace();\n        }\n    }\n\n"
        "    List<String> uploadAll",
    )
    ambiguous(twice, snippet.replace("try (var stream = Files.list(dir)) {", "try {"), language="java")


def test_a_header_edited_over_a_body_that_is_only_a_marker_is_an_edit_of_the_block() -> None:
    # XZ Utils' example (fixtures/everyday): `if (!init_decoder(&strm, memlimit)) {` over a marker
    # alone, in a loop of other `if`s, then the function's `}`: that `if`, its header given one
    # argument more, not a new one written over the 16 lines of the original's (a deletion refused)
    case = load_case(DEFAULT_ROOT / "everyday" / "c_xz_decompress_memlimit")
    assert merged(case.original, case.snippet, language=case.language) == case.expected


def test_a_rust_impl_made_generic_is_the_same_impl() -> None:
    assert signature_key("impl<T: Copy> RingBuffer<T> {", "rust") == signature_key(
        "impl RingBuffer {", "rust"
    )
    assert signature_key("impl<T: Copy> ExactSizeIterator for Iter<'_, T> {}", "rust") == signature_key(
        "impl ExactSizeIterator for Iter<'_> {}", "rust"
    )
    # its own parameters only: `From<u8>` names another impl than `From<u16>`
    assert signature_key("impl From<u8> for W {", "rust") != signature_key("impl From<u16> for W {", "rust")
    original = (
        "pub struct Ring {\n    buf: Vec<f64>,\n}\n\nimpl Ring {\n    pub fn new() -> Self {\n"
        "        Ring { buf: Vec::new() }\n    }\n\n    pub fn push(&mut self, value: f64) {\n"
        "        self.buf.push(value);\n    }\n}\n"
    )
    snippet = (
        "pub struct Ring<T> {\n    buf: Vec<T>,\n}\n\nimpl<T: Copy> Ring<T> {\n    // ... existing code ...\n\n"
        "    pub fn push(&mut self, value: T) {\n        // ... existing code ...\n    }\n}\n"
    )
    expected = (
        original.replace("pub struct Ring {", "pub struct Ring<T> {")
        .replace("Vec<f64>", "Vec<T>")
        .replace("impl Ring {", "impl<T: Copy> Ring<T> {")
        .replace("value: f64", "value: T")
    )
    assert merged(original, snippet, language="rust") == expected


def test_a_handler_shown_as_it_stands_below_a_marker_keeps_the_handlers_before_it() -> None:
    original = (
        "def load(path):\n    try:\n        with open(path) as fh:\n            raw = fh.read()\n"
        "    except FileNotFoundError:\n        return {}\n    except ValueError as exc:\n"
        "        raise SettingsError(exc) from exc\n    return parse(raw)\n\n\ndef dump(s):\n    return str(s)\n"
    )
    snippet = (
        "def load(path):\n    started = now()\n    try:\n        # ... existing code ...\n"
        "    except ValueError as exc:\n        raise SettingsError(exc) from exc\n    finally:\n"
        "        log(now() - started)\n    return parse(raw)\n"
    )
    # `except ValueError` stands in the original as shown: it is that handler, not the first one
    # rewritten (which would delete `except FileNotFoundError`)
    expected = original.replace("    try:\n", "    started = now()\n    try:\n").replace(
        "from exc\n", "from exc\n    finally:\n        log(now() - started)\n"
    )
    assert merged(original, snippet, language="python") == expected


def test_a_closer_written_beside_the_same_closer_is_refused() -> None:
    """A new stage after an elided one, then the `}` of `stages {` and a marker: that `}` written
    beside the original's (`        }` over `        }`) closes one block twice. Refused, even where
    the file's parser cannot tell (this file, read as JavaScript, has parse errors already)."""
    original = (
        "def call(Map config) {\n    pipeline {\n        stages {\n            stage('Build') {\n"
        "                steps {\n                    sh 'make'\n                }\n            }\n"
        "            stage('Deploy') {\n                steps {\n                    sh 'deploy'\n"
        "                }\n            }\n        }\n        post {\n            always {\n"
        "                echo 'done'\n            }\n        }\n    }\n}\n"
    )
    snippet = (
        "// ... existing code ...\n            stage('Deploy') {\n                // ... unchanged ...\n"
        "            }\n\n            stage('Smoke') {\n                steps {\n                    sh 'smoke'\n"
        "                }\n            }\n        }\n\n        // ... existing code ...\n"
    )
    result = ambiguous(original, snippet, language="javascript")
    assert "would close the same block twice" in result.reasons[0].message
    # closers that step out one level each are no such pair, nor a pair the original has itself
    assert closer_twice("    }\n  }\n}\n", Source.read("x\n")) is None
    assert closer_twice("  )\n  )\n", Source.read("  )\n  )\n")) is None
    assert closer_twice("a\n    end\n    end\n", Source.read("a\n    end\n")) == "    end"
    assert closer_twice("a\r\n  }\r\n  }\r\n", Source.read("a\r\n  }\r\n  }\r\n")) is None  # CRLF alike


def test_an_elixir_functions_doc_goes_with_it() -> None:
    """An `@doc` heredoc above a `def` documents it, as a decorator would: a new function shown with
    its own `@doc` after an existing one leaves the next function's `@doc` where it stands."""
    original = (
        'defmodule Shop.Accounts do\n  @moduledoc """\n  Accounts.\n  """\n\n  @doc """\n  Lists customers.\n  """\n'
        "  def list_customers do\n    Repo.all(Customer)\n  end\n\n"
        '  @doc """\n  Gets a customer.\n  """\n  def get_customer!(id), do: Repo.get!(Customer, id)\n\n'
        "  @spec count() :: integer\n  def count, do: Repo.aggregate(Customer, :count)\nend\n"
    )
    snippet = (
        "defmodule Shop.Accounts do\n  # ... existing code ...\n  def list_customers do\n    Repo.all(Customer)\n"
        '  end\n\n  @doc """\n  Lists active customers.\n  """\n  def list_active do\n'
        "    Repo.all(active(Customer))\n  end\n\n  # ... existing code ...\nend\n"
    )
    new = '  @doc """\n  Lists active customers.\n  """\n  def list_active do\n    Repo.all(active(Customer))\n  end\n\n'
    expected = original.replace('  @doc """\n  Gets a customer.', new + '  @doc """\n  Gets a customer.')
    assert merged(original, snippet, language="elixir") == expected


def test_a_go_group_shown_where_the_original_declares_one_rewrites_that_declaration() -> None:
    """`import (` `"fmt"` `"os"` `)` where the original has `import "fmt"`: the same import, grouped
    to take one more, not a second import of "fmt" beside the first (which Go refuses)."""
    original = (
        'package main\n\nimport "fmt"\n\nconst limit = 10\n\nfunc main() {\n\tfmt.Println(limit)\n}\n\n'
        "func other() int {\n\treturn 1\n}\n"
    )
    snippet = (
        'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\n// ... existing code ...\n\nfunc main() {\n'
        "\tfmt.Println(limit, os.Args)\n}\n\n// ... existing code ...\n"
    )
    expected = original.replace('import "fmt"', 'import (\n\t"fmt"\n\t"os"\n)').replace(
        "Println(limit)", "Println(limit, os.Args)"
    )
    assert merged(original, snippet, language="go") == expected


def test_new_code_is_never_written_above_the_line_a_file_must_open_with() -> None:
    """A group shown first, with no anchor above it, where the original declares one of its names on
    a line of its own further down: written at the top it would stand above `package`, which no Go
    file may have; the group is no new head of the file."""
    original = (
        'package api\n\nimport "net/http"\n\nconst defaultLimit = 50\n\nfunc list(w http.ResponseWriter) {\n'
        "\tw.WriteHeader(200)\n}\n\nfunc get(w http.ResponseWriter) {\n\tw.WriteHeader(404)\n}\n"
    )
    snippet = (
        "const (\n\tdefaultLimit = 50\n\tmaxLimit     = 500\n)\n\n// ... existing code ...\n\n"
        "func get(w http.ResponseWriter) {\n\tw.WriteHeader(maxLimit)\n}\n"
    )
    result = ambiguous(original, snippet, language="go")
    assert result.reasons[0].code == "above_file_head"
    # a shebang likewise, in any language; comments above `package` are no code
    script = "#!/bin/sh\nset -e\n\nmain() {\n  echo hi\n}\n\nmain\n"
    assert ambiguous(script, 'NAME="x"\n\n# ...\n\nmain() {\n  echo "$NAME"\n}\n\n# ...\n', language="bash")
    licensed = (
        "// Copyright 2026.\n/* All rights\n   reserved. */\n\npackage api\n\nfunc a() int {\n\treturn 1\n}\n"
    )
    result = ambiguous(
        licensed, "const b = 2\n\n// ... existing code ...\n\nfunc a() int {\n\treturn b\n}\n", language="go"
    )
    assert result.reasons[0].message == "'const b = 2' would be written above the file's first line"


def test_a_marker_inside_a_docblock_elides_the_rest_of_that_docblock() -> None:
    """` * ... docblock unchanged ...` stands for the docblock's own lines; the method's signature
    and body below it are edited as shown."""
    original = (
        "<?php\n\nfinal class Users {\n  /**\n   * The service's base URL.\n   */\n  private static function base() {\n"
        "    return 'https://example.com/login?to=';\n  }\n\n  /**\n   * Computes the login URL.\n   *\n"
        "   * @param string $to Where to go after login.\n   * @return string The URL.\n   */\n"
        "  public static function loginUrl($to) {\n    return self::base() . $to;\n  }\n}\n"
    )
    snippet = (
        "final class Users {\n  // ... existing code ...\n\n  /**\n   * ... docblock unchanged ...\n   */\n"
        "  public static function loginUrl($to) {\n    if (!is_string($to)) {\n"
        "      throw new \\InvalidArgumentException('$to must be a string');\n    }\n"
        "    // ... rest of the method unchanged ...\n"
    )
    check = "    if (!is_string($to)) {\n      throw new \\InvalidArgumentException('$to must be a string');\n    }\n"
    expected = original.replace(
        "  public static function loginUrl($to) {\n", "  public static function loginUrl($to) {\n" + check
    )
    assert merged(original, snippet, language="php") == expected


def test_a_licence_line_on_other_years_is_that_line_updated() -> None:
    """` * Copyright 2019-2024 ...` shown where ` * Copyright 2019-2023 ...` stands, the rest of the
    header elided: that line updated, not a second copyright line above the first."""
    header = (
        "/*\n * Copyright 2019-2023 The Ledger Authors\n *\n"
        ' * Licensed under the Apache License, Version 2.0 (the "License");\n'
        " * you may not use this file except in compliance with the License.\n"
        " * You may obtain a copy of the License at\n *\n *     http://www.apache.org/licenses/LICENSE-2.0\n"
        " *\n * Unless required by applicable law.\n */\n"
    )
    original = header + "package io.ledger;\n\npublic final class Money {\n    private long cents;\n}\n"
    snippet = (
        "/*\n * Copyright 2019-2024 The Ledger Authors\n *\n * ...\n */\npackage io.ledger;\n\n"
        "// ... rest of file unchanged ...\n"
    )
    assert merged(original, snippet, language="java") == original.replace("2019-2023", "2019-2024")


def test_a_call_written_out_over_lines_is_the_one_liner_it_unfolds() -> None:
    """`.onSuccess { notes ->` ... `}` shown where `.onSuccess { notes -> ... }` stands on one line,
    the marker below eliding the rest of the chain: that call rewritten, not a second one above it.
    Folded back onto one line, likewise."""
    original = (
        "class NotesViewModel {\n    fun refresh() {\n        scope.launch {\n"
        "            runCatching { repository.search(query) }\n"
        "                .onSuccess { notes -> state.update { it.copy(notes = notes) } }\n"
        "                .onFailure { e -> state.update { it.copy(error = e.message) } }\n"
        "        }\n    }\n\n    fun clear() {\n        state.update { it.copy(notes = emptyList()) }\n    }\n}\n"
    )
    unfolded = (
        "                .onSuccess { notes ->\n"
        "                    state.update { it.copy(notes = notes.sortedBy(Note::title)) }\n                }\n"
    )
    snippet = (
        "    fun refresh() {\n        scope.launch {\n            runCatching { repository.search(query) }\n"
        f"{unfolded}                // ... rest of refresh unchanged ...\n"
    )
    one_line = "                .onSuccess { notes -> state.update { it.copy(notes = notes) } }\n"
    expected = original.replace(one_line, unfolded)
    assert merged(original, snippet, language="kotlin") == expected
    folded = one_line.replace("notes = notes", "notes = notes.take(50)")
    snippet = snippet.replace(unfolded, folded)
    assert merged(expected, snippet, language="kotlin") == original.replace(one_line, folded)


def test_imports_made_explicit_replace_the_wildcard_they_come_from() -> None:
    """`import java.io.Writer;` and its siblings shown where `import java.io.*;` stands: the wildcard
    written out, not kept beside the imports it covers."""
    original = (
        "package org.example;\n\nimport java.io.*;\nimport java.nio.charset.StandardCharsets;\nimport java.util.*;\n\n"
        "public final class Report {\n    private final List<String> rows = new ArrayList<>();\n}\n"
    )
    explicit = (
        "import java.io.IOException;\nimport java.io.Writer;\nimport java.nio.charset.StandardCharsets;\n"
        "import java.util.ArrayList;\nimport java.util.List;\n"
    )
    snippet = f"package org.example;\n\n{explicit}\n// ... rest of the class unchanged ...\n"
    start, end = original.index("import java.io.*"), original.index("\npublic")
    assert merged(original, snippet, language="java") == original[:start] + explicit + original[end:]


def test_a_marker_between_blank_doc_lines_is_placed_by_the_lines_beyond_them() -> None:
    """` *` above and below a marker in a docblock stand there many times: the lines beyond them
    (` * Issues an invoice.`, ` * @param due ...`) place it. A blank doc line alone, below the
    marker, above new lines, places nothing: the example it would cut short is not deleted."""
    doc = (
        "    /**\n     * Issues an invoice.\n     *\n     * The invoice is saved before it is sent,\n"
        "     * so a failed send can be retried.\n     *\n     * @param items the lines\n     */\n"
    )
    original = f"class Billing {{\n{doc}    Invoice issue(List<Item> items) {{\n        return save(items);\n    }}\n}}\n"
    snippet = (
        "    /**\n     * Issues an invoice.\n     *\n     * ... existing description ...\n     *\n"
        "     * @param items the lines\n     * @param due when it is due\n     */\n"
        "    Invoice issue(List<Item> items, LocalDate due) {\n        return save(items, due);\n    }\n"
    )
    expected = (
        original.replace(
            "     * @param items the lines\n",
            "     * @param items the lines\n     * @param due when it is due\n",
        )
        .replace("issue(List<Item> items)", "issue(List<Item> items, LocalDate due)")
        .replace("save(items)", "save(items, due)")
    )
    assert merged(original, snippet, language="java") == expected
    rust = (
        "impl Bucket {\n    /// Takes a token.\n    ///\n    /// # Examples\n    ///\n    /// ```\n"
        "    /// let mut b = Bucket::new();\n    ///\n    /// assert!(b.take());\n    /// ```\n"
        "    pub fn take(&mut self) -> bool {\n        self.take_at(Instant::now())\n    }\n}\n"
    )
    snippet = (
        "    /// Takes a token.\n    ///\n    /// # Examples\n    ///\n    /// ...\n    ///\n"
        "    /// See also [`Bucket::take_at`].\n    pub fn take(&mut self) -> bool {\n"
        "        self.take_at(Instant::now())\n    }\n"
    )
    assert ambiguous(rust, snippet, language="rust").reasons[0].code == "unanchored_insertion"


def test_doc_tags_between_markers_are_known_by_what_they_document() -> None:
    """In a docblock shown between markers, `@param int|null $ttl ...` (and the line that goes on
    with it) is the original's `@param int $ttl ...` edited, `@return` its `@returns`; a new
    `@param` places nothing, the tags shown around it do."""
    original = (
        "<?php\n\nfinal class Cache {\n  /**\n   * Stores an entry.\n   *\n   * Entries expire lazily.\n   *\n"
        "   * @param string $key Cache key.\n   * @param int $ttl Lifetime in seconds; null uses\n"
        "   *     the default.\n   *\n   * @returns bool Whether it was stored.\n   * @throws CacheError\n"
        "   */\n  public function set($key, $ttl = null) {\n    return $this->write($key, $ttl);\n  }\n}\n"
    )
    snippet = (
        "  /**\n   * Stores an entry.\n   * ...\n   * @param string $key Cache key.\n"
        "   * @param int|\\DateInterval|null $ttl Lifetime in seconds or as an interval;\n"
        "   *     null uses the default.\n   * @param bool $force Write even when full.\n   *\n"
        "   * @return bool Whether it was stored.\n   * ...\n   */\n"
        "  public function set($key, $ttl = null, $force = false) {\n    return $this->write($key, $ttl, $force);\n  }\n"
    )
    expected = original.replace(
        "   * @param int $ttl Lifetime in seconds; null uses\n   *     the default.\n",
        "   * @param int|\\DateInterval|null $ttl Lifetime in seconds or as an interval;\n"
        "   *     null uses the default.\n   * @param bool $force Write even when full.\n",
    ).replace("@returns bool", "@return bool")
    expected = expected.replace("set($key, $ttl = null)", "set($key, $ttl = null, $force = false)").replace(
        "write($key, $ttl)", "write($key, $ttl, $force)"
    )
    assert merged(original, snippet, language="php") == expected
    # the tag edited, its next line too, a new one below them, right above the marker
    snippet = (
        "  /**\n   * Stores an entry.\n   * ...\n"
        "   * @param int|\\DateInterval|null $ttl Lifetime in seconds or as an interval;\n"
        "   *     null uses the default; 0 never expires.\n   * @param bool $force Write even when full.\n"
        "   * ...\n   */\n  public function set($key, $ttl = null, $force = false) {\n"
        "    return $this->write($key, $ttl, $force);\n  }\n"
    )
    expected = original.replace(
        "   * @param int $ttl Lifetime in seconds; null uses\n   *     the default.\n",
        "   * @param int|\\DateInterval|null $ttl Lifetime in seconds or as an interval;\n"
        "   *     null uses the default; 0 never expires.\n   * @param bool $force Write even when full.\n",
    )
    expected = expected.replace("set($key, $ttl = null)", "set($key, $ttl = null, $force = false)").replace(
        "write($key, $ttl)", "write($key, $ttl, $force)"
    )
    assert merged(original, snippet, language="php") == expected


def test_decorators_around_a_marker_are_known_by_all_they_say() -> None:
    """`@pytest.mark.slow` and `@pytest.mark.timeout(5)` around a marker place it: decorators are
    no doc tags, known by their first word alone."""
    original = (
        "import pytest\n\n\n@pytest.mark.slow\n@pytest.mark.parametrize('n', [1, 2, 3])\n@pytest.mark.timeout(5)\n"
        "def test_small(n):\n    assert n < 5\n"
    )
    snippet = "@pytest.mark.slow\n# ... other marks ...\n@pytest.mark.timeout(5)\ndef test_small(n):\n    assert n < 4\n"
    assert merged(original, snippet, language="python") == original.replace("n < 5", "n < 4")


def test_a_doc_line_is_keyed_as_it_reads_not_by_a_call_in_it() -> None:
    """` * @property {(req: Request) => boolean} [skip]` is no call to `(req: Request)`: keyed by
    that, a new `@property` would pair with an original one of the same callback type and write
    over it, and the marker above it would elide short of what it stands for."""
    assert signature_key(" * @property {(req: Request) => string} [keyGenerator]", "javascript") == (
        "* @property {(req: Request) => string} [keyGenerator]"
    )
    original = (
        "/**\n * @typedef {Object} Options\n * @property {number} [max=100] Requests per window.\n"
        " * @property {(req: Request) => string} [keyGenerator]\n *   Derives the bucket key.\n"
        " * @property {string} [message] Body sent with a 429.\n */\n\nfunction limit(options = {}) {\n"
        "  const max = options.max ?? 100;\n  return max;\n}\n"
    )
    snippet = (
        "/**\n * @typedef {Object} Options\n * ...\n * @property {string} [message] Body sent with a 429.\n"
        " * @property {(req: Request) => boolean} [skip]\n *   Lets a request through uncounted.\n */\n"
        "\n// ... rest unchanged ...\n"
    )
    expected = original.replace(
        " */\n\nfunction",
        " * @property {(req: Request) => boolean} [skip]\n *   Lets a request through uncounted.\n */\n\nfunction",
    )
    assert merged(original, snippet, language="javascript") == expected


def test_a_function_renamed_over_an_edited_body_is_known_by_its_call_renamed_in_place() -> None:
    """`go p.handleSignals()` shown where `go p.closeOnSignal()` stands, between the same lines:
    the new function below is `closeOnSignal` renamed and edited, not one more beside it. A call
    among look-alike lines (a route's `validateBody(...)` between lines every route has) says not
    which: there the new declaration is new."""
    original = (
        "package main\n\nfunc (p *Proxy) Run() error {\n\tdefer p.ul.Close()\n\tgo p.closeOnSignal()\n"
        "\tgo p.closeOnUpdate()\n\treturn p.serve()\n}\n\nfunc (p *Proxy) closeOnUpdate() {\n\t<-p.updates\n"
        "\tp.ul.Close()\n}\n\nfunc (p *Proxy) closeOnSignal() {\n\tch := make(chan os.Signal, 10)\n"
        "\tsignal.Notify(ch, os.Interrupt, os.Kill)\n\t<-ch\n\tp.ul.Close()\n}\n"
    )
    snippet = (
        "func (p *Proxy) Run() error {\n\tdefer p.ul.Close()\n\tgo p.handleSignals()\n\tgo p.closeOnUpdate()\n"
        "\t// ... existing code ...\n}\n\n// ... existing code ...\n\nfunc (p *Proxy) handleSignals() {\n"
        "\tch := make(chan os.Signal, 10)\n\tsignal.Notify(ch, os.Interrupt)\n\tdefer signal.Stop(ch)\n\t<-ch\n"
        "\tp.ul.Close()\n}\n"
    )
    expected = original.replace("go p.closeOnSignal()", "go p.handleSignals()").replace(
        "func (p *Proxy) closeOnSignal() {\n\tch := make(chan os.Signal, 10)\n\tsignal.Notify(ch, os.Interrupt, os.Kill)\n",
        "func (p *Proxy) handleSignals() {\n\tch := make(chan os.Signal, 10)\n\tsignal.Notify(ch, os.Interrupt)\n"
        "\tdefer signal.Stop(ch)\n",
    )
    assert merged(original, snippet, language="go") == expected
    routes = (
        "const listSchema = z.object({\n  limit: z.number(),\n});\n\nconst createSchema = z.object({\n"
        '  email: z.string(),\n});\n\nrouter.get(\n  "/users",\n  requireRole("admin"),\n'
        "  validateQuery(listSchema),\n  async (req, res) => {\n    res.json(await list());\n  },\n);\n\n"
        'router.post(\n  "/users",\n  requireRole("admin"),\n  validateBody(createSchema),\n'
        "  async (req, res) => {\n    res.json(await create(req.body));\n  },\n);\n"
    )
    snippet = (
        "const listSchema = z.object({\n  limit: z.number(),\n});\n\nconst roleSchema = z.object({\n"
        "  role: z.string(),\n});\n\n// ... existing code ...\n\nrouter.patch(\n"
        '  "/users/:id/role",\n  requireRole("admin"),\n  validateBody(roleSchema),\n  async (req, res) => {\n'
        "    res.json(await setRole(req.body));\n  },\n);\n"
    )
    added = merged(routes, snippet, language="typescript")
    assert "const createSchema" in added and "const roleSchema" in added


def test_a_method_gone_yet_called_on_its_own_object_is_refused() -> None:
    """`ListActiveUsersAsync` shown where `GetActiveUsersAsync` stands, whose caller the snippet
    leaves out under a marker: renamed where it is declared, still called by its old name, so the
    file would not build. Python's `self.flush()` likewise; another object's `flush()` is not it."""
    original = (
        "public class UserService\n{\n    public async Task<int> CountAsync()\n    {\n        return 1;\n    }\n\n"
        "    public async Task<IReadOnlyList<User>> GetActiveUsersAsync(CancellationToken ct = default)\n    {\n"
        "        return await _db.Users.Where(u => !u.IsDeleted).ToListAsync(ct);\n    }\n\n"
        "    public async Task<Dashboard> GetDashboardAsync(CancellationToken ct = default)\n    {\n"
        "        var active = await GetActiveUsersAsync(ct);\n        return new Dashboard(active);\n    }\n}\n"
    )
    snippet = (
        "public class UserService\n{\n    public async Task<int> CountAsync()\n    {\n        return 1;\n    }\n\n"
        "    public async Task<IReadOnlyList<User>> ListActiveUsersAsync(CancellationToken ct = default)\n    {\n"
        "        return await _db.Users.Where(u => !u.IsDeleted && !u.IsBot).ToListAsync(ct);\n    }\n\n"
        "    public async Task<Dashboard> GetDashboardAsync(CancellationToken ct = default)\n    {\n"
        "        // ... existing code ...\n    }\n}\n"
    )
    result = ambiguous(original, snippet, language="csharp")
    assert result.reasons[0].message.endswith("would be gone, yet the file still calls it")
    # its caller shown calling the new name: renamed throughout
    shown = snippet.replace(
        "        // ... existing code ...\n    }\n}\n",
        "        var active = await ListActiveUsersAsync(ct);\n        // ... existing code ...\n    }\n}\n",
    )
    assert "GetActiveUsersAsync" not in merged(original, shown, language="csharp")
    # the old name kept as a wrapper, declared in a shape of its own (`Task<...> Name(...)`, `=> ...`)
    wrapped = snippet.replace(
        "    public async Task<Dashboard>",
        "    public Task<IReadOnlyList<User>> GetActiveUsersAsync(CancellationToken ct = default)\n"
        "        => ListActiveUsersAsync(ct);\n\n    public async Task<Dashboard>",
    )
    assert "=> ListActiveUsersAsync(ct);" in merged(original, wrapped, language="csharp")
    # what calls a method on its own object, by language; another object's method of that name is not it
    calls = {
        "python": ("        self.flush()", "        self.out.flush()"),
        "typescript": ("    await this.flush();", "    await writer.flush();"),
        "java": ("        return flush(buffer);", "        out.flush(buffer);"),
        "csharp": (
            "        var n = await FlushAsync(ct);",
            "        public async Task FlushAsync(CancellationToken ct)",
        ),
        "php": ("        $this->flush();", "        $out->flush();"),
    }
    for language, (call, other) in calls.items():
        name = "FlushAsync" if language == "csharp" else "flush"
        assert re.search(OWN_CALLS[language].format(name), call), language
        assert not re.search(OWN_CALLS[language].format(name), other), language
    # a constructor rewritten over lines is no method gone: it is called by its type's name
    service = (
        "public class Shipping\n{\n    private readonly Db _db;\n\n    public Shipping(Db db)\n    {\n        _db = db;\n"
        "    }\n\n    public int Count() => _db.Count();\n}\n"
    )
    rewritten = (
        "public class Shipping\n{\n    // ... existing code ...\n\n    public Shipping(\n        Db db,\n"
        "        ILogger<Shipping> log)\n    {\n        _db = db;\n        _log = log;\n    }\n\n    // ... existing code ...\n}\n"
    )
    assert "ILogger<Shipping> log)" in merged(service, rewritten, language="csharp")


def test_go_markers_all_at_column_0_stand_as_deep_as_the_code_above_them() -> None:
    """A Go snippet that writes every marker flush left, two at least between tab-indented lines
    (`\tdefault:`, `// ... existing code ...`, `\tcase "failed":`): the markers' columns say nothing,
    so each elides the rest of the block the code above it is in (a `default:` arm's body, the
    `select`'s other case) instead of closing it up. Two blind cases that closing up got wrong."""
    for name in ("s82-11-go-jobs-status-cancelled", "s98-19-go-cli-flag-defaults"):
        case = load_case(DEFAULT_ROOT / "everyday" / name)
        assert merged(case.original, case.snippet, language="go") == case.expected


def test_a_line_with_a_call_put_around_a_value_in_it_is_that_line_edited() -> None:
    """`parts.push(`FROM ${ident(this.table)}`)` shown where `parts.push(`FROM ${this.table}`)` stands,
    a marker below: the line edited, not a second push beside it. A word added to a message, or text
    added to SQL, says not which."""
    assert call_wrapped("parts.push(`FROM ${ident(this.table)}`);", "parts.push(`FROM ${this.table}`);")
    assert call_wrapped("cols.map(quote).join(', ')", "cols.join(', ')")
    assert not call_wrapped('log.info("rendering page")', 'log.info("rendering")')
    assert not call_wrapped('db.execute("UPDATE t SET a = 1, b = now()")', 'db.execute("UPDATE t SET a = 1")')
    original = (
        "class Query {\n  compile(): string {\n    const parts: string[] = [];\n"
        '    parts.push(`SELECT ${this.columns.join(", ")}`);\n    parts.push(`FROM ${this.table}`);\n'
        '    parts.push(`WHERE ${this.where}`);\n    return parts.join(" ");\n  }\n}\n'
    )
    snippet = (
        "  compile(): string {\n    const parts: string[] = [];\n"
        '    parts.push(`SELECT ${this.columns.map(ident).join(", ")}`);\n    parts.push(`FROM ${ident(this.table)}`);\n'
        "    // ... existing code ...\n  }\n"
    )
    expected = original.replace("this.columns.join", "this.columns.map(ident).join").replace(
        "${this.table}", "${ident(this.table)}"
    )
    assert merged(original, snippet, language="typescript") == expected


def test_a_marker_inside_a_plain_comment_above_a_function_elides_part_of_that_comment() -> None:
    """`// Run backs up a tenant.`, `//`, `// ...`, then the comment's later lines, one edited, and
    the function: the marker stands for the comment's lines between, as in a docblock (the comment
    below it is no part of the original's to edit or replace). A C `#  endif` after a marker is no
    comment."""
    original = (
        "package backup\n\n// Run backs up a single tenant.\n//\n// It writes the archive to the bucket and\n"
        "// records it in the index.\n//\n// Run returns ErrInProgress while another backup runs.\n//\n"
        "// The key of the new backup is returned.\nfunc (r *Runner) Run(tenant string) error {\n"
        "\treturn r.run(tenant)\n}\n"
    )
    snippet = (
        "// Run backs up a single tenant.\n//\n// ...\n// records it in the index.\n//\n"
        "// Run waits for another backup when wait is true.\n//\n// The key of the new backup is returned.\n"
        "func (r *Runner) Run(tenant string, wait bool) error {\n"
        "\treturn r.run(tenant, wait)\n}\n"
    )
    expected = (
        original.replace(
            "// Run returns ErrInProgress while another backup runs.\n",
            "// Run waits for another backup when wait is true.\n",
        )
        .replace("Run(tenant string)", "Run(tenant string, wait bool)")
        .replace("run(tenant)", "run(tenant, wait)")
    )
    assert merged(original, snippet, language="go") == expected
    case = load_case(DEFAULT_ROOT / "everyday" / "s78-08-cpp-bit-reverse-device-if-constexpr")  # `#  endif`
    assert merged(case.original, case.snippet, language="cpp") == case.expected


def test_a_new_element_beside_a_marker_that_names_the_elided_one_is_new() -> None:
    """A `Reports` link shown right above `<!-- ... Payments and Settings links unchanged ... -->`,
    where the `Payments` link stands: the marker names that one, so this one is added, not an edit
    of it."""
    original = (
        '<ul>\n  <li><a href="/invoices">Invoices</a></li>\n  <li><a href="/payments">Payments</a></li>\n'
        '  <li><a href="/settings">Settings</a></li>\n</ul>\n'
    )
    snippet = (
        '<ul>\n  <li><a href="/invoices">Invoices</a></li>\n  <li><a href="/reports">Reports</a></li>\n'
        "  <!-- ... Payments and Settings links unchanged ... -->\n</ul>\n"
    )
    expected = original.replace(
        '  <li><a href="/payments">', '  <li><a href="/reports">Reports</a></li>\n  <li><a href="/payments">'
    )
    assert merged(original, snippet, language="html") == expected


def test_a_removal_comment_naming_several_functions_deletes_each_with_its_comment() -> None:
    """`// removed fmtLong() and plural(): only the short format is supported now` at the end of
    the snippet: both functions go, each with the doc comment above it (a blank line between), and
    the comment is never written; the reason after the colon names nothing."""
    original = (
        "function fmtShort(ms) {\n  return ms + 'ms';\n}\n\n/**\n * Long format.\n */\n\nfunction fmtLong(ms) {\n"
        "  return plural(ms, 'ms');\n}\n\n/**\n * Pluralization helper.\n */\n\nfunction plural(ms, name) {\n"
        "  return ms + ' ' + name + 's';\n}\n"
    )
    snippet = (
        "function fmtShort(ms) {\n  return Math.round(ms) + 'ms';\n}\n\n"
        "// removed fmtLong() and plural(): only the short format is supported now\n"
    )
    assert (
        merged(original, snippet, language="javascript")
        == "function fmtShort(ms) {\n  return Math.round(ms) + 'ms';\n}\n"
    )


def test_declarations_deleted_together_and_dropped_together_from_a_list_are_meant_deleted() -> None:
    """`__all__` shown without `"rgb_to_yiq","yiq_to_rgb",`, the section that declares both closed
    up between the lines shown around it: more lines than a silent deletion may drop, but the
    snippet says so where it names them."""
    yiq = "".join(
        f"def {name}(a, b, c):\n    x = a * 0.30 + b * 0.59 + c * 0.11\n    y = a - x\n    z = b - x\n"
        "    return (x, y, z)\n\n"
        for name in ("rgb_to_yiq", "yiq_to_rgb")
    )
    original = (
        '__all__ = ["rgb_to_yiq","yiq_to_rgb","rgb_to_hls",\n           "hls_to_rgb"]\n\nONE_THIRD = 1.0/3.0\n\n'
        f"# YIQ: used by composite video signals\n\n{yiq}# HLS: Hue, Luminance, Saturation\n\n"
        "def rgb_to_hls(r, g, b):\n    return (r, g, b)\n\n\ndef hls_to_rgb(h, l, s):\n    return (h, l, s)\n"
    )
    snippet = (
        '__all__ = ["rgb_to_hls",\n           "hls_to_rgb"]\n\nONE_THIRD = 1.0/3.0\n\n'
        "# HLS: Hue, Luminance, Saturation\n\ndef rgb_to_hls(r, g, b):\n# ... rest of file unchanged ...\n"
    )
    expected = original.replace('"rgb_to_yiq","yiq_to_rgb",', "").replace(
        f"# YIQ: used by composite video signals\n\n{yiq}", ""
    )
    assert merged(original, snippet, language="python") == expected


def test_a_marker_below_a_doc_tag_line_leaves_the_doc_to_the_method_below() -> None:
    """Ruby's YARD comment shown with `# ...` for its description and for its tags after the one
    edited (`# @param currency [String, Symbol] ...`), then the method: one comment of the method,
    markers and all, its edited tag written over the original's."""
    original = (
        "module Money\n  # Formats an amount for display.\n  #\n  # Amounts are stored in cents.\n  #\n"
        "  # @param amount_cents [Integer] the amount in cents\n  # @param currency [String] ISO 4217 code\n"
        "  # @return [String] the formatted amount\n  def format_price(amount_cents, currency:)\n"
        '    "#{currency} #{amount_cents / 100.0}"\n  end\nend\n'
    )
    snippet = (
        "  # Formats an amount for display.\n  #\n  # ...\n  #\n  # @param amount_cents [Integer] the amount in cents\n"
        "  # @param currency [String, Symbol] ISO 4217 code, or a symbol\n  # ...\n"
        "  def format_price(amount_cents, currency:)\n    currency = currency.to_s.upcase\n"
        "    # ... rest unchanged ...\n"
    )
    expected = original.replace(
        "  # @param currency [String] ISO 4217 code\n",
        "  # @param currency [String, Symbol] ISO 4217 code, or a symbol\n",
    ).replace("currency:)\n", "currency:)\n    currency = currency.to_s.upcase\n")
    assert merged(original, snippet, language="ruby") == expected


KEEP = """\
import os


def keep(names, pat):
    \"\"\"The names kept.\"\"\"
    result = []
    match = compile(pat)
    for name in names:
        if match(name):
            result.append(name)
    return result
"""


def test_a_declaration_left_out_of_a_function_shown_whole_stays_where_its_name_is_still_used() -> None:
    """`result = []` left out between lines the snippet shows together, while `result` is still
    appended to and returned: the writer skipped the line, since deleted it would leave the name
    declared by nothing. A line that declares nothing, left out, is deleted as shown."""
    snippet = KEEP.replace("def keep(names, pat):", "def keep(names, pat, *, exclude=False):")
    snippet = snippet.replace("if match(name):", "if bool(match(name)) != exclude:")
    expected = snippet
    snippet = snippet.replace("    result = []\n", "")
    assert merged(KEEP, snippet, language="python") == expected
    # `match = compile(pat)` left out as well: still used, so it stays too
    assert merged(KEEP, snippet.replace("    match = compile(pat)\n", ""), language="python") == expected
    # the name given a new first value in its place, or declared by a new line elsewhere: the old
    # declaration is deleted as the snippet shows
    loop = (
        "    for name in names:\n        if bool(match(name)) != exclude:\n            result.append(name)\n"
    )
    redeclared = snippet.replace(
        loop, "    result = [name for name in names if bool(match(name)) != exclude]\n"
    )
    assert merged(KEEP, redeclared, language="python") == redeclared
    moved = "import os\n\nresult: list[str] = []\n" + snippet[len("import os\n") :]
    assert merged(KEEP, moved, language="python") == moved


def test_a_declaration_left_out_of_a_method_rewritten_whole_stays() -> None:
    """A C# method rewritten line by line, its `var user = ...` lookup left out above `if (user is
    null)`: the lookup goes back between the two lines that stood around it."""
    original = (
        "public class Users\n{\n"
        "    public async Task<IActionResult> ChangeEmail(Guid id, string email)\n    {\n"
        "        var user = await _users.FindAsync(id);\n"
        "        if (user is null)\n        {\n            return NotFound();\n        }\n\n"
        "        user.Email = email.Trim();\n"
        "        await _users.SaveAsync(user);\n        return NoContent();\n    }\n}\n"
    )
    expected = original.replace(
        "        user.Email = email.Trim();\n",
        "        var trimmed = email.Trim();\n        if (await _users.EmailInUseAsync(trimmed))\n"
        "        {\n            return Conflict();\n        }\n\n        user.Email = trimmed;\n"
        "        user.EmailVerified = false;\n",
    )
    snippet = "// ...\n" + expected[expected.index("    public async") :].replace(
        "        var user = await _users.FindAsync(id);\n", ""
    )
    assert merged(original, snippet, language="csharp") == expected
    # the name declared by nothing below either: a statement that declares nothing is left deleted
    dropped_log = original.replace("var user = await _users.FindAsync(id);", "_log.Info(id);")
    assert "_log" not in merged(dropped_log, snippet, language="csharp")


@pytest.mark.parametrize(
    ("line", "declaring"),
    [
        ("        let Some(next) = current.checked_add(by) else {", True),
        ("} else if (event instanceof StatusChangeEvent next) {", True),
        ("    for next in queue:", True),
        ("    with open(path) as next:", True),
        ("    next := <-jobs", True),
        ("    if next is None:", False),
        ("        return next", False),
        ("    store(next, ttl=5)", True),  # (a keyword argument reads as an assignment: not kept)
        ("    store(next)", False),
        ("    if next == last {", False),
    ],
)
def test_what_declares_a_name_again(line: str, declaring: bool) -> None:
    """A dropped declaration stays only where the first line below that names it uses it."""
    assert declares(line, whole_word("next", member=False)) is declaring


def test_a_short_first_line_over_a_long_run_of_the_originals_lines_is_that_code() -> None:
    """A snippet that opens deep in a Lua table with `keys = {` and the original's entries below it,
    one entry added: the original's table with one more, not a second copy of it written at the
    top (`keys = {` is short, but the lines the original has below it say plenty)."""
    entries = [
        '      { "<leader>ff", "<cmd>Telescope find_files<cr>", desc = "Find files" },\n',
        '      { "<leader>fg", "<cmd>Telescope live_grep<cr>", desc = "Live grep" },\n',
        '      { "<leader>fb", "<cmd>Telescope buffers<cr>", desc = "Buffers" },\n',
    ]
    added = '      { "<leader>fr", "<cmd>Telescope oldfiles<cr>", desc = "Recent files" },\n'
    which_key = '  {\n    "folke/which-key.nvim",\n    event = "VeryLazy",\n  },\n'
    oil = '  {\n    "stevearc/oil.nvim",\n    cmd = "Oil",\n  },\n'
    original = (
        '-- plugins\nreturn {\n  {\n    "nvim-telescope/telescope.nvim",\n    keys = {\n'
        + "".join(entries)
        + '    },\n    config = function()\n      require("telescope").setup({})\n    end,\n  },\n\n'
        + which_key
        + "}\n"
    )
    snippet = "    keys = {\n" + "".join(entries) + added + "    },\n    -- ... config unchanged ...\n\n"
    snippet += which_key + "\n" + oil + "}\n"
    expected = original.replace(entries[-1], entries[-1] + added).replace(which_key, which_key + "\n" + oil)
    assert merged(original, snippet, language="lua") == expected


def test_new_first_member_keeps_the_blank_line_shown_below_it() -> None:
    """A constant written above a class's first method, which stands right below the class's `{`:
    the blank line the snippet shows between the constant and the marker for the methods stays."""
    original = (
        "<?php\n\nfinal class Message extends BaseMessage {\n  /**\n   * Sends the message.\n   */\n"
        "  public function send() {\n    $this->transport->send($this);\n  }\n}\n"
    )
    snippet = (
        "final class Message extends BaseMessage {\n  const MAX_RECIPIENTS = 500;\n\n"
        "  // ... existing methods ...\n}\n"
    )
    expected = original.replace("{\n  /**", "{\n  const MAX_RECIPIENTS = 500;\n\n  /**", 1)
    assert merged(original, snippet, language="php") == expected
    # the same below the `{` of a C# class written Allman style, its header on the line above
    original = (
        "namespace Crm\n{\n    public partial class CustomerViewModel : INotifyPropertyChanged\n    {\n"
        '        private string _name = "";\n        private string _email = "";\n\n'
        "        public string Name => _name;\n    }\n}\n"
    )
    field = "        private readonly Dictionary<string, string> _errors = new();\n"
    snippet = (
        "namespace Crm\n{\n    public partial class CustomerViewModel : INotifyPropertyChanged\n    {\n"
        + field
        + "\n        // ... existing fields and properties ...\n    }\n}\n"
    )
    expected = original.replace(
        "    {\n        private string _name", "    {\n" + field + "\n        private string _name"
    )
    assert merged(original, snippet, language="csharp") == expected


def test_lines_shown_as_they_stand_in_two_blocks_are_no_edit_of_a_third() -> None:
    """`defer f.Close()` below an `os.Open` check that two functions have word for word: the third
    function, which returns `"", err` there and closes the file already, is no place to edit that
    check into the one shown. Where the third stands alone, the lines shown edit it."""

    def reader(name: str, result: str, tail: str) -> str:
        return (
            f"func {name}(path string) ({result}, error) {{\n\tf, err := os.Open(path)\n\tif err != nil {{\n"
            f"\t\treturn {'nil' if result != 'string' else chr(34) * 2}, err\n\t}}\n{tail}"
            f"\treturn parse{name}(f)\n}}\n\n"
        )

    original = "package manifest\n\n" + reader("Manifest", "[]Entry", "") + reader("Ignores", "[]string", "")
    original += reader("Hash", "string", "\tdefer f.Close()\n")
    snippet = (
        "// ... existing code ...\n\tf, err := os.Open(path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n"
        "\tdefer f.Close()\n// ... existing code ...\n"
    )
    result = merge(original, snippet, language="go")
    assert result.status == "ambiguous"
    assert result.reasons[0].code == "several_candidates"
    # the third alone: the lines shown edit its check
    single = "package manifest\n\n" + reader("Hash", "string", "\tdefer f.Close()\n")
    expected = single.replace('return "", err', "return nil, err")
    assert merged(single, snippet, language="go") == expected


def test_an_attribute_shown_above_a_marker_is_the_head_of_the_member_it_keeps() -> None:
    """A new action, then `[HttpPut("{id:int}")]` and a marker: the attribute is the first line of
    the `Update` action the marker keeps, shown to place the new one above it, not a second
    attribute written above the first."""
    original = (
        "public class WarehousesController : ControllerBase\n{\n"
        '    [HttpGet("{id:int}")]\n    public IActionResult GetById(int id)\n    {\n        return Ok(id);\n    }\n\n'
        '    [HttpPut("{id:int}")]\n    public IActionResult Update(int id)\n    {\n        return NoContent();\n    }\n}\n'
    )
    create = "    [HttpPost]\n    public IActionResult Create()\n    {\n        return Created();\n    }\n\n"
    snippet = (
        "    // ... existing code ...\n        return Ok(id);\n    }\n\n"
        + create
        + '    [HttpPut("{id:int}")]\n    // ... existing code ...\n'
    )
    expected = original.replace('    [HttpPut("{id:int}")]\n', create + '    [HttpPut("{id:int}")]\n')
    assert merged(original, snippet, language="csharp") == expected


@pytest.mark.parametrize(
    ("lines", "language", "surplus"),
    [
        (["    end", "    notify(project)", "  end"], "ruby", 2),
        (["    items.each do |item|", "      item.save!", "    end"], "ruby", 0),
        (["  df = try", "    load(path)", "  catch err", "    continue", "  end"], "julia", 0),
        (["  local ok = pcall(function()", "    run()", "  end)"], "lua", 0),
        (["  end", "}"], "javascript", 0),  # (braces are the parser's to count)
    ],
)
def test_surplus_ends(lines: list[str], language: str, surplus: int) -> None:
    assert surplus_ends(lines, language) == surplus


def test_new_end_lines_that_close_nothing_of_theirs_are_refused() -> None:
    """An `end` ladder whose indentation does not match the blocks it would close, a new line
    between two of its rungs: placed by count it writes two `end`s of its own, and Ruby's parser
    takes them silently. No reading: refused."""
    original = (
        "class Sync\n  def call\n    accounts.each do |account|\n      account.projects.each do |project|\n"
        "        project.sync!\n      end\n\n      account.touch\n    end\n  end\nend\n"
    )
    snippet = (
        "  def call\n    accounts.each do |account|\n      # ... existing code ...\n        end\n"
        "      notify(account)\n      end\n    end\n  end\n"
    )
    result = merge(original, snippet, language="ruby")
    assert result.status == "ambiguous"


@pytest.mark.parametrize("statement", ["done()", "end = len(buffer)"])
def test_a_closing_word_called_or_assigned_is_a_statement_not_a_closer(statement: str) -> None:
    """`done()` or `end = ...` below an `if` at its column is the next statement (shell's `done`
    and Ruby's `end` take no call or value): an `else:` added to the `if` leaves it standing."""
    original = f"def f(x):\n    prep()\n    if x:\n        run(x)\n    {statement}\n    more()\n"
    snippet = "def f(x):\n    # ...\n    if x:\n        run(x)\n    else:\n        log(0)\n    # ...\n"
    expected = original.replace("        run(x)\n", "        run(x)\n    else:\n        log(0)\n")
    assert merged(original, snippet, language="python") == expected


TRY_CHAIN = """\
def f(x):
    prep()
    try:
        run(x)
    except KeyError:
        log(1)
    except Exception:
        log(2)
    finish()
"""


def test_a_new_clause_above_a_marker_is_added_to_the_chain_the_marker_keeps() -> None:
    """`except TimeoutError:` shown below the body, a marker at the clauses' column below it: the
    original's clauses stay below the new one (they were deleted, `finish()` kept). A clause
    opening with a line much like one of the original's is that clause edited."""
    snippet = (
        "def f(x):\n    # ...\n    try:\n        run(x)\n    except TimeoutError:\n        retry_later(x)\n"
        "    # ...\n"
    )
    added = "    except TimeoutError:\n        retry_later(x)\n"
    assert merged(TRY_CHAIN, snippet, language="python") == TRY_CHAIN.replace(
        "        run(x)\n", "        run(x)\n" + added
    )
    # another clause over a body much like the original's first: that clause edited, not one added
    reworded = snippet.replace("retry_later(x)", "log(1)").replace("TimeoutError", "LookupError")
    assert "except KeyError:" not in merged(TRY_CHAIN, reworded, language="python")


def test_a_new_return_above_the_return_it_rewrites_is_no_merge() -> None:
    """`return cls(` written over several lines with an argument more, where the original returns
    `cls(...)` on one line: kept below the new one, the old return would be dead code, so the
    new one rewrites it (refused rather than written twice; a return under a condition, Ruby's
    `return if suspended?`, leaves nothing dead: s103-34)."""
    original = (
        "class Config:\n    @classmethod\n    def parse(cls, path, encoding):\n        data = load(path)\n"
        "        # Call constructor with pre-parsed sections\n        return cls(path=path, _sections=data)\n\n"
        "    def lineof(self, name):\n        return self._sources.get(name)\n"
    )
    snippet = (
        "class Config:\n    @classmethod\n    def parse(cls, path, encoding):\n        # ...\n"
        "        # Call constructor with pre-parsed sections\n        return cls(\n            path=path,\n"
        "            encoding=encoding,\n            _sections=data,\n        )\n\n    # ...\n"
    )
    result = merge(original, snippet, language="python")
    assert result.status == "ambiguous"
