"""The importer's losses that reach it whole (PyTorch keeps them as ATen
ops): each the formula of PyTorch's CPU kernel, then its reduction (none,
mean, sum). A mixin of `Importer` (importer.py).
"""
from .elementwise_ops import _is_float, SUM

NONE, MEAN, TOTAL = 0, 1, 2  # PyTorch's reduction enum


class LossOps:
    def _reduced(self, loss, reduction):
        """`loss` (an expression) reduced as `reduction` says."""
        if reduction == NONE:
            return loss.value
        axes = list(range(len(loss.shape)))
        total = loss.reduce(SUM, axes)
        if reduction == MEAN:
            count = 1
            for s in loss.shape:
                count *= s
            total = total / float(count)
        return total.value

    def _operands(self, *args):
        """The loss's operands as expressions of their broadcast shape, in
        the result's (float) dtype."""
        _, dtype = self.out()
        if not _is_float(dtype):
            self.error("'%s' of %s tensors is not supported"
                       % (self.node.target, dtype))
        shape = list(self.shape_of_broadcast(*[a for a in args if a is not None]))
        return [None if a is None else self.expr(a, shape, dtype) for a in args]

    def smooth_l1(self, x, y, reduction=MEAN, beta=1.0):
        a, b = self._operands(x, y)
        d = (a - b).abs()
        if beta == 0:
            return self._reduced(d, reduction)
        return self._reduced((d * d * (0.5 / beta)).where(d < beta, d - 0.5 * beta),
                             reduction)

    def soft_margin(self, x, y, reduction=MEAN):
        a, b = self._operands(x, y)
        return self._reduced((-a * b).exp().log1p(), reduction)

    def binary_cross_entropy(self, x, y, weight=None, reduction=MEAN):
        """(y - 1) max(log1p(-x), -100) - y max(log x, -100)."""
        a, b, w = self._operands(x, y, weight)
        loss = (b - 1.0) * (-a).log1p().maximum(-100.0) - b * a.log().maximum(-100.0)
        return self._reduced(loss if w is None else loss * w, reduction)

    def binary_cross_entropy_with_logits(self, x, y, weight=None, pos_weight=None,
                                         reduction=MEAN):
        """PyTorch's stable form: (1 - y) x + l (log(exp(-m) + exp(-x - m))
        + m) with m = max(-x, 0) and l = (pos_weight - 1) y + 1 (1 without
        a pos_weight)."""
        a, b, w, p = self._operands(x, y, weight, pos_weight)
        m = (-a).maximum(0.0)
        soft = ((-m).exp() + (-a - m).exp()).log() + m
        log_weight = soft if p is None else ((p - 1.0) * b + 1.0) * soft
        loss = (1.0 - b) * a + log_weight
        return self._reduced(loss if w is None else loss * w, reduction)

    def loss_table(self, t):
        t["aten.smooth_l1_loss.default"] = self.smooth_l1
        t["aten.soft_margin_loss.default"] = self.soft_margin
        t["aten.binary_cross_entropy.default"] = self.binary_cross_entropy
        t["aten.binary_cross_entropy_with_logits.default"] = \
            self.binary_cross_entropy_with_logits
