"""ObjectNav's learned agent: a recurrent actor-critic over depth, the goal's pixels and GPS+Compass (`policy`),
trained by PPO on the batched env (`ppo`, `train`: `homesim train --agent ppo`), playing as an agent from its
checkpoint (`agent`: `homesim evaluate --agent ppo.pt`)."""
