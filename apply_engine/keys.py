"""Line keys: how a line is known on both sides, so that an edited line still finds its original.

    signature_key("def foo(a, b):")          -> "def foo"
    signature_key('"name": "fastapply",')    -> '"name"'
    signature_key('app.get("/health", h);')  -> 'app.get("/health"'
    signature_key("if (x > 0) {")            -> "if (x > 0) {"  (control flow stays whole)

A key leaves out what an edit changes (parameters, values, modifiers) and keeps what names the
line (the declared name, the key, the callee and its first string argument).
"""

import re

# Ruby's `it "adds a line" do`, `task :build do |t|`: the call and its name
BLOCK_CALL = re.compile(r"^([a-z_]\w* (\"[^\"]*\"|'[^']*'|:\w+))[^{]* do( \|[^|]*\|)?$")
# a block named by strings after its keyword: Zig's `test "pop on empty buffer" {`, HCL's
# `resource "aws_s3_bucket" "logs" {`: known by them, its `{` left out
NAMED_BLOCK = re.compile(r'^([a-z_]\w*(?:\s+"[^"]*")+)\s*\{$')
CALLBACK_ARGUMENT = re.compile(r"\s*(async\s+)?(\([^()]*\)\s*=>|function\b)")
IMPORTS = [  # an import's key is the module it imports from, so a changed import list is an edit
    re.compile(r"^(import\b).*\bfrom\s+([\"'][^\"']+[\"'])"),
    re.compile(r"^(from\s+[\w.]+\s+import)\b"),
    re.compile(r"^((?:pub\s+)?use\s+[\w:]+::)\{"),
]
DECLARATION = re.compile(  # the key leaves out modifiers: `export async function f` -> `function f`
    r"^(?:[\w$@]+(?:\([\w:]+\))?\s+)*?((?:impl(?:<[^>]*>)?\s+[\w:<>, ']+?(?:\s+for\s+[\w:<>']+(?:,\s*[\w:<>']+)*)?(?=\s*(?:\{|where|$))|"
    r"(?:class|struct|interface|enum|trait|protocol|extension|record|object|type|module|namespace|fn|func|def|"
    r"function|fun|union|message|service|contract|library|modifier)\s+(?:[\w$.]+(?::[\w$]+|(?:-\w+)*)|`[^`]+`)))"
)  # Kotlin's fun `a test name`(), PowerShell's function Get-Item, Solidity's contract Vault, Lua's M:dump
# a method declared with an expression body, up to its name: `public static List<(int A, int B)> Pairs`
EXPRESSION_MEMBER = re.compile(r"^(?:[\w$.]+(?:<.*>)?(?:\[\])*\??\s+)+[\w$]+$")
TYPE_PATTERN = re.compile(r"^([A-Z][\w.]*(?:<[^<>]*>)?)\s+[a-z_]\w*$")  # `Dictionary<K, V> d`, its type
STRING_ARGUMENT = re.compile(r"\s*([\"'`][^\"'`]*[\"'`])?")
FIRST_WORD_END = re.compile(r"[^\w$]")
NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")
IMPORT_STARTS = ("import", "from", "use", "pub")
DECLARATION_WORDS = frozenset(
    [
        "class",
        "struct",
        "interface",
        "enum",
        "trait",
        "protocol",
        "extension",
        "record",
        "object",
        "type",
        "module",
        "namespace",
        "fn",
        "func",
        "def",
        "function",
        "fun",
        "union",
        "message",
        "service",
        "contract",
        "library",
        "modifier",
    ]
)
# a one-line table row, `{name: "kibibytes", in: "2KiB", want: 2048},`: known by its first field
ROW = re.compile(r"^(\{\s*[\w$\"']+\s*:\s*(?:\"[^\"]*\"|'[^']*'|[\w$.]+))\s*,.*\},?$")
# a markup element with an id, known by its tag and id: `<tr id="svc-search" class="degraded">`
ELEMENT_WITH_ID = re.compile(r"^(<[\w.:-]+)\s(?:[^<>]*\s)?((?:android:)?id=\"[^\"]+\"|id='[^']+')")
DEFINE = re.compile(r"^(#\s*define\s+\w+)")  # C's `#define MAX_LINE 256`: known by its name
# `const { a, b } = slice.actions;`, `let [count, setCount] = ...`: known by the first name it binds
DESTRUCTURING = re.compile(r"^(?:export\s+)?(?:const|let|var)\s+([{\[])\s*(?:\.\.\.)?([\w$]+)")
INCREMENT = re.compile(r"^([\w$.]+)(?:\+\+|--);?$")  # `count++`: `count += 1` written short
# (TypeScript's optional and definite fields, `github?: string;`, `id!: number;`, by their name)
ASSIGN = re.compile(
    r"^(?:[\w$]+\s+)*?(\"[^\"]+\"|'[^']+'|[\"']?[\w$.@-]+[\"']?)\s*(?:[?!]?:(?!:)|[-+*/%|&^]?=(?![=>]))"
)  # (a quoted key, anything in its quotes: `"@npmcli/template-oss":`)
# Ruby's `validates :seats, numericality: true`, `belongs_to :account`: the call and the symbol it
# names (not `validates` as a `key:`)
SYMBOL_CALL = re.compile(r"^([a-z_]\w* :\w+[?!]?)(?=[,\s]|$)")
HASH_ENTRY = re.compile(r"^(['\"][^'\"]+['\"]|:\w+)\s*=>")  # PHP's `'sku' => [...]`, Ruby's `:sku => 1`
PIN = re.compile(r"^([A-Za-z0-9][\w.\[\],-]*)\s*(?:[=~!<>]=|===)\s*[^\s;#]+\s*(?:[;#].*)?$")  # `pkg==1.2`
FIELD = re.compile(r"^(?:[\w$<>\[\],?]+\s+)+([\w$]+)\s*;$")  # `private final String id;`
# C's `int ret, len, test;`: known by the first name it declares, so that one more name is an edit
NAME_LIST = re.compile(r"^(?:[\w$]+\s+)+\**([\w$]+)(?:\s*,\s*\**[\w$]+)+\s*;$")
# Haskell and Elm name an equation by its whole left side, the function and its patterns
# (`area r = pi * r * r`, `area :: Double -> Double`, Elm's `area : Float -> Float`), F# a binding by
# the name after `let`/`member` (`let rec area r =`): not by the last word before `=`, a parameter
EQUATION = re.compile(r"^(([a-z_][\w']*)(?:\s+[^=:|]*?)?)\s*(::?|=(?!=)|\|)")
LET_BINDING = re.compile(r"^(?:let|and)(?:\s+(?:rec|inline|private|internal|public|mutable))*\s+([\w']+)")
MEMBER = re.compile(r"^(?:static\s+|abstract\s+)?(?:member|override|default)\s+(?:[\w']+\.)?([\w']+)")
EQUATIONS = frozenset({"haskell", "elm", "fsharp"})  # the languages keyed by EQUATION and LET_BINDING
# a method defined with a space before its parameters (JavaScript Standard's `mute (c) {`): its name
SPACED_METHOD = re.compile(r"^((?:(?:static|async|get|set)\s+)*[A-Za-z_$][\w$]*) \([^()]*\)\s*\{$")
IMPL_PARAMETERS = re.compile(r"^impl<((?:[^<>]|<[^<>]*>)*)>\s*")  # `impl<T: Copy + Debug> `
TYPE_ARGUMENTS = re.compile(r"<([^<>]*)>")  # `<T>` of `RingBuffer<T>`
TEMPLATE_LANGUAGES = frozenset({"cpp", "cuda"})
SPECIALIZATION = re.compile(r"<(?:[^<>]|<[^<>]*>)*>")  # template arguments, one level of nesting
SPACED_METHOD_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "vue", "svelte"})
METHOD_MODIFIERS = re.compile(r"^(?:(?:async|public|private|protected|override)\s+)+(?=[A-Za-z_$#][\w$]*$)")
SHELL_FUNCTION = re.compile(r"^(?:function\s+([\w.:-]+)|([\w.:-]+)\s*\(\s*\))")  # `f() {`, `function f {`
# a CMake command by its first argument, the thing it declares or acts on: `set(CMAKE_CXX_STANDARD`,
# `FetchContent_Declare(fmt` (the argument on the next line, see align.Side.key)
CMAKE_COMMAND = re.compile(r"^([A-Za-z_]\w*\(\s*[^\s()]+)")
EQUATION_KEYWORDS = frozenset({
    "data", "type", "newtype", "class", "instance", "import", "module", "where", "let", "in", "case", "of",
    "if", "then", "else", "do", "deriving", "infix", "infixl", "infixr", "port", "exposing", "open",
})  # fmt: skip
CONTROL = frozenset(
    [
        "if",
        "for",
        "while",
        "switch",
        "return",
        "else",
        "elif",
        "catch",
        "try",
        "with",
        "match",
        "case",
        "when",
        "unless",
        "until",
        "do",
        "foreach",
        "yield",
        "await",
        "throw",
        "raise",
        "assert",
        "new",
        "not",
        "and",
        "or",
        "in",
        "is",
        "print",
        "echo",
        "puts",
        "defer",
        "go",
        "select",
        "lock",
        "using",
        "default",
        "break",
        "continue",
        "delete",
        "typeof",
    ]
)


def normalize(line: str) -> str:
    return " ".join(line.split())


def signature_key(line: str, language: str = "") -> str:
    """`def foo(a):` -> `def foo`; `"name": 1,` -> `"name"`; control-flow lines stay whole.
    In Haskell, Elm and F#: `area r = ...` -> `area r =`, `let rec area r =` -> `let area`; in
    CMake `set(FLAGS -O2)` -> `set(FLAGS`.

    Each pattern runs only when the text has what its match needs (a keyword word, `=` or `:`, a
    final `;`, a `(`), so a plain line costs a few substring tests."""
    text = normalize(line)
    if not text:
        return text
    if language in EQUATIONS:
        for kind, pattern in (("let", LET_BINDING), ("member", MEMBER)):
            found = pattern.match(text)
            if found:
                return f"{kind} {found.group(1)}"
        found = EQUATION.match(text)
        if found and found.group(2) not in EQUATION_KEYWORDS:
            left, _, separator = found.groups()
            return f"{left} {'=' if separator == '|' else separator}"  # a guard: one more equation
    first = FIRST_WORD_END.split(text, maxsplit=1)[0]
    if language == "bash":
        found = SHELL_FUNCTION.match(text)
        if found:  # a function, not a command by its name (`install_shims() {`, `install_shims`)
            return f"function {found.group(1) or found.group(2)}"
    if language == "cmake" and first not in CONTROL:
        found = CMAKE_COMMAND.match(text)
        if found:
            return found.group(1)
    if text.startswith(("* ", "/*", "//")):
        return text  # a comment's line (` * @property {(req) => string} [key]`): no call to key it by
    if first == "await":  # `await db.execute(...)` is keyed as its call
        return "await " + (call_key(text[6:]) or text[6:])
    if language == "yaml" and first in CONTROL and text.startswith(first + ":"):
        return first  # Ansible's `when:`: a mapping's key, not a condition
    if first in CONTROL:
        return text
    if text.startswith("<"):
        found = ELEMENT_WITH_ID.match(text)
        if found:
            return " ".join(found.groups())
    if text.startswith("{"):
        found = ROW.match(text)
        if found:
            return found.group(1)
    if text.startswith("#"):
        found = DEFINE.match(text)
        if found:
            return found.group(1)
    if text.startswith(IMPORT_STARTS):
        for pattern in IMPORTS:
            found = pattern.match(text)
            if found:
                return " ".join(found.groups())
    if "impl" in text or not DECLARATION_WORDS.isdisjoint(text.split(" ")):
        found = DECLARATION.match(text)
        if found and language in TEMPLATE_LANGUAGES and text.startswith("<", found.end()):
            # a specialization is its own declaration: `struct hash<geo::Point>`, not `struct hash`
            arguments = SPECIALIZATION.match(text, found.end())
            return found.group(1) + (arguments.group() if arguments else "")
        if found:
            return generic_impl(found.group(1)) if text.startswith("impl<") else found.group(1)
    if text.endswith('" {'):
        found = NAMED_BLOCK.match(text)
        if found:
            return found.group(1)
    if text.endswith((" do", "|")):
        found = BLOCK_CALL.match(text)
        if found:
            return found.group(1)
    if text.startswith(("const", "let", "var", "export")):
        found = DESTRUCTURING.match(text)
        if found:
            return "".join(found.groups())
    if " :" in text:
        found = SYMBOL_CALL.match(text)
        if found:
            return found.group(1)
    if ":" in text or "=" in text:
        found = ASSIGN.match(text) or PIN.match(text) or HASH_ENTRY.match(text)
        if found and found.group(1) == "_":  # `let _ = writeln!(out, ...)`: a discard, known by its value
            value = text[found.end() :].strip()
            return f"_ = {call_key(value) or value}"
        if found:
            return found.group(1)
    if text.endswith(";"):
        found = NAME_LIST.match(text) or FIELD.match(text)
        if found:
            return found.group(1)
    found = INCREMENT.match(text)
    if found:
        return found.group(1)
    if " =>" in text:
        pattern = text.partition(" =>")[0]
        if balanced(pattern):
            member = call_key(pattern)
            if member and EXPRESSION_MEMBER.match(member) and CONTROL.isdisjoint(member.split(" ")):
                return member  # C#'s `public int Total(Order o) =>`: a method, known by its name
            typed = TYPE_PATTERN.match(pattern)  # C#'s `ConcurrencyException c =>`: by its type
            return typed.group(1) if typed else pattern  # else whole: `Some(0) =>` is no `Some(n) =>`
    if text.endswith("{") and language in SPACED_METHOD_LANGUAGES:
        found = SPACED_METHOD.match(text)
        if found and found.group(1).split()[-1] not in CONTROL:
            return found.group(1)
        key = call_key(text)
        if key is not None:  # a method made async or private is the same method: `async read(`
            return METHOD_MODIFIERS.sub("", key)
    return call_key(text) or text


def generic_impl(key: str) -> str:
    """Rust's `impl<T: Copy> RingBuffer<T>` -> `impl RingBuffer`: an impl made generic is the same
    impl, its own parameters left out of the types it names (`Iter<'_, T>` -> `Iter<'_>`, as the
    impl of `Iter<'_>` it was), other arguments kept (`impl From<u8> for W`)."""
    declared = IMPL_PARAMETERS.match(key)
    if declared is None:
        return key
    names = set(re.findall(r"(?:^|,)\s*('?[A-Za-z_]\w*)", declared.group(1)))  # (lifetimes too: `'a`)

    def without_names(found: re.Match[str]) -> str:
        kept = [part.strip() for part in found.group(1).split(",") if part.strip() not in names]
        return f"<{', '.join(kept)}>" if kept else ""

    return "impl " + TYPE_ARGUMENTS.sub(without_names, key[declared.end() :]).strip()


def balanced(text: str) -> bool:
    """Whether every `(` and `[` in `text` is closed in it (a pattern, not the start of a call)."""
    depth = 0
    for c in text:
        depth += (c in "([") - (c in ")]")
        if depth < 0:
            return False
    return depth == 0


def call_key(text: str) -> str | None:
    """`app.get("/health", h)` -> `app.get("/health"`: the text up to the first `(` that follows a
    name (or a name and `<generics>`), and a string argument right after it. None without one.

    One pass over the `(`s; the equivalent backtracking regex is quadratic on long lines."""
    paren = text.find("(")
    while paren >= 0:
        if paren and names_call(text, paren):
            if CALLBACK_ARGUMENT.match(text, paren + 1):
                return None  # `useEffect(() => {`, `beforeEach(function () {`: no name but the callee's
            argument = STRING_ARGUMENT.match(text, paren + 1)
            quoted = argument.group(1) if argument else None
            return text[:paren] + ("(" + quoted if quoted else "")
        paren = text.find("(", paren + 1)
    return None


def names_call(text: str, paren: int) -> bool:
    r"""Whether text[:paren] ends with a name (`[A-Za-z_$][\w$]*`), or a name and `<...>` free of
    parentheses."""
    if text[paren - 1] != ">":
        return ends_with_name(text, paren)
    opening = paren - 2
    while opening >= 0 and text[opening] not in "()":
        if text[opening] == "<" and ends_with_name(text, opening):
            return True
        opening -= 1
    return False


def ends_with_name(text: str, end: int) -> bool:
    r"""Whether the run of word characters (`[\w$]`) before `end` holds one a name may start with
    (`[A-Za-z_$]`)."""
    k = end - 1
    found = False
    while k >= 0 and (text[k].isalnum() or text[k] in "_$"):
        found = found or text[k] in NAME_START
        k -= 1
    return found
