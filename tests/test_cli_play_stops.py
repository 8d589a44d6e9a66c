"""`curator play` when it stops part-way: a bad line, an id reused with new content, Ctrl-C and
SIGTERM. Each stop says how many turns are stored, the world holds exactly those turns, and
playing the same transcript again resumes.

The signal tests run `curator play` as a real process on a long generated transcript and
signal it once the world file shows turns stored; every wait is bounded.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import TRANSCRIPT

from curator import Curator
from curator.cli import cli
from curator.cli.signals import Terminated

GOOD = [json.loads(line) for line in TRANSCRIPT.read_text().splitlines() if line.strip()]


def write(path: Path, turns: list[dict[str, Any] | str]) -> Path:
    path.write_text("\n".join(t if isinstance(t, str) else json.dumps(t) for t in turns) + "\n")
    return path


def stored_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        ids = [row[0] for row in conn.execute("select id from turns order by seq")]
    conn.close()
    return ids


def play(*args: str) -> Any:
    return CliRunner().invoke(cli, ["play", *args])


# -- bad lines ----------------------------------------------------------------------------


@pytest.mark.parametrize("batch", ["1", "64"])
def test_an_id_reused_with_new_content_names_that_line_not_the_first(tmp_path: Path, batch: str) -> None:
    changed = {**GOOD[1], "reality": "Something else entirely happens at the stream."}
    transcript = write(tmp_path / "t.jsonl", [*GOOD[:4], changed, *GOOD[4:6]])
    db = tmp_path / "w.db"
    result = play(str(transcript), "--db", str(db), "--batch", batch)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"Error: {transcript}:5: invalid turn: turn 't002': field 'id': line 2 already has this id "
        "with different content (4 turns before it are stored; fix that line and play again to resume)"]
    assert stored_ids(db) == ["t001", "t002", "t003", "t004"]


def test_an_id_the_world_holds_with_other_content_names_the_line_that_reuses_it(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    assert play(str(write(tmp_path / "a.jsonl", GOOD[:3])), "--db", str(db)).exit_code == 0
    changed = {**GOOD[2], "reality": "Something else entirely happens."}
    transcript = write(tmp_path / "b.jsonl", ["# a comment line", *GOOD[:2], changed, GOOD[3]])
    result = play(str(transcript), "--db", str(db))
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.startswith(f"Error: {transcript}:4: invalid turn: turn 't003': field 'id': ")
    assert line.endswith("(2 turns before it are stored; fix that line and play again to resume)")
    assert stored_ids(db) == ["t001", "t002", "t003"]


def test_a_turn_going_back_in_time_in_a_later_batch_says_how_many_are_stored(tmp_path: Path) -> None:
    early = {**GOOD[7], "id": "late-but-early", "world_time": "2024-12-31T00:00:00Z"}
    transcript = write(tmp_path / "t.jsonl", [*GOOD[:7], early, *GOOD[7:9]])
    db = tmp_path / "w.db"
    result = play(str(transcript), "--db", str(db), "--batch", "3")
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.startswith(f"Error: {transcript}:8: invalid turn: turn 'late-but-early': "
                           "field 'world_time': ")
    assert line.endswith("(7 turns before it are stored; fix that line and play again to resume)")
    assert stored_ids(db) == [t["id"] for t in GOOD[:7]]
    write(transcript, GOOD[:9])
    again = play(str(transcript), "--db", str(db))
    assert again.exit_code == 0 and "(2 new, 7 already seen)" in again.stdout


def test_one_turn_before_a_bad_line_is_said_in_the_singular(tmp_path: Path) -> None:
    transcript = write(tmp_path / "t.jsonl", [GOOD[0], "{not json"])
    result = play(str(transcript), "--db", str(tmp_path / "w.db"))
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("(1 turn before it is stored; fix that line and play again "
                                          "to resume)")


# -- Ctrl-C and SIGTERM, in a real process -------------------------------------------------

LONG = 1000  # turns: several seconds of play, far more than the time it takes to signal


def long_transcript(path: Path) -> list[dict[str, Any]]:
    start = datetime(2025, 1, 2, 8, 0)
    turns = [{**GOOD[n % len(GOOD)], "id": f"long{n:05d}",
              "world_time": (start + timedelta(minutes=10 * n)).isoformat() + "Z"} for n in range(LONG)]
    write(path, turns)  # type: ignore[arg-type]
    return turns


def stored_count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            (n,) = conn.execute("select count(*) from turns").fetchone()
        conn.close()
        return int(n)
    except sqlite3.Error:  # not created yet, or its schema not yet written
        return 0


def play_until_signalled(transcript: Path, db: Path, signum: int, *, at_least: int) -> tuple[int, str]:
    """Run `curator play` until at least `at_least` turns are stored, then send `signum`."""
    # A test run started as a background job (`pytest &` in a script) hands its children
    # SIGINT ignored, and Python then never raises KeyboardInterrupt: the child is given
    # SIGINT's default back, as a terminal's foreground job has it.
    process = subprocess.Popen([sys.executable, "-m", "curator", "play", str(transcript), "--db", str(db)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while stored_count(db) < at_least:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no turns stored within 60 s"
            time.sleep(0.02)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    assert out == ""
    return process.returncode, err


def assert_world_is_the_first(db: Path, turns: list[dict[str, Any]], n: int, tmp_path: Path) -> None:
    """The world holds exactly the first n turns, whole: the same world as playing only them."""
    assert stored_ids(db) == [t["id"] for t in turns[:n]]
    with sqlite3.connect(db) as conn:
        assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"
        sources = {s for (row,) in conn.execute("select source_turns from memories") for s in json.loads(row)}
    conn.close()
    assert sources <= {t["id"] for t in turns[:n]}
    with Curator(tmp_path / f"first-{n}.db") as fresh, Curator(db) as played:
        fresh.observe_many(turns[:n])
        assert played.clock() == fresh.clock()
        assert played.export_world()["characters"] == fresh.export_world()["characters"]


STOPPED = re.compile(r"(Interrupted|Terminated): (\d+) of the (\d+) turns in (.+) are stored in (.+); "
                     r"run the same command again to resume")


def test_ctrl_c_then_sigterm_say_what_is_stored_and_playing_again_resumes(tmp_path: Path) -> None:
    transcript, db = tmp_path / "long.jsonl", tmp_path / "w.db"
    turns = long_transcript(transcript)

    code, err = play_until_signalled(transcript, db, signal.SIGINT, at_least=20)
    assert code == 130, err
    (line,) = err.splitlines()  # one line: no traceback, nothing else
    said = STOPPED.fullmatch(line)
    assert said, line
    assert said.group(1, 3, 4, 5) == ("Interrupted", str(LONG), str(transcript), str(db))
    first = int(said.group(2))
    assert 20 <= first < LONG
    assert_world_is_the_first(db, turns, first, tmp_path)

    code, err = play_until_signalled(transcript, db, signal.SIGTERM, at_least=first + 20)
    assert code == 143, err
    (line,) = err.splitlines()
    said = STOPPED.fullmatch(line)
    assert said and said.group(1) == "Terminated", line
    second = int(said.group(2))
    assert first + 20 <= second < LONG
    assert_world_is_the_first(db, turns, second, tmp_path)

    again = subprocess.run([sys.executable, "-m", "curator", "play", str(transcript), "--db", str(db)],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"({LONG - second} new, {second} already seen)" in again.stdout.splitlines()[0]


def test_a_stop_during_a_model_call_does_not_wait_for_the_answer(tmp_path: Path) -> None:
    """SIGTERM while a model call is under way: play says where it stopped and exits at once.
    It used to wait for the call to answer or time out (the gateway's thread pool waited at
    close, and Python joins worker threads at exit): minutes, with a slow local model."""
    transcript, db = write(tmp_path / "t.jsonl", GOOD[:3]), tmp_path / "w.db"
    silent = socket.create_server(("127.0.0.1", 0))  # takes the connection, never answers
    port = silent.getsockname()[1]
    env = {**os.environ, "CURATOR_TIMEOUT": "300", "CURATOR_RETRIES": "0"}
    process = subprocess.Popen(
        [sys.executable, "-m", "curator", "play", str(transcript), "--db", str(db),
         "--model", "openai/silent", "--api-base", f"http://127.0.0.1:{port}/v1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    held = []
    try:
        silent.settimeout(60)
        held.append(silent.accept()[0])  # the first model call is under way
        time.sleep(0.2)
        asked = time.monotonic()
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
        took = time.monotonic() - asked
        assert out == ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        for conn in held:
            conn.close()
        silent.close()
    assert process.returncode == 143, err
    (line,) = err.splitlines()
    said = STOPPED.fullmatch(line)
    assert said and said.group(1, 2, 3) == ("Terminated", "0", "3"), line
    assert took < 10, took
    assert stored_ids(db) == []


@pytest.mark.parametrize(("stop", "said", "code"), [(KeyboardInterrupt, "Interrupted.", 130),
                                                   (Terminated, "Terminated.", 143)])
def test_a_stop_in_another_command_is_one_word_and_its_exit_status(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: type[BaseException], said: str,
        code: int) -> None:
    """Outside play a stop is said in a word, with the same exit status (click prints a blank
    line first, to end the terminal's "^C")."""
    def stopped(*args: Any, **kwargs: Any) -> Any:
        raise stop()

    monkeypatch.setattr(Curator, "fade", stopped)
    result = CliRunner().invoke(cli, ["fade", "--until", "2025-03-01", "--db", str(tmp_path / "w.db")])
    assert result.exit_code == code
    assert result.stderr.strip() == said and result.stdout == ""


def test_sigterm_raises_only_while_a_command_runs() -> None:
    before = signal.getsignal(signal.SIGTERM)
    assert CliRunner().invoke(cli, ["--help"]).exit_code == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_world_locked_part_way_says_how_many_turns_are_stored(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Another writer takes the world after the fifth turn: play stops with 3 and the count."""
    import curator.api.curator as api
    from curator.domain.errors import WorldLocked

    real = Curator.observe
    seen: list[str] = []

    def observe(self: Curator, data: Any) -> Any:
        if len(seen) == 5:
            raise WorldLocked(f"world {db} stayed locked by another writer")
        seen.append("turn")
        return real(self, data)

    monkeypatch.setattr(api.Curator, "observe", observe)
    transcript, db = write(tmp_path / "t.jsonl", GOOD[:9]), tmp_path / "w.db"
    result = play(str(transcript), "--db", str(db), "--batch", "2")
    assert result.exit_code == 3
    assert result.stderr.splitlines() == [
        f"Error: world {db} stayed locked by another writer (5 of the 9 turns in {transcript} are "
        "stored; play again to resume)"]
    assert stored_ids(db) == [t["id"] for t in GOOD[:5]]
