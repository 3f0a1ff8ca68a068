"""`homesim/HandMeThat-v0`: HandMeThat's text game (Wan et al. 2022) over the symbolic world of
`homesim.world.handmethat`, with the wording of the authors' text env (`homesim.language.handmethat.text`).

At reset the robot reads the welcome message, the room, the human's past actions and request, and what it
sees from the floor; then each command (`help` lists them) answers with what it did: "You are not able to
do so." when the action's preconditions fail (`info["problem"]` says why), "I cannot understand." when it
is no command or names no thing. In the partially observable setting (the default) the robot sees only
its own location, closed containers hidden, and each answer ends with what it sees there (as the paper's
obs_i); in the fully observable setting it sees every location at reset and each answer is the effect
alone (as is, in both, the answer that ends the game). `info["admissible_commands"]` are the commands of
the robot actions whose preconditions hold.

Scoring is their env's (`data_generation/text_interface/env.py`): every command costs 1, inventory, help and
stop included, except look and examine (0); a clarification
question ("question: which color do you like", their supplement D) costs 10, "question: can you say it
clearly" 30 (it reveals the meaning), counted apart in `info["question_cost"]`; reaching the goal (their
check: the human holds, or the target holds, or the state holds for one of the meaning's objects) adds
100 and ends the episode (`terminated`, as does "stop"); 40 commands at most (`truncated`). The score is
the sum of the rewards: 100 x success - total cost.

With `expert_hints=True`, `info["expert_command"]` is the live expert's next command from the current
state (`homesim.planning.handmethat.expert`; privileged, for imitation learning and DAgger).

`history()` is the paper's model input: obs_0 [SEP] a_0 [SEP] obs_1 ..., as their recorder wrote the
samples' `demo_observations_*` (task description cut from obs_0, the env's commas removed).
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, NamedTuple

import gymnasium
from gymnasium import spaces

from homesim.datasets.handmethat.episode import HandMeThatEpisode
from homesim.envs.options import NEEDS_RESET, chosen_episode, reset_options
from homesim.language.handmethat import speech as speech
from homesim.language.handmethat import text as text
from homesim.language.handmethat.commands import QUESTION, command, parse
from homesim.planning.alfred.expert import Unrecoverable
from homesim.planning.handmethat.expert import next_action
from homesim.tasks.handmethat.formula import compile_formula
from homesim.world.handmethat import HmtAction, HmtState, applicable_actions, step

MAX_STEPS = 40  # their evaluation's step limit
OBSERVABILITY = ("partial", "full")
SUCCESS_REWARD = 100
SEP = " [SEP] "


@dataclass(frozen=True)
class Costs:
    """What each kind of command costs (their env's values by default)."""

    action: float = 1
    observe: float = 0  # look, examine (their env charges inventory like any command)
    question: float = 10
    say_it_clearly: float = 30  # "question: can you say it clearly" reveals the meaning


@dataclass(frozen=True)
class _Episode:
    """What the game derives once per episode: names, the task's text, the success test."""

    episode: HandMeThatEpisode
    names: text.Names
    viewer: text.Viewer
    task: str  # the human's actions and request
    succeeded: Callable[[HmtState], bool]  # their env's goal check
    # each robot action's command, written once: by the action's identity (actions recur as the same
    # objects: the world memoises them), the entry keeping the action alive so its id is not reused
    commands: dict[int, tuple[HmtAction, str]] = field(default_factory=dict)


class _Answer(NamedTuple):
    """What the game answers a command: its reward, its text, whether it is a look, whether it ends the game."""

    reward: float
    text: str
    looked: bool = False
    stopped: bool = False


def _prepare(episode: HandMeThatEpisode) -> _Episode:
    names = text.Names(episode.start_state)
    task = episode.task_description
    if not task:  # their request's opener and verb are random: drawn per episode, the same each time
        said = speech.request(episode.utterance, names, random.Random(episode.id))
        task = speech.task_description(episode.human_actions, said)
    test = compile_formula(episode.success)
    return _Episode(episode, names, text.Viewer(names), task, lambda state: test(state, {}))


def episodes_from(episodes: object, split: str | None) -> list[HandMeThatEpisode]:
    """HandMeThat episodes from a path (`homesim.datasets.sources`), a sequence of them, or None: the built-in
    episodes (a few of homesim's generator's)."""
    if episodes is None or isinstance(episodes, str | Path):
        from homesim.datasets.sources import read_episodes

        episodes = read_episodes(episodes, split=split, suite="handmethat").all()
    if not isinstance(episodes, Sequence) or not episodes:
        raise ValueError(
            "HandMeThat-v0 needs episodes: none (the built-in ones), a path (the authors' episode files, a folder"
            " of them, or a homesim dataset folder) or a list of HandMeThatEpisode"
        )
    return list(episodes)


class HandMeThatEnv(gymnasium.Env):
    metadata: ClassVar[dict] = {"render_modes": []}

    def __init__(
        self,
        episodes: object = None,
        observability: str = "partial",
        max_steps: int = MAX_STEPS,
        costs: Costs = Costs(),
        questions: bool = True,
        split: str | None = None,
        expert_hints: bool = False,
    ) -> None:
        if observability not in OBSERVABILITY:
            raise ValueError(f"unknown observability {observability!r}; known: {', '.join(OBSERVABILITY)}")
        self.episodes = episodes_from(episodes, split)
        self.fully = observability == "full"
        self.max_steps, self.costs, self.questions, self.expert_hints = max_steps, costs, questions, expert_hints
        self.observation_space = spaces.Text(1 << 17, min_length=0, charset=string.printable)
        self.action_space = spaces.Text(256, min_length=0, charset=string.printable)
        self._prepared: dict[str, _Episode] = {}
        self.game: _Episode | None = None

    # --- Gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        self.game = None  # until this reset is done: every option is checked before the state is touched
        chosen = chosen_episode(reset_options(options).get("episode"), self.episodes, HandMeThatEpisode, self.np_random)
        game = self._prepared.get(chosen.id)
        if game is None or game.episode is not chosen:  # (another episode may bear the same id)
            game = self._prepared[chosen.id] = _prepare(chosen)
        self.game = game
        self.state: HmtState = chosen.start_state
        self.moves, self.score, self.question_cost, self.questions_asked = 0, 0.0, 0.0, 0
        self.won, self.over, self.last = False, "", (True, "")
        self._memo_things: dict | None = None  # the things `_memo` (admissible commands) was derived from
        view = self.look()
        opening = "Welcome to the world!\n" + text.room(self.state)
        rest = "Now you are standing on the floor.\n" + view + text.TURN
        self._history = [text.without_commas(opening + "\n" + rest)]
        return opening + self.game.task + rest, self._info()

    def step(self, said: str) -> tuple[str, float, bool, bool, dict]:
        if self.game is None:
            raise RuntimeError(NEEDS_RESET)
        if self.over:
            raise RuntimeError(f"episode {self.game.episode.id} is over ({self.over}): call reset() to start another")
        self.moves += 1
        reward, message, looked, stopped = self._respond(said)
        if not stopped and self.game.succeeded(self.state):
            self.won = True
            message += text.GOAL_REACHED
            reward += SUCCESS_REWARD
        self.score += reward
        terminated = self.won or stopped
        view = "" if self.fully or looked or terminated else self.game.viewer.look(self.state, False)
        self._history.append(SEP + (said if isinstance(said, str) else repr(said)) + SEP)
        self._history.append(text.without_commas(message) + view)
        truncated = not terminated and self.moves >= self.max_steps
        if terminated or truncated:
            self.over = "the goal is reached" if self.won else "stopped" if stopped else "the step limit is reached"
        return message + view, reward, terminated, truncated, self._info()

    def __getstate__(self) -> dict:
        """Pickled without the games' compiled goal tests (functions made at run time), remade when
        unpickled: vector envs and Ray send envs to other processes."""
        state = dict(self.__dict__)
        state["_prepared"], state["game"] = {}, self.game.episode if self.game is not None else None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self.game is not None:
            episode = self.game
            self.game = self._prepared[episode.id] = _prepare(episode)

    # --- commands ----------------------------------------------------------------------------------

    def _respond(self, said: object) -> _Answer:
        game, costs = self.game, self.costs
        parsed = parse(said, self.state, game.names) if isinstance(said, str) else None
        self.last = (True, "")
        if parsed is None:
            self.last = (False, f"not understood: {said!r}; type 'help' for the commands")
            return _Answer(-costs.action, text.NOT_UNDERSTOOD)
        if isinstance(parsed, HmtAction):
            self.state, event = step(self.state, parsed)
            if not event.success:
                self.last = (False, event.message)
                return _Answer(-costs.action, text.NOT_ABLE)
            return _Answer(-costs.action, text.feedback(parsed.name, parsed.args, game.names))
        if parsed.startswith(QUESTION) and self.questions:
            return _Answer(self._ask(parsed), speech.answer(parsed, game.episode.meaning, game.names))
        if parsed in ("look", "examine"):
            return _Answer(-costs.observe, self.look(), looked=True)
        if parsed == "inventory":
            return _Answer(-costs.action, text.inventory(self.state, game.task))
        if parsed == "help":
            return _Answer(-costs.action, text.HELP)
        if parsed == "stop":
            return _Answer(-costs.action, text.STOPPED, stopped=True)
        self.last = (False, "questions are turned off")
        return _Answer(-costs.action, text.NOT_UNDERSTOOD)

    def _ask(self, question: str) -> float:
        cost = self.costs.say_it_clearly if speech.SAY_IT_CLEARLY in question else self.costs.question
        self.questions_asked += 1
        self.question_cost += cost
        return -cost

    # --- what the robot can know -------------------------------------------------------------------

    def look(self) -> str:
        """What `look` shows now (free)."""
        return self.game.viewer.look(self.state, self.fully)

    def admissible_commands(self) -> list[str]:
        """The commands of the robot actions whose preconditions hold now, in a fixed order. They are
        remembered per place of the agents until a thing changes: a move changes only the robot, and a
        robot that goes back to a place finds them there (the random agent mostly moves)."""
        if self._memo_things is not self.state.things:
            self._memo_things, self._memo = self.state.things, {}
        key, memo = (self.state.robot, self.state.human), self._memo
        if key not in memo:
            written, names, said = self.game.commands, self.game.names, []
            for action in applicable_actions(self.state, "robot"):  # (inlined `command_for`: the hot loop)
                entry = written.get(id(action))
                if entry is None or entry[0] is not action:
                    entry = written[id(action)] = (action, command(action, names))
                said.append(entry[1])
            memo[key] = list(dict.fromkeys(said))
        return list(memo[key])

    def expert_command(self) -> str | None:
        """The live expert's next command from the current state (privileged: it knows the meaning); None
        when the meaning can no longer be achieved."""
        episode = self.game.episode
        try:
            action = next_action(episode.meaning, [name for name, _ in episode.objects_in_meaning], self.state)
        except Unrecoverable:
            return None
        return None if action is None else self.command_for(action)

    def command_for(self, action: HmtAction) -> str:
        """The command that asks for a robot action (for experts and scripted agents)."""
        entry = self.game.commands.get(id(action))
        if entry is None or entry[0] is not action:
            entry = self.game.commands[id(action)] = (action, command(action, self.game.names))
        return entry[1]

    def history(self) -> str:
        """The paper's model input so far: obs_0 [SEP] a_0 [SEP] obs_1 ... (their recorder's form)."""
        return "".join(self._history)

    @property
    def task(self) -> str:
        """The human's past actions and request (the paper's task_desc)."""
        return self.game.task

    def _info(self) -> dict:
        episode = self.game.episode
        hint = {"expert_command": self.expert_command()} if self.expert_hints and not self.over else {}
        return hint | {
            "episode_id": episode.id,
            "admissible_commands": self.admissible_commands(),
            "won": self.won,
            "score": self.score,
            "moves": self.moves,
            "question_cost": self.question_cost,
            "questions": self.questions_asked,
            "last_command_success": self.last[0],
            "problem": self.last[1],
            "level": episode.level,
            "quest_type": episode.quest_type,
        }

