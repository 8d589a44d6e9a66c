"""Answer checks: the garbage a weak model writes into a free-text field of its answer.

A small model, asked for a summary, a memory, a reason or a narrative, often hands back the
prompt instead: its own instructions ("How you see Wolf now: first person, naming Wolf, a
short paragraph…"), a heading, the JSON schema, a placeholder ("string", "...",
"<summary>"), the same sentence over and over, or nothing. `check_text` rejects each of
these with a message that says what to write instead; decisions.py applies it, as a
validator, to every free-text field a model writes, so instructor sends the message back to
the model on retry and, when retries run out, the step's fallback decides.

Only a model's answer is checked. The gateway (llm.py) puts a `PromptEcho` of the prompt the
model was shown into the validation context under `ECHO_KEY`; without one (the fallback,
tests that build decisions, a decision read back) the text passes untouched.

What counts as the prompt's instructions is its own wording: the template's text outside
<game_text> blocks, without the values filled into it (names and numbers of up to
`SHORT_VALUE_WORDS` words stay, they are part of a sentence) and without quoted spans
(the examples, ids and enum values a model is expected to use). An answer may copy game
text, such as the old summary it keeps; it may not copy a run of `ECHO_WORDS` words of the
instructions, nor begin with one of their headings or labels ("How you see Wolf now:").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from curator.model.prompts import DATA_TAG, VALUE_END, VALUE_START

ECHO_KEY = "prompt_echo"
ECHO_WORDS = 6  # a shared run of this many words with the instructions is an echo
SHORT_VALUE_WORDS = 3  # a filled-in value this short (a name, a number) reads as instruction wording
LOOP_GRAM, LOOP_TIMES = 4, 3  # four words said three times over is a loop
LOOP_SENTENCE = 3  # as is a sentence of three words or more said twice

_GAME_TEXT = re.compile(rf"<{DATA_TAG}>.*?</{DATA_TAG}>", re.DOTALL)
_VALUE = re.compile(f"{VALUE_START}([^{VALUE_START}{VALUE_END}]*){VALUE_END}")
_QUOTED = re.compile(r'"[^"\n]*"')
_WORD = re.compile(r"[a-z0-9]+")
_WORD_IN_TEXT = re.compile(r"[a-z0-9]+", re.IGNORECASE)
_BREAK = "\n"  # runs never cross a line, a removed value or a removed quote
_SCHEMA = re.compile(r'"(\$defs|\$ref|type|properties|items|enum|anyOf|allOf|required|title|'
                     r'additionalProperties|minimum|maximum|minLength|maxLength)"\s*:')
_JSON_KEY = re.compile(r'"[\w$]+"\s*:')
_BRACKETED = re.compile(r"<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}")
_SENTENCE = re.compile(r"[.!?\n]+")
PLACEHOLDERS = frozenset({
    "string", "str", "text", "none", "null", "nil", "n a", "na", "tbd", "todo", "placeholder",
    "example", "lorem ipsum", "etc", "answer", "your answer", "your answer here", "insert text here",
    "summary", "reason", "content", "narrative", "justification", "description", "sentence",
    "one sentence", "one short sentence", "a sentence", "value", "id", "true", "false"})

# What each free-text field should hold, said to the model after "instead, ".
GUIDANCE = {
    "summary": "write your own view of the other character (who they are to you and how you feel) "
               "in sentences of your own",
    "reason": "give one short sentence of your own saying why",
    "content": "say in your own words, first person, what happened to you",
    "immediate_context": "say in your own words what you are doing and feeling at this moment",
    "text": "say in your own words what is going on between the two of you now",
    "narrative": "describe in sentences of your own who the character has become",
    "justification": "name, in your own words, what in the memory drove the priority",
}
_DEFAULT_GUIDANCE = "write it in sentences of your own about this game's characters and events"


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def instruction_text(marked_prompt: str) -> str:
    """The prompt's own wording, from a `prompts.render_marked` rendering: game text, long
    filled-in values and quoted spans become line breaks; short values become plain words."""
    text = _GAME_TEXT.sub(_BREAK, marked_prompt)
    while True:  # innermost values first: a macro's output holds values of its own
        text, count = _VALUE.subn(
            lambda m: m.group(1) if len(m.group(1).split()) <= SHORT_VALUE_WORDS else _BREAK, text)
        if not count:
            break
    return _QUOTED.sub(_BREAK, text)


@dataclass(frozen=True)
class PromptEcho:
    """The instructions of one prompt, as an answer must not repeat them: every run of
    ECHO_WORDS words, and the headings and labels (2 to 8 words before a ':') an echoed
    answer tends to begin with."""

    runs: frozenset[tuple[str, ...]]
    labels: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, instructions: Iterable[str]) -> PromptEcho:
        runs: set[tuple[str, ...]] = set()
        labels: set[tuple[str, ...]] = set()
        for line in (line for text in instructions for line in text.splitlines()):
            words = _words(line)
            runs.update(tuple(words[i:i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1))
            stripped = line.strip()
            parts = [stripped.lstrip("#").strip()] if stripped.startswith("#") else stripped.split(":")[:-1]
            labels.update(label for label in map(tuple, map(_words, parts)) if 2 <= len(label) <= 8)
        return cls(frozenset(runs), tuple(sorted(labels, key=len, reverse=True)))

    def echoed(self, text: str) -> str | None:
        """The longest stretch of `text` copied from the instructions (as `text` writes it),
        else the heading or label it begins with, else None."""
        found = list(_WORD_IN_TEXT.finditer(text))
        words = [m.group(0).lower() for m in found]
        best: tuple[int, int] | None = None
        i = 0
        while i <= len(words) - ECHO_WORDS:
            if tuple(words[i:i + ECHO_WORDS]) not in self.runs:
                i += 1
                continue
            end = i + ECHO_WORDS
            while end < len(words) and tuple(words[end - ECHO_WORDS + 1:end + 1]) in self.runs:
                end += 1
            if best is None or end - i > best[1] - best[0]:
                best = (i, end)
            i = end
        if best is not None:
            return text[found[best[0]].start():found[best[1] - 1].end()]
        for label in self.labels:
            if tuple(words[:len(label)]) == label and _label_ends(text, label):
                return text[found[0].start():found[len(label) - 1].end()]
        return None


def _label_ends(text: str, label: tuple[str, ...]) -> bool:
    # "How you see Wolf now: …" or the bare label; "What happened at the river" is prose.
    pattern = r"\W*" + r"\W+".join(map(re.escape, label)) + r"\W*?(:|\W*$)"
    return re.match(pattern, text, re.IGNORECASE) is not None


def echo_of(prompt_texts: Iterable[str]) -> PromptEcho:
    """A PromptEcho of a model call's messages: the system prompt as it is, the user prompt
    as `prompts.render_marked` renders it."""
    return PromptEcho.of(instruction_text(text) for text in prompt_texts)


def checking(context: Mapping[str, Any] | None, echo: PromptEcho) -> dict[str, Any]:
    """A validation context that turns the answer checks on, against `echo`."""
    return {**(context or {}), ECHO_KEY: echo}


def check_text(value: str, field: str, context: Mapping[str, Any]) -> str:
    """`value` stripped, or ValueError saying what is wrong and what to write instead; a
    no-op unless the context holds a PromptEcho (the text came from a model)."""
    echo = context.get(ECHO_KEY)
    if not isinstance(echo, PromptEcho):
        return value
    instead = GUIDANCE.get(field, _DEFAULT_GUIDANCE)
    text = value.strip()
    bare = text.strip("\"'`*_ \t")
    if not any(ch.isalpha() for ch in bare):
        raise ValueError(f"{field} is empty or only symbols ({value!r}); instead, {instead}")
    if _SCHEMA.search(text) or text.startswith("{") or len(_JSON_KEY.findall(text)) >= 2:
        raise ValueError(f"{field} holds JSON or the schema, not prose; the JSON goes around the "
                         f"text, never inside it; instead, {instead}")
    if _BRACKETED.fullmatch(bare) or " ".join(_words(bare)) in PLACEHOLDERS | {field.replace("_", " ")}:
        raise ValueError(f"{field} is a placeholder ({bare!r}), not an answer; instead, {instead}")
    if any(line.lstrip().startswith("#") for line in text.splitlines()):
        raise ValueError(f"{field} holds a heading; write plain sentences, no headings; instead, {instead}")
    copied = echo.echoed(text)
    if copied is not None:
        raise ValueError(f"{field} copies the prompt's instructions (\"{_clip(copied)}\") instead of "
                         f"answering them; do not repeat the prompt's wording; instead, {instead}")
    loop = _loop(text)
    if loop is not None:
        raise ValueError(f"{field} repeats itself (\"{_clip(loop)}\" over and over); say each thing once; "
                         f"instead, {instead}")
    return text


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _loop(text: str) -> str | None:
    words = _words(text)
    for i in range(len(words) - 3):  # "no no no no"
        if len(set(words[i:i + 4])) == 1:
            return words[i]
    grams = Counter(tuple(words[i:i + LOOP_GRAM]) for i in range(len(words) - LOOP_GRAM + 1))
    gram, times = grams.most_common(1)[0] if grams else ((), 0)
    if times >= LOOP_TIMES:
        return " ".join(gram)
    sentences = Counter(" ".join(_words(s)) for s in _SENTENCE.split(text) if len(_words(s)) >= LOOP_SENTENCE)
    sentence, times = sentences.most_common(1)[0] if sentences else ("", 0)
    return sentence if times >= 2 else None
