"""The built-in SVG drawing of a :class:`~tapeflow.debug.tape_graph.TapeGraph`, for machines without Graphviz.

A small layered (Sugiyama-style) layout, top to bottom: each node goes on the layer of its longest path from a
node with no inputs (constants are pulled down next to the op that uses them), edges longer than one layer get
invisible waypoints, the order inside each layer comes from alternating barycentre sweeps (keeping the order with
the fewest crossings), and x positions move each node toward the mean of its neighbours without overlaps.
Text widths are estimated from character counts, so the drawing needs no font metrics.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from ._graph_text import BREAK, EDGE, PATH, label_lines, style_of

_FONT = "Helvetica, Arial, sans-serif"
_FONT_SIZE = 12
_CHAR_W = 6.9  # mean advance of a 12 px sans-serif character, generous so labels never overflow
_LINE_H = 15
_LAYER_GAP = 34
_NODE_GAP = 22
_MARGIN = 20
_SWEEPS = 12


class _Box:
    __slots__ = ("key", "node", "lines", "w", "h", "x", "y", "layer")

    def __init__(self, key, node, lines):
        self.key = key
        self.node = node
        self.lines = lines
        text_w = max((len(s) for s in lines), default=0) * _CHAR_W
        if node is None:  # a waypoint of a long edge
            self.w, self.h = 8.0, 0.0
        elif node.kind == "op":
            self.w, self.h = text_w + 22, len(lines) * _LINE_H + 12
        else:  # an ellipse holding the text's bounding box
            self.w, self.h = text_w * 1.18 + 28, len(lines) * _LINE_H + 20
        self.x = self.y = 0.0
        self.layer = 0


def _layers(graph):
    """``{key: layer}``: longest path from the top; constants sit right above their first use."""
    preds, succs = {}, {}
    for e in graph.edges:
        preds.setdefault(e.dst, []).append(e.src)
        succs.setdefault(e.src, []).append(e.dst)
    layer = {}
    for key in graph.nodes:  # program order is a topological order
        layer[key] = max((layer[p] + 1 for p in preds.get(key, ())), default=0)
    for key, node in graph.nodes.items():
        if not preds.get(key) and succs.get(key) and not node.watched and not node.is_source:
            layer[key] = min(layer[s] for s in succs[key]) - 1
    last = max(layer.values(), default=0)
    for key, node in graph.nodes.items():
        if not preds.get(key) and not succs.get(key) and node.is_target:
            layer[key] = last + (1 if last or len(graph.nodes) > 1 else 0)
    return layer


def _crossings(order, links):
    """Edge crossings between consecutive layers (``links[i]``: pairs of positions between layer i and i+1)."""
    total = 0
    for pairs in links:
        pairs = sorted(pairs)
        for i in range(len(pairs)):
            a0, b0 = pairs[i]
            for a1, b1 in pairs[i + 1:]:
                if a1 > a0 and b1 < b0:
                    total += 1
    return total


def _layout(graph):
    layer_of = _layers(graph)
    boxes = {k: _Box(k, n, label_lines(n)) for k, n in graph.nodes.items()}
    for k, b in boxes.items():
        b.layer = layer_of[k]
    # Split long edges into one-layer segments through waypoints.
    segments = []  # (upper key, lower key)
    chains = []  # per edge: the keys it passes through, top to bottom
    for i, e in enumerate(graph.edges):
        chain = [e.src]
        for step in range(layer_of[e.src] + 1, layer_of[e.dst]):
            wk = f"_w{i}_{step}"
            wb = _Box(wk, None, [])
            wb.layer = step
            boxes[wk] = wb
            chain.append(wk)
        chain.append(e.dst)
        chains.append(chain)
        segments += list(zip(chain, chain[1:]))
    n_layers = max((b.layer for b in boxes.values()), default=-1) + 1
    order = [[] for _ in range(n_layers)]
    for k, b in boxes.items():
        order[b.layer].append(k)
    up, down = {}, {}
    for a, b in segments:
        down.setdefault(a, []).append(b)
        up.setdefault(b, []).append(a)

    def links():
        pos = {k: i for row in order for i, k in enumerate(row)}
        per = [[] for _ in range(max(n_layers - 1, 0))]
        for a, b in segments:
            per[boxes[a].layer].append((pos[a], pos[b]))
        return per

    def sweep(rows, neighbours):
        for li in rows:
            pos = {k: i for i, k in enumerate(order[li - 1 if neighbours is up else li + 1])}
            row = order[li]
            current = {k: i for i, k in enumerate(row)}

            def centre(k, pos=pos, current=current):
                ns = [pos[n] for n in neighbours.get(k, ()) if n in pos]
                return sum(ns) / len(ns) if ns else current[k]

            row.sort(key=centre)

    best = [row[:] for row in order]
    best_cross = _crossings(order, links()) if len(segments) < 800 else 0
    for it in range(_SWEEPS if len(segments) < 800 else 2):
        if it % 2 == 0:
            sweep(range(1, n_layers), up)
        else:
            sweep(range(n_layers - 2, -1, -1), down)
        if len(segments) < 800:
            cross = _crossings(order, links())
            if cross < best_cross:
                best, best_cross = [row[:] for row in order], cross
    order = best

    # y: each layer as tall as its tallest node.
    y = _MARGIN + 26
    for row in order:
        h = max((boxes[k].h for k in row), default=0)
        for k in row:
            boxes[k].y = y + h / 2
        y += h + _LAYER_GAP
    height = y - _LAYER_GAP + _MARGIN

    # x: pack, then pull each node toward its neighbours' mean, keeping order and gaps.
    for row in order:
        x = 0.0
        for k in row:
            boxes[k].x = x + boxes[k].w / 2
            x += boxes[k].w + _NODE_GAP
    # A constant (a node with no inputs and one use) follows its op rather than pulling it aside: without this
    # a chain of ``op(previous, constant)`` drifts sideways layer after layer.
    weight = {k: 0.05 if not up.get(k) and len(down.get(k, ())) == 1 else 1.0 for k in boxes}
    for it in range(8):
        rows = range(1, n_layers) if it % 2 == 0 else range(n_layers - 2, -1, -1)
        for li in rows:
            row = order[li]
            want = []
            for k in row:
                ns = [(boxes[n].x, weight[n]) for n in (up if it % 2 == 0 else down).get(k, ())]
                if not ns:  # nothing on this side: use the other side
                    ns = [(boxes[n].x, weight[n]) for n in (down if it % 2 == 0 else up).get(k, ())]
                total = sum(wt for _, wt in ns)
                want.append(sum(x * wt for x, wt in ns) / total if ns else boxes[k].x)
            _place([boxes[k] for k in row], want, [weight[k] * 100 + len(up.get(k, ())) + len(down.get(k, ()))
                                                   for k in row])
    _close_gaps(boxes)
    left = min((b.x - b.w / 2 for b in boxes.values()), default=0)
    right = max((b.x + b.w / 2 for b in boxes.values()), default=0)
    for b in boxes.values():
        b.x += _MARGIN - left
    return boxes, chains, right - left + 2 * _MARGIN, height


def _close_gaps(boxes):
    """Narrow every empty vertical strip (between unconnected parts, typically) to two node gaps."""
    spans = sorted((b.x - b.w / 2, b.x + b.w / 2) for b in boxes.values())
    shifts = []  # (x from which to shift, by how much)
    reach = None
    for lo, hi in spans:
        if reach is not None and lo - reach > 2 * _NODE_GAP:
            shifts.append((lo, lo - reach - 2 * _NODE_GAP))
        reach = hi if reach is None else max(reach, hi)
    for b in boxes.values():
        b.x -= sum(by for at, by in shifts if b.x - b.w / 2 >= at)


def _place(row, want, prio):
    """Set x near ``want`` for the boxes of ``row`` (left to right), keeping their order and gaps.

    Boxes are placed in decreasing ``prio``: each goes as near its wish as the boxes already placed allow, leaving
    room for those still to come between them, so a constant yields to the chain of ops it feeds.
    """
    n = len(row)
    sep = [(row[i].w + row[i + 1].w) / 2 + _NODE_GAP for i in range(n - 1)]
    xs = [None] * n
    for i in sorted(range(n), key=lambda i: -prio[i]):
        lo, hi = float("-inf"), float("inf")
        gap = 0.0
        for j in range(i - 1, -1, -1):
            gap += sep[j]
            if xs[j] is not None:
                lo = xs[j] + gap
                break
        gap = 0.0
        for j in range(i + 1, n):
            gap += sep[j - 1]
            if xs[j] is not None:
                hi = xs[j] - gap
                break
        xs[i] = min(max(want[i], lo), hi)
    for box, x in zip(row, xs):
        box.x = x


def _port(box, dx, top):
    """A point on the box's top (``top``) or bottom edge, ``dx`` from its centre."""
    if box.node is None:
        return box.x, box.y
    if box.node.kind == "op":
        return box.x + dx, box.y + (-box.h / 2 if top else box.h / 2)
    rx, ry = box.w / 2, box.h / 2
    t = min(abs(dx) / rx, 0.95)
    dy = ry * (1 - t * t) ** 0.5
    return box.x + dx, box.y + (-dy if top else dy)


def render_svg(graph):
    """The SVG text of ``graph`` drawn with the built-in layout."""
    boxes, chains, width, height = _layout(graph)
    # Spread the ends of edges along a node's edge, in the order of the nodes at their other end.
    outs, ins = {}, {}
    for i, chain in enumerate(chains):
        outs.setdefault(chain[0], []).append(i)
        ins.setdefault(chain[-1], []).append(i)
    port_of = {}
    for at_top, ends in ((False, outs), (True, ins)):
        for key, idx in ends.items():
            box = boxes[key]
            # The x of the node at each edge's other end (its first waypoint, if it has any).
            idx = sorted(idx, key=lambda i, t=at_top: boxes[chains[i][-2] if t else chains[i][1]].x)
            span = box.w * (0.5 if box.node is not None and box.node.kind == "op" else 0.4)
            for j, i in enumerate(idx):
                dx = 0.0 if len(idx) == 1 else -span / 2 + span * j / (len(idx) - 1)
                port_of[(i, at_top)] = _port(box, dx, at_top)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{_FONT}" font-size="{_FONT_SIZE}">',
           "<defs>"]
    for name, colour in (("plain", EDGE), ("path", PATH), ("break", BREAK)):
        out.append(f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/>'
                   "</marker>")
    out.append("</defs>")
    out.append(f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>')
    title = []
    if graph.targets:
        title.append("target: " + ", ".join(graph.nodes[k].label for k in graph.targets))
    if graph.sources:
        title.append("sources: " + ", ".join(graph.nodes[k].label for k in graph.sources))
    if title:
        out.append(f'<text x="{_MARGIN}" y="{_MARGIN + 4}" font-weight="bold">{escape(" · ".join(title))}</text>')

    for i, (chain, e) in enumerate(zip(chains, graph.edges)):
        pts = [port_of[(i, False)]] + [(boxes[k].x, boxes[k].y) for k in chain[1:-1]] + [port_of[(i, True)]]
        d = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}"
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            ym = (y0 + y1) / 2
            d += f" C{x0:.1f},{ym:.1f} {x1:.1f},{ym:.1f} {x1:.1f},{y1:.1f}"
        colour, kind = (PATH, "path") if e.on_path else (EDGE, "plain")
        dash = ' stroke-dasharray="4,3"' if not e.differentiable and not e.on_path else ""
        widthpx = 2.0 if e.on_path else 1.2
        out.append(f'<g class="edge"><title>{escape(graph.nodes[e.src].label)} -&gt; '
                   f'{escape(graph.nodes[e.dst].label)}</title><path d="{d}" fill="none" stroke="{colour}" '
                   f'stroke-width="{widthpx}"{dash} marker-end="url(#arrow-{kind})"/></g>')

    for key, node in graph.nodes.items():
        out.append(_node_svg(boxes[key], node))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _node_svg(box, node):
    stroke, fill, dashed, width = style_of(node)
    dash = ' stroke-dasharray="5,3"' if dashed else ""
    classes = ["node", node.kind] + (["path"] if node.on_path else []) + (["break"] if node.notes else [])
    tip = node.explanation or node.where or node.label
    parts = [f'<g class="{" ".join(classes)}" id={quoteattr(node.key)}><title>{escape(tip)}</title>']
    common = f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}'
    if node.kind == "op":
        parts.append(f'<rect x="{box.x - box.w / 2:.1f}" y="{box.y - box.h / 2:.1f}" width="{box.w:.1f}" '
                     f'height="{box.h:.1f}" rx="3" {common}/>')
    else:
        parts.append(f'<ellipse cx="{box.x:.1f}" cy="{box.y:.1f}" rx="{box.w / 2:.1f}" ry="{box.h / 2:.1f}" '
                     f"{common}/>")
        if node.is_target:
            parts.append(f'<ellipse cx="{box.x:.1f}" cy="{box.y:.1f}" rx="{box.w / 2 - 4:.1f}" '
                         f'ry="{box.h / 2 - 4:.1f}" fill="none" stroke="{stroke}" stroke-width="1"/>')
    y0 = box.y - (len(box.lines) - 1) * _LINE_H / 2 + 4
    for j, line in enumerate(box.lines):
        weight = ' font-weight="bold"' if j == 0 else ""
        colour = BREAK if j >= len(box.lines) - len(node.notes) else "#1b1b1b"
        parts.append(f'<text x="{box.x:.1f}" y="{y0 + j * _LINE_H:.1f}" text-anchor="middle" fill="{colour}"'
                     f"{weight}>{escape(line)}</text>")
    parts.append("</g>")
    return "".join(parts)
