"""What every evaluation suite owes the shared evaluator: a record for work no worker could play, which its
metrics summarize as a failure (finite figures, the reason kept), and chunks of one scene each."""

import json
import math

import pytest

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
