// The audit page: fetches api/dashboard for the chosen range and draws it.
// Every value from the audit goes into the page as text (never as markup):
// tool names and arguments come from models.
"use strict";

const COLORS = {
  complete: "#59a14f", repaired: "#4e79a7", invalid: "#f28e2b", truncated: "#e15759",
  tool_error: "#b07aa1", timeout: "#9c755f", denied: "#76b7b2", pending_approval: "#edc948",
  cancelled: "#bab0ac",
};
const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

function fmt(n) {
  if (n === null || n === undefined) return "–";
  return Number(n).toLocaleString("en-US", { maximumFractionDigits: 1 });
}

function when(seconds) {
  return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);
}

function empty(text) {
  return el("p", { class: "empty", text });
}

function table(headers, rows, testid) {
  const head = el("tr", {}, headers.map(([label, cls]) => el("th", { class: cls || "", text: label })));
  const body = rows.map((cells) =>
    el("tr", {}, cells.map(([value, cls]) =>
      value instanceof Node ? el("td", { class: cls || "" }, [value]) : el("td", { class: cls || "", text: value }))));
  return el("table", { "data-testid": testid }, [el("thead", {}, [head]), el("tbody", {}, body)]);
}

function bar(value, max, cls = "") {
  const width = max > 0 ? Math.max(1, Math.round((100 * value) / max)) : 0;
  return el("div", { class: `bar ${cls}`, style: `width:${width}%` });
}

function drawTiles(data) {
  const byStatus = {};
  for (const s of data.calls_over_time.series) {
    byStatus[s.status] = (byStatus[s.status] || 0) + s.counts.reduce((a, b) => a + b, 0);
  }
  const held = data.truncations.reduce((a, t) => a + t.held_back, 0);
  const tiles = [
    ["calls", data.calls],
    ["models", data.models.length],
    ["repaired", byStatus.repaired || 0],
    ["invalid", byStatus.invalid || 0],
    ["truncations held back", held],
  ];
  document.getElementById("tiles").replaceChildren(...tiles.map(([label, value]) =>
    el("div", { class: "tile", "data-testid": `tile-${label.replaceAll(" ", "-")}` }, [
      el("div", { class: "value", text: fmt(value) }), el("div", { class: "label", text: label })])));
}

function drawCallsOverTime(data) {
  const over = data.calls_over_time;
  const present = [...new Set(over.series.map((s) => s.status))];
  document.getElementById("legend").replaceChildren(...present.map((status) =>
    el("span", { style: `--swatch:${COLORS[status] || "#888"}`, text: status })));
  const charts = data.models.map((model) => {
    const series = over.series.filter((s) => s.model === model);
    const totals = over.buckets.map((_, i) => series.reduce((a, s) => a + s.counts[i], 0));
    const peak = Math.max(1, ...totals);
    const width = 420, height = 140, left = 30, bottom = 20;
    const step = (width - left) / over.buckets.length;
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
      "data-testid": "calls-chart", "data-model": model, "aria-label": `calls of ${model}` });
    over.buckets.forEach((start, i) => {
      let y = height - bottom;
      for (const s of series) {
        const n = s.counts[i];
        if (!n) continue;
        const h = ((height - bottom - 10) * n) / peak;
        y -= h;
        const rect = svg("rect", { x: left + i * step + 1, y, width: Math.max(1, step - 2), height: h,
          fill: COLORS[s.status] || "#888", "data-status": s.status, "data-count": n,
          "data-bucket": start });
        const title = svg("title");
        title.textContent = `${when(start)} · ${s.status}: ${n}`;
        rect.append(title);
        chart.append(rect);
      }
    });
    const axis = svg("text", { x: 0, y: 12 });
    axis.textContent = fmt(peak);
    const first = svg("text", { x: left, y: height - 5 });
    first.textContent = when(over.buckets[0]).slice(5, 16);
    const last = svg("text", { x: width, y: height - 5, "text-anchor": "end" });
    last.textContent = when(over.buckets[over.buckets.length - 1] + over.bucket_seconds).slice(5, 16);
    chart.append(axis, first, last);
    const total = totals.reduce((a, b) => a + b, 0);
    return el("div", { class: "chart" }, [el("h3", { text: `${model} — ${fmt(total)} call${total === 1 ? "" : "s"}` }), chart]);
  });
  document.getElementById("calls-over-time").replaceChildren(
    ...(charts.length ? charts : [empty("No calls in this range.")]));
}

function drawRepairs(data) {
  const kinds = [...new Set(data.repairs.flatMap((r) => Object.keys(r.kinds)))].sort();
  const target = document.getElementById("repairs");
  if (!kinds.length) return target.replaceChildren(empty("No repairs in this range."));
  const peak = Math.max(1, ...data.repairs.flatMap((r) => Object.values(r.kinds)));
  const rows = data.repairs.map((r) => [[r.model], ...kinds.map((kind) => {
    const n = r.kinds[kind] || 0;
    const cell = el("span", { "data-model": r.model, "data-kind": kind, "data-count": n, text: n ? fmt(n) : "" });
    cell.style.background = n ? `rgba(78,121,167,${0.15 + (0.75 * n) / peak})` : "";
    cell.style.padding = "0 .4em";
    return [cell, "num"];
  })]);
  target.replaceChildren(table([["model"], ...kinds.map((k) => [k, "num"])], rows, "repairs-table"));
}

function drawTruncations(data) {
  const target = document.getElementById("truncations");
  if (!data.truncations.length) return target.replaceChildren(empty("No truncated calls in this range."));
  const peak = Math.max(...data.truncations.map((t) => t.truncated));
  const rows = data.truncations.map((t) => [[t.model], [fmt(t.truncated), "num"], [fmt(t.held_back), "num"],
    [bar(t.held_back, peak, "held")]]);
  target.replaceChildren(table([["model"], ["truncated", "num"], ["held back", "num"], [""]], rows,
    "truncations-table"));
}

function drawTpst(rows, id) {
  const target = document.getElementById(id);
  if (!rows.length) return target.replaceChildren(empty("No tasks in this range."));
  const peak = Math.max(0, ...rows.map((r) => r.tokens_per_solved_task || 0));
  target.replaceChildren(table([["name"], ["tasks", "num"], ["solved", "num"], ["tokens", "num"],
    ["per solved task", "num"], [""]], rows.map((r) => [[r.name], [fmt(r.tasks), "num"],
    [fmt(r.solved), "num"], [fmt(r.tokens), "num"], [fmt(r.tokens_per_solved_task), "num"],
    [bar(r.tokens_per_solved_task || 0, peak)]]), `${id}-table`));
}

function drawSlowest(data) {
  const target = document.getElementById("slowest");
  if (!data.slowest_tools.length) return target.replaceChildren(empty("No calls in this range."));
  const peak = Math.max(...data.slowest_tools.map((t) => t.p95_ms));
  target.replaceChildren(table([["tool"], ["calls", "num"], ["p50 ms", "num"], ["p95 ms", "num"],
    ["max ms", "num"], [""]], data.slowest_tools.map((t) => [[t.tool], [fmt(t.calls), "num"],
    [fmt(t.p50_ms), "num"], [fmt(t.p95_ms), "num"], [fmt(t.max_ms), "num"], [bar(t.p95_ms, peak)]]),
    "slowest-table"));
}

function drawProblems(data) {
  const target = document.getElementById("problems");
  if (!data.latest_problems.length) return target.replaceChildren(empty("No invalid or truncated calls in this range."));
  target.replaceChildren(table([["time"], ["model"], ["tool"], ["status"], ["arguments (redacted)"], ["errors"]],
    data.latest_problems.map((p) => [[when(p.time)], [p.model],
      [p.name_as_sent !== p.tool ? `${p.tool} (sent as ${p.name_as_sent})` : p.tool], [p.status],
      [el("pre", { text: p.arguments === null ? "(not kept)" : p.arguments })],
      [el("pre", { text: p.errors.join("\n") })]]), "problems-table"));
}

function rangeQuery(form) {
  const preset = form.preset.value;
  form.classList.toggle("custom", preset === "custom");
  if (preset === "all") return "";
  if (preset === "custom") {
    const parts = [];
    if (form.from.value) parts.push(`from=${new Date(form.from.value).getTime() / 1000}`);
    if (form.to.value) parts.push(`to=${new Date(form.to.value).getTime() / 1000}`);
    return parts.join("&");
  }
  const now = Date.now() / 1000;
  return `from=${now - Number(preset)}&to=${now}`;
}

async function load() {
  const form = document.getElementById("range");
  const status = document.getElementById("status");
  const query = rangeQuery(form);
  // relative to the page, without any credentials in the page's address (fetch
  // refuses those; the browser sends the ones it was given for the page itself)
  const url = new URL(`api/dashboard${query ? "?" + query : ""}`, location.origin + location.pathname);
  document.getElementById("api-link").setAttribute("href", url.pathname + url.search);
  status.className = "";
  status.textContent = "loading…";
  try {
    const response = await fetch(url, { credentials: "same-origin" });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    drawTiles(data);
    drawCallsOverTime(data);
    drawRepairs(data);
    drawTruncations(data);
    drawTpst(data.tokens_per_solved_task.by_model, "tpst-model");
    drawTpst(data.tokens_per_solved_task.by_tool, "tpst-tool");
    drawSlowest(data);
    drawProblems(data);
    status.textContent = `${fmt(data.calls)} calls, ${when(data.range.from)} – ${when(data.range.to)} UTC`;
    document.body.dataset.loaded = "true";
  } catch (error) {
    status.className = "error";
    status.textContent = `could not load the audit: ${error.message}`;
    document.body.dataset.loaded = "error";
  }
}

document.getElementById("range").addEventListener("submit", (event) => {
  event.preventDefault();
  load();
});
document.getElementById("range").preset.addEventListener("change", (event) => {
  if (event.target.value !== "custom") load();
  else rangeQuery(event.target.form);
});
load();
