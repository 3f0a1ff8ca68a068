"""Hosting a challenge: challenges and their phases as data (limits per day, in total and at once, the
leaderboard's visibility), the hidden test episodes kept in the database, teams with hashed tokens,
submissions scored off the request path by workers that claim them, all through SQLAlchemy 2 with Alembic
migrations (SQLite by default, PostgreSQL for a deployment). The pages and the JSON API are `homesim.web`'s."""
