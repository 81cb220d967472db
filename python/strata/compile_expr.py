"""Turns what a user types on the command line into a callable and inputs.

`-c EXPR`: one call expression CALLABLE(ARG, ...), evaluated with torch, nn
(torch.nn), F (torch.nn.functional) and math in scope; the callable is traced
on the evaluated arguments. `--file F.py`: a file that defines `model` (a
callable) and `inputs` (a tuple of tensors).
"""

import ast
import math
import runpy

import torch
import torch.nn as nn
import torch.nn.functional as F


class InputError(Exception):
    """A malformed expression or file: reported in one line."""


def _scope():
    return {"torch": torch, "nn": nn, "F": F, "math": math}


def from_expression(text):
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise InputError("invalid expression: %s (column %s)" % (e.msg, e.offset))
    call = tree.body
    if not isinstance(call, ast.Call):
        raise InputError("the expression must be a call CALLABLE(ARG, ...)")
    scope = _scope()

    def evaluate(node, what):
        try:
            code = compile(ast.Expression(node), "<expression>", "eval")
            return eval(code, scope)
        except Exception as e:
            raise InputError("cannot evaluate %s '%s': %s: %s"
                             % (what, ast.unparse(node), type(e).__name__, e))

    fn = evaluate(call.func, "callable")
    if not callable(fn):
        raise InputError("'%s' is not callable" % ast.unparse(call.func))
    args = [evaluate(a, "argument") for a in call.args]
    kwargs = {k.arg: evaluate(k.value, "argument") for k in call.keywords}
    tensors = tuple(a for a in args if isinstance(a, torch.Tensor))
    if not tensors:
        raise InputError("the call has no tensor arguments to trace on")
    # Tensor arguments are traced; the others (dims, flags) are constants.
    positions = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]

    def traced(*xs):
        full = list(args)
        for i, x in zip(positions, xs):
            full[i] = x
        return fn(*full, **kwargs)

    return traced, tensors


def from_file(path):
    try:
        scope = runpy.run_path(path)
    except FileNotFoundError:
        raise InputError("cannot read %s" % path)
    except Exception as e:
        raise InputError("%s failed: %s: %s" % (path, type(e).__name__, e))
    if "model" not in scope or "inputs" not in scope:
        raise InputError("%s must define `model` and `inputs`" % path)
    model, inputs = scope["model"], scope["inputs"]
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not callable(model):
        raise InputError("`model` in %s is not callable" % path)
    if not all(isinstance(x, torch.Tensor) for x in inputs):
        raise InputError("`inputs` in %s must be a tuple of tensors" % path)
    return model, tuple(inputs)
