"""Gymnasium environments. `import homesim.envs` registers them: `gymnasium.make("homesim/ALFRED-v0",
episodes=..., scenes=...)` (embodied; `gymnasium.make_vec` gives its batched version, `envs.alfred.vector`),
`gymnasium.make("homesim/ALFRED-Text-v0", ...)` (ALFWorld-style text),
`gymnasium.make("homesim/ObjectNav-v0", episodes=...)` (object-goal navigation; `gymnasium.make_vec` gives its
batched version, `envs.objectnav.vector`) and
`gymnasium.make("homesim/HandMeThat-v0", episodes=..., observability="partial")` (HandMeThat's text game)."""

import gymnasium

gymnasium.register(
    id="homesim/ALFRED-v0",
    entry_point="homesim.envs.alfred.embodied:AlfredEnv",
    vector_entry_point="homesim.envs.alfred.vector:AlfredVectorEnv",
)
gymnasium.register(id="homesim/ALFRED-Text-v0", entry_point="homesim.envs.alfred.text:AlfredTextEnv")
gymnasium.register(id="homesim/HandMeThat-v0", entry_point="homesim.envs.handmethat:HandMeThatEnv")
gymnasium.register(
    id="homesim/ObjectNav-v0",
    entry_point="homesim.envs.objectnav.env:ObjectNavEnv",
    vector_entry_point="homesim.envs.objectnav.vector:ObjectNavVectorEnv",
)
