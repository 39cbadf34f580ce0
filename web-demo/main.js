// gemmkit web demo, page side: starts the benchmark worker, shows progress,
// a one-line summary, the results table, and a canvas chart with an HTML
// legend (no libraries).  All computing happens in bench-worker.js, so the
// page stays responsive; the columns are the worker's list, so a new build
// there is a new column here with no change to this file.
//
// Query parameters (for quick runs and tests): sizes=32,64,... (default
// 32..1024), dtypes=float32,float64, minMs=150 (per timing sample),
// rounds=5 (samples per point).  window.gemmkitDemo exposes the state for
// automated checks.
import { relaxedSimdSupported, simd128Supported, threadsSupported } from "./gemmkit.mjs";

const params = new URLSearchParams(location.search);
const list = (key, fallback) => (params.get(key) ?? fallback).split(",").filter(Boolean);
const config = {
  sizes: list("sizes", "32,64,128,256,512,1024").map(Number),
  dtypes: list("dtypes", "float32,float64"),
  minMs: Number(params.get("minMs") ?? 150),
  rounds: Number(params.get("rounds") ?? 5),
};

const $ = (id) => document.getElementById(id);
const demo = {
  state: "starting", simd128: simd128Supported(), relaxedSimd: relaxedSimdSupported(),
  threads: threadsSupported(), crossOriginIsolated: self.crossOriginIsolated === true,
  columns: [], refusals: {}, builds: {}, noisySpread: null, rows: [], summary: "", error: null,
};
window.gemmkitDemo = demo;

for (const [id, ok, no] of [["simd", demo.simd128, "not supported"],
  ["relaxed", demo.relaxedSimd, "not supported"],
  ["threads", demo.threads, demo.crossOriginIsolated ? "not supported" : "not on this page"]]) {
  $(id).textContent = ok ? "supported" : no;
  $(id).className = `badge ${ok ? "yes" : "no"}`;
}

// Colour per build (a build the palette lacks takes the next spare one);
// line style per element type.
const COLORS = { relaxed_simd: "#2ca02c", simd128: "#1f77b4", scalar: "#d62728" };
const SPARE = ["#9467bd", "#8c564b", "#e377c2", "#17becf"];
const DASH = { float32: [], float64: [6, 4] };
const NOISY_COLOR = "#b35c00";
const colorOf = (key) => COLORS[key] ?? SPARE[demo.columns.findIndex((c) => c.key === key) %
  SPARE.length];
const loaded = () => demo.columns.filter((c) => demo.builds[c.key]);
const pct = (x) => `${Math.round(x * 100)}%`;
const rate = (v) => v.toFixed(v < 10 ? 2 : 1);

function drawChart() {
  const canvas = $("chart");
  const dpr = window.devicePixelRatio || 1;
  const width = canvas.clientWidth || 960;
  const height = canvas.clientHeight || 320;
  canvas.width = width * dpr;
  canvas.height = height * dpr;
  const g = canvas.getContext("2d");
  g.scale(dpr, dpr);
  g.clearRect(0, 0, width, height);
  const pad = { l: 48, r: 14, t: 14, b: 40 };
  const sizes = config.sizes;
  const values = demo.rows.flatMap((r) => Object.values(r.gflops));
  // Round ticks: a step of 1, 2 or 5 times a power of ten, five or so of them.
  const raw = (Math.max(1, ...values) * 1.05) / 5;
  const unit = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * unit).find((s) => s >= raw);
  const ticks = Math.ceil((Math.max(1, ...values) * 1.05) / step);
  const yMax = ticks * step;
  const x = (n) => pad.l + (sizes.length < 2 ? 0.5 : sizes.indexOf(n) / (sizes.length - 1)) *
    (width - pad.l - pad.r);
  const y = (v) => height - pad.b - (v / yMax) * (height - pad.t - pad.b);
  g.font = "12px system-ui, sans-serif";
  g.fillStyle = "#666";
  g.strokeStyle = "#e5e5e5";
  g.lineWidth = 1;
  for (let i = 0; i <= ticks; i++) {
    const v = step * i;
    g.beginPath();
    g.moveTo(pad.l, y(v));
    g.lineTo(width - pad.r, y(v));
    g.stroke();
    g.textAlign = "right";
    g.fillText(String(Number(v.toPrecision(6))), pad.l - 6, y(v) + 4);
  }
  g.textAlign = "center";
  for (const n of sizes) g.fillText(String(n), x(n), height - pad.b + 16);
  g.fillText("matrix size n (n × n × n)", (pad.l + width - pad.r) / 2, height - 6);
  g.save();
  g.translate(12, (pad.t + height - pad.b) / 2);
  g.rotate(-Math.PI / 2);
  g.fillText("GFLOP/s", 0, 0);
  g.restore();
  for (const dtype of config.dtypes) {
    for (const { key } of loaded()) {
      const rows = demo.rows.filter((r) => r.dtype === dtype && r.gflops[key] !== undefined);
      const pts = rows.map((r) => [x(r.n), y(r.gflops[key]), r.noisy[key]]);
      g.strokeStyle = colorOf(key);
      g.fillStyle = colorOf(key);
      g.setLineDash(DASH[dtype] ?? []);
      g.lineWidth = 2;
      g.beginPath();
      pts.forEach(([px, py], k) => (k ? g.lineTo(px, py) : g.moveTo(px, py)));
      g.stroke();
      g.setLineDash([]);
      for (const [px, py, noisy] of pts) {
        g.fillStyle = colorOf(key);
        g.beginPath();
        g.arc(px, py, 3, 0, 2 * Math.PI);
        g.fill();
        if (noisy) drawNoisyRing(g, px, py);
      }
    }
  }
}

function drawNoisyRing(g, px, py) {
  g.strokeStyle = NOISY_COLOR;
  g.lineWidth = 1.5;
  g.beginPath();
  g.arc(px, py, 7, 0, 2 * Math.PI);
  g.stroke();
}

/** A legend swatch: a short line in the series' colour and dash, or the ring. */
function swatch({ color = "#444", dash = [], ring = false }) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", "30");
  svg.setAttribute("height", "14");
  svg.setAttribute("aria-hidden", "true");
  svg.innerHTML = ring
    ? `<circle cx="15" cy="7" r="3" fill="#888"/>` +
      `<circle cx="15" cy="7" r="6" fill="none" stroke="${NOISY_COLOR}" stroke-width="1.5"/>`
    : `<line x1="1" y1="7" x2="29" y2="7" stroke="${color}" stroke-width="2.5"` +
      ` stroke-dasharray="${dash.join(" ")}"/>`;
  return svg;
}

function drawLegend() {
  const ul = $("legend");
  ul.textContent = "";
  const item = (sw, text, off = false) => {
    const li = document.createElement("li");
    li.append(swatch(sw), text);
    if (off) li.className = "off";
    ul.appendChild(li);
  };
  for (const { key, threads } of demo.columns) {
    const off = !demo.builds[key];
    // A browser with SIMD refuses threads only on a page that is not isolated.
    const why = threads > 1 && demo.simd128 ? "not on this page" : "not in this browser";
    item({ color: colorOf(key) }, off ? `${key} (${why})` : key, off);
  }
  for (const dtype of config.dtypes) item({ dash: DASH[dtype] ?? [] }, dtype);
  item({ ring: true }, `noisy (samples spread > ${pct(demo.noisySpread)})`);
}

function drawHead() {
  const tr = document.createElement("tr");
  const heads = ["type", "n\u00a0×\u00a0n\u00a0×\u00a0n",
    ...demo.columns.map((c) => `${c.key} GFLOP/s`),
    ...demo.columns.filter((c) => c.versus).map((c) => `${c.key} / ${c.versus}`),
    "verified"];
  for (const text of heads) {
    const th = document.createElement("th");
    th.textContent = text;
    tr.appendChild(th);
  }
  $("head").replaceChildren(tr);
}

function addRow(row) {
  demo.rows.push(row);
  const tr = document.createElement("tr");
  const cell = (text, className = "", title = "") => {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    if (title) td.title = title;
    tr.appendChild(td);
    return td;
  };
  cell(row.dtype);
  cell(String(row.n));
  for (const { key } of demo.columns) {
    if (demo.refusals[key]) {
      cell("refused", "refused", demo.refusals[key]);
    } else if (row.noisy[key]) {
      cell(rate(row.gflops[key]), "noisy",
        `samples spread ${pct(row.spread[key])} (over ${pct(demo.noisySpread)}): noisy`);
    } else {
      cell(rate(row.gflops[key]), "", `samples spread ${pct(row.spread[key])}`);
    }
  }
  // A ratio is as noisy as either of its points.
  for (const { key, versus } of demo.columns.filter((c) => c.versus)) {
    if (row.speedup[key] === undefined) cell("–");
    else {
      cell(`${row.speedup[key].toFixed(2)}×`, row.noisy[key] || row.noisy[versus] ? "noisy" : "");
    }
  }
  cell(row.verified ? "✓" : "✗ MISMATCH", row.verified ? "ok" : "bad",
    Object.entries(row.checks)
      .map(([k, v]) => `${k}: ${v.ok ? "ok" : "FAILED"} (error/bound ${v.ratio.toExponential(1)})`)
      .join("\n"));
  $("rows").appendChild(tr);
  drawSummary();
  drawChart();
}

/**
 * The headline: the largest size done of the first element type, the rate
 * of the best build this page runs (the worker's first loaded column: the
 * threaded one where memory may be shared, else the one isa "auto" would
 * pick), each speedup, its threads and the ISA that ran.
 */
function drawSummary() {
  const dtype = config.dtypes.find((d) => demo.rows.some((r) => r.dtype === d));
  if (!dtype) return;
  const row = demo.rows.filter((r) => r.dtype === dtype).reduce((a, b) => (b.n > a.n ? b : a));
  const best = loaded().find((c) => row.gflops[c.key] !== undefined);
  const ratios = loaded().filter((c) => row.speedup[c.key] !== undefined)
    .map((c) => `${c.key} ${row.speedup[c.key].toFixed(2)}× ${c.versus}`);
  const threads = `${best.threads} thread${best.threads === 1 ? "" : "s"}`;
  const noisy = Object.values(row.noisy).some(Boolean);
  demo.summary = `${dtype} ${row.n}: ${rate(row.gflops[best.key])} GFLOP/s (${best.key})` +
    `${ratios.map((r) => `, ${r}`).join("")}; ${threads}; ` +
    `ISA: ${demo.builds[best.key].dispatch[dtype].isa}${noisy ? "; noisy*" : ""}`;
  $("summary").textContent = demo.summary;
}

function showInfo(data) {
  demo.columns = data.columns;
  demo.refusals = data.refusals;
  demo.builds = data.builds;
  demo.noisySpread = data.noisySpread;
  // Builds refused for one reason share one line.
  const messages = [...new Set(Object.values(data.refusals))];
  $("refusal").hidden = messages.length === 0;
  $("refusal").replaceChildren(...messages.map((text) => {
    const p = document.createElement("p");
    p.textContent = text;
    return p;
  }));
  $("noisy-note").textContent = `* noisy: the timing samples of this point differ by more ` +
    `than ${pct(data.noisySpread)} (slowest against fastest; a speedup is marked when either ` +
    `of its points is), so other work on the machine got in the way; the fastest sample is ` +
    `shown. Run again to confirm it.`;
  $("builds").textContent = Object.entries(data.builds).map(([key, b]) =>
    `${key}: ${b.dispatch.float32.kernel}, ${b.dispatch.float64.kernel} ` +
    `(gemmkit ${b.version}, ready in ${b.instantiateMs.toFixed(1)} ms)`).join("; ");
  drawHead();
  drawLegend();
}

let worker = null;
function start() {
  worker?.terminate();
  demo.state = "running";
  demo.rows = [];
  demo.summary = "";
  demo.error = null;
  $("rows").textContent = "";
  $("summary").textContent = "";
  $("run").disabled = true;
  drawChart();
  worker = new Worker(new URL("./bench-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = ({ data }) => {
    switch (data.type) {
      case "info":
        showInfo(data);
        break;
      case "progress":
        $("progress").max = data.total;
        $("progress").value = data.done;
        $("status").textContent = data.label === "done"
          ? "Done." : `Running ${data.label} (${data.done + 1} of ${data.total})…`;
        break;
      case "row":
        addRow(data.row);
        break;
      case "done":
        demo.state = "done";
        $("run").disabled = false;
        break;
      case "error":
        demo.state = "error";
        demo.error = data.message;
        $("status").textContent = `Error: ${data.message}`;
        $("run").disabled = false;
        break;
    }
  };
  worker.onerror = (event) => {
    demo.state = "error";
    demo.error = event.message || "the worker failed to start";
    $("status").textContent = `Error: ${demo.error}`;
  };
  worker.postMessage(config);
}

$("run").addEventListener("click", start);
window.addEventListener("resize", drawChart);
start();
