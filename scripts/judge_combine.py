"""What if model mode took each field from whichever reader is better at it?

Replays the judgement stories (evals/judge/) with the recorded model answers and, for every
reading the model made, also asks the rules on the very same input. It then scores three
readers field by field: the model's judgement, the rules', and a combination that keeps the
model's significance band (and so core and insignificant) but takes the deeds, the gap and the
feelings from the rules. Each reading has the same history (the model's world), so the three
differ only in how that one turn is read. An experiment, not a curator feature: making the
combination model mode's would change every later prompt, so the fixture sets would need
recording again.

    python scripts/judge_combine.py [--fixtures evals/fixtures/qwen1.5b]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from curator import CuratorConfig, CuratorError
from curator.evals import judge as J
from curator.evals.modes import ReplayMode
from curator.turn import fallback, judging, steps
from curator.turn.judgement import Judgement


def readings(fixtures: Path) -> list[dict[str, Any]]:
    """Each judged reading: its story, turn, split, perceiver, gold, and both judgements."""
    pairs: dict[tuple[str, str, str], tuple[Judgement, Judgement]] = {}
    at: dict[str, str] = {}
    model_reading = judging.interpretation_from

    def both(inp: Any, answer: Any) -> Any:
        made = model_reading(inp, answer)
        rules = fallback.interpret(inp).judgement
        if made.judgement is not None and rules is not None:
            pairs[(at["story"], at["turn"], inp.perceiver)] = (made.judgement, rules)
        return made

    object.__setattr__(steps.INTERPRET, "from_answer", both)
    mode = ReplayMode(fixtures)
    rows = []
    for story in J.load_stories([Path("evals/judge")]):
        with mode.session(story) as factory, factory(CuratorConfig()) as world:
            for character, persona in story.characters.items():
                world.set_persona(character, persona)
            for item in story.turns:
                at.update(story=story.genre, turn=item.id)
                try:
                    world.observe(J.turn_of(item))
                except CuratorError:
                    continue
        for item in story.turns:
            for character, gold in item.gold.items():
                if (story.genre, item.id, character) in pairs:
                    model, rules = pairs[(story.genre, item.id, character)]
                    rows.append({"story": story.genre, "turn": item.id, "split": item.split,
                                 "character": character, "gold": gold, "model": model, "rules": rules})
    return rows


def combined(model: Judgement, rules: Judgement) -> Judgement:
    return rules.model_copy(update={"significance": model.significance})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=Path("evals/fixtures/qwen1.5b"))
    rows = readings(parser.parse_args().fixtures)
    pick: dict[str, Callable[[dict[str, Any]], Judgement]] = {
        "model": lambda r: r["model"], "rules": lambda r: r["rules"],
        "combined": lambda r: combined(r["model"], r["rules"])}
    for split in ("dev", "test", "all"):
        print(f"{split}: {sum(split in ('all', r['split']) for r in rows)} readings")
        print("  " + "reader".ljust(10) + "".join(f.rjust(14) for f in (*J.FIELDS, "overall")))
        for name, reader in pick.items():
            report = J.JudgeReport(mode=name, split=split, stories=[])
            for r in rows:
                if split in ("all", r["split"]):
                    J.score(report, r["story"], r["turn"], r["gold"],
                            judging.turn_reading(r["character"], reader(r), "model"))
            scores = report.accuracy()
            cells = "".join(f"{scores[f] * 100:13.1f}%" for f in (*J.FIELDS, "overall"))
            print("  " + name.ljust(10) + cells)


if __name__ == "__main__":
    main()
