"""Planning: navigation search on the reachable grid (and, later, PDDL and task experts)."""
