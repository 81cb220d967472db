"""Writes the seed corpus of strata-fuzz: every lit test split at its
`// -----` markers, one file per chunk. A chunk of a test whose RUN line
gives a Strata pipeline options ('--strata-lower-to-cpu=tile-sizes=3,16
threads=16') starts with `//! OPTIONS`, which strata-fuzz reads. With a
third argument, also writes libFuzzer's dictionary there: every op name of
the generated op reference, types, attributes and schedule options."""
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


TOKENS = ["tensor<", "memref<", "vector<", "!tileir.tile<", "xf32>", "xf16>",
          "xbf16>", "xi1>", "xi64>", "index", "affine_map<(d0, d1) -> (d1, d0)>",
          "#gpu.address_space<workgroup>", "dense<", "array<i64: ", "-> ",
          " in [", "domain [", "tile [", "threads ", "axes [", "keepdim",
          "//! ", "tile-sizes=", "threads=", "schedule=row", "schedule=generic",
          "schedule=contraction", "schedule=elementwise", "k-tile=", "stages=",
          "split-k=", "split-folds=", "tensor-cores=false", "tf32=true", "wgmma=true",
          "chip=sm_90a", "shared-memory=", "tile-elements="]


def write_dictionary(path):
    """libFuzzer's dictionary: Strata's op names and common tokens."""
    here = os.path.dirname(os.path.abspath(__file__))
    docs = os.path.join(here, "..", "docs", "generated")
    names = set()
    for doc in os.listdir(docs):
        with open(os.path.join(docs, doc)) as f:
            names.update(re.findall(r"^### `([a-z_]+\.[a-z_]+)`", f.read(), re.M))
    with open(path, "w") as f:
        for token in sorted(names) + TOKENS:
            f.write('"%s"\n' % token.replace("\\", "\\\\").replace('"', '\\"'))
    print("%d dictionary entries in %s" % (len(names) + len(TOKENS), path))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    if len(sys.argv) > 3:
        write_dictionary(sys.argv[3])
