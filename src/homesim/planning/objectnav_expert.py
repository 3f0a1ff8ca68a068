"""The ObjectNav expert: a shortest-path follower to the nearest view point that then turns to see the
object and calls STOP. Works from any pose (for imitation learning and DAgger): each call reads the goal
distance field at the agent's pose, so a learner that strays gets the best action from where it is.

Off a view point it takes the move that lowers the distance field most (ties: the heading it needs the
fewest turns for), turning towards it first; the field is exact for the agent's moves, so the path it
walks from the start is as long as `episode.geodesic_distance` (SPL 1). On a view point it turns and
pitches the camera, with the fewest actions, to an orientation that sees a goal well (the same geometric
visibility the success criteria use, at least FULL_VIEW of the best view there), then STOP.
"""

from __future__ import annotations

import math

from homesim.tasks.objectnav import ObjectNavEpisode, goal_field
from homesim.world.objectnav.embodiment import LOCOBOT, Embodiment
from homesim.world.objectnav.navgrid import NavGrid, nav_grid, nav_step
from homesim.world.objectnav.sight import seeing_orientations
from homesim.world.scene import Scene
from homesim.world.state import AgentState

TIE = 1e-6  # metres: distances closer than this are equal
FULL_VIEW = 0.5  # the share of the best view of the object that the expert's final view keeps


class Unrecoverable(Exception):
    """The goal can no longer be reached from this pose (it is off the navigable area)."""


def _turns(grid: NavGrid, yaw: int, target: int) -> tuple[int, str]:
    """How many turns from yaw to target, and the first of them (the shorter way; right on a tie)."""
    n = len(grid.embodiment.yaws)
    right = ((target - yaw) // grid.embodiment.turn) % n
    return (right, "TURN_RIGHT") if right <= n - right else (n - right, "TURN_LEFT")


class ObjectNavExpert:
    def __init__(self, scene: Scene, episode: ObjectNavEpisode, embodiment: Embodiment = LOCOBOT) -> None:
        self.grid = nav_grid(scene, embodiment)
        self.field = goal_field(self.grid, episode.goals)
        self._view_points = {}
        for goal in episode.goals:
            for x, z in goal.view_points:
                self._view_points.setdefault(self.grid.index(x, z), []).append(goal)
        self._orientations: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def distance(self, agent: AgentState) -> float:
        """The geodesic distance from the agent to the nearest view point."""
        return self.grid.geodesic(self.field, agent.x, agent.z)

    def orientations(self, cell: tuple[int, int]) -> list[tuple[int, int]]:
        """The (yaw, horizon) pairs from which a view point sees a goal it belongs to well: at least
        FULL_VIEW of the most of its points any orientation there sees (a corner at the frame's edge may
        not survive the renderer's shapes, which are slimmer than the boxes)."""
        if cell not in self._orientations:
            x, z = self.grid.point(*cell)
            seen: dict[tuple[int, int], int] = {}
            for goal in self._view_points[cell]:
                for o, n in seeing_orientations(self.grid, goal.box, x, z).items():
                    seen[o] = max(seen.get(o, 0), n)
            best = max(seen.values())
            self._orientations[cell] = sorted(o for o, n in seen.items() if n >= FULL_VIEW * best)
        return self._orientations[cell]

    def next_action(self, agent: AgentState) -> str:
        """The expert's action from this pose (habitat's action names)."""
        cell = self.grid.index(agent.x, agent.z)
        if not math.isfinite(self.grid.geodesic(self.field, agent.x, agent.z)):
            raise Unrecoverable(f"({agent.x:.3f}, {agent.z:.3f}) is off the navigable area: no path to the goal")
        if cell in self._view_points:
            return self._face(agent, cell)
        return self._walk(agent, cell)

    def _walk(self, agent: AgentState, cell: tuple[int, int]) -> str:
        grid, (i, j) = self.grid, cell
        options = []
        for k, ((di, dj), length) in enumerate(zip(grid.steps, grid.step_length)):
            if grid.can_move[k, i, j]:
                yaw = k * grid.embodiment.turn
                options.append((length + float(self.field[i + di, j + dj]), _turns(grid, agent.yaw, yaw), yaw))
        best = min(d for d, _, _ in options)
        _, (count, turn), yaw = min(o for o in options if o[0] <= best + TIE)  # fewest turns among the best
        return "MOVE_FORWARD" if count == 0 else turn

    def _face(self, agent: AgentState, cell: tuple[int, int]) -> str:
        look = self.grid.embodiment.look

        def cost(o: tuple[int, int]) -> tuple[int, int, int]:
            return _turns(self.grid, agent.yaw, o[0])[0] + abs(o[1] - agent.horizon) // look, *o

        yaw, horizon = min(self.orientations(cell), key=cost)
        if yaw != agent.yaw:
            return _turns(self.grid, agent.yaw, yaw)[1]
        if horizon != agent.horizon:
            return "LOOK_DOWN" if horizon > agent.horizon else "LOOK_UP"
        return "STOP"


def expert_actions(
    scene: Scene, episode: ObjectNavEpisode, embodiment: Embodiment = LOCOBOT, limit: int = 10_000
) -> list[str]:
    """The expert's whole demonstration from the episode's start (STOP last), at most `limit` actions."""
    expert = ObjectNavExpert(scene, episode, embodiment)
    agent = AgentState(*episode.start_position, episode.start_rotation, 0)
    actions = []
    while len(actions) < limit:
        action = expert.next_action(agent)
        actions.append(action)
        if action == "STOP":
            break
        agent, _ = nav_step(expert.grid, agent, action)
    return actions
