"""ObjectNav's robot in the world: LoCoBot as configuration (`embodiment`), motion and geodesic distances on a fine lattice (`navgrid`), and what its camera sees (`sight`)."""
