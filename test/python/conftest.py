"""Makes the Strata package and its extension importable from a build tree.

STRATA_BUILD_DIR selects the build (default: build/ at the repository root).
"""
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("STRATA_BUILD_DIR", os.path.join(REPO, "build"))

sys.path[:0] = [os.path.join(REPO, "python"), os.path.join(BUILD, "python")]
