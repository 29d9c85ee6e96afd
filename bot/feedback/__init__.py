"""The feedback loop: ratings exported as a dataset, reported as charts, turned into
regression cases, and weighed by the bandit that picks prompt versions."""
