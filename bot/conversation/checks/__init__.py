"""The checks behind an answer's confidence, one module per kind of fault they catch."""
