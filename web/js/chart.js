// A line chart in SVG: one line per series over shared x values, with a legend.
const NS = "http://www.w3.org/2000/svg";
const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];

function s(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

// xs: numbers; series: [{name, values: [number per x], low?, high?: a band drawn under the line}];
// labels the axes with xLabel/yLabel; `empty` is said when there is nothing to draw.
export function lineChart(xs, series, { xLabel = "", yLabel = "", empty = "no finished rounds yet" } = {}) {
  const W = 560, H = 300, L = 48, R = 120, T = 14, B = 36;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "data-chart": "1" });
  const all = series.flatMap((x) => [...x.values, ...(x.low || []), ...(x.high || [])]).filter((v) => isFinite(v));
  if (!xs.length || !all.length) {
    svg.append(s("text", { x: W / 2, y: H / 2, "text-anchor": "middle", fill: "#667085" }, empty));
    return svg;
  }
  let lo = Math.min(...all), hi = Math.max(...all);
  if (hi - lo < 1) { lo -= 50; hi += 50; }
  const pad = (hi - lo) * 0.08; lo -= pad; hi += pad;
  const x0 = xs[0], x1 = xs[xs.length - 1] === x0 ? x0 + 1 : xs[xs.length - 1];
  const X = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const Y = (y) => T + (1 - (y - lo) / (hi - lo)) * (H - T - B);
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    svg.append(s("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#eef0f4" }));
    svg.append(s("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#667085" }, Math.round(v)));
  }
  const every = Math.max(1, Math.ceil(xs.length / 12));  // at most about 12 labels on the x axis
  xs.forEach((x, j) => {
    if (j % every === 0 || j === xs.length - 1)
      svg.append(s("text", { x: X(x), y: H - B + 16, "text-anchor": "middle", "font-size": 11, fill: "#667085" }, x));
  });
  svg.append(s("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle", "font-size": 11, fill: "#667085" }, xLabel));
  svg.append(s("text", { x: 12, y: T + (H - T - B) / 2, "text-anchor": "middle", "font-size": 11, fill: "#667085", transform: `rotate(-90 12 ${T + (H - T - B) / 2})` }, yLabel));
  series.forEach((ser, i) => {
    const color = PALETTE[i % PALETTE.length];
    if (ser.low && ser.high) {
      const top = ser.high.map((v, j) => `${X(xs[j])},${Y(v)}`);
      const bottom = ser.low.map((v, j) => `${X(xs[j])},${Y(v)}`).reverse();
      svg.append(s("polygon", { points: [...top, ...bottom].join(" "), fill: color, "fill-opacity": 0.14, stroke: "none", "data-band": ser.name }));
    }
    const pts = ser.values.map((v, j) => `${X(xs[j])},${Y(v)}`).join(" ");
    svg.append(s("polyline", { points: pts, fill: "none", stroke: color, "stroke-width": 2, "data-series": ser.name }));
    ser.values.forEach((v, j) => svg.append(s("circle", { cx: X(xs[j]), cy: Y(v), r: 2.6, fill: color })));
    const ly = T + 12 + i * 18;
    svg.append(s("rect", { x: W - R + 12, y: ly - 9, width: 12, height: 4, fill: color }));
    svg.append(s("text", { x: W - R + 30, y: ly - 4, "font-size": 12, fill: "#1d2430" }, ser.name));
  });
  return svg;
}
