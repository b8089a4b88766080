"""Portolan's fallback for the open Cerebras Model Zoo 2.x (cerebras.modelzoo), following the
R2.10 source: the config base classes, the model registry, the Trainer and its YAML runner.

The real package needs torch >= 2 and pydantic 2, which Debian 12 does not ship. The dry run
uses the user's Model Zoo when this Python can import it, and this fallback otherwise; Model
Zoo's own models and helpers are not here (importing one ends the dry run with
dryrun.needs-newer-torch). Written for Portolan; no Cerebras code.
"""
