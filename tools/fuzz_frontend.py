"""Structured fuzzing of Strata's front end and pipelines with random small
PyTorch programs.

Each program is a lambda over one to three random tensors, a composition of
operations Strata supports (elementwise math with broadcasting and Python
scalars, comparisons and selects, reductions, softmax and norms, layout
ops, products, casts), on shapes with 0-d, size-1, ragged and sometimes
empty dimensions, in f32, halves, int64 and bool. It is written out as the
expression `strata run -c` takes, so every finding is its own reproducer.
Each runs through the fused loop kernels and the emulated GPU kernels
(also in reverse order, bounds checked) and is compared with the reference;
a crash, an exception other than an unsupported operation, or a mismatch is
a finding.

    tools/fuzz_frontend.py [--count N] [--seed S] [--out DIR]

runs N programs (default 200) in a worker process that is restarted after
a crash; findings are printed and, with --out, written one file each. The
same seed gives the same programs and values (program i's inputs come
from torch.manual_seed(i)) on every machine.
`programs(seed, count)` and `check_program(expr)` are what the test suite
uses.
"""

import argparse
import os
import random
import subprocess
import sys

# Shapes are drawn from these sizes: ragged, 1, and the occasional 0.
SIZES = [1, 1, 2, 3, 5, 7, 13, 33, 64, 65]

UNARY_FLOAT = ["torch.neg({x})", "torch.abs({x})", "torch.exp({x} * 0.25)",
               "torch.log(torch.abs({x}) + 1)", "torch.sqrt(torch.abs({x}))",
               "torch.rsqrt(torch.abs({x}) + 0.5)", "torch.tanh({x})",
               "torch.erf({x})", "torch.sigmoid({x})", "torch.relu({x})",
               "F.silu({x})", "F.gelu({x})", "F.gelu({x}, approximate='tanh')",
               "torch.reciprocal(torch.abs({x}) + 1)", "{x} ** 2", "{x} ** 3",
               "torch.clamp({x}, -0.5, 0.75)", "F.relu6({x})",
               "torch.abs({x}) ** 0.5"]
BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / (torch.abs({b}) + 1)",
          "torch.maximum({a}, {b})", "torch.minimum({a}, {b})"]
SCALAR_BINARY = ["{a} + {s}", "{a} * {s}", "{s} - {a}", "{a} / {s}"]
FULL_REDUCE = ["{x}.sum()", "{x}.mean()", "{x}.amax()", "{x}.amin()",
               "{x}.max()", "{x}.var()", "{x}.prod()"]
REDUCE = ["{x}.sum({d}{k})", "{x}.mean({d}{k})", "{x}.amax({d}{k})",
          "{x}.amin({d}{k})", "{x}.prod({d}{k})", "{x}.var({d}{k})",
          "torch.max({x}, {d1}{k})[0]", "torch.min({x}, {d1}{k})[1]",
          "F.softmax({x}, {d1})", "F.log_softmax({x}, {d1})"]


class Value:
    """An expression and the tensor it evaluates to (for its shape)."""

    def __init__(self, expr, tensor, leaf=False):
        self.expr, self.tensor, self.leaf = expr, tensor, leaf

    @property
    def shape(self):
        return tuple(self.tensor.shape)


class Generator:
    def __init__(self, rng):
        import torch
        self.torch = torch
        self.rng = rng

    def shape(self, rank=None):
        rank = self.rng.choice([0, 1, 1, 2, 2, 2, 3]) if rank is None else rank
        sizes = [self.rng.choice(SIZES) for _ in range(rank)]
        if sizes and self.rng.random() < 0.05:  # Sometimes an empty tensor.
            sizes[self.rng.randrange(rank)] = 0
        return tuple(sizes)

    def input(self, shape, kind):
        if kind == "float":
            return "torch.randn(%s)" % (shape,)
        if kind == "half":
            return "torch.randn(%s).%s()" % (shape, self.rng.choice(["half", "bfloat16"]))
        if kind == "int":
            return "torch.randint(-20, 20, %s)" % (shape,)
        return "(torch.randn(%s) > 0)" % (shape,)

    def evaluate(self, expr, env):
        import torch.nn.functional as F
        return eval(expr, {"torch": self.torch, "F": F}, env)

    def new_input(self, text):
        """A fresh parameter of the program, bound to the tensor `text`
        makes (so the program itself creates no random tensor)."""
        name = "x%d" % len(self.params)
        self.params.append((name, text))
        self.env[name] = self.evaluate(text, {})
        return Value(name, self.env[name], leaf=True)

    def program(self):
        """The -c expression of a new random program."""
        rng = self.rng
        self.params, self.env = [], {}
        base = self.shape()
        values = [self.new_input(self.input(base, "float"))]
        for _ in range(rng.randrange(0, 3)):
            kind = rng.choice(["float", "float", "half", "int", "bool"])
            shape = base if rng.random() < 0.6 else self.broadcastable(base)
            values.append(self.new_input(self.input(shape, kind)))
        for _ in range(rng.randrange(1, 6)):
            v = self.step(values, self.env)
            if v is not None:
                values.append(v)
        computed = [v for v in values if not v.leaf]
        outputs = computed[-rng.randrange(1, 3):] if computed else values[:1]
        body = ", ".join(v.expr for v in outputs)
        if len(outputs) > 1:
            body = "(%s)" % body
        names = ", ".join(name for name, _ in self.params)
        texts = ", ".join(text for _, text in self.params)
        return "(lambda %s: %s)(%s)" % (names, body, texts)

    def broadcastable(self, shape):
        """A shape that broadcasts against `shape` (dims set to 1 or dropped
        from the front)."""
        out = [1 if self.rng.random() < 0.4 else s for s in shape]
        while out and self.rng.random() < 0.3:
            out.pop(0)
        return tuple(out)

    def floats(self, values):
        return [v for v in values if v.tensor.is_floating_point()]

    def step(self, values, env):
        rng, torch = self.rng, self.torch
        floats = self.floats(values)
        choice = rng.choice(["unary", "binary", "binary", "scalar", "compare",
                             "reduce", "full_reduce", "layout", "matmul",
                             "linear", "cast", "int", "norm", "mask", "cat",
                             "gather", "factory", "attention"])
        x = rng.choice(floats) if floats else None
        try:
            if choice == "unary" and x is not None:
                expr = rng.choice(UNARY_FLOAT).format(x=x.expr)
            elif choice == "binary" and x is not None:
                y = self.partner(x, floats)
                expr = rng.choice(BINARY).format(a=x.expr, b=y.expr)
            elif choice == "scalar" and x is not None:
                expr = rng.choice(SCALAR_BINARY).format(
                    a=x.expr, s=rng.choice(["2", "0.5", "-1.5", "3"]))
            elif choice == "compare":
                # Conditions compare inputs (exact in every precision), so a
                # rounding difference never flips one.
                leaves = [v for v in values if v.leaf and v.tensor.dtype != torch.bool]
                if not leaves or x is None:
                    return None
                c = rng.choice(leaves)
                cond = "(%s %s %s)" % (c.expr, rng.choice([">", "<", ">=", "=="]),
                                       rng.choice(["0", "1", "-1"]))
                if self.evaluate(cond, env).shape != torch.broadcast_shapes(
                        self.evaluate(cond, env).shape, x.shape):
                    return None
                expr = rng.choice(["torch.where(%s, %s, %s)" % (cond, x.expr, "-" + x.expr),
                                   "%s.masked_fill(%s, 0.5)" % (x.expr, cond),
                                   cond, "%s.to(torch.float32) * %s" % (cond, x.expr)])
            elif choice == "reduce" and x is not None and x.tensor.dim() > 0:
                d = rng.randrange(-x.tensor.dim(), x.tensor.dim())
                keep = rng.choice(["", ", keepdim=True"])
                template = rng.choice(REDUCE)
                if "softmax" in template:
                    keep = ""
                expr = template.format(x=x.expr, d=d, d1=d, k=keep)
            elif choice == "attention" and x is not None and x.tensor.dim() >= 2 \
                    and x.tensor.dtype == torch.float32:
                # softmax(q k^T * scale (+ causal mask)) v, written by hand.
                scores = "%s @ %s.transpose(-1, -2) * 0.125" % (x.expr, x.expr)
                if rng.random() < 0.5 and x.shape[-2] > 0:
                    n = x.shape[-2]
                    scores = ("(%s).masked_fill(torch.triu(torch.ones(%d, %d, "
                              "dtype=torch.bool), 1), float('-inf'))" % (scores, n, n))
                expr = "F.softmax(%s, -1) @ %s" % (scores, x.expr)
            elif choice == "full_reduce" and x is not None:
                expr = rng.choice(FULL_REDUCE).format(x=x.expr)
            elif choice == "linear" and x is not None and x.tensor.dim() >= 1 \
                    and x.tensor.dtype == torch.float32:
                k, n = x.shape[-1], rng.choice(SIZES)
                w = self.new_input("torch.randn(%d, %d)" % (n, k))
                bias = (", " + self.new_input("torch.randn(%d)" % n).expr
                        if rng.random() < 0.5 else "")
                expr = "F.linear(%s, %s%s)" % (x.expr, w.expr, bias)
            elif choice == "gather" and x is not None and x.tensor.dim() >= 1 \
                    and x.shape[0] > 0:
                ids = self.new_input("torch.randint(0, %d, (%d,))"
                                     % (x.shape[0], rng.choice(SIZES)))
                expr = rng.choice(["F.embedding(%s, %s)" % (ids.expr, x.expr)
                                   if x.tensor.dim() == 2 else
                                   "torch.index_select(%s, 0, %s)" % (x.expr, ids.expr),
                                   "torch.index_select(%s, 0, %s)" % (x.expr, ids.expr)])
            elif choice == "factory" and x is not None:
                expr = rng.choice(["torch.ones_like(%s) * %s" % (x.expr, x.expr),
                                   "torch.zeros_like(%s) + %s" % (x.expr, x.expr),
                                   "torch.full_like(%s, 2.5) - %s" % (x.expr, x.expr),
                                   "%s * torch.arange(%d)" % (x.expr, x.shape[-1])
                                   if x.tensor.dim() else "%s + 1" % x.expr])
            elif choice == "layout" and x is not None:
                expr = self.layout(x)
            elif choice == "matmul" and x is not None and x.tensor.dim() >= 1:
                k = x.shape[-1]
                n = rng.choice(SIZES)
                w = "torch.randn(%d, %d)" % (k, n)
                if x.tensor.dtype != torch.float32:
                    w += ".to(%s)" % (x.tensor.dtype,)
                expr = "torch.matmul(%s, %s)" % (x.expr, self.new_input(w).expr)
            elif choice == "cast" and x is not None:
                expr = "%s.to(%s)" % (x.expr, rng.choice(
                    ["torch.float16", "torch.bfloat16", "torch.float32"]))
            elif choice == "int":
                ints = [v for v in values if v.leaf and v.tensor.dtype == torch.int64]
                if not ints:
                    return None
                i = rng.choice(ints)
                expr = rng.choice(["%s + 3 * %s" % (i.expr, i.expr),
                                   "%s.sum(-1)" % i.expr if i.tensor.dim() else "%s * 2" % i.expr,
                                   "torch.max(%s, -1)[1]" % i.expr if i.tensor.dim() else "-%s" % i.expr,
                                   "(%s > 0).sum()" % i.expr, "%s.float() * 0.5" % i.expr])
            elif choice == "norm" and x is not None and x.tensor.dim() >= 1:
                n = x.shape[-1]
                if x.tensor.dtype != torch.float32:
                    return None
                form = rng.randrange(3)
                if form == 0:
                    expr = "F.layer_norm(%s, (%d,))" % (x.expr, n)
                elif form == 1:
                    w = self.new_input("torch.randn(%d)" % n)
                    b = self.new_input("torch.randn(%d)" % n)
                    expr = "F.layer_norm(%s, (%d,), %s, %s)" % (x.expr, n, w.expr, b.expr)
                else:
                    expr = ("%s * torch.rsqrt(%s.pow(2).mean(-1, keepdim=True) + 1e-6)"
                            % (x.expr, x.expr))
            elif choice == "mask" and x is not None and x.tensor.dim() >= 2:
                expr = "torch.%s(%s, %d)" % (rng.choice(["triu", "tril"]), x.expr,
                                             rng.choice([-1, 0, 1]))
            elif choice == "cat" and x is not None and x.tensor.dim() >= 1:
                d = rng.randrange(x.tensor.dim())
                expr = "torch.cat([%s, %s * 2], %d)" % (x.expr, x.expr, d)
            else:
                return None
            tensor = self.evaluate(expr, env)
        except Exception:  # An invalid combination: PyTorch says no.
            return None
        if not isinstance(tensor, self.torch.Tensor) or tensor.numel() > 20000:
            return None
        return Value(expr, tensor)

    def partner(self, x, floats):
        same = [v for v in floats if v.shape == x.shape and v.tensor.dtype == x.tensor.dtype]
        if same and self.rng.random() < 0.6:
            return self.rng.choice(same)
        shape = self.broadcastable(x.shape)
        text = "torch.randn(%s)" % (shape,)
        if x.tensor.dtype != self.torch.float32:
            text += ".to(%s)" % (x.tensor.dtype,)
        return self.new_input(text)

    def layout(self, x):
        rng, rank = self.rng, x.tensor.dim()
        if rank == 0:
            return "%s.reshape(1, 1)" % x.expr
        options = ["%s.unsqueeze(0)" % x.expr, "%s.reshape(-1)" % x.expr,
                   "%s[..., %d:]" % (x.expr, rng.randrange(max(1, x.shape[-1]))),
                   "%s[..., ::2]" % x.expr, "%s.flatten()" % x.expr]
        if rank >= 2:
            options += ["%s.transpose(0, 1)" % x.expr, "%s.t()" % x.expr if rank == 2
                        else "%s.permute(2, 0, 1)" % x.expr,
                        "%s[0]" % x.expr, "%s.expand(2, *%s.shape)" % (x.expr, x.expr)]
        if 1 in x.shape:
            options.append("%s.squeeze(%d)" % (x.expr, x.shape.index(1)))
        return rng.choice(options)


def programs(seed, count):
    """`count` program expressions from `seed` (the same on every machine)."""
    rng = random.Random(seed)
    generator = Generator(rng)
    return [generator.program() for _ in range(count)]


VIAS = ["loop", "kernel", "kernel-reversed"]


def check_program(expr, values_seed=0, options=""):
    """None if the program passes every way it runs, or 'unsupported: ...'
    for an operation Strata does not take; else what went wrong. Its
    inputs' values come from torch.manual_seed(values_seed); `options`
    are the pipelines' schedule options."""
    import torch
    from strata.compile_expr import from_expression
    from strata.frontend import FrontendError
    from strata.runner import check
    try:
        torch.manual_seed(values_seed)
        fn, inputs = from_expression(expr)
        for via in VIAS:
            # The fused loop kernels take no schedule.
            report = check(fn, inputs, via=via,
                           options=options if via != "loop" else "")
            if not report.passed:
                return "mismatch via %s: %s" % (via, report)
    except FrontendError as e:
        if "unsupported PyTorch operation" in str(e) or "unsupported dtype" in str(e):
            return "unsupported: %s" % e
        return "front end: %s" % e
    except Exception as e:
        return "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[:1])
    return None


def worker(seed, start, count, options):
    for i, expr in enumerate(programs(seed, start + count)[start:], start):
        print("BEGIN %d" % i, flush=True)
        result = check_program(expr, values_seed=i, options=options)
        print("END %d %s" % (i, result or "ok"), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write each finding to a file here")
    parser.add_argument("--options", default="",
                        help="schedule options of the pipelines, as strata "
                             "run --options (e.g. 'wgmma=true tma=true')")
    parser.add_argument("--worker", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker, args.options)
        return 0
    findings, unsupported, start = [], 0, 0
    exprs = programs(args.seed, args.count)
    while start < args.count:
        proc = subprocess.run([sys.executable, __file__, "--worker", str(args.seed),
                               str(start), str(args.count - start),
                               "--options", args.options],
                              capture_output=True, text=True)
        last = start
        for line in proc.stdout.splitlines():
            word, number, *rest = line.split(" ", 2)
            last = int(number)
            if word == "END":
                result = rest[0] if rest else "ok"
                if result.startswith("unsupported"):
                    unsupported += 1
                elif result != "ok":
                    findings.append((last, result))
                last += 1
        if proc.returncode != 0 and last < args.count:  # It died on `last`.
            findings.append((last, "crash (exit %d): %s" % (
                proc.returncode, proc.stderr.strip().splitlines()[-1:] )))
            last += 1
        start = last
    for i, what in findings:
        print("program %d (values: torch.manual_seed(%d)): %s\n  strata run -c %r%s"
              % (i, i, what, exprs[i],
                 " --options %r" % args.options if args.options else ""))
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "finding-%d-%d.txt" % (args.seed, i)), "w") as f:
                f.write("%s\n%s\n" % (exprs[i], what))
    print("%d programs, %d findings, %d with unsupported operations"
          % (args.count, len(findings), unsupported))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
