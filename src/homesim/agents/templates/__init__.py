"""Starting points for your own agent, one per suite (`homesim new-agent my_agent.py --suite NAME` copies one):
each is a complete agent that runs as it is and says in comments what it is given and what it answers."""
