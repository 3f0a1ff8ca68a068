"""ObjectNav's data: generated episodes in seeded houses (`generate`), habitat's ObjectNav-v1 layout (`habitat`) and the built-in episodes (`builtin`)."""
