"""Reading a provider's chat completion, and shaping what is asked of llama.cpp's server.

The gateway (llm.py) reads an answer's text, whether it was refused and its token counts
through these (litellm hands back OpenAI-shaped responses whatever the provider), and, for a
server that constrains output only with `{"type": "json_object", "schema": …}`, rewrites a
json_schema request into that shape. Nothing here imports litellm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def first_choice(response: Any) -> Any:
    choices = getattr(response, "choices", None) or []
    return choices[0] if choices else None


def answer_text(response: Any) -> str | None:
    choice = first_choice(response)
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    if content:
        return str(content)
    calls = getattr(message, "tool_calls", None) or []
    return str(calls[0].function.arguments) if calls else None


def refused(response: Any) -> bool:
    choice = first_choice(response)
    message = getattr(choice, "message", None)
    extra = getattr(message, "provider_specific_fields", None) or {}  # where litellm keeps it
    return bool(getattr(message, "refusal", None) or extra.get("refusal")) or (
        getattr(choice, "finish_reason", None) == "content_filter")


def usage_count(response: Any, field: str) -> int:
    return int(getattr(getattr(response, "usage", None), field, 0) or 0)


def without_lengths(node: Any) -> Any:
    # llama.cpp unrolls a string length into one grammar rule per character; at 600 or 1200
    # the grammar fails to parse (and the server has been seen to die). Validation still
    # checks the lengths, and a retry tells the model.
    if isinstance(node, dict):
        return {k: without_lengths(v) for k, v in node.items() if k not in ("maxLength", "minLength")}
    if isinstance(node, list):
        return [without_lengths(v) for v in node]
    return node


def schema_in_json_object(completion: Callable[..., Any], is_async: bool) -> Callable[..., Any]:
    """Wrap litellm's completion so a json_schema response_format goes out as
    {"type": "json_object", "schema": …}: llama.cpp's server constrains output with it."""
    def rewrite(kwargs: dict[str, Any]) -> dict[str, Any]:
        wanted = kwargs.get("response_format")
        if isinstance(wanted, dict) and wanted.get("type") == "json_schema":
            schema = without_lengths(wanted["json_schema"]["schema"])
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        return kwargs

    if is_async:
        async def acomplete(*args: Any, **kwargs: Any) -> Any:
            return await completion(*args, **rewrite(kwargs))
        return acomplete

    def complete(*args: Any, **kwargs: Any) -> Any:
        return completion(*args, **rewrite(kwargs))
    return complete
