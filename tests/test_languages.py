"""Language detection (option, extension, content), aliases, parsers per thread, parse errors."""

import threading

import pytest

from apply_engine.errors import InputError
from apply_engine.languages import (
    GRAMMARS,
    SUPPORTED_LANGUAGES,
    detect_language,
    editor_language,
    get_parser,
    has_block_comments,
    has_parse_errors,
    line_comment_prefixes,
    parse,
)

REQUIRED = {
    "python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "csharp", "ruby", "php",
    "kotlin", "swift", "bash", "css", "html", "json", "yaml", "toml", "markdown",
}  # fmt: skip


def test_every_required_language_is_supported_with_a_grammar() -> None:
    assert REQUIRED <= SUPPORTED_LANGUAGES
    for language in REQUIRED:
        assert get_parser(language) is not None, language


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("py", "python"), ("js", "javascript"), ("jsx", "javascript"), ("ts", "typescript"), ("tsx", "tsx"),
        ("golang", "go"), ("rs", "rust"), ("c++", "cpp"), ("cpp", "cpp"), ("cs", "csharp"), ("csharp", "csharp"),
        ("rb", "ruby"), ("sh", "bash"), ("shell", "bash"), ("yml", "yaml"), ("md", "markdown"), ("kt", "kotlin"),
        ("Python", "python"), ("terraform", "hcl"), ("ps1", "powershell"), ("hs", "haskell"), ("gradle", "groovy"),
        ("javascriptreact", "javascript"), ("typescriptreact", "tsx"), ("shellscript", "bash"), ("jsonc", "json"),
        ("dockerfile", "text"), ("makefile", "text"), ("dosini", "text"),
    ],
)  # fmt: skip
def test_aliases_normalise_to_canonical_names(alias: str, canonical: str) -> None:
    assert detect_language("", language=alias) == canonical


def test_unknown_explicit_language_is_an_input_error_on_the_language_field() -> None:
    with pytest.raises(InputError) as raised:
        detect_language("x = 1", language="klingon")
    assert raised.value.field == "language"


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b.py", "python"), ("x.tsx", "tsx"), ("x.jsx", "javascript"), ("main.go", "go"), ("lib.rs", "rust"),
        ("A.java", "java"), ("x.h", "c"), ("x.hpp", "cpp"), ("P.cs", "csharp"), ("x.rb", "ruby"),
        ("i.php", "php"), ("x.kt", "kotlin"), ("x.swift", "swift"), ("run.sh", "bash"), ("s.css", "css"),
        ("i.html", "html"), ("p.json", "json"), ("c.yml", "yaml"), ("Cargo.toml", "toml"), ("README.md", "markdown"),
        ("A.scala", "scala"), ("init.lua", "lua"), ("m.dart", "dart"), ("lib/a.ex", "elixir"), ("t.exs", "elixir"),
        ("s.scss", "scss"), ("q.sql", "sql"), ("App.vue", "vue"), ("P.svelte", "svelte"), ("b.zig", "zig"),
        ("main.tf", "hcl"), ("M.hs", "haskell"), ("a.R", "r"), ("a.jl", "julia"), ("a.pm", "perl"), ("pom.xml", "xml"),
        ("s.graphql", "graphql"), ("a.proto", "proto"), ("build.gradle", "groovy"), ("a.ps1", "powershell"),
        ("T.sol", "solidity"), ("flake.nix", "nix"), ("M.elm", "elm"), ("a.clj", "clojure"), ("a.erl", "erlang"),
        ("a.fs", "fsharp"), ("k.cu", "cuda"), ("x/CMakeLists.txt", "cmake"), ("BUILD.bazel", "starlark"),
        ("defs.bzl", "starlark"), ("Jenkinsfile", "groovy"), ("notes.txt", "text"),
    ],
)  # fmt: skip
def test_extension_picks_the_language(path: str, language: str) -> None:
    assert detect_language("", path=path) == language


@pytest.mark.parametrize(
    "path",
    [
        "Dockerfile",
        "deploy/Dockerfile.prod",
        ".env",
        ".env.local",
        "app.env",
        ".gitignore",
        "Makefile",
        "setup.cfg",
    ],
)
def test_files_whose_hash_comments_are_not_markdown_headings_are_text_by_name(path: str) -> None:
    assert detect_language("# Section\n\nKEY=value\n", path=path) == "text"


@pytest.mark.parametrize(
    ("language_id", "language"),
    [
        ("typescriptreact", "tsx"), ("lua", "lua"), ("sh", "bash"), ("cpp", "cpp"), ("terraform", "hcl"),
        ("yaml.ansible", "yaml"), ("plaintext", None), ("dockerfile", None), ("klingon", None), ("", None),
        (None, None),
    ],
)  # fmt: skip
def test_editor_language_ids_name_a_grammar_or_leave_it_to_the_path(
    language_id: str | None, language: str | None
) -> None:
    assert editor_language(language_id) == language


def test_every_grammar_loads_and_reads_our_line_comments_as_comments() -> None:
    """Each grammar is in the offline wheel, and the comments we take markers from are comments
    to it."""
    for language, grammar in GRAMMARS.items():
        if grammar is None:
            continue
        head = "<?php\n" if language == "php" else ""
        blocks = ["/* ... existing code ... */"] if has_block_comments(language) else []
        for comment in [
            f"{prefix} ... existing code ..." for prefix in line_comment_prefixes(language)
        ] + blocks:
            tree = parse(f"{head}{comment}\n", language)
            assert tree is not None, language
            nodes = [tree.root_node]
            while nodes and "comment" not in nodes[-1].type and nodes[-1].type != "marginalia":  # SQL's /* */
                nodes.extend(reversed(nodes.pop().children))
            assert nodes, (language, comment, str(tree.root_node))


def test_explicit_language_wins_over_the_extension() -> None:
    assert detect_language("", language="ts", path="x.py") == "typescript"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("#!/usr/bin/env python3\nprint(1)\n", "python"),
        ("#!/bin/bash\necho hi\n", "bash"),
        ("package main\n\nfunc main() {}\n", "go"),
        ("<?php\necho 1;\n", "php"),
        ("def f(x):\n    return x\n", "python"),
        ("# Title\n\nSome prose.\n", "markdown"),
        ("# syntax=docker/dockerfile:1\nFROM python:3.11-slim\n# Install\nRUN pip install x\n", "text"),
        ('{\n  "a": 1\n}\n', "json"),
        ("just some words\n", "text"),
    ],
)
def test_content_sniffing_without_a_path(text: str, language: str) -> None:
    assert detect_language(text) == language


def test_unknown_extension_is_text_and_no_extension_falls_back_to_sniffing() -> None:
    """An extension this has no grammar for names another language: sniffed, a Nim file read as
    TypeScript and a CoffeeScript one as Markdown (both merged worse than as text)."""
    nim = "import std/strutils\n\ntype\n  Value* = object\n    s: string\n\nproc parse(raw: string): Value =\n  discard\n"
    assert detect_language(nim, path="config.nim") == "text"
    assert detect_language("package main\n", path="notes.weird") == "text"
    assert detect_language("package main\n", path="tools/run") == "go"
    assert detect_language('py_library(name = "x")\n', path="lib/MODULE.bazel") == "starlark"
    assert detect_language('py_library(name = "x")\n', path="lib/deps.bazel") == "starlark"


def test_each_thread_gets_its_own_parser() -> None:
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(get_parser("python")))
    thread.start()
    thread.join()
    assert seen[0] is not get_parser("python")
    assert get_parser("python") is get_parser("python")


def test_text_has_no_grammar_and_never_parse_errors() -> None:
    assert GRAMMARS["text"] is None
    assert not has_parse_errors("{{{ ((( unbalanced", "text")


def test_parse_errors_are_reported() -> None:
    assert has_parse_errors("def f(:\n", "python")
    assert not has_parse_errors("def f():\n    return 1\n", "python")
