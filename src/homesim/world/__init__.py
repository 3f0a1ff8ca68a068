"""The house and its physics: catalog, scene, state, geometry and the dynamics of ALFRED's actions."""

from homesim.world.actions import ACTIONS, Action, Event
from homesim.world.catalog import Catalog, ObjectClass, alfred_catalog
from homesim.world.dynamics import step
from homesim.world.scene import Box, FixedObject, Pose, Scene
from homesim.world.state import AgentState, ObjectState, State

__all__ = [
    "ACTIONS",
    "Action",
    "AgentState",
    "Box",
    "Catalog",
    "Event",
    "FixedObject",
    "ObjectClass",
    "ObjectState",
    "Pose",
    "Scene",
    "State",
    "alfred_catalog",
    "step",
]
