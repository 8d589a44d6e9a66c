"""The three ways an eval case can be decided: by rules, by recorded answers, or by a model.

A mode gives, for each case, a factory of fresh worlds (`session(case)` is a context
manager, so replay can serve that case's fixtures while it runs):

- `fallback`: every step by its deterministic fallback, no model at all (`FallbackMode`).
- `replay`: the model path for real (litellm, instructor, validation, the call log), with
  each HTTP response served from the case's recorded fixtures through respx (`ReplayMode`).
  A fixture set is a directory: `settings.json` (the model settings the responses were
  recorded with, which shape the requests and so the keys) and one directory per case.
  Cases with no directory there are not run, and are named in the report as not recorded.
- `live`: a configured model (`--model`, `CURATOR_*` variables: a user's key, Ollama, the
  local server of scripts/local_model.sh), optionally recording every response into a fixture
  set for replay (`LiveMode(record=DIR)`). Answers already in the set are reused, not asked
  again, so a recording that stopped picks up where it stopped, and re-recording after a
  change asks the model only what changed; with `prune`, what a case's run did not use is
  deleted from its directory afterwards.

Replay and live import the model path (`curator.model.fixtures`, litellm on the first call)
only when they are used.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from curator import Curator, CuratorConfig, InvalidInput, ModelSettings
from curator.evals.runner import CuratorFactory, fallback_curator

SETTINGS_FILE = "settings.json"


class Named(Protocol):
    """What a mode needs of a case or a judgement story: the name its fixtures are filed under."""

    @property
    def filed_as(self) -> str: ...

DEFAULT_FIXTURES = Path("evals") / "fixtures" / "qwen1.5b"


class FallbackMode:
    name = "fallback"
    model: str | None = None

    def runs(self, case: Named) -> bool:
        return True

    @contextmanager
    def session(self, case: Named) -> Iterator[CuratorFactory]:
        yield fallback_curator


class ReplayMode:
    """Answers from `fixtures/<case name>/`, recorded with `fixtures/settings.json`."""

    name = "replay"

    def __init__(self, fixtures: Path):
        self.fixtures = fixtures
        path = fixtures / SETTINGS_FILE
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            self.settings = ModelSettings.model_validate(saved)
        except (OSError, ValueError) as error:
            raise InvalidInput(f"{path}: no fixture set here ({error}); record one with "
                               "curator eval run --mode live --record DIR", field="fixtures") from error
        self.model: str | None = self.settings.model

    def runs(self, case: Named) -> bool:
        return (self.fixtures / case.filed_as).is_dir()

    @contextmanager
    def session(self, case: Named) -> Iterator[CuratorFactory]:
        from curator.testing import FixtureStore, Replayer

        settings = self.settings

        def factory(config: CuratorConfig) -> Curator:
            return Curator(":memory:", config=config, model=settings)

        # Lenient: a request nobody recorded (a prompt changed since) falls back as "not
        # recorded", and the run's step counts and fallbacks show how many.
        with Replayer(FixtureStore(self.fixtures / case.filed_as), strict=False):
            yield factory


class LiveMode:
    """A configured model; with `record`, every response is saved for replay."""

    name = "live"

    def __init__(self, settings: ModelSettings, record: Path | None = None, *, prune: bool = False):
        self.settings, self.record, self.prune = settings, record, prune
        self.model: str | None = settings.model
        if record is not None:
            record.mkdir(parents=True, exist_ok=True)
            kept = settings.model_dump(mode="json", exclude={"record_dir"})
            (record / SETTINGS_FILE).write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")

    def runs(self, case: Named) -> bool:
        return True

    @contextmanager
    def session(self, case: Named) -> Iterator[CuratorFactory]:
        settings = self.settings
        if self.record is not None:
            settings = settings.model_copy(update={"record_dir": self.record / case.filed_as})

        def factory(config: CuratorConfig) -> Curator:
            return Curator(":memory:", config=config, model=settings)

        started = time.time()
        yield factory
        if self.prune and settings.record_dir is not None and settings.record_dir.is_dir():
            from curator.testing import FixtureStore

            FixtureStore(settings.record_dir).prune_unused(started)


EvalMode = FallbackMode | ReplayMode | LiveMode


def make_mode(name: str, *, model: str | None = None, api_base: str | None = None,
              fixtures: Path | None = None, record: Path | None = None, prune: bool = False,
              environ: dict[str, Any] | None = None) -> EvalMode:
    """The mode `curator eval run --mode NAME` asks for, or `InvalidInput` saying what is missing."""
    if name == "fallback":
        return FallbackMode()
    if name == "replay":
        return ReplayMode(fixtures or DEFAULT_FIXTURES)
    if name == "live":
        settings = ModelSettings.from_env(environ, model=model, api_base=api_base)
        if settings is None:
            raise InvalidInput("--mode live needs a model: --model NAME or CURATOR_MODEL", field="model")
        return LiveMode(settings, record, prune=prune)
    raise InvalidInput(f"unknown mode {name!r} (fallback, replay, live)", field="mode")
