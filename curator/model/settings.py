"""Model settings: which model answers curator's steps and how patiently, from arguments or
the environment (`CURATOR_MODEL`, `CURATOR_API_BASE`, `CURATOR_API_KEY`, `CURATOR_TIMEOUT`,
`CURATOR_RETRIES`, `CURATOR_TEMPERATURE`, `CURATOR_MODE`, `CURATOR_CONCURRENCY`,
`CURATOR_MAX_TOKENS`, `CURATOR_RECORD`). Plain pydantic: reading settings never imports a
model client (llm.py does that, on the first call). Import it as `curator.model.llm.ModelSettings`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from curator.domain.errors import InvalidInput

# json_schema: response_format json_schema (OpenAI structured outputs, Ollama, vLLM, LM Studio);
# json_object_schema: the same schema sent as {"type": "json_object", "schema": …}, which
# llama.cpp's server turns into a grammar; json: JSON mode, schema written into the prompt;
# md_json: JSON in a fenced block, for servers with no JSON mode; tools: function calling.
Mode = Literal["json_schema", "json_object_schema", "json", "md_json", "tools"]
_ENV = {"api_base": "CURATOR_API_BASE", "api_key": "CURATOR_API_KEY", "timeout": "CURATOR_TIMEOUT",
        "retries": "CURATOR_RETRIES", "temperature": "CURATOR_TEMPERATURE", "mode": "CURATOR_MODE",
        "concurrency": "CURATOR_CONCURRENCY", "max_tokens": "CURATOR_MAX_TOKENS",
        "record_dir": "CURATOR_RECORD", "reading": "CURATOR_READING"}


class ModelSettings(BaseModel):
    """Which model answers the steps, and how patiently."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(min_length=1, description="as litellm names it: gpt-4o-mini, ollama/llama3.1, "
                                                 "openai/<name> with api_base for any compatible server")
    api_base: str | None = None
    api_key: str | None = Field(default=None, repr=False, exclude=True)
    timeout: float = Field(default=30.0, gt=0, description="seconds for one HTTP call")
    retries: int = Field(default=2, ge=0, le=10, description="re-asks after an invalid answer")
    transport_retries: int = Field(default=2, ge=0, le=10,
                                   description="new tries after a 429, a 5xx or a lost connection")
    backoff: float = Field(default=0.5, ge=0, description="seconds before the first transport retry")
    temperature: float = Field(default=0.2, ge=0, le=2)
    max_tokens: int = Field(default=1024, ge=16)
    mode: Mode = Field(default="json_schema", description="how instructor asks for JSON")
    concurrency: int = Field(default=8, ge=1, le=256, description="model calls in flight at once")
    reading: Literal["brief", "full"] = Field(
        default="brief", description="brief: the model rates each turn and words the memory, the rules "
        "read who did what (what a 1.5B model can do); full: the model also reads how the plan went "
        "and what each other character did, for a model that reads a scene well")
    record_dir: Path | None = Field(default=None, description="save each provider response here")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> ModelSettings | None:
        """Settings from CURATOR_* variables, `overrides` winning; None when no model is named."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {"model": env.get("CURATOR_MODEL")}
        values.update({field: env[var] for field, var in _ENV.items() if env.get(var)})
        values.update({key: value for key, value in overrides.items() if value is not None})
        if not values.get("model"):
            return None
        try:
            return cls.model_validate(values)
        except ValidationError as error:
            first = error.errors()[0]
            raise InvalidInput(first["msg"], field=".".join(map(str, first["loc"]))) from error


def endpoint_kwargs(api_base: str | None, api_key: str | None) -> dict[str, Any]:
    """litellm's `api_base`/`api_key` arguments for a call (completion or embedding)."""
    kwargs: dict[str, Any] = {}
    if api_base:
        kwargs["api_base"] = api_base
    if api_key is None and api_base and not os.environ.get("OPENAI_API_KEY"):
        api_key = "not-needed"  # local OpenAI-compatible servers take any key; the SDK wants one
    if api_key is not None:
        kwargs["api_key"] = api_key
    return kwargs
