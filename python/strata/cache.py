"""The compile cache: GPU artifacts on disk, content-addressed.

An artifact (launch plan, PTX, cubin) is a function of the tensorir program,
its argument names, the target, the PTX version, the schedule options and
the compiler itself; its key is a SHA-256 of all of them (the compiler by
its extension's path, size and modification time, so a rebuilt Strata
misses). Capture is not cached: the tensorir text is the key's content.

- Where: STRATA_CACHE_DIR, default $XDG_CACHE_HOME/strata (~/.cache/strata);
  STRATA_CACHE_DIR=off disables it.
- Concurrency: an entry is written to a temporary file in the cache and
  renamed into place (atomic on POSIX), so processes compiling the same
  program at once each write a whole entry and readers never see a part.
- Size: at most STRATA_CACHE_SIZE bytes (default 1 GiB); past it, the
  least recently used entries go (a hit refreshes an entry's time).
- `strata cache list|clear` shows and empties it.
"""
import hashlib
import os
import tempfile
import time

SUFFIX = ".strata"
DEFAULT_SIZE = 1 << 30
# This process's lookups (for --timing and the tests).
stats = {"hits": 0, "misses": 0}


def directory():
    """The cache's directory, or None when it is off."""
    path = os.environ.get("STRATA_CACHE_DIR")
    if path == "off":
        return None
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "strata")
    return path


def _limit():
    try:
        return int(os.environ.get("STRATA_CACHE_SIZE", DEFAULT_SIZE))
    except ValueError:
        return DEFAULT_SIZE


def _compiler_identity():
    import _strata
    stat = os.stat(_strata.__file__)
    return "%s:%d:%d" % (_strata.__file__, stat.st_size, stat.st_mtime_ns)


def key(*parts):
    """The SHA-256 of `parts` (strings) and of the compiler."""
    digest = hashlib.sha256()
    for part in (_compiler_identity(),) + parts:
        data = part.encode() if isinstance(part, str) else bytes(part)
        digest.update(b"%d:" % len(data))
        digest.update(data)
    return digest.hexdigest()


def _path(root, k):
    return os.path.join(root, k[:2], k + SUFFIX)


def load(k):
    """The entry `k`'s bytes, or None."""
    root = directory()
    if root is None:
        return None
    path = _path(root, k)
    try:
        with open(path, "rb") as f:
            data = f.read()
        os.utime(path)  # Recently used.
    except OSError:
        stats["misses"] += 1
        return None
    stats["hits"] += 1
    return data


def store(k, data):
    """Writes entry `k` (atomically), then trims the cache to its size."""
    root = directory()
    if root is None:
        return
    path = _path(root, k)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path),
                                         suffix=".partial")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except OSError:
        return  # A cache that cannot be written is no cache, not an error.
    trim(_limit())


def entries():
    """(path, bytes, last use) of every entry, most recently used first."""
    root = directory()
    found = []
    if root is None or not os.path.isdir(root):
        return found
    for folder, _, files in os.walk(root):
        for name in files:
            # <root>/<2 hex digits>/<64 hex digits>.strata: nothing else.
            if (name.endswith(SUFFIX) and len(name) == 64 + len(SUFFIX) and
                    os.path.basename(folder) == name[:2]):
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path)
                except OSError:  # Removed by another process meanwhile.
                    continue
                found.append((path, stat.st_size, stat.st_mtime))
    return sorted(found, key=lambda e: -e[2])


def trim(limit):
    """Removes the least recently used entries past `limit` bytes."""
    total = 0
    for path, size, _ in entries():
        total += size
        if total > limit:
            try:
                os.remove(path)
            except OSError:
                pass


def clear():
    """Removes every entry; returns how many."""
    removed = 0
    for path, _, _ in entries():
        try:
            os.remove(path)
            removed += 1
        except OSError:
            pass
    return removed


def describe():
    """`strata cache list`'s text."""
    root = directory()
    if root is None:
        return "the compile cache is off (STRATA_CACHE_DIR=off)\n"
    rows = entries()
    lines = ["%s: %d entries, %.1f MB (limit %.1f MB)" % (
        root, len(rows), sum(r[1] for r in rows) / 1e6, _limit() / 1e6)]
    for path, size, used in rows:
        lines.append("  %s  %9d bytes  used %s" % (
            os.path.basename(path)[:16], size,
            time.strftime("%Y-%m-%d %H:%M", time.localtime(used))))
    return "\n".join(lines) + "\n"
