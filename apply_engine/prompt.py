"""Request -> merge prompt; the model's answer -> merged text.

Three built-in formats, each a system message, a user message and how the answer is wrapped:
    tags       <instruction>/<code>/<update> tags, as the hosted fast-apply APIs take them;
               the answer is the bare file, ended by the end-of-sequence token
    fastapply  the open FastApply fine-tunes' layout: the answer sits in <updated-code> tags
    chat       a generic instruct prompt: the answer is one fenced code block
The answer's opening (tag or fence) is written into the prompt, after the assistant turn starts,
so the model's first token is already file content; the structural merge's prediction, followed by
the closing marker, is then exactly the answer we hope for (`predicted_answer`).
"""

from dataclasses import dataclass

from apply_engine.errors import GenerationError, InputError

FORMATS = ("tags", "fastapply", "chat")


@dataclass(frozen=True)
class PromptFormat:
    name: str
    system: str
    user: str  # str.format fields: instruction, original, snippet, language
    answer_open: str
    answer_close: str | None  # None: the answer ends at the end-of-sequence token


TAGS = PromptFormat(
    name="tags",
    system="You apply code edits. Reply with the complete updated file and nothing else.",
    user="<instruction>{instruction}</instruction>\n<code>{original}</code>\n<update>{snippet}</update>",
    answer_open="",
    answer_close=None,
)

FASTAPPLY = PromptFormat(
    name="fastapply",
    system="You are a coding assistant that merges code updates into files, completely and exactly.",
    user=(
        "Apply every change in the <update> snippet to the <code> file.\n"
        "Keep the file's structure, order, comments and indentation; unchanged parts elided in the"
        " snippet stay as they are in the file.\n"
        "Answer with the whole updated file between <updated-code> and </updated-code>, with no"
        " explanation, code fences or placeholders.\n\n"
        "<code>{original}</code>\n\n<update>{snippet}</update>"
    ),
    answer_open="<updated-code>",
    answer_close="</updated-code>",
)

CHAT = PromptFormat(
    name="chat",
    system="You are a precise code editor.",
    user=(
        "Here is a {language} file:\n```{language}\n{original}```\n\n"
        "Apply this edit to it. Comments such as '... existing code ...' stand for unchanged code"
        " kept from the file.\n{instruction}\n```{language}\n{snippet}```\n\n"
        "Reply with the complete updated file in one code block."
    ),
    answer_open="```{language}\n",
    answer_close="```",
)

BY_NAME = {f.name: f for f in (TAGS, FASTAPPLY, CHAT)}


def pick_format(name: str) -> PromptFormat:
    """auto -> fastapply; an unknown name is an input error naming the choices."""
    if name == "auto":
        return FASTAPPLY
    if name not in BY_NAME:
        raise InputError(
            f"unknown prompt format {name!r}: use auto, {', '.join(FORMATS)}", field="prompt_format"
        )
    return BY_NAME[name]


def answer_open(fmt: PromptFormat, language: str) -> str:
    return fmt.answer_open.format(language=language)


def build_prompt(
    tokenizer: object,
    fmt: PromptFormat,
    original: str,
    snippet: str,
    language: str,
    instruction: str | None = None,
) -> str:
    """The full prompt text, ending inside the assistant turn right after the answer's opening."""
    fields = {
        "instruction": instruction or "Apply the update to the code.",
        "original": original,
        "snippet": snippet,
        "language": language,
    }
    messages = [
        {"role": "system", "content": fmt.system},
        {"role": "user", "content": fmt.user.format(**fields)},
    ]
    if getattr(tokenizer, "chat_template", None):
        head = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    else:
        head = f"{fmt.system}\n\n{messages[1]['content']}\n\nAnswer:\n"
    return head + answer_open(fmt, language)


def predicted_answer(fmt: PromptFormat, merged: str) -> str:
    """What the model should write after the prompt if the structural merge is right."""
    return merged + (fmt.answer_close or "")


def extract_answer(fmt: PromptFormat, text: str, truncated: bool) -> str:
    """The merged file inside the model's answer `text` (what followed the prompt).

    A missing closing marker is tolerated when the model stopped on its own; an answer cut off by
    the token budget is an error, never a silently short file.
    """
    close = fmt.answer_close
    if close is not None and close in text:
        return strip_wrapping(text[: text.index(close)])
    if truncated:
        # (the budget: max_new_tokens where set, else the original's and the snippet's tokens and 64)
        raise GenerationError("the model's answer was cut off by the token budget before the file ended")
    return strip_wrapping(text)


def strip_wrapping(body: str) -> str:
    """Drop a code fence or <updated-code> tag the model added around the file anyway."""
    if body.startswith("<updated-code>"):
        body = body[len("<updated-code>") :]
        body = body.removesuffix("</updated-code>")
    if body.startswith("```") and "\n" in body:
        inner = body[body.index("\n") + 1 :]
        stripped = inner.rstrip()
        if stripped.endswith("```"):
            return stripped[: -len("```")]
        return inner
    return body
