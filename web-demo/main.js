// gemmkit web demo, page side: starts the benchmark worker, shows progress,
// the results table and a canvas chart (no libraries).  All computing happens
// in bench-worker.js, so the page stays responsive.
//
// Query parameters (for quick runs and tests): sizes=32,64,... (default
// 32..1024), dtypes=float32,float64, minMs=150 (per timing round), rounds=3.
// window.gemmkitDemo exposes the state for automated checks.
import { simd128Supported } from "./gemmkit.mjs";

const params = new URLSearchParams(location.search);
const list = (key, fallback) => (params.get(key) ?? fallback).split(",").filter(Boolean);
const config = {
  sizes: list("sizes", "32,64,128,256,512,1024").map(Number),
  dtypes: list("dtypes", "float32,float64"),
  minMs: Number(params.get("minMs") ?? 150),
  rounds: Number(params.get("rounds") ?? 3),
};

const $ = (id) => document.getElementById(id);
const demo = { state: "starting", simd128: simd128Supported(), refusal: null, rows: [], error: null };
window.gemmkitDemo = demo;

const simdBadge = $("simd");
simdBadge.textContent = demo.simd128 ? "supported" : "not supported";
simdBadge.className = `badge ${demo.simd128 ? "yes" : "no"}`;

const SERIES = [
  { dtype: "float32", isa: "simd128", color: "#1f77b4", dash: [] },
  { dtype: "float32", isa: "scalar", color: "#d62728", dash: [] },
  { dtype: "float64", isa: "simd128", color: "#1f77b4", dash: [6, 4] },
  { dtype: "float64", isa: "scalar", color: "#d62728", dash: [6, 4] },
];

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
  const pad = { l: 56, r: 170, t: 16, b: 40 };
  const sizes = config.sizes;
  const values = demo.rows.flatMap((r) => Object.values(r.gflops));
  const yMax = Math.max(1, ...values) * 1.1;
  const x = (n) => pad.l + (sizes.length < 2 ? 0.5 : sizes.indexOf(n) / (sizes.length - 1)) *
    (width - pad.l - pad.r);
  const y = (v) => height - pad.b - (v / yMax) * (height - pad.t - pad.b);
  g.font = "12px system-ui, sans-serif";
  g.fillStyle = "#666";
  g.strokeStyle = "#e5e5e5";
  g.lineWidth = 1;
  for (let i = 0; i <= 5; i++) {
    const v = (yMax * i) / 5;
    g.beginPath();
    g.moveTo(pad.l, y(v));
    g.lineTo(width - pad.r, y(v));
    g.stroke();
    g.textAlign = "right";
    g.fillText(v.toFixed(v < 10 ? 1 : 0), pad.l - 6, y(v) + 4);
  }
  g.textAlign = "center";
  for (const n of sizes) g.fillText(String(n), x(n), height - pad.b + 16);
  g.fillText("matrix size n (n × n × n)", (pad.l + width - pad.r) / 2, height - 6);
  g.save();
  g.translate(14, (pad.t + height - pad.b) / 2);
  g.rotate(-Math.PI / 2);
  g.fillText("GFLOP/s", 0, 0);
  g.restore();
  SERIES.forEach((s, i) => {
    const pts = demo.rows.filter((r) => r.dtype === s.dtype && r.gflops[s.isa] !== undefined)
      .map((r) => [x(r.n), y(r.gflops[s.isa])]);
    g.strokeStyle = s.color;
    g.fillStyle = s.color;
    g.setLineDash(s.dash);
    g.lineWidth = 2;
    g.beginPath();
    pts.forEach(([px, py], k) => (k ? g.lineTo(px, py) : g.moveTo(px, py)));
    g.stroke();
    g.setLineDash([]);
    for (const [px, py] of pts) {
      g.beginPath();
      g.arc(px, py, 3, 0, 2 * Math.PI);
      g.fill();
    }
    const ly = pad.t + 10 + 20 * i;
    g.setLineDash(s.dash);
    g.beginPath();
    g.moveTo(width - pad.r + 14, ly);
    g.lineTo(width - pad.r + 44, ly);
    g.stroke();
    g.setLineDash([]);
    g.fillStyle = "#222";
    g.textAlign = "left";
    g.fillText(`${s.dtype} ${s.isa}`, width - pad.r + 50, ly + 4);
  });
}

function addRow(row) {
  demo.rows.push(row);
  const tr = document.createElement("tr");
  const fmt = (v) => (v === undefined ? "–" : v.toFixed(2));
  const cells = [row.dtype, String(row.n), fmt(row.gflops.simd128), fmt(row.gflops.scalar),
    row.speedup === undefined ? "–" : `${row.speedup.toFixed(2)}×`,
    row.verified ? "✓" : "✗ MISMATCH"];
  cells.forEach((text, i) => {
    const td = document.createElement("td");
    td.textContent = text;
    if (i === 5) {
      td.className = row.verified ? "ok" : "bad";
      td.title = Object.entries(row.checks)
        .map(([k, v]) => `${k}: ${v.ok ? "ok" : "FAILED"} (error/bound ${v.ratio.toExponential(1)})`)
        .join("\n");
    }
    tr.appendChild(td);
  });
  $("rows").appendChild(tr);
  drawChart();
}

let worker = null;
function start() {
  worker?.terminate();
  demo.state = "running";
  demo.rows = [];
  demo.error = null;
  $("rows").textContent = "";
  $("run").disabled = true;
  drawChart();
  worker = new Worker(new URL("./bench-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = ({ data }) => {
    switch (data.type) {
      case "info": {
        demo.refusal = data.refusal;
        demo.builds = data.builds;
        if (data.refusal) {
          $("refusal").hidden = false;
          $("refusal").textContent = data.refusal;
        }
        $("builds").textContent = Object.entries(data.builds).map(([isa, b]) =>
          `${isa}: ${b.dispatch.float32.kernel}, ${b.dispatch.float64.kernel} ` +
          `(gemmkit ${b.version}, ready in ${b.instantiateMs.toFixed(1)} ms)`).join("; ");
        break;
      }
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
