"""Reads the report of GNU time's -v option, for the benchmark scripts."""


def stats(path):
    """Wall seconds, peak resident set in KB and CPU seconds (user and system) that `path` reports;
    None for the wall time and the peak when the report lacks them. The wall time measured around
    the command (lib.sh's `timed`, to the microsecond) is preferred to GNU time's (to the hundredth)."""
    wall, around, rss, cpu = None, None, None, 0.0
    for line in open(path):
        line = line.strip()
        if line.startswith("User time (seconds)") or line.startswith("System time (seconds)"):
            cpu += float(line.rsplit(" ", 1)[1])
        elif line.startswith("Elapsed (wall clock) time"):
            parts = line.rsplit(" ", 1)[1].split(":")
            wall = sum(float(part) * 60 ** index for index, part in enumerate(reversed(parts)))
        elif line.startswith("Wall clock time, measured around the command"):
            around = float(line.rsplit(" ", 1)[1])
        elif line.startswith("Maximum resident set size"):
            rss = int(line.rsplit(" ", 1)[1])
    return (around if around is not None else wall), rss, cpu
