"""What every evaluation suite owes the shared evaluator: a record for work no worker could play, which its
metrics summarize as a failure (finite figures, the reason kept), and chunks of one scene each; and the
registry itself: each entry says what its suite is, and no code outside it switches on a suite's name."""

import json
import math
import re
from pathlib import Path

import pytest

import homesim
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.datasets.handmethat.files import read_handmethat_file
from homesim.datasets.objectnav.builtin import builtin_objectnav
from homesim.evaluation.evaluate import CHUNK, PACKED, EvaluationConfig, chunks_of
from homesim.evaluation.metrics import summarize
from homesim.evaluation.suites import SUITES


def _episodes(suite, request):
    if suite == "alfred":
        return builtin_episodes()
    if suite == "objectnav":
        return builtin_objectnav()
    samples = request.getfixturevalue("handmethat_samples")  # HandMeThat has no built-in episodes
    return [read_handmethat_file(f) for f in sorted(samples.glob("*.json"))[:3]], {}


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_unplayed_work_is_a_failed_record_the_metrics_count(suite, request):
    episodes, scenes = _episodes(suite, request)
    splits = {"s": episodes}
    items = SUITES[suite].work_items(splits, EvaluationConfig(suite=suite))
    record = SUITES[suite].failed(splits, scenes, items[0], "worker died")
    assert record.end_reason == "worker_failed" and record.failures == [[0, "worker died"]]
    assert record.suite == suite and not record.goal_satisfied
    json.loads(record.to_json())
    figures = summarize([record], samples=10, metrics=SUITES[suite].metrics)["s"]["all"]
    values = [f["value"] for f in figures.values() if isinstance(f, dict) and f.get("value") is not None]
    assert values and all(math.isfinite(v) for v in values)


def _scenes(chunk, splits) -> set:
    return {splits[s][i].scene_id for s, i, *_ in chunk}


def test_chunks_hold_every_item_once_and_each_scene_in_one_chunk():
    episodes, _ = builtin_episodes(count=8)
    splits = {"a": episodes, "b": episodes[:3]}
    items = SUITES["alfred"].work_items(splits, EvaluationConfig())
    chunks = chunks_of(items, splits)
    assert sorted(i for chunk in chunks for i in chunk) == sorted(items)
    scenes = [scene for chunk in chunks for scene in _scenes(chunk, splits)]
    assert len(scenes) == len(set(scenes)) and all(len(chunk) <= CHUNK for chunk in chunks)


def test_small_scenes_share_chunks_and_each_worker_gets_four_or_more():
    episodes, _ = builtin_episodes(count=60)
    splits = {"a": episodes}
    items = SUITES["alfred"].work_items(splits, EvaluationConfig())
    assert all(len(_scenes([item], splits) & _scenes(items[:k], splits)) == 0 for k, item in enumerate(items))
    for workers in (1, 2, 60):
        chunks = chunks_of(items, splits, workers)
        packed = max(1, min(PACKED, len(items) // (4 * workers)))  # scenes of one item each, packed
        assert [len(chunk) for chunk in chunks] == [packed] * (len(items) // packed) + [len(items) % packed] * (
            len(items) % packed > 0
        )
        assert len(chunks) >= min(len(items), 4 * workers) and sorted(sum(chunks, [])) == sorted(items)
    big = {"a": [episodes[0]] * (CHUNK + 5) + episodes[1:4]}  # one scene of CHUNK + 5 items, three of one
    big_items = SUITES["alfred"].work_items(big, EvaluationConfig())
    chunks = chunks_of(big_items, big)
    assert [len(chunk) for chunk in chunks] == [CHUNK, 5 + 3]  # the big scene's rest packed with the small ones
    assert sorted(i for chunk in chunks for i in chunk) == sorted(big_items)


# --- the registry -----------------------------------------------------------------------------------------

NAME = r"""["'](alfred|objectnav|handmethat)["']"""
SUITE_SWITCH = re.compile(  # a suite's name compared with something that holds a suite (or its .name), either side
    rf"""suite\b(\.name\b)?[\w\]"')]*\s*(==|!=|\bin\b|\bnot in\b)\s*\(?[^\n)]*{NAME}"""
    rf"""|{NAME}\s*(==|!=)\s*[\w.\[\]"']*suite\b"""
)


def test_no_code_switches_on_a_suites_name_outside_the_registry():
    root = Path(homesim.__file__).parent
    switches = [
        f"{path.relative_to(root)}:{number}: {line.strip()}"
        for path in sorted(root.rglob("*.py"))
        if path.relative_to(root).as_posix() != "evaluation/suites.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if SUITE_SWITCH.search(line)
    ]
    assert switches == []
    for line in ('if config.suite == "alfred":', 'suite not in (None, "alfred")', 'if suite.name == "objectnav":',
                 'if "handmethat" != run.suite:'):  # fmt: skip
        assert SUITE_SWITCH.search(line), line


@pytest.mark.parametrize("name", sorted(SUITES))
def test_each_entry_says_what_its_suite_is(name, request):
    import gymnasium

    import homesim.envs  # noqa: F401  (registers the envs)

    suite = SUITES[name]
    assert suite.name == name == suite.episode_type.suite
    assert all(env_id in gymnasium.registry for env_id in suite.env_ids)
    episodes, _ = _episodes(name, request)
    full, public = episodes[0].to_dict(), suite.public(episodes[0])
    assert suite.hidden and set(suite.hidden) <= set(full) | {"reading"}  # HandMeThat's reading is optional
    assert set(public) == set(full) - set(suite.hidden) and not set(public) & set(suite.hidden)
    assert suite.interfaces and suite.interactions and set(suite.agents)
    assert {c.name for c in suite.comparisons}.isdisjoint(
        {c.name for other in SUITES.values() if other is not suite for c in other.comparisons}
    )


def test_a_suite_reads_an_observation_as_text():
    text = SUITES["alfred"].observation_text(
        {"goal": "put a mug in the sink", "instructions": "walk to the sink\ntake the mug", "visible_objects": ("Mug|1",)}
    )
    assert text.splitlines() == [
        "Your task is to: put a mug in the sink",
        "Step 1: walk to the sink",
        "Step 2: take the mug",
        "You see: Mug (Mug|1).",
    ]
    assert SUITES["alfred"].observation_text({"text": "You arrive at sink 1."}) == "You arrive at sink 1."
    navigation = SUITES["objectnav"].observation_text({"objectgoal": 0, "gps": [1.5, -0.25], "compass": [math.pi / 2]})
    assert "1.50 m ahead" in navigation and "-0.25 m right" in navigation and "facing 90 degrees" in navigation
    assert SUITES["handmethat"].observation_text({"text": "You see a cabinet."}) == "You see a cabinet."
