"""What the ALFRED importer and replay report, as the tests expect it (one copy for every test file)."""

SUMMARY_KEYS = {
    "total",
    "all_actions_succeeded",
    "goal_satisfied",
    "goal_condition_ratio",
    "malformed",
    "by_task_type",
    "scene_sources",
    "failures",
    "errors",
}
SCENE_SOURCE_KEYS = {  # Scene.provenance of an imported floor plan, summed in the replay summary
    "cells_from_layout",
    "cells_from_start_poses",
    "cells_from_expert_paths",
    "fixed_from_openable",
    "fixed_from_trajectories",
    "fixed_from_planner",
    "extents_under_their_position",
    "extents_grown_by_pickups",
    "open_at_start_from_expert",
}
