"""ObjectNav as an evaluation suite: its runner (`suite`), habitat's measures (`metrics`) and its table (`report`)."""
