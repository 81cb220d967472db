"""The traffic and roofline report of a compiled program: per kernel, its
schedule in brief (tile, threads per block, "r8" where its tiles go in
bands of 8 rows: tileir-raster, "p264" where 264 persistent instances
take them: tileir-persist), the global-memory bytes, FLOPs and H200
roofline time of Strata's traffic model (TrafficModel.h), and the program's total against its ideal (every
input, weight and output moved once). It is a model, not a measurement:
caches beyond what one kernel reuses, coalescing and latency are not in
it, occupancy only as the share of the 132 multiprocessors a kernel's
blocks keep busy."""
import html

import strata

def _figures():
    """The figures of the model (TrafficModel.h's Roofline): measured copy
    bandwidth and the data sheet's dense peaks."""
    import _strata
    figures = dict(_strata.roofline())
    figures.pop("multiprocessors")
    return figures.pop("bandwidth"), figures
def _note():
    bandwidth, peaks = _figures()
    return ("modeled, not measured: bytes the tiles request, once per tile "
            "(tile MB), and what global memory serves at least, each "
            "touched element once (MB); FLOPs; the H200 roofline's time "
            "(%.1f TB/s; %s TFLOP/s)" % (bandwidth / 1e12, ", ".join(
                "%s %g" % (u, p / 1e12) for u, p in sorted(peaks.items()))))


def _option(options, name, default):
    for token in (options or "").split():
        key, _, value = token.partition("=")
        if key == name:
            return value.lower() in ("1", "true")
    return default


class Report:
    def __init__(self, kernels, ideal_bytes):
        self.kernels = kernels
        self.ideal_bytes = ideal_bytes

    @property
    def bytes(self):
        return sum(k["bytes_read"] + k["bytes_written"] for k in self.kernels)

    @property
    def flops(self):
        return sum(k["flops"] for k in self.kernels)

    @property
    def seconds(self):
        return sum(k["seconds"] for k in self.kernels)

    @property
    def ideal_seconds(self):
        """The program's time if it moved only its inputs, weights and
        outputs, once, and computed its FLOPs at the fastest unit any of
        its kernels uses."""
        bandwidth, peaks = _figures()
        peak = max((peaks[k["unit"]] for k in self.kernels),
                   default=peaks["f32"])
        return max(self.ideal_bytes / bandwidth, self.flops / peak)

    def text(self):
        lines = ["traffic (%s)" % _note(),
                 "%-24s %-11s %-18s %8s %10s %9s %9s %10s %5s %10s" % (
                     "kernel", "kind", "schedule", "blocks", "tile MB",
                     "read MB", "write MB", "GFLOP", "unit", "roofline")]
        for k in self.kernels:
            lines.append("%-24s %-11s %-18s %8d %10.2f %9.2f %9.2f %10.3f %5s %8.1f us"
                         % (k["name"], k["kind"], k["schedule"], k["programs"],
                            (k["tile_bytes_read"] + k["tile_bytes_written"]) / 1e6,
                            k["bytes_read"] / 1e6, k["bytes_written"] / 1e6,
                            k["flops"] / 1e9, k["unit"], k["seconds"] * 1e6))
        lines.append("total: %.2f MB (ideal %.2f MB, %.2fx), %.3f GFLOP, "
                     "%.1f us (ideal %.1f us)" % (
                         self.bytes / 1e6, self.ideal_bytes / 1e6,
                         self.bytes / self.ideal_bytes if self.ideal_bytes else 0,
                         self.flops / 1e9, self.seconds * 1e6,
                         self.ideal_seconds * 1e6))
        return "\n".join(lines) + "\n"

    def html(self, title="Strata roofline"):
        return _html(self, title)


def traffic_report(program, options=""):
    """The Report of a captured program compiled with schedule `options`."""
    from strata.frontend import import_program
    module = import_program(program)
    module.run(strata.pipeline("tile", options), verify_each=False)
    kernels = module.traffic(_option(options, "tensor-cores", True),
                             _option(options, "tf32", False))
    return Report(kernels, module.ideal_bytes())


# -- the chart -----------------------------------------------------------

_W, _H, _PAD = 760, 460, 60
_X = (-2.0, 4.0)   # log10 FLOP/byte
_Y = (-1.0, 3.2)   # log10 TFLOP/s


def _log10(v, floor):
    import math
    return math.log10(max(v, floor))


def _px(ai, tflops):
    x = (_log10(ai, 10 ** _X[0]) - _X[0]) / (_X[1] - _X[0])
    y = (_log10(tflops, 10 ** _Y[0]) - _Y[0]) / (_Y[1] - _Y[0])
    return (_PAD + x * (_W - 2 * _PAD), _H - _PAD - y * (_H - 2 * _PAD))


def _point(flops, bytes_, seconds):
    ai = flops / bytes_ if bytes_ else 10 ** _X[1]
    tflops = flops / seconds / 1e12 if seconds else 10 ** _Y[0]
    return _px(ai, tflops)


def _html(report, title):
    bandwidth, peaks = _figures()
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (_W, _H),
           '<rect width="100%" height="100%" fill="white"/>']
    # Axes and decades.
    for e in range(int(_X[0]), int(_X[1]) + 1):
        x, _ = _px(10 ** e, 1)
        svg.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
                   % (x, _PAD, x, _H - _PAD))
        svg.append('<text x="%.1f" y="%d" text-anchor="middle">10^%d</text>'
                   % (x, _H - _PAD + 16, e))
    for e in range(int(_Y[0]), int(_Y[1]) + 1):
        _, y = _px(1, 10 ** e)
        svg.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>'
                   % (_PAD, y, _W - _PAD, y))
        svg.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>'
                   % (_PAD - 6, y + 4, 10 ** e))
    svg.append('<text x="%d" y="%d" text-anchor="middle">arithmetic intensity '
               '(FLOP per global-memory byte)</text>' % (_W / 2, _H - 18))
    svg.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" '
               'text-anchor="middle">attainable TFLOP/s</text>'
               % (_H / 2, _H / 2))
    # The roofs: bandwidth times intensity, capped by each unit's peak.
    for unit, peak in sorted(peaks.items(), key=lambda p: p[1]):
        knee = peak / bandwidth
        # From where the bandwidth roof enters the chart.
        ai0 = max(10 ** _X[0], 10 ** _Y[0] * 1e12 / bandwidth)
        x0, y0 = _px(ai0, bandwidth * ai0 / 1e12)
        x1, y1 = _px(knee, peak / 1e12)
        x2, _ = _px(10 ** _X[1], peak / 1e12)
        svg.append('<polyline fill="none" stroke="#888" points="%.1f,%.1f '
                   '%.1f,%.1f %.1f,%.1f"/>' % (x0, y0, x1, y1, x2, y1))
        svg.append('<text x="%.1f" y="%.1f" fill="#555" text-anchor="end">'
                   '%s %g TFLOP/s</text>' % (x2, y1 - 4, unit, peak / 1e12))
    # The kernels, and the program against its ideal.
    for k in report.kernels:
        x, y = _point(k["flops"], k["bytes_read"] + k["bytes_written"],
                      k["seconds"])
        svg.append('<circle cx="%.1f" cy="%.1f" r="4" fill="#1f77b4"/>'
                   '<text x="%.1f" y="%.1f">%s</text>'
                   % (x, y, x + 6, y - 4, html.escape(k["name"])))
    for label, color, bytes_, seconds in (
            ("program (modeled)", "#d62728", report.bytes, report.seconds),
            ("program (ideal)", "#2ca02c", report.ideal_bytes,
             report.ideal_seconds)):
        x, y = _point(report.flops, bytes_, seconds)
        svg.append('<rect x="%.1f" y="%.1f" width="8" height="8" fill="%s"/>'
                   '<text x="%.1f" y="%.1f" fill="%s">%s</text>'
                   % (x - 4, y - 4, color, x + 6, y + 12, color, label))
    svg.append("</svg>")
    rows = "".join(
        "<tr><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%.2f</td>"
        "<td>%.2f</td><td>%.2f</td><td>%.3f</td><td>%s</td><td>%.1f</td></tr>" % (
            html.escape(k["name"]), k["kind"], k["schedule"], k["programs"],
            (k["tile_bytes_read"] + k["tile_bytes_written"]) / 1e6,
            k["bytes_read"] / 1e6, k["bytes_written"] / 1e6, k["flops"] / 1e9,
            k["unit"], k["seconds"] * 1e6) for k in report.kernels)
    return ("<!doctype html><html><head><meta charset='utf-8'><title>%s</title>"
            "<style>body{font-family:sans-serif}td,th{padding:2px 8px;"
            "text-align:right}</style></head><body><h1>%s</h1><p>%s.</p>%s"
            "<table><tr><th>kernel</th><th>kind</th><th>schedule</th>"
            "<th>blocks</th>"
            "<th>tile MB</th><th>read MB</th><th>write MB</th><th>GFLOP</th>"
            "<th>unit</th><th>roofline us</th></tr>%s</table><p>%s</p>"
            "</body></html>\n" % (
                html.escape(title), html.escape(title), html.escape(_note()),
                "".join(svg), rows,
                html.escape(report.text().splitlines()[-1])))
