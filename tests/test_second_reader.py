"""The second reader: blind copies hold no gold, label files are checked against the story,
and a reading is counted against both readers (the agreement, the agreed labels, either)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_eval_judge import STORY, write

from curator import CaseError, TurnReading
from curator.evals.judge import Gold, judge, load_stories
from curator.evals.modes import FallbackMode
from evals.second_reader import (
    Comparison,
    SecondReading,
    blind_copy,
    compare,
    compare_reading,
    load_second,
    main,
)


def labels_of(story: dict[str, Any]) -> dict[str, Any]:
    """The story's own gold as a second reader's label file (two readers who agree on all)."""
    return {"story": "tavern", "reader": "the gold itself",
            "labels": {t["id"]: copy.deepcopy(t["gold"]) for t in story["turns"]}}


def test_a_blind_copy_has_no_gold_and_names_what_to_label(tmp_path: Path) -> None:
    [story] = load_stories([write(tmp_path, STORY)])
    blind = blind_copy(story)
    text = yaml.safe_dump(blind)
    assert "gold" not in text and "split" not in text and "thwarted" not in text
    first = blind["turns"][0]
    assert first["reality"].startswith("Bo snatches")
    assert first["label_for"] == {"ada": ["bo", "cy"], "cy": ["ada", "bo"]}


def test_label_files_must_cover_every_perceiver_and_valence(tmp_path: Path) -> None:
    [story] = load_stories([write(tmp_path, STORY)])
    good = labels_of(STORY)
    path = tmp_path / "labels.yaml"
    path.write_text(yaml.safe_dump(good))
    assert load_second(path, story).labels["tv1"]["cy"].harmed == ["bo"]
    no_observer = copy.deepcopy(good)
    del no_observer["labels"]["tv1"]["cy"]
    path.write_text(yaml.safe_dump(no_observer))
    with pytest.raises(CaseError, match="perceivers"):
        load_second(path, story)
    short_valence = copy.deepcopy(good)
    del short_valence["labels"]["tv1"]["ada"]["valence"]["cy"]
    path.write_text(yaml.safe_dump(short_valence))
    with pytest.raises(CaseError, match=r"valence must cover exactly \['bo', 'cy'\]"):
        load_second(path, story)
    bad_gap = copy.deepcopy(good)
    bad_gap["labels"]["tv2"]["ada"]["gap"] = "sort of"
    path.write_text(yaml.safe_dump(bad_gap))
    with pytest.raises(CaseError) as error:
        load_second(path, story)
    assert "labels.tv2.ada.gap" in str(error.value)


def test_a_reading_is_counted_against_both_readers() -> None:
    gold = Gold(gap="thwarted", harmed=["bo"], valence={"bo": "negative", "cy": "neutral"},
                significance="medium")
    second = Gold(gap="blocked", harmed=["bo"], valence={"bo": "negative", "cy": "negative"},
                  significance="medium")
    reading = TurnReading(character="ada", gap="blocked", significance="notable", harmed=["bo"],
                          feelings={"bo": "negative"}, decided_by="model")
    result = Comparison(mode="test")
    compare_reading(result, gold, second, reading)
    assert result.readings == 1 and result.decided_by_model == 1
    # The readers differ on the gap and on the feeling toward cy; they agree on the rest.
    assert result.readers.right["gap"] == 0 and result.readers.right["harmed"] == 1
    assert (result.readers.right["valence"], result.readers.total["valence"]) == (1, 2)
    # The reading is wrong on the gap by the gold, right by the second reader, and so by either.
    assert result.vs_gold.right["gap"] == 0 and result.vs_second.right["gap"] == 1
    assert result.either.right["gap"] == 1
    # Only labels both readers gave are scored on the agreed: not the gap, one of two valences.
    assert result.on_agreed.total["gap"] == 0 and result.on_agreed.total["valence"] == 1
    assert result.on_agreed.right["valence"] == 1 and result.on_agreed.right["significance"] == 1
    # A missing feeling is neutral: right by the gold for cy, wrong by the second reader.
    assert result.vs_gold.right["valence"] == 2 and result.vs_second.right["valence"] == 1


def test_two_readers_who_agree_score_as_the_judge_does(tmp_path: Path) -> None:
    path = write(tmp_path, STORY)
    stories = load_stories([path])
    seconds = {"tavern": SecondReading.model_validate(labels_of(STORY))}
    result = compare(stories, seconds, FallbackMode())
    assert result.stories == ["tavern"] and result.readings == 3
    assert set(result.readers.accuracy().values()) == {1.0}
    judged = judge(stories, FallbackMode()).accuracy()
    assert result.vs_gold.accuracy() == judged == result.on_agreed.accuracy() == result.vs_second.accuracy()


def test_the_commands_write_blind_copies_and_check_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    story_dir = tmp_path / "judge"
    story_dir.mkdir()
    write(story_dir, STORY)
    assert main(["blind", str(tmp_path / "blind"), str(story_dir)]) == 0
    assert "gold" not in (tmp_path / "blind" / "tavern.yaml").read_text()
    monkeypatch.setattr("evals.second_reader.JUDGE_DIR", story_dir)
    labels = tmp_path / "tavern.yaml"
    labels.write_text(yaml.safe_dump(labels_of(STORY)))
    assert main(["check", str(labels)]) == 0
    assert "tavern.yaml: ok" in capsys.readouterr().out
    broken = labels_of(STORY)
    del broken["labels"]["tv2"]
    labels.write_text(yaml.safe_dump(broken))
    with pytest.raises(SystemExit, match=r"labels\.tv2"):
        main(["check", str(labels)])


def test_score_prints_the_readers_and_each_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    story_dir = tmp_path / "judge"
    story_dir.mkdir()
    write(story_dir, STORY)
    monkeypatch.setattr("evals.second_reader.JUDGE_DIR", story_dir)
    labels = tmp_path / "labels"
    labels.mkdir()
    with pytest.raises(SystemExit, match="no second-reader labels"):
        main(["score", "--labels", str(labels), "--mode", "fallback"])
    other = labels_of(STORY)
    other["labels"]["tv1"]["cy"]["significance"] = "medium"  # the readers part on one label
    (labels / "tavern.yaml").write_text(yaml.safe_dump(other))
    assert main(["score", "--labels", str(labels), "--mode", "fallback", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["fallback"]
    assert figures["readings"] == 3 and figures["readers_agree"]["significance"] == round(2 / 3, 4)
    assert figures["agreed_units"] == 3 * 6 + 4 - 1
    assert main(["score", "--labels", str(labels), "--mode", "fallback"]) == 0
    out = capsys.readouterr().out
    assert "1 stories, 3 readings" in out and "significance" in out


def test_the_shipped_second_reader_labels_every_story_blind() -> None:
    from conftest import ROOT

    from evals.second_reader import LABELS_DIR, load_seconds

    stories = load_stories([ROOT / "evals" / "judge"])
    seconds = load_seconds(LABELS_DIR, stories)
    assert set(seconds) == {s.name.removeprefix("judge_") for s in stories}
    for name, second in seconds.items():
        assert second.story == name and "blind to the gold" in second.reader
        assert (LABELS_DIR / f"{name}.notes.md").is_file()
