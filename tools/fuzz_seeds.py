"""Writes the seed corpus of strata-fuzz: every lit test split at its
`// -----` markers, one file per chunk. A chunk of a test whose RUN line
gives a Strata pipeline options ('--strata-lower-to-cpu=tile-sizes=3,16
threads=16') starts with `//! OPTIONS`, which strata-fuzz reads."""
import hashlib
import os
import re
import sys

OPTIONS = re.compile(r"--?strata-(?:lower-to-\w+|schedule-tile)=[\"']?([^\"'|]+)")


def chunks(text):
    options = [m.group(1).strip() for line in text.splitlines()
               if line.lstrip().startswith("// RUN:")
               for m in OPTIONS.finditer(line)]
    for part in re.split(r"^// -----\s*$", text, flags=re.M):
        yield part
        for o in options:
            yield "//! %s\n%s" % (o, part)


def main(tests, out):
    os.makedirs(out, exist_ok=True)
    count = 0
    for root, _, files in os.walk(tests):
        for name in files:
            if not name.endswith(".mlir"):
                continue
            with open(os.path.join(root, name)) as f:
                text = f.read()
            for chunk in chunks(text):
                digest = hashlib.sha1(chunk.encode()).hexdigest()
                with open(os.path.join(out, digest), "w") as f:
                    f.write(chunk)
                count += 1
    print("%d seeds in %s" % (count, out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
