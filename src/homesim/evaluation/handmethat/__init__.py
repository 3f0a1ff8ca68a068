"""HandMeThat as an evaluation suite: its runner (`suite`), metrics by hardness level (`metrics`) and the paper's Tables 2 and 3 (`report`)."""
