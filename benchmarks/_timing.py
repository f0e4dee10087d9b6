"""The benchmarks' one timer (run them from the repository root: `python benchmarks/NAME.py`, which puts this folder first on the path)."""
import time


def timed(fn, repeat=1):
    "(result, CPU seconds, wall seconds): the best of `repeat` calls."
    best, wall, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        best, wall = min(best, time.process_time() - c0), min(wall, time.perf_counter() - t0)
    return out, best, wall
