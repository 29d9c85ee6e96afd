"""Scripted answers with planted faults, for `benchmarks.confidence`: cases from the dev data
in ../shared/eval, faithful answers drafted from the context blocks a prompt actually holds,
one-fault variants of them, and the local model endpoint that serves them."""
