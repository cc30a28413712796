// Draws the ktune report: reads the JSON block #ktune-report-data (written by report_html.cc)
// and renders the summary table and, per workload and device, six SVG plots. Every plot
// element gets data-drawn="true" and data-marks (how many data marks it holds: points, bars,
// lines); a plot without data says so in its place. Data only ever reaches the page through
// textContent and attributes, never as markup.
(function () {
  "use strict";
  const SVG_NS = "http://www.w3.org/2000/svg";
  const WIDTH = 440, HEIGHT = 260;
  const MARGIN = { left: 64, right: 16, top: 12, bottom: 40 };

  // ---- Building DOM and SVG elements.
  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svgEl(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- Number formats.
  function formatTime(ns) {
    if (ns === null || ns === undefined || !(ns > 0)) return "–";
    const units = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"], [1, "ns"]];
    for (const [scale, unit] of units) {
      if (ns >= scale) return (ns / scale).toPrecision(3) + " " + unit;
    }
    return ns.toPrecision(3) + " ns";
  }
  // Axis labels: as formatTime, without trailing zeros ("10 µs", "2.5 ms"); 0 is "0".
  function formatTick(ns) {
    if (ns === 0) return "0";
    const units = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"], [1, "ns"]];
    for (const [scale, unit] of units) {
      if (ns >= scale) return Number((ns / scale).toPrecision(3)) + " " + unit;
    }
    return Number(ns.toPrecision(3)) + " ns";
  }
  function formatSeconds(s) {
    if (s < 120) return s.toFixed(s < 10 ? 1 : 0) + " s";
    if (s < 7200) return (s / 60).toFixed(1) + " min";
    return (s / 3600).toFixed(1) + " h";
  }
  // One unit for a whole axis of seconds, chosen by its largest value, so that its labels
  // read "0 min, 2 min, 4 min" rather than mixing "50 s" with "2.5 min".
  function secondsUnit(maxSeconds) {
    if (maxSeconds < 120) return { scale: 1, name: "s" };
    if (maxSeconds < 7200) return { scale: 60, name: "min" };
    return { scale: 3600, name: "h" };
  }
  function formatRatio(r) { return r.toFixed(r < 10 ? 2 : 1) + "×"; }

  // Math.min/max over an array without spreading it into arguments (long tuning histories
  // would exceed the engine's argument limit). Infinity / -Infinity for an empty array.
  function minOf(values) { return values.reduce((a, b) => Math.min(a, b), Infinity); }
  function maxOf(values) { return values.reduce((a, b) => Math.max(a, b), -Infinity); }

  // ---- Scales: functions from data to pixels, with their ticks.
  function linearScale(lo, hi, p0, p1) {
    if (hi <= lo) { hi = lo + 1; }
    const f = (v) => p0 + (v - lo) / (hi - lo) * (p1 - p0);
    f.ticks = function (most = 6) {
      const step = Math.pow(10, Math.floor(Math.log10((hi - lo) / 4)));
      const nice = [1, 2, 5, 10, 20].map((m) => m * step).find((s) => (hi - lo) / s <= most);
      const out = [];
      for (let t = Math.ceil(lo / nice) * nice; t <= hi + 1e-9 * nice; t += nice) out.push(t);
      return out;
    };
    return f;
  }
  function logScale(lo, hi, p0, p1) {
    let a = Math.log10(lo), b = Math.log10(hi);
    if (b - a < 0.3) { a -= 0.15; b += 0.15; }
    const f = (v) => p0 + (Math.log10(v) - a) / (b - a) * (p1 - p0);
    // Powers of ten, with 2 and 5 (or finer) between them when they fit in `most` labels.
    f.ticks = function (most = 8) {
      const within = (mults) => {
        const out = [];
        for (let e = Math.floor(a); e <= Math.ceil(b); e++) {
          for (const m of mults) {
            const v = m * Math.pow(10, e);
            if (Math.log10(v) >= a - 1e-9 && Math.log10(v) <= b + 1e-9) out.push(v);
          }
        }
        return out;
      };
      // The data's own ends are always labelled (a final best must be readable); a tick too
      // near an end to be read beside it gives way to the end.
      const withEnds = (out) => {
        const ends = [...new Set([lo, hi])];
        const near = (t, v) => Math.abs(Math.log10(t) - Math.log10(v)) < 0.06 * (b - a);
        const kept = out.filter((t) => !ends.some((v) => near(t, v)));
        return kept.concat(ends).sort((p, q) => p - q);
      };
      for (const mults of [[1, 1.5, 2, 3, 4, 5, 7], [1, 2, 5], [1, 3]]) {
        const out = within(mults);
        if (out.length + 2 <= most) return withEnds(out);
      }
      return withEnds(within([1]));
    };
    return f;
  }

  // ---- A plot: an SVG with axes; marks are counted as they are added.
  function newPlot(name, title, note) {
    const figure = el("figure", { "class": "plot-figure" });
    const caption = el("figcaption", {}, title);
    if (note) caption.appendChild(el("span", { "class": "note" }, " — " + note));
    figure.appendChild(caption);
    const svg = svgEl("svg", {
      "class": "plot", "data-plot": name, viewBox: "0 0 " + WIDTH + " " + HEIGHT,
      width: WIDTH, height: HEIGHT, role: "img", "aria-label": title,
    });
    figure.appendChild(svg);
    let marks = 0;
    return {
      figure, svg,
      mark(node) {
        node.classList.add("mark");
        svg.appendChild(node);
        marks += 1;
        return node;
      },
      finish() {
        svg.setAttribute("data-marks", String(marks));
        svg.setAttribute("data-drawn", "true");
        return figure;
      },
      empty(reason) {
        svg.setAttribute("data-empty", "true");
        svg.appendChild(svgEl("text", { x: WIDTH / 2, y: HEIGHT / 2, "text-anchor": "middle", "class": "empty" },
                              "no data: " + reason));
        return this.finish();
      },
    };
  }
  const plotLeft = MARGIN.left, plotRight = WIDTH - MARGIN.right;
  const plotTop = MARGIN.top, plotBottom = HEIGHT - MARGIN.bottom;

  function drawAxes(plot, x, y, xLabel, yLabel, xFormat, yFormat) {
    const g = svgEl("g", { "class": "axis" });
    for (const t of y.ticks()) {
      const py = y(t);
      g.appendChild(svgEl("line", { "class": "grid", x1: plotLeft, x2: plotRight, y1: py, y2: py }));
      g.appendChild(svgEl("text", { x: plotLeft - 6, y: py + 4, "text-anchor": "end" }, yFormat(t)));
    }
    for (const t of x.ticks()) {
      const px = x(t);
      g.appendChild(svgEl("line", { x1: px, x2: px, y1: plotBottom, y2: plotBottom + 4 }));
      g.appendChild(svgEl("text", { x: px, y: plotBottom + 16, "text-anchor": "middle" }, xFormat(t)));
    }
    g.appendChild(svgEl("path", { d: `M${plotLeft},${plotTop}V${plotBottom}H${plotRight}` }));
    g.appendChild(svgEl("text", { x: (plotLeft + plotRight) / 2, y: HEIGHT - 6, "text-anchor": "middle" }, xLabel));
    g.appendChild(svgEl("text", {
      x: 12, y: (plotTop + plotBottom) / 2, "text-anchor": "middle",
      transform: `rotate(-90 12 ${(plotTop + plotBottom) / 2})`,
    }, yLabel));
    plot.svg.appendChild(g);
  }

  // ---- The plots.
  // Best time so far against `key` ("trial" or "elapsed_s"): a step line and a dot per improvement.
  function curvePlot(pair, key) {
    const byTrial = key === "trial";
    const plot = newPlot(byTrial ? "curve-trials" : "curve-time",
                         byTrial ? "Best time vs trials" : "Best time vs wall-clock time",
                         byTrial ? pair.trials + " trials" : "time spent tuning, gaps between runs left out");
    const pts = pair.curve;
    if (pts.length === 0) return plot.empty("no ok measurement yet");
    // Wall-clock time is drawn in one unit for the whole axis.
    const unit = byTrial ? { scale: 1, name: "" } : secondsUnit(maxOf(pts.map((p) => p[key])));
    const at = (p) => p[key] / unit.scale;
    const xs = pts.map(at);
    const ys = pts.map((p) => p.best_ns);
    const x = linearScale(Math.min(0, minOf(xs)), Math.max(maxOf(xs), byTrial ? 1 : 0.001), plotLeft, plotRight);
    const y = logScale(minOf(ys), maxOf(ys), plotBottom, plotTop);
    const xFormat = byTrial ? String : (t) => Number(t.toPrecision(3)) + " " + unit.name;
    drawAxes(plot, x, y, byTrial ? "trial" : "wall-clock time spent tuning", "best median time", xFormat, formatTick);
    let d = "";
    pts.forEach((p, i) => {
      d += i === 0 ? `M${x(at(p))},${y(p.best_ns)}` : `H${x(at(p))}V${y(p.best_ns)}`;
    });
    plot.mark(svgEl("path", { "class": "curve", d }));
    pts.forEach((p, i) => {
      if (i > 0 && p.best_ns >= pts[i - 1].best_ns) return;
      const dot = plot.mark(svgEl("circle", { "class": "improvement", cx: x(at(p)), cy: y(p.best_ns), r: 3.5 }));
      dot.appendChild(svgEl("title", {}, `trial ${p.trial}, ${formatSeconds(p.elapsed_s)}: ${formatTime(p.best_ns)}`));
    });
    return plot.finish();
  }

  // Histogram of ok medians on a log axis.
  function distributionPlot(pair) {
    const plot = newPlot("distribution", "Measured times", pair.ok + " ok measurements, log scale");
    const bins = pair.histogram;
    if (bins.length === 0) return plot.empty("no ok measurement");
    const lo = bins[0].lo_ns, hi = bins[bins.length - 1].hi_ns;
    const x = logScale(lo, hi > lo ? hi : lo * 1.01, plotLeft, plotRight);
    const y = linearScale(0, maxOf(bins.map((b) => b.count)), plotBottom, plotTop);
    drawAxes(plot, x, y, "median time per call", "measurements", formatTick, String);
    for (const b of bins) {
      if (b.count === 0) continue;
      let x0 = x(b.lo_ns), x1 = x(b.hi_ns);
      if (x1 - x0 < 4) { x0 -= 2; x1 += 2; }
      const bar = plot.mark(svgEl("rect", { "class": "bin", x: x0 + 0.5, y: y(b.count), width: Math.max(1, x1 - x0 - 1), height: plotBottom - y(b.count) }));
      bar.appendChild(svgEl("title", {}, `${formatTime(b.lo_ns)} – ${formatTime(b.hi_ns)}: ${b.count}`));
    }
    return plot.finish();
  }

  // Horizontal bars: measurements per status.
  function statusPlot(pair) {
    const plot = newPlot("statuses", "Measurements by status", pair.trials + " in all");
    const rows = pair.statuses;
    if (rows.length === 0) return plot.empty("no measurement");
    const left = 110;
    const x = linearScale(0, maxOf(rows.map((r) => r.count)), left, plotRight - 40);
    const band = Math.min(28, (plotBottom - plotTop) / rows.length);
    rows.forEach((r, i) => {
      const yTop = plotTop + i * band;
      plot.svg.appendChild(svgEl("text", { x: left - 6, y: yTop + band / 2 + 4, "text-anchor": "end" }, r.status));
      plot.mark(svgEl("rect", {
        "class": r.status === "ok" ? "status-ok" : "status-bad", "data-status": r.status,
        x: left, y: yTop + 3, width: Math.max(2, x(r.count) - left), height: band - 6,
      }));
      plot.svg.appendChild(svgEl("text", { x: Math.max(left + 2, x(r.count)) + 4, y: yTop + band / 2 + 4 }, String(r.count)));
    });
    return plot.finish();
  }

  // Scatter of predicted rank against measured rank within each run.
  function rankPlot(pair) {
    const r = pair.ranks;
    const note = r.runs > 0
      ? `Spearman ρ = ${r.spearman.toFixed(2)}, pairwise accuracy ${(100 * r.pairwise_accuracy).toFixed(0)}% (mean of ${r.runs} run${r.runs === 1 ? "" : "s"})`
      : "";
    const plot = newPlot("ranks", "Cost model: predicted vs measured rank", note);
    if (r.points.length === 0) return plot.empty("no two ok measurements with cost-model scores in one run");
    const n = maxOf(r.points.map((p) => Math.max(p.predicted_rank, p.measured_rank)));
    const x = linearScale(1, n, plotLeft, plotRight);
    const y = linearScale(1, n, plotTop, plotBottom);
    drawAxes(plot, x, y, "predicted rank (1 = highest score)", "measured rank (1 = fastest)", String, String);
    plot.svg.appendChild(svgEl("line", { "class": "diagonal", x1: x(1), y1: y(1), x2: x(n), y2: y(n) }));
    for (const p of r.points) {
      const dot = plot.mark(svgEl("circle", { "class": "rank", cx: x(p.predicted_rank), cy: y(p.measured_rank), r: 3.5 }));
      dot.appendChild(svgEl("title", {}, `run ${p.run_id}: predicted ${p.predicted_rank}, measured ${p.measured_rank}`));
    }
    return plot.finish();
  }

  // One bar per method of the latest bench; methods that did not run get a dashed outline.
  function benchPlot(pair) {
    const bench = pair.bench;
    const plot = newPlot("bench", "Latest benchmark", bench.uuid ? bench.created_at : "");
    if (bench.bars.length === 0) return plot.empty("never benchmarked (ktune bench)");
    const left = 120;
    const times = bench.bars.filter((b) => b.status === "ok" && b.median_ns > 0).map((b) => b.median_ns);
    const lo = minOf(times), hi = Math.max(maxOf(times), 1);
    // Times that differ by more than 20x get a log axis, or the fast methods' bars vanish.
    const useLog = times.length > 0 && hi / lo > 20;
    const x = useLog ? logScale(lo / 2, hi * 1.2, left, plotRight - 110)
                     : linearScale(0, hi * 1.05, left, plotRight - 110);
    const band = Math.min(26, (plotBottom - plotTop) / bench.bars.length);
    const axis = svgEl("g", { "class": "axis" });
    for (const t of x.ticks(4)) {
      axis.appendChild(svgEl("line", { "class": "grid", x1: x(t), x2: x(t), y1: plotTop, y2: plotBottom }));
      axis.appendChild(svgEl("text", { x: x(t), y: plotBottom + 16, "text-anchor": "middle" }, formatTick(t)));
    }
    axis.appendChild(svgEl("path", { d: `M${left},${plotTop}V${plotBottom}H${plotRight - 110}` }));
    axis.appendChild(svgEl("text", { x: (left + plotRight - 110) / 2, y: HEIGHT - 6, "text-anchor": "middle" },
                           "median time per call" + (useLog ? " (log scale)" : "")));
    plot.svg.appendChild(axis);
    bench.bars.forEach((b, i) => {
      const yTop = plotTop + i * band;
      plot.svg.appendChild(svgEl("text", { x: left - 6, y: yTop + band / 2 + 4, "text-anchor": "end" }, b.method));
      let bar;
      if (b.status === "ok") {
        const cls = b.method === "ktune" ? "bench-ktune" : b.method === "roofline" ? "bench-roofline" : "bench-other";
        bar = plot.mark(svgEl("rect", { "class": cls, "data-status": "ok", x: left, y: yTop + 3, width: Math.max(2, x(b.median_ns) - left), height: band - 6 }));
        const label = formatTime(b.median_ns) + (b.vs_ktune !== null && b.method !== "ktune" ? " (" + formatRatio(b.vs_ktune) + ")" : "");
        plot.svg.appendChild(svgEl("text", { x: x(b.median_ns) + 4, y: yTop + band / 2 + 4 }, label));
      } else {
        bar = plot.mark(svgEl("rect", { "class": "bench-failed", "data-status": b.status, x: left, y: yTop + 3, width: 24, height: band - 6 }));
        plot.svg.appendChild(svgEl("text", { "class": "failed", x: left + 30, y: yTop + band / 2 + 4 }, b.status));
      }
      bar.appendChild(svgEl("title", {}, `${b.method}: ${b.status}${b.detail ? " — " + b.detail : ""}`));
    });
    return plot.finish();
  }

  // ---- The page.
  function anchorOf(index) { return "pair-" + index; }

  function benchSummary(pair) {
    const parts = [];
    for (const b of pair.bench.bars) {
      if (b.method === "ktune") continue;
      parts.push(b.method + " " + (b.status === "ok" && b.vs_ktune !== null ? formatRatio(b.vs_ktune) : b.status));
    }
    return parts.join(", ");
  }

  function summaryTable(data) {
    const section = document.getElementById("summary");
    section.appendChild(el("h2", {}, "Summary"));
    if (data.pairs.length === 0) {
      section.appendChild(el("p", { "class": "no-data" }, "no data: the database holds no measurements"));
      return;
    }
    const table = el("table", { "class": "summary" });
    const head = el("tr");
    for (const h of ["workload", "device", "trials (ok)", "best", "first ok", "improvement", "bench: method time / ktune"]) {
      head.appendChild(el("th", {}, h));
    }
    table.appendChild(head);
    data.pairs.forEach((p, i) => {
      const row = el("tr", { "data-workload-key": p.workload_key });
      const name = el("td");
      name.appendChild(el("a", { href: "#" + anchorOf(i) }, p.workload));
      row.appendChild(name);
      row.appendChild(el("td", { title: p.device_target + " (" + p.device_key + ")" }, p.device_name));
      row.appendChild(el("td", { "class": "num" }, `${p.trials} (${p.ok})`));
      row.appendChild(el("td", { "class": "num" }, formatTime(p.best_ns)));
      row.appendChild(el("td", { "class": "num" }, formatTime(p.first_ns)));
      row.appendChild(el("td", { "class": "num" }, p.best_ns && p.first_ns ? formatRatio(p.first_ns / p.best_ns) : "–"));
      row.appendChild(el("td", {}, benchSummary(p) || "–"));
      table.appendChild(row);
    });
    section.appendChild(table);
  }

  // "node1 rank 1: 11, node1 rank 2: 13" (an unknown host is "unknown host").
  function measuredBy(rows) {
    return rows.map((m) => (m.host || "unknown host") + (m.rank === null ? "" : " rank " + m.rank) + ": " + m.count).join(", ");
  }

  function pairSection(pair, index) {
    const section = el("section", { "class": "pair", id: anchorOf(index) });
    section.appendChild(el("h2", {}, pair.workload));
    section.appendChild(el("div", { "class": "key" }, `workload ${pair.workload_key} · device ${pair.device_name}, ${pair.device_key} (${pair.device_target})`));
    section.appendChild(el("div", { "class": "measured-by" }, "measured by " + measuredBy(pair.measured_by)));
    const grid = el("div", { "class": "plots" });
    for (const draw of [(p) => curvePlot(p, "trial"), (p) => curvePlot(p, "elapsed_s"), distributionPlot, statusPlot, rankPlot, benchPlot]) {
      grid.appendChild(draw(pair));
    }
    section.appendChild(grid);
    return section;
  }

  function main() {
    const data = JSON.parse(document.getElementById("ktune-report-data").textContent);
    document.getElementById("report-source").textContent =
      `${data.database} · ${new Date(data.generated_at_ms).toISOString()} · ktune ${data.ktune_version}`;
    summaryTable(data);
    const container = document.getElementById("pairs");
    data.pairs.forEach((pair, i) => container.appendChild(pairSection(pair, i)));
    document.body.setAttribute("data-plots", String(document.querySelectorAll("svg.plot[data-drawn=true]").length));
    document.body.setAttribute("data-report-ready", "true");
  }

  main();
})();
