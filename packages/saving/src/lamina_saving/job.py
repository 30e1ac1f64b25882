"""Which process of a distributed job writes saved files.

Process 0 writes; the others walk the same save into scratch files (`atomic_path`'s
`scratch`), because reading weights split over processes whole is a gather that every
process must join. Outside a job every process writes.
"""

from __future__ import annotations


def writes_files() -> bool:
    """Whether this process writes saved files (process 0 of a job, or no job)."""
    from lamina import distribution

    return distribution.process_id() == 0
