"""Language-model agents on every suite (`homesim evaluate --agent llm`): the agent (`agent`), where answers
come from (`endpoint`: an OpenAI-compatible HTTP endpoint, or prompt and answer files), the answer cache
(`cache`), prompts as Jinja2 templates (`prompts`, `templates/`), example games written by homesim's expert
(`examples`), the lenient parser (`parse`) and the table that compares runs (`report`). A layer above
`evaluation`: it plays suites only through their registry entries (`Suite.text_play`, `observation_text`)."""
