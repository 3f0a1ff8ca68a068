"""The language-model agent (`--agent llm`) against a real HTTP server on 127.0.0.1 that the tests start (an
OpenAI-compatible stand-in answering from a script, `llm_standin`): a model that answers the expert's command
wins every episode, and plays as the expert does; nonsense is counted as invalid and runs to the step limit;
a 429 is retried; a killed run resumes without asking a question twice; offline prompt and answer files
round trip; and bad input (an endpoint that cannot be reached, a wrong key, a template naming an unknown
field, a cache of another model, an empty or huge answer) is a one-line error or a counted finish reason."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient
from llm_standin import Reply, StandIn, expert_model
from test_evaluate import run, said

from homesim.datasets.sources import read_episodes
from homesim.evaluation.evaluate import EvaluationConfig, evaluate
from homesim.evaluation.records import read_records
from homesim.evaluation.suites import SUITES, load_agent, suite_named
from homesim.llm.agent import LLMAgent
from homesim.llm.report import compare
from homesim.web.viewer import create_viewer
from homesim.web.viewing import load_sources

MODEL = "stand-in"


def _evaluate(suite, episodes, url, out, interface=None, options=None, split=None, workers=1, **settings):
    source = read_episodes(episodes, None, split, suite)
    entry = suite_named(source.suite)
    agent_options = {"base_url": url, "model": MODEL, "cache": str(out.parent / f"{out.name}.cache.sqlite"), "examples": 1,
                     "examples_from": None if episodes is None else str(episodes), "context": 100_000} | settings  # fmt: skip
    config = EvaluationConfig(
        agent="llm", suite=entry.name, interface=interface or entry.interfaces[0],
        options=entry.options(options or {}, {}), agent_options=agent_options,
    )  # fmt: skip
    summary = evaluate(source.splits, source.scenes, config, out, workers, overwrite=True)  # offline: round after round
    return summary, read_records(out / "records.jsonl")


def test_llm_is_an_agent_of_every_suite_with_a_text_interface():
    for suite in SUITES.values():
        assert suite.text_play is not None
        agent = load_agent("llm", suite=suite.name, options={"model": MODEL})
        assert isinstance(agent, LLMAgent) and agent.observations == suite.text_play.pixels


def test_a_model_answering_the_experts_commands_plays_as_the_expert_in_the_text_game(tmp_path):
    model = expert_model("alfred", None, None, "text", {})
    with StandIn(model, max_requests=500, lifetime=300) as standin:
        summary, records = _evaluate("alfred", None, standin.url, tmp_path / "llm", "text")
        asked = len(standin.requests)
    expert = evaluate(*_built_in(), EvaluationConfig(agent="expert", interface="text"), tmp_path / "expert")
    assert summary["splits"] == expert["splits"] and all(r.goal_satisfied for r in records)
    for mine, theirs in zip(records, read_records(tmp_path / "expert" / "records.jsonl"), strict=True):
        assert mine.actions == theirs.actions
        agent = mine.measures["agent"]
        assert agent["invalid"] == 0 and agent["finish"] is None and agent["replies"] == len(mine.actions)
        assert [command for _, command, _ in agent["transcript"]] == [a for a, _ in mine.actions]
    assert asked == summary["agent"]["replies"]
    first = standin.requests[0]["messages"]
    assert (
        first[0]["role"] == "system"
        and "Example 1:" in first[0]["content"]
        and "Thought: I need to" in first[0]["content"]
    )
    assert "Your task is to:" in first[-1]["content"] and "Commands you may say now: go to" in first[-1]["content"]


def _built_in():
    source = read_episodes(None, None, None, "alfred")
    return source.splits, source.scenes


def test_the_expert_model_wins_every_handmethat_episode_in_both_observabilities(handmethat_samples, tmp_path):
    for observability in ("partial", "full"):
        model = expert_model("handmethat", str(handmethat_samples), None, None, {"observability": observability})
        with StandIn(model, max_requests=500, lifetime=300) as standin:
            summary, records = _evaluate(
                "handmethat", handmethat_samples, standin.url, tmp_path / observability, options={"observability": observability}
            )  # fmt: skip
        assert all(r.goal_satisfied and r.measures["score"] > 0 for r in records), observability
        assert summary["agent"]["invalid"] == 0 and summary["config"]["options"] == {"observability": observability}


def test_the_embodied_alfred_game_is_played_through_its_text_rendering(tmp_path):
    model = expert_model("alfred", None, None, "embodied", {})
    with StandIn(model, max_requests=1000, lifetime=300) as standin:
        summary, records = _evaluate("alfred", None, standin.url, tmp_path, "embodied", examples=0)
        turn = standin.requests[0]["messages"][-1]["content"]
    assert all(r.goal_satisfied for r in records) and summary["agent"]["invalid"] == 0
    assert "You see: " in turn and "PickupObject " in turn and "MoveAhead_25" in turn


def test_objectnav_is_read_from_depth_and_semantic_images(tmp_path):
    """A model that stops at once: one step an episode, its prompt what the robot's sensors show."""
    generated = tmp_path / "objectnav"
    assert run("generate", "objectnav", "--houses", 3, "--episodes", 1, "--out", generated).exit_code == 0
    with StandIn(lambda body: "Action: STOP", max_requests=20, lifetime=300) as standin:
        _, records = _evaluate("objectnav", generated, standin.url, tmp_path / "out", split="val", examples=0)
        turn = standin.requests[0]["messages"][-1]["content"]
    assert records and all(r.stopped and len(r.actions) == 0 for r in records)
    assert "Free space:" in turn and "m ahead of and" in turn and "Commands you may say now: MOVE_FORWARD" in turn


def test_nonsense_is_counted_as_invalid_and_runs_to_the_step_limit(tmp_path):
    with StandIn(lambda body: "I would like a sandwich.", max_requests=500, lifetime=300) as standin:
        summary, records = _evaluate("alfred", None, standin.url, tmp_path, "text", examples=0)
    for record in records:
        agent = record.measures["agent"]
        assert record.end_reason == "max_commands" and len(record.actions) == 50 and not record.goal_satisfied
        assert agent["invalid"] == agent["replies"] == 50 and agent["errors"]["unparseable"] == 50
        assert agent["transcript"][0] == ["I would like a sandwich.", None, "unparseable"]
    tables, figures, _ = compare([(tmp_path, _config(tmp_path), records)], None)
    (run_figures,) = figures.values()
    assert run_figures["invalid_rate"] == 100.0 and run_figures["finish"] == {"step_limit": len(records)}


def _config(out: Path) -> EvaluationConfig:
    from homesim.evaluation.evaluate import read_run

    return read_run(out)


def test_an_episode_ends_after_max_invalid_replies_in_a_row_or_max_steps(tmp_path):
    with StandIn(lambda body: "", max_requests=500, lifetime=300) as standin:
        _, records = _evaluate("alfred", None, standin.url, tmp_path / "a", "text", examples=0, max_invalid=3)
        _, capped = _evaluate("alfred", None, standin.url, tmp_path / "b", "text", examples=0, max_steps=2)
    assert all(r.measures["agent"]["finish"] == "unparseable" and r.measures["agent"]["replies"] == 3 for r in records)
    assert all(r.end_reason == "stop" and len(r.actions) == 2 for r in records)  # two went to the game, the third stops
    assert all(r.measures["agent"]["finish"] == "step_limit" and len(r.actions) == 2 for r in capped)


def test_a_rate_limit_then_an_answer_is_retried(tmp_path):
    replies = iter([Reply("slow down", 429, {"Retry-After": "0"}), Reply("busy", 503, {"Retry-After": "0"})])

    def script(body):
        return next(replies, "Action: look")

    with StandIn(script, max_requests=20, lifetime=120) as standin:
        _, records = _evaluate("alfred", None, standin.url, tmp_path, "text", examples=0, max_steps=1, split=None)
        asked = standin.requests
    assert records[0].actions == [["look", None]] and records[0].measures["agent"]["finish"] == "step_limit"
    assert asked[0] == asked[1] == asked[2] and len(asked) == 2 + len(records)


def test_an_endpoint_that_keeps_failing_ends_the_episode_with_a_finish_reason(tmp_path):
    with StandIn(lambda body: Reply("down", 500, {"Retry-After": "0"}), max_requests=200, lifetime=120) as standin:
        _, records = _evaluate("alfred", None, standin.url, tmp_path, "text", examples=0, retries=1)
    assert all(r.measures["agent"]["finish"] == "endpoint_error" and r.stopped for r in records)
    assert "500 down (after 2 tries)" in records[0].measures["agent"]["transcript"][0][0]


def test_a_killed_run_resumes_without_asking_an_answered_question_again(tmp_path):
    """The run is killed mid-way (the stand-in kills it at its 7th question, unanswered); run again, it asks
    none of the 6 it had answers to, and writes the records an unbroken run writes."""
    model = expert_model("alfred", None, None, "text", {})
    process: list[subprocess.Popen] = []

    def script(body):
        if len(standin.requests) == 7 and process:
            os.kill(process[0].pid, signal.SIGKILL)
            return Reply("gone", 503)
        return model(body)

    out = tmp_path / "run"
    with StandIn(script, max_requests=500, lifetime=300) as standin:
        command = [sys.executable, "-m", "homesim", "evaluate", "--interface", "text", "--agent", "llm",
                   "--llm-base-url", standin.url, "--llm-model", MODEL, "--out", str(out)]  # fmt: skip
        process.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        assert process[0].wait(timeout=300) == -signal.SIGKILL
        answered = [json.dumps(r, sort_keys=True) for r in standin.requests[:6]]
        process.clear()
        resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stderr
        again = [json.dumps(r, sort_keys=True) for r in standin.requests[7:]]
    assert not set(answered) & set(again) and len(set(again)) == len(again)
    with StandIn(model, max_requests=500, lifetime=300) as fresh:
        unbroken = [*command[:9], fresh.url, *command[10:-1], str(tmp_path / "unbroken")]
        subprocess.run(unbroken, check=True, capture_output=True, timeout=300)
    mine, theirs = read_records(out / "records.jsonl"), read_records(tmp_path / "unbroken" / "records.jsonl")
    assert [(r.actions, r.goal_satisfied) for r in mine] == [(r.actions, r.goal_satisfied) for r in theirs]


def test_a_rerun_asks_nothing_and_writes_the_same_bytes_whatever_the_workers(tmp_path):
    model = expert_model("alfred", None, None, "text", {})
    with StandIn(model, max_requests=500, lifetime=300) as standin:
        _evaluate("alfred", None, standin.url, tmp_path / "one", "text", cache=str(tmp_path / "cache.sqlite"))
        first = len(standin.requests)
        _evaluate(
            "alfred", None, standin.url, tmp_path / "two", "text", workers=2, cache=str(tmp_path / "cache.sqlite")
        )
        assert len(standin.requests) == first
    assert (tmp_path / "one" / "records.jsonl").read_bytes() == (tmp_path / "two" / "records.jsonl").read_bytes()


def test_offline_prompts_and_answers_round_trip(tmp_path):
    """Each round writes the prompts that wait; answered (as text files, then as OpenAI batch output), the
    next round plays on, until every episode is played as online."""
    model = expert_model("alfred", None, None, "text", {})
    folder, rounds, answered = tmp_path / "offline", 0, set()
    while True:
        summary, records = _evaluate(
            "alfred", None, "http://127.0.0.1:9/v1", tmp_path / "run", "text", offline=str(folder)
        )
        waiting = [p for p in sorted((folder / "prompts").glob("*.json")) if p.stem not in answered]
        if not waiting:
            break
        rounds += 1
        assert summary["agent"]["finish"] == {"awaiting_answer": len(waiting)}
        lines = []
        for prompt in waiting:
            line = json.loads(prompt.read_text())
            assert line["url"] == "/v1/chat/completions" and line["body"]["model"] == MODEL
            answer = model(line["body"])
            answered.add(prompt.stem)
            if rounds % 2:
                (folder / "answers" / f"{prompt.stem}.txt").write_text(answer)
            else:  # OpenAI's batch output
                body = {"choices": [{"message": {"role": "assistant", "content": answer}}]}
                lines.append(
                    json.dumps({"custom_id": line["custom_id"], "response": {"status_code": 200, "body": body}})
                )
        if lines:
            (folder / "answers" / f"round{rounds}.jsonl").write_text("\n".join(lines) + "\n")
    assert rounds == max(len(r.actions) for r in records) and all(r.goal_satisfied for r in records)
    assert "finish" not in summary["agent"]


def test_bad_input_is_one_line(tmp_path, monkeypatch):
    unreachable = run("evaluate", "--agent", "llm", "--llm-base-url", "http://127.0.0.1:9/v1", "--out", tmp_path / "a")
    assert unreachable.exit_code != 0 and "cannot reach http://127.0.0.1:9/v1" in said(unreachable)
    assert not (tmp_path / "a.llm_cache.sqlite").exists()  # nothing made for a run that never started
    with StandIn(lambda body: "", max_requests=20, lifetime=60) as standin:
        standin.model = "other"
        missing = run(
            "evaluate", "--agent", "llm", "--llm-base-url", standin.url, "--llm-model", MODEL, "--out", tmp_path / "b"
        )
        assert "serves no model 'stand-in'; it serves other" in said(missing)
    refusing = StandIn(lambda body: "", max_requests=20, lifetime=60)
    refusing.server.RequestHandlerClass.do_GET = lambda handler: handler._send(Reply("bad key", 401), raw=True)
    with refusing:
        monkeypatch.setenv("STANDIN_KEY", "wrong")
        refused = run("evaluate", "--agent", "llm", "--llm-base-url", refusing.url, "--llm-api-key-env", "STANDIN_KEY",
                      "--out", tmp_path / "c")  # fmt: skip
        assert "refused the key (401)" in said(refused)
    no_key = run("evaluate", "--agent", "llm", "--llm-api-key-env", "NO_SUCH_VARIABLE_HERE", "--out", tmp_path / "d")
    assert "no such environment variable is set" in said(no_key)
    template = tmp_path / "mine.j2"
    template.write_text(
        "{% block system %}{{ rules }}\n{{ wisdom }}{% endblock %}{% block turn %}{{ observation }}{% endblock %}"
    )
    unknown = run("evaluate", "--agent", "llm", "--llm-template", template, "--out", tmp_path / "e")
    assert f"{template}:2: block system: 'wisdom' is undefined; its fields: rules, examples, task_type" in said(unknown)
    wrong = run("evaluate", "--agent", "expert", "--llm-model", "x", "--out", tmp_path / "f")
    assert "the --llm-* options are for --agent llm" in said(wrong)
    for result in (unreachable, missing, refused, no_key, unknown, wrong):
        assert result.exit_code != 0 and "Traceback" not in said(result)


def test_a_cache_of_another_model_is_refused_in_one_line(tmp_path):
    with StandIn(lambda body: "Action: look", max_requests=50, lifetime=60) as standin:
        _evaluate("alfred", None, standin.url, tmp_path, "text", examples=0, max_steps=1)
        standin.model = "other"
        result = run("evaluate", "--agent", "llm", "--llm-base-url", standin.url, "--llm-model", "other",
                     "--llm-cache", tmp_path.parent / f"{tmp_path.name}.cache.sqlite", "--interface", "text",
                     "--out", tmp_path / "b")  # fmt: skip
        (tmp_path / "garbage.sqlite").write_bytes(b"not a database at all" * 100)
        broken = run("evaluate", "--agent", "llm", "--llm-base-url", standin.url, "--llm-model", "other",
                     "--llm-cache", tmp_path / "garbage.sqlite", "--out", tmp_path / "c")  # fmt: skip
    assert result.exit_code != 0 and "meta.model: holds answers of model 'stand-in', not 'other'" in said(result)
    assert "Invalid value for --llm-cache" in said(result)  # the option to change, not the endpoint's
    assert broken.exit_code != 0 and "garbage.sqlite: (file): not an answer cache" in said(broken)
    assert "Invalid value for --llm-cache" in said(broken)


def test_a_huge_answer_is_read_only_so_far_and_kept_short(tmp_path):
    with StandIn(lambda body: "go to fridge 1 " + "blah " * 250_000, max_requests=50, lifetime=60) as standin:
        _, records = _evaluate("alfred", None, standin.url, tmp_path, "text", examples=0, max_steps=2)
    reply, command, how = records[0].measures["agent"]["transcript"][0]
    assert command is None and how == "not_admissible" and len(reply) == 2000  # "go to fridge 1 blah blah ..."


def test_the_prompt_is_clipped_to_the_budget_and_says_so(tmp_path):
    with StandIn(lambda body: "Action: look", max_requests=200, lifetime=60) as standin:
        _, records = _evaluate(
            "alfred", None, standin.url, tmp_path / "a", "text", examples=0, max_steps=12, context=1400
        )
        clipped = standin.requests[-1]["messages"]
        _, tiny = _evaluate("alfred", None, standin.url, tmp_path / "b", "text", examples=0, context=300)
    agent = records[0].measures["agent"]
    assert agent["clipped_prompts"] > 0 and agent["most_steps_left_out"] > 0
    assert "earlier steps left out" in clipped[3]["content"] and "Your task is to" in clipped[1]["content"]
    assert all(r.measures["agent"]["finish"] == "context_limit" and not r.actions for r in tiny)


def test_the_scoring_mode_says_the_command_of_highest_likelihood(tmp_path):
    def score(candidate: str) -> float:
        return 0.0 if candidate == "inventory" else -5.0

    with StandIn(lambda body: "", max_requests=50, lifetime=60, score=score) as standin:
        _, records = _evaluate("alfred", None, standin.url, tmp_path, "text", examples=0, max_steps=2, mode="score")
        sent = standin.requests[0]
    assert records[0].actions == [["inventory", None], ["inventory", None]]
    assert (
        sent["path"] == "/v1/completions" and sent["echo"] is True and sent["prompt"][0].endswith("\n> go to cabinet 1")
    )


def test_a_template_of_ones_own_and_the_act_preset(tmp_path):
    template = tmp_path / "terse.j2"
    template.write_text(
        "{% block system %}Play.{% endblock %}{% block turn %}{{ observation }} | {{ commands | length }} commands{% endblock %}"
    )
    with StandIn(lambda body: "look", max_requests=50, lifetime=60) as standin:
        _evaluate("alfred", None, standin.url, tmp_path / "a", "text", examples=0, max_steps=1, template=str(template))
        _evaluate("alfred", None, standin.url, tmp_path / "b", "text", max_steps=1, preset="act")
        mine, act = standin.requests[0]["messages"], standin.requests[4]["messages"]
    assert mine[0]["content"] == "Play." and mine[1]["content"].endswith("28 commands")
    assert "Answer with one of those commands only" in act[0]["content"] and "\n> go to" in act[0]["content"]


def test_report_table_llm_by_task_type_and_by_level(tmp_path, handmethat_samples):
    with StandIn(lambda body: "Action: look", max_requests=500, lifetime=120) as standin:
        _evaluate("alfred", None, standin.url, tmp_path / "alfred", "text", examples=0, max_steps=1)
        _evaluate("handmethat", handmethat_samples, standin.url, tmp_path / "hmt", examples=0, max_steps=1)
    result = run("report", tmp_path / "alfred", tmp_path / "alfred", "--table", "llm", "--json", tmp_path / "f.json")
    assert result.exit_code == 0, said(result)
    assert "success (%) by task type" in result.output and "pick" in result.output and "invalid %" in result.output
    figures = json.loads((tmp_path / "f.json").read_text())
    assert set(next(iter(figures.values()))["by_task_type"]) == {"pick", "all"}
    levels = run("report", tmp_path / "hmt", "--table", "llm")
    assert levels.exit_code == 0 and "by level" in levels.output and "level 1" in levels.output
    assert run("report", tmp_path / "hmt").exit_code == 0  # the summary with its agent part recomputes alike


def test_the_models_replies_are_shown_in_the_viewer_step_by_step(tmp_path):
    replies = iter(["Thought: first I look around.\nAction: look", "I would like a sandwich."])
    with StandIn(lambda body: next(replies, "Action: inventory"), max_requests=50, lifetime=60) as standin:
        _, records = _evaluate("alfred", None, standin.url, tmp_path / "run", "text", examples=0, max_steps=2)
    client = TestClient(create_viewer(load_sources([tmp_path / "run"])))
    page = client.get("/s/0/1", params={"step": 1}).text
    shown = page.split('class="scroll transcript replies"')[1].split("</div>")[0]
    assert 'data-at="1">Thought: first I look around.\nAction: look\n-&gt; look (exact)</pre>' in shown
    assert 'data-at="2" hidden>I would like a sandwich.\n-&gt; invalid: unparseable</pre>' in shown
    assert records[0].actions[0] == ["look", None]


def test_the_embodied_experts_hint_says_its_subgoal_even_for_an_object_sliced_away(alfred_samples, alfred_layouts):
    """The expert's sub-goal names a whole apple that slicing replaced: its class is read off its id."""
    from homesim.envs.alfred.embodied import AlfredEnv

    source = read_episodes(alfred_samples, alfred_layouts, None, "alfred")
    sliced = [e for e in source.all() if e.goal.object_sliced][:3]
    env = AlfredEnv(sliced, source.scenes, expert_hints=True)
    for index in range(len(sliced)):
        observation, info = env.reset(options={"episode": index})
        said = []
        while (
            not info.get("goal_satisfied")
            and info["expert_action"] is not None
            and info["expert_action"].name != "Stop"
        ):
            said.append(info["expert_subgoal"])
            observation, _, _, truncated, info = env.step({"action": info["expert_action"].name,
                                                         "target": info["expert_action"].target})  # fmt: skip
            if truncated:
                break
        assert info["goal_satisfied"] and any(s.startswith("slice the ") for s in said)
