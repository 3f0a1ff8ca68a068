"""HandMeThat's tables in the paper's layout (Tables 2 and 3): levels 1-4 and overall per observability, a row
per agent, 95% intervals, from records; `homesim report A B --table handmethat` and its one-line errors."""

from __future__ import annotations

import json

import pytest
from test_handmethat_metrics import RECORDS
from typer.testing import CliRunner

from homesim.cli import app
from homesim.evaluation.handmethat.report import PaperRow, level_figures, paper_table, published_rows


def cells(table, row: int) -> list[str]:
    return [str(column._cells[row]) for column in table.columns]


def test_levels_and_intervals_from_records() -> None:
    figures = level_figures(RECORDS, samples=200)
    assert set(figures) == {"level 1", "level 2", "overall", "bring_me", "move_to"}
    assert figures["level 1"]["score"]["value"] == 28.0 and figures["overall"]["episodes"] == 4
    rows = [PaperRow("random", {"partial": figures, "full": figures}), PaperRow("heuristic", {"full": figures})]
    table = paper_table(rows, "HandMeThat")
    headers = [c.header for c in table.columns]
    levels = ("level 1", "level 2", "level 3", "level 4", "overall")
    assert headers == ["model"] + [f"{s}\n{c}" for s in ("partial", "full") for c in levels]
    random_row, heuristic_row = cells(table, 0), cells(table, 1)
    level_1 = random_row[1].split("\n")
    assert level_1[0] == "28.0 (50.0%, 4.0)"  # a: 96 in 4 moves, b: -40
    low, high = map(float, level_1[1].split(".."))
    assert -40 <= low <= 28.0 <= high <= 96  # the score's bootstrap interval
    assert level_1[2].endswith("%") and level_1[3] == "n=2"
    assert random_row[3] == "-"  # no level 3 episode
    assert heuristic_row[1:6] == [""] * 5  # the heuristic was not run partially observable
    assert heuristic_row[6:] == random_row[6:]


def test_the_papers_rows_are_printed_as_the_paper_prints_them() -> None:
    table = paper_table(published_rows(), "HandMeThat")
    rows = {cells(table, i)[0]: cells(table, i)[1:] for i in range(table.row_count)}
    assert rows["paper: Seq2Seq"][:4] == ["-5.4 (25.5%, 4.2)", "-25.8 (10.4%, 4.1)", "-34.7 (3.9%, 4.1)", "-32.8 (5.3%, 4.1)"]
    assert rows["paper: Heuristic"][:5] == [""] * 5  # their heuristic runs fully observable only
    assert rows["paper: Heuristic"][5] == "88.9 (94.9%, 4.2)" and rows["paper: DRRN"][8] == "-40.0 (0.0%, N/A)"


@pytest.fixture(scope="module")
def runs(handmethat_samples, tmp_path_factory):
    """Two short runs on one sample: the expert fully observable, random partially observable."""
    root = tmp_path_factory.mktemp("runs")
    episode = handmethat_samples / "task-bring_me-2-0-2.json"
    for agent, setting in (("expert", "full"), ("random", "partial")):
        args = ["evaluate", "--episodes", str(episode), "--agent", agent, "--observability", setting]
        result = CliRunner().invoke(app, [*args, "--out", str(root / agent)])
        assert result.exit_code == 0, result.output
    return root


def test_report_compares_runs(runs, tmp_path) -> None:
    out = tmp_path / "table.json"
    args = ["report", str(runs / "expert"), str(runs / "random" / "summary.json"), "--json", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Partially Observable | Fully Observable" in result.output
    text = " ".join(result.output.replace("│", " ").split())  # (cells may wrap)
    assert "96.0 (100.0%," in text and "-40.0 (0.0%," in text and "expert" in text and "random" in text
    assert "+subgoal" in text and "Heuristic" in text  # the paper's rows after ours
    written = json.loads(out.read_text())
    assert set(written["rows"]) == {"expert", "random"}
    assert written["rows"]["expert"]["full"]["level 2"]["success_rate"]["value"] == 1.0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--table", "alfred"], "'alfred': known tables: handmethat"),
        (["--split", "nosplit"], "has no episodes in split 'nosplit'"),
        (["{alfred}"], "is a alfred evaluation: --table handmethat compares HandMeThat runs"),
        (["{missing}"], "does not exist"),
    ],
)
def test_report_errors_are_one_line(runs, tmp_path, extra, message) -> None:
    alfred = tmp_path / "alfred"
    alfred.mkdir()
    (alfred / "records.jsonl").write_text((runs / "expert" / "records.jsonl").read_text())
    settings = json.loads((runs / "expert" / "run.json").read_text())
    (alfred / "run.json").write_text(json.dumps(settings | {"suite": "alfred", "protocol": "alfred"}))
    args = [a.format(alfred=alfred, missing=tmp_path / "missing") for a in extra]
    result = CliRunner().invoke(app, ["report", str(runs / "expert"), "--table", "handmethat", *args])
    assert result.exit_code != 0
    assert not (result.exception and not isinstance(result.exception, SystemExit)), result.exception
    assert message in " ".join(result.output.replace("│", " ").split()), result.output
