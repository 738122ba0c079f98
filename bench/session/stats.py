"""Running statistics over iterables, with type annotations checked by mypy."""

from collections.abc import Iterable


def running_mean(values: Iterable[float]) -> list[float]:
    """Return the mean of each prefix of *values*."""
    total = 0.0
    means: list[float] = []
    for count, value in enumerate(values, 1):
        total += value
        means.append(total / count)
    return means


def describe(values: Iterable[float]) -> str:
    """Summarise *values* in one line."""
    means = running_mean(values)
    if not means:
        return 'empty'
    return len(means)
