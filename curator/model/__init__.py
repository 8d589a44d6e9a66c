"""The model gateway: how a step is decided, by a language model or by its fallback.

It owns what a step is (`steps`: a template, a decision model and a fallback under one name;
`Decider`, `FallbackDecider`), the base every decision model shares and the checks on the free
text a model writes (`decision`, `answer_checks`), the templates and their strict Jinja
environment (`prompts`), rounds that keep model calls outside the write transaction
(`rounds`), the one module that imports litellm and instructor, lazily (`llm`), the model
settings from arguments or the environment (`settings`), whether a model can be asked at all
and a cool-down when it cannot (`health`), the call log (`calls`), model budgets per
character or group (`budget`), the gate that holds a round's requests to them (`gate`) and
the spend per character and game day read from the call log (`spend`), recorded and
scripted fixtures replayed through respx (`fixtures`), decisions taken back from the call log
when a world is rebuilt (`replay`), a stub OpenAI-compatible server for
tests and benchmarks (`stub_server`), and offline token counting (`tokens`).

May import: `curator.domain` and `curator.store` (the call log's table). Never the turn flow,
recall or evolution: a step's fallback reaches the gateway as a function on the `Step`.
Importing this package imports no model client.
"""
