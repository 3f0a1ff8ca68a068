"""`homesim play alfred --interface text`: a person's game in the terminal, here played from a script."""

from typer.testing import CliRunner

from homesim.cli import app
from homesim.datasets.alfred.builtin import builtin_episodes
from homesim.envs.alfred.text import AlfredTextEnv
from homesim.envs.alfred.text_expert import subgoal_commands
from homesim.planning.alfred.expert import plan


def expert_commands(index: int) -> list[str]:
    """The expert's demonstration of a built-in episode, as the text commands a player would type."""
    episodes, scenes = builtin_episodes()
    env = AlfredTextEnv(episodes, scenes)
    env.reset(options={"episode": index})
    commands = []
    for subgoal in plan(scenes[episodes[index].scene_id], episodes[index].initial_state, episodes[index].goal).subgoals:
        for command in subgoal_commands(env, subgoal):
            env.step(command)
            commands.append(command)
    return commands


def play(lines: list[str], episode: int = 0):
    return CliRunner().invoke(app, ["play", "alfred", "--episode", str(episode)], input="\n".join(lines) + "\n")


def test_a_full_task_played_through_piped_input_is_won():
    result = play(["help", "inventory", *expert_commands(1)], episode=1)
    assert result.exit_code == 0, result.output
    assert "Your task is to:" in result.output and "Available commands" in result.output
    assert "You won!" in result.output


def test_nonsense_and_quitting_end_the_game_unwon():
    result = play(["fly to the moon", "quit"])
    assert result.exit_code == 0
    assert "Nothing happens." in result.output and "Task not done." in result.output


def test_piped_commands_are_echoed_and_counts_read_as_words():
    result = play(["look", "quit"])
    assert "> look" in result.output and "> quit" in result.output
    assert "1 command, " in result.output  # not "1 commands"


def test_alfworld_0_3_wording_is_chosen_on_the_command_line():
    """0.3 puts with `put X in/on Y`, 0.4 moves with `move X to Y`: each game lists only its own verb."""
    put, move = "put (object) in/on (receptacle)", "move (object) to (receptacle)"
    for version, verb, other in (("0.3", put, move), ("0.4", move, put)):
        result = CliRunner().invoke(app, ["play", "alfred", "--alfworld-version", version], input="help\nquit\n")
        assert result.exit_code == 0, result.output
        assert verb in result.output and other not in result.output, version
