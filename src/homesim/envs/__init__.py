"""Gymnasium environments. `import homesim.envs` registers them:
`gymnasium.make("homesim/ALFRED-v0", episodes=..., scenes=...)`."""

import gymnasium

gymnasium.register(id="homesim/ALFRED-v0", entry_point="homesim.envs.alfred:AlfredEnv")
