"""Stage 1: finding each student's notebooks in a class folder and reading them into cells."""
