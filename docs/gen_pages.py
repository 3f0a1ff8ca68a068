"""The site's reference pages, made from the code at build time (mkdocs-gen-files runs this; none of them is
committed): a page per registered Gymnasium env (its id, spaces, options, limits, and one episode of the
expert on the built-in episodes: a GIF of its view and the top-down map, or the transcript of a text game),
every command's `--help`, every suite's measures with what they read (asked of the `Suite` registry), the
JSON Schemas field by field, and the API pages that mkdocstrings fills from the docstrings.

`HOMESIM_DOCS_PICTURES=off` leaves the episodes out (for a machine without headless OpenGL)."""

from __future__ import annotations

import inspect
import io
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import gymnasium
import mkdocs_gen_files
import typer
from gymnasium import spaces
from PIL import Image
from typer.testing import CliRunner

import homesim.envs  # noqa: F401  (registers the envs)
from homesim.cli import app
from homesim.evaluation.suites import SUITES

PICTURES = os.environ.get("HOMESIM_DOCS_PICTURES", "on") != "off"
SCHEMAS = Path(__file__).resolve().parents[1] / "src" / "homesim" / "schemas"
GIF_WIDTH, GIF_FRAMES = 320, 48  # small pictures: a GIF of at most 48 frames, 320 pixels wide
API_MODULES = (
    "homesim.agents.protocol",
    "homesim.world",
    "homesim.scenes.procedural",
    "homesim.scenes.houses",
    "homesim.datasets.sources",
    "homesim.datasets.folder",
    "homesim.envs.alfred.embodied",
    "homesim.envs.alfred.text",
    "homesim.envs.alfred.alfworld",
    "homesim.envs.objectnav",
    "homesim.envs.handmethat",
    "homesim.render.renderer",
    "homesim.planning.alfred.expert",
    "homesim.planning.objectnav_expert",
    "homesim.tasks.objectnav_criteria",
    "homesim.evaluation.suite",
    "homesim.evaluation.suites",
    "homesim.evaluation.evaluate",
    "homesim.evaluation.records",
    "homesim.evaluation.metrics",
    "homesim.evaluation.measures",
    "homesim.evaluation.objectnav.metrics",
    "homesim.schemas",
    "homesim.files",
    "homesim.errors",
)


def write(path: str, content: str | bytes) -> None:
    with mkdocs_gen_files.open(path, "wb" if isinstance(content, bytes) else "w") as f:
        f.write(content)


def code(text: object) -> str:
    """A table cell's code span, on one line (a pipe inside a code span does not split the cell)."""
    return "`" + " ".join(str(text).split()).replace("`", "'") + "`"


# ---- envs


def env_ids() -> list[str]:
    return sorted(i for i in gymnasium.registry if i.startswith("homesim/"))


def suite_of(env_id: str):
    return next(s for s in SUITES.values() if env_id in s.env_ids)


def space_rows(space: spaces.Space, prefix: str) -> list[tuple[str, str]]:
    if isinstance(space, spaces.Dict):
        return [row for key, sub in space.spaces.items() for row in space_rows(sub, f"{prefix}[{key!r}]")]
    shown = re.sub(r"charset=[^)]*", "charset=…", str(space))  # the characters allowed, left out
    return [(prefix, shown)]


def reset_options(env: gymnasium.Env) -> str:
    """The keys `reset(options=...)` takes, as the env's own refusal of an unknown key names them."""
    try:
        env.reset(options={"?": 0})
    except ValueError as e:
        found = re.search(r"this env takes (.+)$", str(e))
        if found:
            return found.group(1)
    return "episode"


def is_text(env: gymnasium.Env) -> bool:
    return isinstance(env.action_space, spaces.Text)


def env_page(env_id: str, work: Path) -> str:
    spec, suite = gymnasium.spec(env_id), suite_of(env_id)
    env = gymnasium.make(env_id)
    cls = type(env.unwrapped)
    lines = [
        f"# `{env_id}`",
        "",
        f"Suite: [{suite.title}](../../suites/{suite.name}.md) (its measures: [reference](../suites.md#{suite.name}));"
        f" entry point `{spec.entry_point}`.",
        "",
        "```python",
        "import gymnasium, homesim.envs",
        f'env = gymnasium.make("{env_id}")   # the built-in episodes',
        'observation, info = env.reset(options={"episode": 0})',
        "```",
        "",
        *episode_section(env_id, work),
        "## Spaces",
        "",
        "| space | value |",
        "|---|---|",
    ]
    rows = space_rows(env.observation_space, "observation") + space_rows(env.action_space, "action")
    lines += [f"| `{name}` | {code(value)} |" for name, value in rows]
    lines += ["", "## Options", "", "Keyword arguments of `gymnasium.make(...)`:", ""]
    lines += ["| option | default | type |", "|---|---|---|"]
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        default = "(required)" if p.default is inspect.Parameter.empty else repr(p.default)
        lines.append(f"| `{p.name}` | {code(default)} | {code(p.annotation)} |")
    lines += ["", f"`reset(seed=..., options=...)` takes the options {code(reset_options(env))}.", ""]
    lines += ["## Limits", ""]
    fails = f", and {suite.max_fails} failed actions end an episode" if suite.max_fails else ""
    lines.append(f"- the {suite.title} protocol: {suite.max_steps} steps at most{fails}")
    for p in inspect.signature(cls.__init__).parameters.values():
        if p.name.startswith("max_"):
            lines.append(f"- `{p.name}={p.default!r}` (a constructor option)")
    lines.append(f"- Gymnasium's `max_episode_steps`: {spec.max_episode_steps} (the env truncates by itself)")
    env.close()
    lines += ["", "## What it is", "", inspect.getdoc(sys.modules[cls.__module__]) or ""]
    return "\n".join(lines) + "\n"


def episode_section(env_id: str, work: Path) -> list[str]:
    lines = ["## One episode", ""]
    if not PICTURES:
        return [*lines, "(left out of this build: `HOMESIM_DOCS_PICTURES=off`)", ""]
    stem = env_id.replace("/", "-")
    episode = expert_episode(env_id, work)
    lines += [episode["caption"], ""]
    shown = []
    if episode["gif"]:
        write(f"reference/envs/{stem}.gif", episode["gif"])
        shown.append(f"![the expert's view, step by step]({stem}.gif)")
    if episode["map"]:
        write(f"reference/envs/{stem}-map.png", episode["map"])
        shown.append(f'![the top-down map at the end]({stem}-map.png){{ width="320" }}')
    lines += [" ".join(shown), ""] if shown else []
    if episode["transcript"]:
        lines += ["```text", episode["transcript"].rstrip(), "```", ""]
    return lines


def expert_episode(env_id: str, work: Path) -> dict:
    """The expert plays the first built-in episode under the suite's protocol (`homesim evaluate`), and the
    record is drawn as `homesim view` draws it (`Suite.replay`)."""
    from homesim.datasets.sources import read_episodes
    from homesim.evaluation.records import read_record
    from homesim.render.renderer import Renderer

    suite = suite_of(env_id)
    env = gymnasium.make(env_id)
    interface = "text" if is_text(env) and "text" in suite.interfaces else suite.interfaces[0]
    env.close()
    out = work / env_id.replace("/", "-")
    args = ["evaluate", "--suite", suite.name, "--agent", "expert", "--limit", "1", "--out", str(out)]
    if len(suite.interfaces) > 1:
        args += ["--interface", interface]
    result = CliRunner().invoke(app, args)
    if result.exit_code != 0:
        raise RuntimeError(f"homesim {' '.join(args)}: {result.output}")
    record = read_record(out / "records.jsonl", 1)
    source = read_episodes(None, suite=suite.name)
    episode = next(e for e in source.splits[record.split] if suite.episode_id(e) == record.episode_id)
    replay = suite.replay(episode, source.scenes, record, {})
    found = {"gif": None, "map": None, "transcript": "\n".join(replay.transcript)}
    found["caption"] = (
        f"The expert on built-in episode `{record.episode_id}` ({replay.title.strip()}): {replay.steps - 1}"
        f" steps, {replay.ending}."
    )
    if replay.image is not None and replay.images:
        renderer = Renderer(**replay.camera)
        stride = max(1, -(-replay.steps // GIF_FRAMES))
        frames = [Image.fromarray(replay.image(s, replay.images[0], renderer)) for s in range(0, replay.steps, stride)]
        frames = [f.resize((GIF_WIDTH, round(f.height * GIF_WIDTH / f.width))) for f in frames]
        frames = [f.quantize(64) for f in frames]
        buffer = io.BytesIO()
        frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=250, loop=0, optimize=True)
        found["gif"] = buffer.getvalue()
    if replay.top_down is not None:
        buffer = io.BytesIO()
        Image.fromarray(replay.top_down(replay.steps - 1)).quantize(64).save(buffer, "PNG", optimize=True)
        found["map"] = buffer.getvalue()
    return found


def env_pages() -> None:
    index = ["# Environments", "", "Every Gymnasium env homesim registers (`import homesim.envs`), each on a page"]
    index += ["made from the env itself:", "", "| id | suite | action space |", "|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="homesim-docs-") as tmp:
        for env_id in env_ids():
            stem = env_id.replace("/", "-")
            write(f"reference/envs/{stem}.md", env_page(env_id, Path(tmp)))
            env = gymnasium.make(env_id)
            index.append(
                f"| [`{env_id}`]({stem}.md) | {suite_of(env_id).title} | {code(env.action_space.__class__.__name__)} |"
            )
            env.close()
    write("reference/envs/index.md", "\n".join(index) + "\n")


# ---- the command line


def commands(command, path: list[str]):
    yield path, command
    if hasattr(command, "list_commands"):
        for name in command.list_commands(None):
            yield from commands(command.get_command(None, name), [*path, name])


def cli_page() -> str:
    lines = ["# Command line", "", "Every `homesim` command's `--help`, as the installed command prints it.", ""]
    runner = CliRunner()
    for path, command in commands(typer.main.get_command(app), []):
        if getattr(command, "hidden", False):
            continue
        result = runner.invoke(
            app, [*path, "--help"], prog_name="homesim", env={"COLUMNS": "96", "NO_COLOR": "1", "TERM": "dumb"}
        )
        if result.exit_code != 0:
            raise RuntimeError(f"homesim {' '.join(path)} --help: {result.output}")
        lines += [f"## `{' '.join(['homesim', *path])}`", "", "```text", result.output.rstrip(), "```", ""]
    return "\n".join(lines)


# ---- suites


FIELD = re.compile(r"^    (\w+): (.+?)(?: = .*?)?(?:\s+# (.*))?$")


def suite_fields() -> list[tuple[str, str, str]]:
    """`Suite`'s fields, each with its type and the comment that documents it (on its line or the one above)."""
    from homesim.evaluation.suite import Suite

    rows, above = [], ""
    for line in inspect.getsource(Suite).splitlines():
        if line.strip().startswith("#"):
            above = (above + " " + line.strip().lstrip("# ")).strip()
            continue
        found = FIELD.match(line)
        if found and found.group(1) in Suite.__dataclass_fields__:
            rows.append((found.group(1), found.group(2), " ".join(filter(None, (above, found.group(3) or "")))))
        above = ""
    return rows


def suites_page() -> str:
    lines = ["# Suites and their measures", "", "What the suite registry (`homesim.evaluation.suites.SUITES`) says"]
    lines += ["of each benchmark; the formulas and their references are on each suite's page. Each field of"]
    lines += ["[`Suite`](api/homesim.evaluation.suite.md) is an extension point ([its fields](#the-suite-fields)).", ""]
    for suite in SUITES.values():
        metrics = suite.metrics
        reads = metrics.reads
        lines += [f"## {suite.title} {{#{suite.name}}}", "", "| field | value |", "|---|---|"]
        lines.append(f"| name | `{suite.name}` |")
        envs = ", ".join(f"[`{e}`](envs/{e.replace('/', '-')}.md)" for e in suite.env_ids)
        lines.append(f"| envs | {envs} |")
        lines.append(f"| episodes | `{suite.episode_type.__module__}.{suite.episode_type.__name__}` |")
        lines.append(
            f"| limits | {suite.max_steps} steps"
            + (f", {suite.max_fails} failed actions |" if suite.max_fails else " |")
        )
        lines.append(f"| interfaces | {', '.join(suite.interfaces)} |")
        lines.append(f"| interactions | {', '.join(suite.interactions)} |")
        lines.append(f"| pixels | {', '.join(suite.pixels) or '(none)'} |")
        lines.append(f"| built-in agents | {', '.join(suite.agents)} |")
        lines.append(f"| hidden from agents | {', '.join(f'`{h}`' for h in suite.hidden) or '(nothing)'} |")
        lines.append(f"| leaderboard | {', '.join(f'`{m}`' for m in suite.leaderboard)} |")
        lines.append(
            f"| report tables | {', '.join(f'`{c.name}` ({c.help})' for c in suite.comparisons) or '(none)'} |"
        )
        lines += ["", "Measures (a summary's figures, each from the records alone):", ""]
        lines += ["| measure | kind | reads |", "|---|---|---|"]
        for name in metrics.terms:
            read = ", ".join(f"`{r}`" for r in reads.get(name, ())) or "the record"
            lines.append(f"| `{name}` | ratio of sums over episodes | {read} |")
        for name in metrics.means:
            lines.append(f"| `{name}` | mean over episodes that have it | the record |")
        lines += ["", f"Breakdowns: {', '.join(f'`{b}`' for b in metrics.breakdowns)}.", ""]
        if suite.protocols:
            lines += ["Protocols (`--protocol`; the first is the default):", "", "| protocol | rules | settings |"]
            lines.append("|---|---|---|")
            for p in suite.protocols:
                lines.append(f"| `{p.name}` | {p.help} | {code(json.dumps(dict(p.settings), sort_keys=True))} |")
            lines.append("")
    lines += [
        "## The `Suite` fields {#the-suite-fields}",
        "",
        "As `homesim/evaluation/suite.py` declares and documents them:",
    ]
    lines += ["", "| field | type | what it is |", "|---|---|---|"]
    lines += [f"| `{name}` | {code(kind)} | {doc.replace('|', chr(92) + '|')} |" for name, kind, doc in suite_fields()]
    return "\n".join(lines) + "\n"


# ---- schemas


def schema_rows(schema: dict, prefix: str = "") -> list[tuple[str, str, str]]:
    rows = []
    for name, field in schema.get("properties", {}).items():
        kind = field.get("type", "any")
        kind = " or ".join(kind) if isinstance(kind, list) else kind
        rows.append((prefix + name, kind, field.get("description", "")))
        if field.get("type") == "object" and "properties" in field:
            rows += schema_rows(field, f"{prefix}{name}.")
    return rows


def schemas_page() -> str:
    lines = ["# JSON Schemas", "", "Each file homesim writes has a JSON Schema in the package"]
    lines += ["(`homesim/schemas/*.json`, read with `homesim.schemas.schema(name)`); the tests validate files the"]
    lines += [
        "commands write against them. The fields, as the schemas declare them (prose: [Formats](../formats.md)):",
        "",
    ]
    for path in sorted(SCHEMAS.glob("*.json")):
        schema = json.loads(path.read_text())
        lines += [f"## `{path.name}`", "", schema.get("description", ""), ""]
        rows = schema_rows(schema)
        if rows:
            lines += ["| field | type | what it is |", "|---|---|---|"]
            lines += [f"| `{n}` | {k} | {d} |" for n, k, d in rows]
            lines.append("")
    return "\n".join(lines) + "\n"


def api_pages() -> None:
    index = ["# API", "", "The public modules, from their docstrings:", ""]
    for module in API_MODULES:
        index.append(f"- [`{module}`]({module}.md)")
        write(f"reference/api/{module}.md", f"# `{module}`\n\n::: {module}\n")
    write("reference/api/index.md", "\n".join(index) + "\n")


env_pages()
write("reference/cli.md", cli_page())
write("reference/suites.md", suites_page())
write("reference/schemas.md", schemas_page())
api_pages()
