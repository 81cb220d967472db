"""The compile cache (strata.cache): GPU artifacts by content, shared by
processes, written atomically, bounded, listed and cleared by the command
line."""
import os
import subprocess
import threading

import pytest

import strata.api as api
from strata import cache
from conftest import BUILD, REPO, uninstrumented_env
from test_bindings import PROGRAM as _PROGRAM

# An artifact's entry point is @forward.
PROGRAM = _PROGRAM.replace("@f(", "@forward(")
STRATA = os.path.join(BUILD, "bin", "strata")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("STRATA_CACHE_DIR", str(path))
    return path


def test_an_artifact_is_compiled_once(cache_dir, monkeypatch):
    builds = []
    real = api._build_artifact

    def counting(*args):
        builds.append(args)
        return real(*args)

    monkeypatch.setattr(api, "_build_artifact", counting)
    first = api.build_artifact(PROGRAM, ["a", "b"])
    again = api.build_artifact(PROGRAM, ["a", "b"])
    assert first == again and len(builds) == 1
    assert len(cache.entries()) == 1
    # Anything the artifact depends on is in the key.
    api.build_artifact(PROGRAM, ["a", "b"], schedule="threads=64")
    api.build_artifact(PROGRAM, ["x", "b"])
    api.build_artifact(PROGRAM, ["a", "b"], target="sm_80")
    assert len(builds) == 4 and len(cache.entries()) == 4
    # verify_each asks for the compiler's checks: it compiles anew.
    api.build_artifact(PROGRAM, ["a", "b"], verify_each=True)
    assert len(builds) == 5


def test_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", "off")
    assert cache.directory() is None
    cache.store("ab" * 32, b"data")
    assert cache.load("ab" * 32) is None


def test_concurrent_writers_leave_one_whole_entry(cache_dir):
    key = cache.key("program")
    payloads = [bytes([i]) * (100000 + i) for i in range(8)]
    threads = [threading.Thread(target=cache.store, args=(key, p))
               for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.load(key) in payloads
    assert [p for p, _, _ in cache.entries()] == [
        os.path.join(str(cache_dir), key[:2], key + cache.SUFFIX)]
    assert not [n for _, _, names in os.walk(cache_dir) for n in names
                if n.endswith(".partial")]


def test_the_least_recently_used_go_past_the_size(cache_dir, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_SIZE", "2500")
    keys = [cache.key("p%d" % i) for i in range(4)]
    for i, k in enumerate(keys):
        cache.store(k, b"x" * 1000)
        os.utime(os.path.join(str(cache_dir), k[:2], k + cache.SUFFIX),
                 (1000 + i, 1000 + i))  # Used in this order.
    cache.trim(2500)
    assert cache.load(keys[0]) is None and cache.load(keys[1]) is None
    assert cache.load(keys[2]) and cache.load(keys[3])


def run_strata(*args, env):
    return subprocess.run([STRATA] + list(args), capture_output=True,
                          text=True, env=env)


def test_a_second_process_hits_the_cache(cache_dir, tmp_path):
    env = dict(uninstrumented_env(), STRATA_CACHE_DIR=str(cache_dir))
    example = os.path.join(REPO, "examples", "decoder.py")
    outputs = []
    for name in ("first.strata", "second.strata"):
        out = str(tmp_path / name)
        r = run_strata("compile", "--file", example, "-o", out, "--timing",
                       env=env)
        assert r.returncode == 0, r.stderr
        outputs.append((open(out, "rb").read(), r.stderr))
    assert outputs[0][0] == outputs[1][0]
    assert "artifact (PTX, cubin, plan)" in outputs[0][1]
    assert "artifact (compile cache hit)" in outputs[1][1]
    listing = run_strata("cache", "list", env=env)
    assert "%s: 1 entries" % cache_dir in listing.stdout
    cleared = run_strata("cache", "clear", env=env)
    assert "removed 1 entries" in cleared.stdout
    assert cache.entries() == []
