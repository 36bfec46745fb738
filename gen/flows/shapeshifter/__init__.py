"""The ShapeShifter footprint flow (``termwise shapeshifter``), written by
:mod:`termwise.gen.flows.reports.shapeshifter`."""

from __future__ import annotations

from .run import parse_groups, run_shapeshifter

__all__ = ["run_shapeshifter", "parse_groups"]
