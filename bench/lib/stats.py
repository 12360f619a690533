# SPDX-License-Identifier: Apache-2.0
"""Medians, ranges and ratios of repeated measurements."""
import statistics


def summary(values):
    """{"median", "min", "max", "runs"} of the non-None values, or None."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
            "runs": len(vals)}


def ratio(a, b):
    """a/b of two summaries' medians, or None."""
    if not a or not b or not b["median"]:
        return None
    return a["median"] / b["median"]
