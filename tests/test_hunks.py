"""The hunk reader, the merge's last resort: a snippet that jumps from deep in one function to deep
in another is placed hunk by hunk, each by its own context, and only where one reading fits."""

import pytest

from apply_engine.align import Copy, Insert
from apply_engine.hunks import (
    AS_SHOWN,
    COPIED_WITHIN,
    MAX_OPENINGS,
    Hunks,
    Placed,
    plan_hunks,
    restated,
    retouched,
    same_field,
)
from apply_engine.structural import merge

GO_CLIENT = """\
package client

import (
\t"fmt"
\t"net"
\t"os"
)

func (c *Client) Run() error {
\tconn, err := net.Dial("tcp", c.Addr)
\tif err != nil {
\t\treturn err
\t}
\tdefer conn.Close()
\tfmt.Fprintln(conn, "hello")
\treturn nil
}

func (c *Client) Retry() error {
\tvar err error
\tfor i := 0; i < c.Retries; i++ {
\t\tif err = c.Run(); err == nil {
\t\t\treturn nil
\t\t}
\t\tfmt.Fprintln(os.Stderr, "retrying")
\t}
\treturn err
}
"""


def apply(original: str, snippet: str) -> str | None:
    """plan_hunks's reading, rendered: marker lines are those starting with `#`."""
    lines, shown = original.splitlines(), snippet.splitlines()
    markers = {k for k, line in enumerate(shown) if line.strip().startswith("# ...")}
    ops = plan_hunks(lines, shown, markers)
    if ops is None:
        return None
    out: list[str] = []
    for op in ops:
        out += lines[op.start : op.end] if type(op).__name__ == "Copy" else shown[op.start : op.end]
    return "\n".join(out) + "\n"


def test_a_snippet_jumping_between_functions_merges_hunk_by_hunk() -> None:
    snippet = """\
\t"fmt"
\t"log"
\t"net"
// ...
\tconn, err := net.Dial("tcp", c.Addr)
\tif err != nil {
\t\tlog.Printf("dial %s: %v", c.Addr, err)
\t\treturn err
\t// ...
\t\tif err = c.Run(); err == nil {
\t\t\treturn nil
\t\t}
\t\tlog.Printf("attempt %d failed", i)
\t\tfmt.Fprintln(os.Stderr, "retrying")
\t// ...
"""
    expected = (
        GO_CLIENT.replace('\t"fmt"\n', '\t"fmt"\n\t"log"\n')
        .replace("\t\treturn err\n", '\t\tlog.Printf("dial %s: %v", c.Addr, err)\n\t\treturn err\n')
        .replace("\t\t}\n\t\tfmt.Fprintln", '\t\t}\n\t\tlog.Printf("attempt %d failed", i)\n\t\tfmt.Fprintln')
    )
    result = merge(GO_CLIENT, snippet, language="go")
    assert result.status == "ok", result.reasons
    assert result.merged == expected


def test_a_hunk_opening_on_a_restated_line_writes_it_over_the_original() -> None:
    # the hunk opens on `conn, err := net.DialTimeout(...)`, new, over its context: the same
    # assignment as the original line right above that context, so it replaces it
    snippet = (
        '\t"fmt"\n\t"log"\n\t"net"\n# ...\n\tconn, err := net.DialTimeout("tcp", c.Addr, c.Timeout)\n'
        "\tif err != nil {\n\t\treturn err\n# ...\n"
    )
    expected = GO_CLIENT.replace('\t"fmt"\n', '\t"fmt"\n\t"log"\n').replace(
        'net.Dial("tcp", c.Addr)', 'net.DialTimeout("tcp", c.Addr, c.Timeout)'
    )
    assert apply(GO_CLIENT, snippet) == expected
    # its top anchor is the context, below the line it replaces: passed over where that stands above
    lines = ["x = 1", "return x", "x = 2", "return x"]
    placed = Placed(2, 4, 1, [], anchor=3)
    assert Hunks(lines, []).passed_over(0, placed)
    assert not Hunks(lines, []).passed_over(2, placed)


def test_a_hunk_opening_on_new_lines_is_placed_by_the_rest_of_it_edits_and_all() -> None:
    # `requires-python` restated above its context, and a line rewritten further down the hunk
    original = (
        '[project]\nname = "urllib3"\nrequires-python = ">=3.8"\ndynamic = ["version"]\n\n'
        '[project.optional-dependencies]\nbrotli = [\n  "brotli>=1.0.9",\n  "brotlicffi>=0.8.0"\n]\n'
        '\n[tool.pytest.ini_options]\nlog_level = "DEBUG"\nfilterwarnings = [\n  "error",\n]\n'
    )
    snippet = (
        '# ...\nrequires-python = ">=3.9"\ndynamic = ["version"]\n\n[project.optional-dependencies]\n'
        'brotli = [\n  "brotli>=1.1.0",\n  "brotlicffi>=0.8.0"\n]\n# ...\n[tool.pytest.ini_options]\n'
        'log_level = "INFO"\nfilterwarnings = [\n# ...\n'
    )
    expected = (
        original.replace(">=3.8", ">=3.9")
        .replace("brotli>=1.0.9", "brotli>=1.1.0")
        .replace('log_level = "DEBUG"', 'log_level = "INFO"')
    )
    assert restated('requires-python = ">=3.8"', 'requires-python = ">=3.9"')
    assert apply(original, snippet) == expected


def test_lines_that_tell_nothing_are_placed_below_the_line_they_restate() -> None:
    # `str` and `);` alone tell no place apart; below the `var match = ...` they restate, they do
    original = (
        "var h = m * 60;\nvar d = h * 24;\n\nfunction parse(str) {\n  var match = /^(\\d+) *(ms|s|m|h|d)?$/i.exec(\n"
        "    str\n  );\n  if (!match) {\n    return;\n  }\n}\n"
    )
    snippet = (
        "var d = h * 24;\nvar mo = d * 30;\n# ...\n  var match = /^(\\d+) *(ms|s|m|h|d|mo)?$/i.exec(\n"
        "    str\n  );\n# ...\n"
    )
    expected = original.replace("var d = h * 24;\n", "var d = h * 24;\nvar mo = d * 30;\n").replace(
        "(ms|s|m|h|d)", "(ms|s|m|h|d|mo)"
    )
    assert apply(original, snippet) == expected


def test_a_python_signature_restated_above_its_body_is_written_over_the_original() -> None:
    original = (
        "MAXLINE = 8192\n\n\nclass FTP:\n    def retrbinary(self, cmd, callback, blocksize=8192):\n"
        '        """Retrieve data in binary mode."""\n        self.voidcmd("TYPE I")\n'
    )
    snippet = (
        "MAXLINE = 8192\nDEFAULT_BLOCKSIZE = 65536\n# ...\n"
        "    def retrbinary(self, cmd, callback, blocksize=DEFAULT_BLOCKSIZE):\n"
        '        """Retrieve data in binary mode."""\n# ...\n'
    )
    expected = original.replace("MAXLINE = 8192\n", "MAXLINE = 8192\nDEFAULT_BLOCKSIZE = 65536\n").replace(
        "blocksize=8192", "blocksize=DEFAULT_BLOCKSIZE"
    )
    assert apply(original, snippet) == expected


def test_a_hunk_ending_on_a_restated_line_writes_it_over_the_original() -> None:
    # no bottom anchor: the hunk's last line restates `val values = ...` a line below the new case
    original = (
        "object Channel {\n  case object Email extends Channel\n  case object Push extends Channel\n\n"
        "  val values: List[Channel] = List(Email, Push)\n\n  def fromId(id: String) = values.find(_.id == id)\n}\n\n"
        "object Limits {\n  def quota(c: Channel): Int = c match {\n    case Channel.Email => 100\n"
        "    case Channel.Push => 50\n  }\n}\n"
    )
    snippet = (
        "  case object Push extends Channel\n  case object InApp extends Channel\n\n"
        "  val values: List[Channel] = List(Email, Push, InApp)\n# ...\n    case Channel.Push => 50\n"
        "    case Channel.InApp => 10\n# ...\n"
    )
    expected = (
        original.replace(
            "Push extends Channel\n", "Push extends Channel\n  case object InApp extends Channel\n"
        )
        .replace("List(Email, Push)", "List(Email, Push, InApp)")
        .replace("=> 50\n", "=> 50\n    case Channel.InApp => 10\n")
    )
    assert apply(original, snippet) == expected


ORDERS = """\
{% block content %}
<table>
  {% for order in orders %}
    <tr>
      <td>{{ order.number }}</td>
      <td title="{{ order.created_at|date:'c' }}">{{ order.created_at|date:"d/m/Y" }}</td>
      <td>{{ order.total }}</td>
    </tr>
  {% endfor %}
</table>
{% endblock content %}
"""


def test_a_value_changed_in_a_long_line_before_a_marker_is_an_edit_of_it() -> None:
    # nothing below the changed line anchors it, yet a line that differs from the original's there
    # by one literal only is that line edited, not a second cell added above it
    edited = (
        """<td title="{{ order.created_at|date:'c' }}">{{ order.created_at|date:"SHORT_DATE_FORMAT" }}</td>"""
    )
    snippet = f"{{# ... #}}\n    <tr>\n      <td>{{{{ order.number }}}}</td>\n      {edited}\n{{# ... #}}\n"
    snippet += (
        "{% endblock content %}\n\n{% block extra_js %}\n  <script></script>\n{% endblock extra_js %}\n"
    )
    expected = ORDERS.replace('date:"d/m/Y"', 'date:"SHORT_DATE_FORMAT"') + (
        "\n{% block extra_js %}\n  <script></script>\n{% endblock extra_js %}\n"
    )
    result = merge(ORDERS, snippet, path="orders.html")
    assert result.status == "ok", result.reasons
    assert result.merged == expected
    # the same line with a name changed, not a value: a rename, or a new cell? No reading
    renamed = """<td title="{{ order.created_at|date:'c' }}">{{ order.placed_at|date:"d/m/Y" }}</td>"""
    assert merge(ORDERS, snippet.replace(edited, renamed), path="orders.html").status == "ambiguous"


def test_one_run_between_template_comments_is_placed_by_the_hunk_reader() -> None:
    # `{# ... #}` is a marker to the hunk reader only; the alignment reads it as code, so a snippet of
    # one run of code between two of them is the hunk reader's to place too
    snippet = (
        "{# ... #}\n    <tr>\n      <td>{{ order.number }}</td>\n"
        "      <td>{{ order.customer }}</td>\n      <td title=\"{{ order.created_at|date:'c' }}\">"
        '{{ order.created_at|date:"d/m/Y" }}</td>\n{# ... #}\n'
    )
    expected = ORDERS.replace(
        "{{ order.number }}</td>\n", "{{ order.number }}</td>\n      <td>{{ order.customer }}</td>\n"
    )
    result = merge(ORDERS, snippet, path="orders.html")
    assert result.status == "ok", result.reasons
    assert result.merged == expected


def test_a_value_changed_in_a_long_line_after_a_marker_is_an_edit_of_it() -> None:
    original = (
        "<table>\n  {{ range .Items }}\n  <tr>\n    <td>{{ .Name }}</td>\n"
        '    <td>{{ .Created.Format "2006-01-02" }}</td>\n  </tr>\n  {{ end }}\n</table>\n'
    )
    snippet = (
        "<table>\n  <caption>Items</caption>\n# ...\n"
        '    <td>{{ .Created.Format "02 Jan 2006" }}</td>\n  </tr>\n  {{ end }}\n</table>\n'
    )
    expected = original.replace("<table>\n", "<table>\n  <caption>Items</caption>\n").replace(
        '"2006-01-02"', '"02 Jan 2006"'
    )
    assert apply(original, snippet) == expected


CONFIG_RS = """\
fn default_pool_size() -> u32 {
    10
}

impl Config {
    fn validate(&self) -> Result<(), ConfigError> {
        if !self.url.starts_with("postgres://") {
            return Err(ConfigError::Invalid {
                field: "url",
                reason: "bad scheme".into(),
            });
        }
        Ok(())
    }
}

#[test]
fn defaults() {
    let config = Config::default();
    assert_eq!(config.pool_size, 10);
    assert!(config.url.is_empty());
}
"""


def test_values_fields_and_lone_lines_rewritten_between_anchors_and_markers() -> None:
    snippet = """\
fn default_pool_size() -> u32 {
    16
}
# ...
        if !self.url.starts_with("postgres://") {
            return Err(ConfigError::Invalid {
                field: "url",
                reason: format!("expected postgres://, got {}", self.url),
            });
        }
# ...
    assert_eq!(config.pool_size, 16);
# ...
"""
    expected = (
        CONFIG_RS.replace("    10\n", "    16\n")
        .replace('"bad scheme".into()', 'format!("expected postgres://, got {}", self.url)')
        .replace("pool_size, 10", "pool_size, 16")
    )
    # a literal given another value (`10`), a field another value (`reason:`), and a line alone
    # between markers, which rewrites the one original line much like it
    assert apply(CONFIG_RS, snippet) == expected
    # two lines much like the lone one: which does it rewrite?
    twice = CONFIG_RS.replace(
        "    assert!(config.url.is_empty());\n", "    assert_eq!(config.pool_size, 12);\n"
    )
    assert apply(twice, snippet) is None


def test_a_name_declared_again_over_where_it_stands_rewrites_that_declaration() -> None:
    original = (
        'import { api } from "./api";\n\nfunction sortRows(rows, key) {\n  const copy = [...rows];\n'
        "  copy.sort((a, b) => a[key] - b[key]);\n  return copy;\n}\n"
    )
    snippet = (
        'import { api } from "./api";\nconst onlyOpen = true;\n# ...\nfunction sortRows(rows, key) {\n'
        "  const copy = onlyOpen ? rows.filter((row) => row.open) : [...rows];\n# ...\n"
    )
    # (`const copy` twice in one body is no JavaScript: the one shown is the original's, rewritten)
    expected = original.replace('from "./api";\n', 'from "./api";\nconst onlyOpen = true;\n').replace(
        "const copy = [...rows];", "const copy = onlyOpen ? rows.filter((row) => row.open) : [...rows];"
    )
    assert apply(original, snippet) == expected


def test_lines_rewritten_one_at_a_time_between_as_many_kept_may_pass_the_rewrite_budget() -> None:
    original = (
        "import os\n\n\ndef summary(result):\n    parts = [\n        plural(result.files, noun),\n    ]\n"
        "    if result.errors:\n        parts.append(plural(result.errors, noun))\n    if result.warnings:\n"
        "        parts.append(plural(result.warnings, noun))\n    if result.fixed:\n"
        "        parts.append(plural(result.fixed, noun))\n    return ', '.join(parts)\n"
    )
    styled = original.replace(", noun)", ", noun, style=BOLD)")
    snippet = styled.replace("import os\n\n\n", "import os\nBOLD = 1\n# ...\n")
    expected = styled.replace("import os\n", "import os\nBOLD = 1\n")
    # four lines rewritten in one hunk, more than MAX_REWRITTEN, but each alone between lines kept
    assert apply(original, snippet) == expected
    # four in a row are too many to read as rewrites
    together = "\n".join(line for line in original.split("\n") if not line.startswith(("    if", "    ]")))
    shown = together.replace(", noun)", ", noun, style=BOLD)").replace(
        "import os\n\n\n", "import os\nBOLD = 1\n# ...\n"
    )
    assert apply(together, shown) is None


def test_one_more_of_a_chain_of_look_alike_branches_is_not_a_rewrite_of_the_next() -> None:
    original = (
        "def main(opts):\n    for o, a in opts:\n        if o in ('-n', '--number'):\n            number = int(a)\n"
        "        if o in ('-p', '--process'):\n            timer = time.process_time\n"
        "        if o in ('-v', '--verbose'):\n            verbose += 1\n    return number\n"
    )
    snippet = (
        "# ...\n        if o in ('-p', '--process'):\n            timer = time.process_time\n"
        "        if o in ('-g', '--gc'):\n            keep_gc = True\n# ...\n    return number\n"
    )
    # `-g` added, or `-v` rewritten into it with its body elided? Beside two like it, added; yet
    # the marker after it says nothing of `-v`, so no reading places it
    assert apply(original, snippet) is None
    # a block opener with no look-alikes around is the same block, rewritten
    single = original.replace("o in ('-n', '--number')", "ready(a)").replace(
        "o in ('-p', '--process')", "slow(a)"
    )
    rewritten = snippet.replace("o in ('-p', '--process')", "slow(a)").replace(
        "('-g', '--gc')", "('-v', '--verbose', '-V')"
    )
    assert apply(single, rewritten) == single.replace(
        "        if o in ('-v', '--verbose'):\n            verbose += 1\n",
        "        if o in ('-v', '--verbose', '-V'):\n            keep_gc = True\n            verbose += 1\n",
    )


def test_a_block_opener_given_another_literal_is_that_block_not_one_more() -> None:
    original = (
        "module.exports = function (val) {\n  return parse(val);\n};\n\nfunction parse(str) {\n"
        "  str = String(str);\n  if (str.length > 100) {\n    return;\n  }\n  return match(str);\n}\n"
    )
    snippet = (
        "module.exports = function (val) {\n  return parse(val);\n};\n# ...\nfunction parse(str) {\n"
        "  str = String(str);\n  if (str.length > 200) {\n    return;\n  }\n# ...\n"
    )
    # `if (...) { return; }` also reads as a new block above the original's; but one that differs
    # from it by a literal only is the original's, its limit raised
    assert apply(original, snippet) == original.replace("> 100", "> 200")


def test_a_short_line_whose_one_string_is_reworded_is_an_edit_of_it() -> None:
    original = (
        "import sys\n\n\ndef main():\n    if len(sys.argv) < 2:\n"
        '        print("usage: stem [-k] FILE")\n        return 2\n    return run(sys.argv[1:])\n'
    )
    snippet = (
        'import sys\nimport os\n# ...\n        print("usage: stem [-k] [-c] FILE")\n        return 2\n# ...\n'
    )
    expected = original.replace("import sys\n", "import sys\nimport os\n").replace(
        "[-k] FILE", "[-k] [-c] FILE"
    )
    assert apply(original, snippet) == expected
    # a string unlike the one there makes another line, added below it
    unlike = snippet.replace("usage: stem [-k] [-c] FILE", "no file given")
    assert apply(original, unlike) == original.replace("import sys\n", "import sys\nimport os\n").replace(
        'FILE")\n', 'FILE")\n        print("no file given")\n'
    )
    # a message reworded further (0.78 alike) is the same message still; a short string is no prose, and
    # another route beside the one there is as likely as the route renamed
    log = '\tlog.Printf("socket: cannot find HOME path. using relative directory %q for socket", path)'
    reworded = log.replace("cannot find HOME path.", "$HOME is not set;").replace(
        "for socket", "for the socket"
    )
    assert retouched(log, reworded)
    route = '\tmux.HandleFunc("GET /api/v1/users", s.users)'
    assert not retouched(route, route.replace("v1", "v2"))


def test_a_field_set_again_beside_its_anchor_is_the_field_edited() -> None:
    original = (
        "export const useCustomer = (id: string) =>\n  useQuery({\n    queryKey: ['customer', id],\n"
        "    queryFn: () => api.get(`/customers/${id}`),\n    staleTime: 30_000,\n    retry: 2,\n  });\n\n"
        "export const useOrders = () =>\n  useQuery({\n    queryKey: ['orders'],\n    queryFn: () => api.get('/orders'),\n"
        "    staleTime: 30_000,\n    retry: 2,\n  });\n"
    )
    snippet = (
        "# ...\n    queryFn: () => api.get(`/customers/${id}`),\n    staleTime: 5 * 60_000,\n# ...\n"
        "    queryFn: () => api.get('/orders'),\n    staleTime: 10_000,\n# ...\n"
    )
    # `staleTime:` twice in one object is no object: each is the field below its anchor, edited
    expected = original.replace("staleTime: 30_000", "staleTime: 5 * 60_000", 1).replace(
        "staleTime: 30_000", "staleTime: 10_000"
    )
    assert apply(original, snippet) == expected
    # and above it: the field right above the line it is shown over
    decision = (
        "const LIMIT: u64 = 25;\n\nfn check(n: u64) -> Decision {\n    if n > LIMIT {\n        return Decision {\n"
        '            allowed: false,\n            reason: "too large".to_string(),\n            retry_after: None,\n'
        "        };\n    }\n    Decision::allow()\n}\n"
    )
    shown = (
        "const LIMIT: u64 = 50;\n# ...\n"
        '            reason: format!("{} is over {}", n, LIMIT),\n            retry_after: None,\n# ...\n'
    )
    assert apply(decision, shown) == decision.replace("= 25", "= 50").replace(
        '"too large".to_string()', 'format!("{} is over {}", n, LIMIT)'
    )
    # Ruby's `before_action :require_admin` names a symbol: no field, so no such reading
    assert not same_field("    before_action :require_finance_role", "    before_action :require_admin")
    # PHP's (and Ruby's, Perl's) `'key' => value` entries are fields too: two of them set anew below
    # the entry that picks their array, though each stands elsewhere as it was
    queues = (
        "<?php\n\nreturn [\n    'database' => [\n        'table' => 'jobs',\n        'retry_after' => 90,\n"
        "    ],\n    'redis' => [\n        'queue' => env('REDIS_QUEUE', 'default'),\n        'retry_after' => 90,\n"
        "        'block_for' => null,\n    ],\n    'long' => [\n        'retry_after' => 3600,\n"
        "        'block_for' => null,\n    ],\n];\n"
    )
    raised = (
        "<?php\n\nreturn [\n# ...\n        'queue' => env('REDIS_QUEUE', 'default'),\n"
        "        'retry_after' => 180,\n        'block_for' => 5,\n# ...\n"
    )
    assert apply(queues, raised) == queues.replace(
        "'default'),\n        'retry_after' => 90,\n        'block_for' => null,",
        "'default'),\n        'retry_after' => 180,\n        'block_for' => 5,",
    )
    assert same_field("        'retry_after' => 90,", "        'retry_after' => 180,")


def test_a_hunk_whose_context_stands_in_two_functions_is_ambiguous() -> None:
    original = "a = 1\n\ndef f():\n    start()\n    stop()\n\ndef g():\n    start()\n    stop()\n"
    snippet = "a = 1\n# ...\n    start()\n    audit()\n    stop()\n# ...\n"
    assert apply(original, snippet) is None
    assert merge(original, snippet, language="python").status == "ambiguous"


def test_a_line_rewritten_between_anchors_is_an_edit() -> None:
    original = "a = 1\n\ndef f():\n    x = compute(1)\n    return x\n\ndef g():\n    return 2\n"
    snippet = "a = 1\n# ...\ndef f():\n    x = compute(1, strict=True)\n    return x\n# ...\n"
    assert apply(original, snippet) == original.replace("compute(1)", "compute(1, strict=True)")


def test_a_rewrite_that_also_reads_as_a_new_block_is_ambiguous() -> None:
    # `type Pause` after `type Cancel`: a new type, or `type Resume` renamed? Both fit.
    original = (
        "schema { query: Query }\n\ntype Cancel {\n  id: ID\n}\n\ntype Resume {\n  id: ID\n  at: Date\n}\n\n"
        "type Other {\n  id: ID\n}\n"
    )
    snippet = "schema { query: Query }\n# ...\ntype Cancel {\n  id: ID\n}\n\ntype Pause {\n  id: ID\n  at: Date\n}\n# ...\n"
    assert apply(original, snippet) is None


def test_original_lines_between_anchors_are_never_deleted() -> None:
    original = "a = 1\n\ndef f():\n    start()\n    cleanup()\n    stop()\n"
    snippet = "a = 1\n# ...\n    start()\n    audit()\n    stop()\n# ...\n"
    assert apply(original, snippet) is None  # `cleanup()` rewritten as `audit()`? Too unlike.
    flushed = original.replace("    cleanup()\n", "    cleanup()\n    flush()\n")
    assert apply(flushed, "a = 1\n# ...\n    start()\n    flush()\n    audit()\n    stop()\n# ...\n") is None


def test_a_hunk_placed_past_a_nearer_match_of_its_context_is_ambiguous() -> None:
    # f has `start(); stop()` too: the marker may stand for f's rest, or for all of f
    original = "x = 1\n\ndef f():\n    start()\n    stop()\n    cleanup()\n\ndef g():\n    start()\n    stop()\n    report()\n"
    snippet = "x = 1\n# ...\n    start()\n    stop()\n    audit()\n    report()\n# ...\n"
    assert apply(original, snippet) is None
    unique = original.replace(
        "    start()\n    stop()\n    cleanup()", "    begin()\n    stop()\n    cleanup()"
    )
    assert apply(unique, snippet) == unique.replace("    report()", "    audit()\n    report()")


def test_a_hunk_opening_on_a_line_found_everywhere_is_not_placed() -> None:
    original = "".join(f"fn f{i}() {{\n    work({i});\n}}\n" for i in range(MAX_OPENINGS + 1))
    snippet = "fn f0() {\n# ...\n}\n    extra();\nfn f1() {\n# ...\n"
    assert apply(original, snippet) is None
    small = "".join(f"fn f{i}() {{\n    work({i});\n}}\n" for i in range(3))
    assert apply(small, snippet) == small.replace("}\nfn f1", "}\n    extra();\nfn f1")


def test_a_snippet_that_adds_nothing_is_no_reading_of_hunks() -> None:
    # all of it shown as it stands: are the lines between the hunks elided, or deleted?
    original = "def f(x):\n    start()\n    if x:\n        a()\n        b()\n        c()\n    finish()\n"
    assert apply(original, "def f(x):\n# ...\n    if x:\n        a()\n        b()\n# ...\n") is None


def test_a_marker_read_past_its_block_must_not_be_followed_by_that_blocks_end() -> None:
    original = (
        'while read line\ndo\n\techo "$line"\ndone\n\nfor f in *.txt\ndo\n\tif test -s "$f"\n\tthen\n'
        '\t\tcat "$f"\n\tfi\ndone\n'
    )
    # `done` closes the `while` the marker stands in, as the snippet reads; the `for`'s, as placed
    snippet = (
        'while read line\ndo\n\t# ...\n\tif test -s "$f"\n\tthen\n\t\twc -l "$f"\n\t\tcat "$f"\n\tfi\ndone\n'
    )
    assert apply(original, snippet) is None
    expected = original.replace('\t\tcat "$f"', '\t\twc -l "$f"\n\t\tcat "$f"')
    assert apply(original, snippet.replace("\t# ...", "# ...")) == expected  # at column 0 it may
    assert apply(original, snippet.replace("\tfi\ndone\n", "\tfi\n\t# ...\n")) == expected  # no `done`


GO_TABLE = """\
<table>
  <tr><th>Name</th></tr>
  {{ range .Items }}
  <tr>
    <td>{{ .Name }}</td>
  </tr>
  {{ else }}
  <tr>
    <td colspan="1">None.</td>
  </tr>
  {{ end }}
</table>
"""


def test_a_template_comment_is_a_marker_and_the_reading_keeping_most_lines_wins() -> None:
    # a cell added and the empty row's colspan rewritten; not a second empty row added above the
    # original one, which also fits the hunk's anchors
    snippet = """\
<table>
  <tr><th>Name</th><th>Owner</th></tr>
  {{ range .Items }}
{{/* ... */}}
    <td>{{ .Name }}</td>
    <td>{{ .Owner }}</td>
  </tr>
  {{ else }}
  <tr>
    <td colspan="2">None.</td>
  </tr>
{{/* ... */}}
"""
    expected = (
        GO_TABLE.replace("<th>Name</th>", "<th>Name</th><th>Owner</th>")
        .replace("    <td>{{ .Name }}</td>\n", "    <td>{{ .Name }}</td>\n    <td>{{ .Owner }}</td>\n")
        .replace('colspan="1"', 'colspan="2"')
    )
    result = merge(GO_TABLE, snippet, path="services.tmpl.html")
    assert result.status == "ok", result.reasons
    assert result.merged == expected
    # as the file's own comment, the same line is content, not a marker
    commented = GO_TABLE + "{{/* ... */}}\n"
    assert merge(commented, snippet, path="services.tmpl.html").status == "ambiguous"


QUEUE = """\
import threading


class Queue:
    def __init__(self, maxsize=0):
        self.mutex = threading.Lock()
        self.unfinished_tasks = 0

    def join(self):
        with self.mutex:
            while self.unfinished_tasks:
                self.wait()

    def qsize(self):
        return 0
"""


def test_new_code_below_a_hunks_context_needs_no_anchor_below_it() -> None:
    snippet = """\
# ...
        self.unfinished_tasks = 0
        # Times a caller had to block.
        self.blocked_calls = 0

    # ...
                self.wait()
                stats.record_block()
# ...
"""
    expected = QUEUE.replace(
        "        self.unfinished_tasks = 0\n",
        "        self.unfinished_tasks = 0\n        # Times a caller had to block.\n        self.blocked_calls = 0\n",
    ).replace(
        "                self.wait()\n", "                self.wait()\n                stats.record_block()\n"
    )
    assert apply(QUEUE, snippet) == expected
    # new code like a line below its context may edit that line instead: no reading
    assert apply(QUEUE, snippet.replace("stats.record_block()", "return -1")) is None
    # code the original has close by may be moved or copied there
    assert apply(QUEUE, snippet.replace("stats.record_block()", "return 0")) is None


def test_new_code_below_a_blank_line_of_context_keeps_a_blank_line_below_it() -> None:
    new = "    @property\n    def is_empty_queue(self) -> bool:\n        log.debug('asked')\n"
    snippet = f"# ...\n        self.unfinished_tasks = 0\n\n{new}# ...\n                self.wait()\n# ...\n"
    # (the second hunk changes nothing, so the first decides)
    expected = QUEUE.replace(
        "        self.unfinished_tasks = 0\n\n", f"        self.unfinished_tasks = 0\n\n{new}\n"
    )
    assert apply(QUEUE, snippet) == expected


def test_new_code_above_a_hunks_context_needs_no_anchor_above_it() -> None:
    new = "    @property\n    def is_empty_queue(self) -> bool:\n        log.debug('asked')\n\n"
    snippet = f"import threading\n# ...\n{new}    def qsize(self):\n# ...\n"
    assert apply(QUEUE, snippet) == QUEUE.replace("    def qsize", f"{new}    def qsize")
    # code the original has close by (at another depth) may be moved or copied there
    assert apply(QUEUE, "import threading\n# ...\n    return 0\n\n    def qsize(self):\n# ...\n") is None


def test_new_code_above_closers_alone_is_not_placed_by_them() -> None:
    # in the loop after the `if`, or in the `if`, as the braces shown say? Closers tell nothing
    original = "func sweep() {\n\tfor k, e := range items {\n\t\tif expired(e) {\n\t\t\tdelete(items, k)\n\t\t}\n\t}\n}\n"
    snippet = "func sweep() {\n# ...\n\t\t\tdelete(items, k)\n# ...\n\t\tobserve(e)\n\t}\n}\n"
    assert apply(original, snippet) is None
    # nor below them
    below = "func sweep() {\n\tif ok {\n\t\tx()\n\t}\n\ty()\n}\n"
    assert apply(below, "func sweep() {\n# ...\n\t}\n\tlog()\n# ...\n") is None


SETTINGS = """\
import os


def _norm(key):
    return key.strip().lower()


def load(pairs):
    values = {}
    for key, raw in pairs:
        values[_norm(key)] = raw
    return values


def get(values, key):
    wanted = _norm(key)
    return values.get(wanted)
"""


def test_a_helper_renamed_at_every_call_site_shown_is_renamed() -> None:
    snippet = """\
import os


def _canonical_key(key):
    return key.strip().lower()
# ...
    for key, raw in pairs:
        values[_canonical_key(key)] = raw
        # ...
    return values
# ...
def get(values, key):
    wanted = _canonical_key(key)
# ...
"""
    assert apply(SETTINGS, snippet) == SETTINGS.replace("_norm", "_canonical_key")
    # a call site left elided would still call `_norm`: rename it too?
    assert (
        apply(SETTINGS, snippet.replace("def get(values, key):\n    wanted = _canonical_key(key)\n", ""))
        is None
    )
    # one line renamed with nothing else to say so: renamed, or a new line above it?
    one = "import os\n# ...\n    for key, raw in pairs:\n        values[_canon(key)] = raw\n# ...\n"
    assert apply(SETTINGS, one) is None


def test_lines_renamed_between_anchors_are_no_new_block() -> None:
    # the two `if` blocks could be new code below `.catch(err => {`, as a block added reads, but
    # for a helper renamed at its definition and at every call
    original = (
        "'use strict'\n\nfunction isOk (err) {\n  return err.code === 'EPERM'\n}\n\nasync function write (file) {\n"
        "  await chown(file).catch(err => {\n    if (!isOk(err)) {\n      throw err\n    }\n  })\n\n"
        "  await chmod(file).catch(err => {\n    if (!isOk(err)) {\n      throw err\n    }\n  })\n}\n"
    )
    renamed = original.replace("isOk", "isIgnorable")
    snippet = (
        "'use strict'\n\nfunction isIgnorable (err) {\n# ...\n"
        + renamed[renamed.index("  await chown") : -6]
        + "# ...\n"
    )
    assert apply(original, snippet) == renamed


def test_the_same_statement_rewritten_below_a_hunks_context_edits_it() -> None:
    original = (
        "import java.math.RoundingMode;\n\nclass Tax {\n    void split() {\n        if (inclusive) {\n"
        "            tax = amount.setScale(2, RoundingMode.HALF_UP);\n        } else {\n            tax = 0;\n        }\n    }\n}\n"
    )
    snippet = (
        "import java.math.RoundingMode;\n# ...\n        if (inclusive) {\n"
        "            tax = amount.setScale(2, RoundingMode.HALF_EVEN);\n# ...\n"
    )
    assert apply(original, snippet) == original.replace("HALF_UP", "HALF_EVEN")
    # a markup attribute is no assignment: a new item like the one below is no edit of it
    form = '<form>\n  <label>Contact</label>\n  <input name="email" type="text">\n</form>\n'
    shown = '<form>\n# ...\n  <label>Contact</label>\n  <input name="phone" type="text">\n# ...\n'
    assert apply(form, shown) is None
    # nor is one more step of a chain built in place (`df = df[...]`)
    steps = "import pandas\n\ndf = load()\ndf = df[df.seats > 0]\nprint(df)\n"
    assert apply(steps, "import pandas\n# ...\ndf = load()\ndf = df[df.region == 'EU']\n# ...\n") is None
    # another key beside the original one is as likely added: no reading
    keys = "const user = {\n  id: raw.id,\n  userName: String(raw.user_name),\n  email: raw.email,\n};\n"
    shown = "const user = {\n# ...\n  id: raw.id,\n  displayName: String(raw.user_name),\n# ...\n"
    assert apply(keys, shown) is None
    # a block opened by the same call, its argument changed
    launch = "fun load() {\n    state.value = Loading\n    scope.launch(Dispatchers.IO) {\n        fetch()\n    }\n}\n"
    moved = "fun load() {\n# ...\n    state.value = Loading\n    scope.launch(ioDispatcher) {\n# ...\n"
    assert apply(launch, moved) == launch.replace("Dispatchers.IO", "ioDispatcher")


def test_a_new_row_opens_where_its_tags_balance() -> None:
    # the top anchor runs on into the next row's `<tr>`; the new row goes after the `</tr>` above it
    original = (
        "<table>\n  <tr>\n    <th>Key</th>\n    <td>{{ key }}</td>\n  </tr>\n  <tr>\n    <th>Delete this entry</th>\n"
        '    <td><input type="submit"/></td>\n  </tr>\n</table>\n'
    )
    row = "  <tr>\n    <th>TTL</th>\n    <td>{{ ttl }}</td>\n  </tr>\n"
    snippet = "<table>\n# ...\n    <td>{{ key }}</td>\n  </tr>\n" + row + "# ...\n"
    assert apply(original, snippet) == original.replace(
        "  </tr>\n  <tr>\n    <th>Delete", "  </tr>\n" + row + "  <tr>\n    <th>Delete"
    )


def test_closers_alike_below_new_code_say_nothing_of_an_edit() -> None:
    # `end` and `}` stand below every method: no sign the new method edits one
    original = (
        "module Hooks\n  class Sender\n    def log(message)\n      @out.puts(message)\n    end\n  end\nend\n"
    )
    snippet = "module Hooks\n# ...\n    def log(message)\n      @out.puts(message)\n    end\n\n    def sign(secret, body)\n      hmac(secret, body)\n    end\n# ...\n"
    expected = original.replace(
        "    end\n  end\nend\n",
        "    end\n\n    def sign(secret, body)\n      hmac(secret, body)\n    end\n  end\nend\n",
    )
    assert apply(original, snippet) == expected


@pytest.mark.parametrize(
    ("original", "snippet", "old", "new"),
    [
        pytest.param(  # a separator put on above a new last enum value
            "enum Tier {\n  trial,\n  premium,\n  business;\n\n  String get label => name;\n}\n",
            "enum Tier {\n# ...\n  premium,\n  business,\n  enterprise;\n\n  # ...\n}\n",
            "  business;\n",
            "  business,\n  enterprise;\n",
            id="separator",
        ),
        pytest.param(  # a line continued before its closing punctuation, between anchors
            "import Foundation\n\nfunc retry(_ id: Int, state: State) {\n    switch state {\n    case .failed:\n"
            "        update(id) { $0.state = .queued }\n        startNext()\n    default:\n        break\n    }\n}\n",
            "import Foundation\n# ...\n    switch state {\n    case .failed, .waitingForNetwork:\n"
            "        update(id) { $0.state = .queued }\n        startNext()\n# ...\n",
            "case .failed:",
            "case .failed, .waitingForNetwork:",
            id="continued",
        ),
        pytest.param(  # closing punctuation moved to a new last parameter
            "import os\n\n\nclass Wrapper:\n    def __init__(self, width=70,\n                 placeholder=' [...]'):\n"
            "        self.width = width\n",
            "import os\n# ...\n    def __init__(self, width=70,\n                 placeholder=' [...]',\n"
            "                 min_fragment=1):\n        # ...\n",
            "' [...]'):\n",
            "' [...]',\n                 min_fragment=1):\n",
            id="closing-punctuation",
        ),
        pytest.param(  # `end = width` is no Ruby `end`: the rewritten `if` opens no block it would close
            "import os\n\n\ndef fill(width):\n    # break long words\n    if breaking:\n        end = width\n",
            "import os\n# ...\n    # break long words\n    if breaking and (\n            width > 0):\n"
            "        end = width\n# ...\n",
            "    if breaking:\n",
            "    if breaking and (\n            width > 0):\n",
            id="end-named",
        ),
    ],
)
def test_lines_edited_at_a_hunks_edge_are_edits(original: str, snippet: str, old: str, new: str) -> None:
    assert apply(original, snippet) == original.replace(old, new)


def test_a_marker_read_past_its_block_may_be_followed_by_a_shallower_closer() -> None:
    # the marker in the loop's body elides the loop's `}`; the `}` shown closes the function
    original = (
        "func run() {\n\tfor _, job := range jobs {\n\t\tif job.Done {\n\t\t\tcontinue\n\t\t}\n\t\tjob.Start()\n\t}\n}\n\n"
        "func report() {\n\tfmt.Println(len(jobs))\n}\n"
    )
    snippet = "func run() {\n\tfor _, job := range jobs {\n\t\tif job.Done {\n\t\t\tlog.Print(job)\n\t\t\tcontinue\n\t\t}\n\t\t# ...\n}\n\nfunc report() {\n# ...\n"
    expected = original.replace("\t\t\tcontinue\n", "\t\t\tlog.Print(job)\n\t\t\tcontinue\n")
    assert apply(original, snippet) == expected
    # a marker among the parameters elides the signature's `) {`, which ends no block: it goes on
    rust = (
        "pub fn tick(\n    state: &mut State,\n    dt: f32,\n) {\n    match state {\n        State::Idle => {}\n"
        "        State::Stunned { left } => {\n            *left -= dt;\n        }\n    }\n}\n\npub fn other() {}\n"
    )
    shown = (
        "pub fn tick(\n    # ...\n        State::Stunned { left } => {\n            *left -= dt;\n            log(dt);\n"
        "        }\n    }\n}\n\npub fn other() {}\n"
    )
    assert apply(rust, shown) == rust.replace("*left -= dt;\n", "*left -= dt;\n            log(dt);\n")


def test_a_hunk_placed_by_its_top_anchor_alone_needs_that_anchor_once() -> None:
    """New code below a query and its error check that two functions share: it goes below either,
    even where the code below one of them turns that place down (a like line close by there)."""
    query = "\trows, err := db.Query(q)\n\tif err != nil {\n\t\treturn err\n\t}\n"
    filler = "".join(f"\tstep{k}()\n" for k in range(COPIED_WITHIN))
    original = (
        f"func A() error {{\n{query}\tdefer rows.Close()\n\treturn nil\n}}\n\nfunc steps() {{\n{filler}}}\n\n"
        f'func B() error {{\n{query}\tlog.Debug("loaded rows", "n", 0)\n\treturn nil\n}}\n\n'
        "func C() int {\n\treturn 1\n}\n"
    )
    snippet = (
        f'# ...\n{query}\tlog.Debug("loaded all rows", "n", 0)\n# ...\nfunc C() int {{\n\treturn 2\n}}\n'
    )
    assert apply(original, snippet) is None
    # the anchor once, the same hunk goes below it
    once = original.replace(
        "func B() error {\n\trows, err := db.Query(q)", "func B() error {\n\trows, err := db.Query(p)"
    )
    new = '\tlog.Debug("loaded all rows", "n", 0)\n'
    assert apply(once, snippet) == once.replace("\tdefer", new + "\tdefer").replace("return 1", "return 2")


def test_a_line_below_its_anchor_is_no_edit_of_the_one_the_marker_below_names() -> None:
    """A `Reports` link below its anchor where the `Payments` link stands, above `<!-- ... Payments
    and Settings links unchanged ... -->`: the marker stands for that link, so this one is no edit
    of it (new, it would stand beside a line much like it: no reading at all)."""
    original = [
        "<ul>",
        '  <li><a href="/invoices">Invoices</a></li>',
        '  <li><a href="/payments">Payments</a></li>',
        '  <li><a href="/settings">Settings</a></li>',
        "</ul>",
    ]
    snippet = [
        *original[:2],
        '  <li><a href="/reports">Reports</a></li>',
        "  <!-- ... Payments and Settings links unchanged ... -->",
        "</ul>",
    ]
    assert plan_hunks(original, snippet, {3}) is None
    # a marker that names none of them: the link there edited, as a value changed in place is
    unnamed = [*snippet[:3], "  <!-- ... -->", "</ul>"]
    assert plan_hunks(original, unnamed, {3}) is not None


def test_code_appended_at_the_files_end_may_repeat_a_few_lines_from_above() -> None:
    """A new YAML document after the last one's tail names the app and namespace the documents
    above name: appended after the original's last line it rewrites nothing below, and a few lines
    like those above make it no copy. Where most of its lines stand above, it is a copy, and
    placed nowhere."""
    original = [
        "apiVersion: v1",
        "kind: Service",
        "metadata:",
        "  name: web",
        "  namespace: shop",
        "---",
        "apiVersion: policy/v1",
        "kind: PodDisruptionBudget",
        "metadata:",
        "  name: web",
        "  namespace: shop",
        "spec:",
        "  minAvailable: 1",
    ]
    document = [
        "---",
        "apiVersion: autoscaling/v2",
        "kind: HorizontalPodAutoscaler",
        "metadata:",
        "  name: web",
        "  namespace: shop",
        "spec:",
        "  scaleTargetRef:",
        "    kind: Deployment",
        "    name: web",
        "  minReplicas: 2",
        "  maxReplicas: 10",
    ]
    snippet = ["# ... unchanged ...", "spec:", "  minAvailable: 1", *document]
    ops = plan_hunks(original, snippet, {0}, one_run=True)
    assert ops is not None
    assert ops[-2:] == [Insert(3, len(snippet), AS_SHOWN), Copy(len(original), len(original))]
    # the same lines with a marker below: the code may be the elided rest of the file rewritten
    assert plan_hunks(original, [*snippet, "# ..."], {0, len(snippet)}) is None
    # the Service document again: most of its lines stand above, so a copy of it
    copied = ["# ... unchanged ...", "spec:", "  minAvailable: 1", "---", *original[:5]]
    assert plan_hunks(original, copied, {0}, one_run=True) is None
