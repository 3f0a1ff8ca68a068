"""ObjectNav's agents: the expert and random agent (`simple`), and frontier exploration (`frontier`) on its own occupancy map (`occupancy`)."""
