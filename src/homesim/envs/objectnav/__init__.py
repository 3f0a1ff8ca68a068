"""ObjectNav's environments: `homesim/ObjectNav-v0` one episode at a time (`env`) and N episodes stepped as
arrays (`vector`, Gymnasium's native vector env for `make_vec`), and how they take their `episodes`."""
