"""Clandestine (rules/clandestine.txt): a hidden-information game of secret societies.

The package keeps data apart from code: ``data/clandestine_content.json`` (the content design)
is loaded once and validated by :mod:`envs.clandestine.content`; card effects are written in one
effect language compiled by :mod:`envs.clandestine.dsl` and executed by :mod:`envs.clandestine.ops`.
Importing the package imports nothing heavy; import the submodules you need.
"""
