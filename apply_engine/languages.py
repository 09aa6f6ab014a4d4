"""Language detection, tree-sitter parsers and comment syntaxes.

`detect_language(text, language, path)` returns a canonical name from SUPPORTED_LANGUAGES: the
explicit option wins (aliases normalised), else the file extension, else content sniffing, else
"text" (line- and indentation-based merging only).
"""

import re
import threading
from pathlib import Path

from tree_sitter import Parser, Tree

from apply_engine.errors import InputError

# canonical name -> tree-sitter-language-pack grammar (None: no grammar, indentation only)
GRAMMARS: dict[str, str | None] = {
    "python": "python",
    "javascript": "javascript",
    "typescript": "typescript",
    "tsx": "tsx",
    "go": "go",
    "rust": "rust",
    "java": "java",
    "c": "c",
    "cpp": "cpp",
    "csharp": "csharp",
    "ruby": "ruby",
    "php": "php",
    "kotlin": "kotlin",
    "swift": "swift",
    "bash": "bash",
    "css": "css",
    "html": "html",
    "json": "json",
    "yaml": "yaml",
    "toml": "toml",
    "markdown": "markdown",
    # beyond the mainstream: a grammar each, so a merge that breaks the syntax is refused
    "clojure": "clojure",
    "cmake": "cmake",
    "cuda": "cuda",
    "dart": "dart",
    "elixir": "elixir",
    "elm": "elm",
    "erlang": "erlang",
    "fsharp": "fsharp",
    "graphql": "graphql",
    "groovy": "groovy",
    "haskell": "haskell",
    "hcl": "hcl",
    "julia": "julia",
    "lua": "lua",
    "nix": "nix",
    "perl": "perl",
    "powershell": "powershell",
    "proto": "proto",
    "r": "r",
    "scala": "scala",
    "scss": "scss",
    "solidity": "solidity",
    "sql": "sql",
    "starlark": "starlark",
    "svelte": "svelte",
    "vue": "vue",
    "xml": "xml",
    "zig": "zig",
    "text": None,
}
SUPPORTED_LANGUAGES = frozenset(GRAMMARS)

ALIASES = {
    "py": "python",
    "python3": "python",
    "js": "javascript",
    "jsx": "javascript",
    "node": "javascript",
    "ts": "typescript",
    "golang": "go",
    "rs": "rust",
    "c++": "cpp",
    "cxx": "cpp",
    "hpp": "cpp",
    "cs": "csharp",
    "c#": "csharp",
    "rb": "ruby",
    "kt": "kotlin",
    "kts": "kotlin",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
    "yml": "yaml",
    "md": "markdown",
    "htm": "html",
    "plaintext": "text",
    "txt": "text",
    "rst": "text",
    "restructuredtext": "text",
    # editors' language ids (VS Code's languageId, Neovim's filetype) where they differ from ours
    "javascriptreact": "javascript",
    "typescriptreact": "tsx",
    "shellscript": "bash",
    "jsonc": "json",
    "json5": "json",
    "terraform": "hcl",
    "terraform-vars": "hcl",
    "tf": "hcl",
    "tfvars": "hcl",
    "ps1": "powershell",
    "pwsh": "powershell",
    "hs": "haskell",
    "ex": "elixir",
    "exs": "elixir",
    "jl": "julia",
    "pl": "perl",
    "clj": "clojure",
    "erl": "erlang",
    "fs": "fsharp",
    "f#": "fsharp",
    "cu": "cuda",
    "cuda-cpp": "cuda",
    "gql": "graphql",
    "proto3": "proto",
    "protobuf": "proto",
    "gradle": "groovy",
    "sol": "solidity",
    "bzl": "starlark",
    "bazel": "starlark",
    "xsl": "xml",
    "svg": "xml",
    # files merged by lines and indentation: named so that an editor's id is no error
    "dockerfile": "text",
    "containerfile": "text",
    "make": "text",
    "makefile": "text",
    "ini": "text",
    "dosini": "text",
    "properties": "text",
    "dotenv": "text",
    "conf": "text",
    "ignore": "text",
    "gitignore": "text",
}

EXTENSIONS = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
    ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".cs": "csharp", ".rb": "ruby",
    ".php": "php", ".kt": "kotlin", ".kts": "kotlin", ".swift": "swift", ".sh": "bash", ".bash": "bash",
    ".zsh": "bash", ".css": "css", ".html": "html", ".htm": "html", ".json": "json", ".yaml": "yaml",
    ".yml": "yaml", ".toml": "toml", ".md": "markdown", ".markdown": "markdown",
    ".txt": "text", ".env": "text", ".ini": "text", ".cfg": "text", ".conf": "text", ".mk": "text",
    ".properties": "text", ".dockerfile": "text", ".rst": "text",
    ".clj": "clojure", ".cljs": "clojure", ".cljc": "clojure", ".edn": "clojure", ".cmake": "cmake",
    ".cu": "cuda", ".cuh": "cuda", ".dart": "dart", ".ex": "elixir", ".exs": "elixir", ".elm": "elm",
    ".erl": "erlang", ".hrl": "erlang", ".fs": "fsharp", ".fsi": "fsharp", ".fsx": "fsharp",
    ".graphql": "graphql", ".gql": "graphql", ".groovy": "groovy", ".gradle": "groovy", ".hs": "haskell",
    ".tf": "hcl", ".tfvars": "hcl", ".hcl": "hcl", ".jl": "julia", ".lua": "lua", ".nix": "nix",
    ".pl": "perl", ".pm": "perl", ".ps1": "powershell", ".psm1": "powershell", ".psd1": "powershell",
    ".proto": "proto", ".r": "r", ".scala": "scala", ".sc": "scala", ".scss": "scss", ".sol": "solidity",
    ".sql": "sql", ".bzl": "starlark", ".bazel": "starlark", ".star": "starlark", ".svelte": "svelte",
    ".vue": "vue", ".xml": "xml", ".xsd": "xml", ".xsl": "xml", ".xslt": "xml", ".svg": "xml",
    ".plist": "xml", ".csproj": "xml", ".fsproj": "xml", ".props": "xml", ".targets": "xml", ".xaml": "xml",
    ".zig": "zig",
}  # fmt: skip
# files known by their whole name
NAMES = {
    "CMakeLists.txt": "cmake", "BUILD": "starlark", "BUILD.bazel": "starlark", "WORKSPACE": "starlark",
    "WORKSPACE.bazel": "starlark", "MODULE.bazel": "starlark", "Jenkinsfile": "groovy",
}  # fmt: skip
# files known by name, whose `#` comments must not be sniffed as Markdown headings
TEXT_NAMES = re.compile(r"^(dockerfile|containerfile|makefile|gnumakefile|\.env(\..+)?|\.\w+ignore)$", re.I)

# line-comment prefixes; every language except these few also has /* */ block comments
LINE_COMMENTS: dict[str, tuple[str, ...]] = {
    "python": ("#",), "ruby": ("#",), "bash": ("#",), "yaml": ("#",), "toml": ("#",),
    "php": ("//", "#"), "css": (), "html": (), "markdown": (), "json": ("//",),
    "text": ("#", "//", "--", ";", ".. "),  # `.. `: a reStructuredText comment
    "clojure": (";",), "cmake": ("#",), "elixir": ("#",), "elm": ("--",), "erlang": ("%",), "graphql": ("#",),
    "haskell": ("--",), "hcl": ("#", "//"), "julia": ("#",), "lua": ("--",), "nix": ("#",), "perl": ("#",),
    "powershell": ("#",), "r": ("#",), "sql": ("--",), "starlark": ("#",), "svelte": (), "vue": (), "xml": (),
}  # fmt: skip
DEFAULT_LINE_COMMENTS = ("//",)
NO_BLOCK_COMMENTS = frozenset(
    {"python", "ruby", "bash", "yaml", "toml", "html", "markdown"}
    | {"clojure", "cmake", "elixir", "elm", "erlang", "fsharp", "graphql", "haskell", "julia", "lua", "perl"}
    | {"powershell", "r", "starlark", "svelte", "vue", "xml", "zig"}
)
# markup whose scripts and styles may carry the markers: `// ... existing code ...` in a `<script>`
EMBEDS_SCRIPTS = frozenset({"html", "svelte", "vue"})

SNIFFERS: list[tuple[str, re.Pattern[str]]] = [
    ("text", re.compile(r"\A(#\s*(syntax|escape)=\S+\s*\n)*(ARG \w+|FROM \S+)")),  # a Dockerfile
    ("php", re.compile(r"^<\?php", re.M)),
    ("html", re.compile(r"^\s*(<!DOCTYPE html|<html)", re.I)),
    ("bash", re.compile(r"^#!.*\b(ba|z)?sh\b")),
    ("python", re.compile(r"^#!.*python|^(def|class) \w+.*:\s*$|^from [\w.]+ import ", re.M)),
    ("go", re.compile(r"^package \w+\s*$", re.M)),
    ("rust", re.compile(r"^\s*(pub )?fn \w+|^use \w+(::\w+)+;", re.M)),
    ("java", re.compile(r"^\s*(public )?(final )?class \w+.*\{|^import java\.", re.M)),
    ("csharp", re.compile(r"^using System|^namespace [\w.]+", re.M)),
    ("cpp", re.compile(r"^#include <(iostream|vector|string|memory)>|std::", re.M)),
    ("c", re.compile(r"^#include [<\"]", re.M)),
    ("typescript", re.compile(r"^(export )?(interface|type) \w+|: (string|number|boolean)\b", re.M)),
    ("javascript", re.compile(r"^(const|let|var) \w+ = |^(export )?function \w+\(|require\(", re.M)),
    ("json", re.compile(r"^\s*[\[{]\s*$|^\s*\{\s*\"", re.S)),
    ("markdown", re.compile(r"^#{1,6} \S", re.M)),
    ("yaml", re.compile(r"^[\w-]+:( |$)", re.M)),
]

_local = threading.local()


def canonical_language(language: str) -> str:
    """The canonical name for an explicit language or alias; InputError if unknown."""
    name = language.strip().lower()
    name = ALIASES.get(name, name)
    if name not in SUPPORTED_LANGUAGES:
        known = ", ".join(sorted(SUPPORTED_LANGUAGES))
        raise InputError(f"unknown language {language!r}; supported: {known}", field="language")
    return name


def editor_language(language_id: str | None) -> str | None:
    """The language an editor names for a document (VS Code's languageId, Neovim's filetype) when
    we know it and it says more than plain text; None leaves it to the path and the content (an
    untitled buffer is "plaintext" whatever it holds). Of a compound Neovim filetype
    (`yaml.ansible`) the first part counts."""
    name = (language_id or "").strip().lower().split(".")[0]
    name = ALIASES.get(name, name)
    return name if GRAMMARS.get(name) is not None else None


def detect_language(text: str, language: str | None = None, path: str | None = None) -> str:
    if language:
        return canonical_language(language)
    if path:
        file = Path(path)
        if file.name in NAMES:
            return NAMES[file.name]
        by_extension = EXTENSIONS.get(file.suffix.lower())
        if by_extension:
            return by_extension
        if TEXT_NAMES.match(file.name) or file.name.lower().startswith(("dockerfile.", "containerfile.")):
            return "text"
        if file.suffix:  # a language this has no grammar for (`.nim`, `.coffee`): sniffing would guess
            return "text"
    return sniff_language(text)


def sniff_language(text: str) -> str:
    head = text[:4000]
    for name, pattern in SNIFFERS:
        if pattern.search(head):
            return name
    return "text"


def line_comment_prefixes(language: str) -> tuple[str, ...]:
    return LINE_COMMENTS.get(language, DEFAULT_LINE_COMMENTS)


def has_block_comments(language: str) -> bool:
    return language not in NO_BLOCK_COMMENTS


def marker_comments(language: str) -> tuple[tuple[str, ...], bool]:
    """The comments a marker may be written in: the file's own, and in HTML (Vue, Svelte) those of
    the script and style inside it (`// ... existing code ...` in a `<script>`)."""
    if language in EMBEDS_SCRIPTS:
        return ("//",), True
    return line_comment_prefixes(language), has_block_comments(language)


def get_parser(language: str) -> Parser | None:
    """This thread's parser for `language` (tree-sitter parsers are not thread-safe)."""
    grammar = GRAMMARS.get(language)
    if grammar is None:
        return None
    parsers: dict[str, Parser] = _local.__dict__.setdefault("parsers", {})
    if grammar not in parsers:
        from tree_sitter_language_pack import get_parser as pack_parser

        parsers[grammar] = pack_parser(grammar)  # type: ignore[arg-type]
    return parsers[grammar]


def parse(text: str, language: str) -> Tree | None:
    parser = get_parser(language)
    return None if parser is None else parser.parse(text.encode("utf-8"))


def has_parse_errors(text: str, language: str) -> bool:
    tree = parse(text, language)
    return tree is not None and tree.root_node.has_error
