"""HandMeThat's task: the request and its meaning (`task`), the goal language (`formula`), the goal templates (`goals`) and the hardness levels (`levels`)."""
