"""HandMeThat's data: the episode (`episode`), the authors' files read (`files`) and written (`export`), and the generator (`generate`)."""
