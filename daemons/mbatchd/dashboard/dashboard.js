// The dashboard: polls /api/state every 2 s and /api/hosts every 5 s and redraws;
// #job=ID shows a job (/api/job). Data is only ever put in the page as text, never as
// markup. A token for LSB_METRICS_TOKEN_FILE is taken once from #token=... and kept for
// the tab's lifetime.
"use strict";

const STATES = ["PEND", "PSUSP", "RUN", "SSUSP", "USUSP", "DONE", "EXIT"];
const COLORS = ["#2754c5", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285", "#5c940d", "#e67700"];

(function takeToken() {
  const m = location.hash.match(/token=([^&]+)/);
  if (m) {
    sessionStorage.setItem("lsfToken", decodeURIComponent(m[1]));
    location.hash = "";
  }
})();

async function api(path) {
  const token = sessionStorage.getItem("lsfToken");
  const r = await fetch(path, { headers: token ? { Authorization: "Bearer " + token } : {}, cache: "no-store" });
  if (!r.ok) throw new Error(path + ": " + r.status + " " + (await r.text()).trim());
  return r.json();
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function setText(id, text) { document.getElementById(id).textContent = String(text); }

function fillKv(id, rows) {
  const t = document.getElementById(id);
  t.replaceChildren(...rows.map(([k, v, key]) => {
    const tr = el("tr");
    tr.append(el("th", k));
    const td = el("td", v, "n");
    if (key) td.id = key;
    tr.append(td);
    return tr;
  }));
}

function fillBody(id, rows) {
  document.querySelector("#" + id + " tbody").replaceChildren(...rows.map((cells) => {
    const tr = el("tr");
    for (const c of cells) tr.append(c instanceof Node ? c : el("td", c));
    return tr;
  }));
}

function when(t) { return new Date(t * 1000).toLocaleTimeString(); }

function bytes(n) { return (n / 1048576).toFixed(1) + " MB"; }

// A line plot of series [{name, points: [[t, v]...]}] on a canvas, with a legend.
function plot(id, series) {
  const c = document.getElementById(id), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const pad = 34, w = c.width - pad - 8, h = c.height - 40;
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) { g.fillStyle = "#5a6577"; g.fillText("no samples yet", pad, 20); return; }
  const t0 = Math.min(...all.map((p) => p[0])), t1 = Math.max(...all.map((p) => p[0]), t0 + 1);
  const vmax = Math.max(1, ...all.map((p) => p[1]));
  g.strokeStyle = "#d8dde6"; g.fillStyle = "#5a6577"; g.font = "11px system-ui";
  g.beginPath(); g.moveTo(pad, 8); g.lineTo(pad, 8 + h); g.lineTo(pad + w, 8 + h); g.stroke();
  g.fillText(String(+vmax.toFixed(2)), 2, 14); g.fillText("0", 2, 8 + h);
  g.fillText(when(t0), pad, h + 22); g.fillText(when(t1), pad + w - 50, h + 22);
  series.forEach((s, i) => {
    g.strokeStyle = COLORS[i % COLORS.length]; g.lineWidth = 1.5; g.beginPath();
    s.points.forEach(([t, v], k) => {
      const x = pad + (w * (t - t0)) / (t1 - t0), y = 8 + h - (h * v) / vmax;
      if (k) g.lineTo(x, y); else g.moveTo(x, y);
    });
    g.stroke();
    g.fillStyle = COLORS[i % COLORS.length];
    g.fillText(s.name, pad + 6 + (i % 4) * 130, h + 36);
  });
}

function renderState(s) {
  setText("cluster", s.cluster);
  setText("master", s.master);
  setText("updated", when(s.time));
  fillKv("jobs", STATES.map((st) => [st, s.jobs[st], "jobs-" + st]));
  setText("slots-used", s.slots.used); setText("slots-total", s.slots.total);
  setText("gpus-used", s.gpus.used); setText("gpus-total", s.gpus.total);
  fillKv("host-status", Object.entries(s.hosts).map(([st, n]) => [st, n, "hosts-" + st]));
  fillKv("health", [["Up", Math.round(s.health.uptime_s) + " s"], ["Submissions", s.health.submissions],
    ["sbatchds", s.health.sbatchds, "health-sbatchds"], ["Connections", s.health.connections],
    ["Memory", bytes(s.health.resident_bytes)], ["Passes", s.passes.total],
    ["Pass p50 / p99", s.passes.p50_ms.toFixed(2) + " / " + s.passes.p99_ms.toFixed(2) + " ms"],
    ["Log records", s.health.log_records]]);
  fillBody("queues", s.queues.map((q) => {
    const name = el("td", q.name); name.dataset.queue = q.name;
    const sum = (keys) => keys.reduce((n, k) => n + q.slots[k], 0);
    const status = (q.open ? "Open" : "Closed") + ":" + (q.active ? "Active" : "Inact");
    return [name, q.priority, status, sum(STATES.slice(0, 5)), sum(["PEND", "PSUSP"]), q.slots.RUN,
      sum(["SSUSP", "USUSP"])].map((v, i) => (i === 0 ? v : el("td", v, i === 2 ? "" : "n")));
  }));
  fillBody("reasons", s.pending_reasons.map((r) => [el("td", r.jobs, "n"), r.reason]));
  fillBody("pools", s.pools.map((p) => [p.pool, p.type, p.total, p.free, p.owner_slots, p.loan_slots,
    p.owners.map((o) => o.service_class + " " + o.used + "/" + o.guaranteed).join(", ")]));
  fillBody("slot-pools", s.slot_pools.map((p) => [p.pool, p.queue, el("td", p.share + "%", "n"),
    el("td", p.entitled, "n"), el("td", p.used, "n"), el("td", p.total, "n")]));
  fillBody("passes", s.passes.recent.map((p) => [when(p.time), el("td", p.ms.toFixed(3), "n"),
    el("td", p.pending, "n"), el("td", p.considered, "n"), el("td", p.dispatched, "n")]));
  const queues = s.queues.map((q) => q.name);
  plot("plot-slots", queues.map((q) => ({ name: q, points: s.history.map((h) => [h.time, h.run[q] || 0]) })));
  plot("plot-pending", [{ name: "pending", points: s.history.map((h) => [h.time, h.pending]) }]);
  plot("plot-pass", [{ name: "mean pass", points: s.history.filter((h) => h.pass_ms > 0).map((h) => [h.time, h.pass_ms]) }]);
}

function renderHosts(hosts) {
  fillBody("hosts", hosts.map((h) => {
    const name = el("td", h.name); name.dataset.host = h.name;
    return [name, el("td", h.status, h.status === "ok" ? "st-ok" : h.status.startsWith("closed") ? "" : "st-bad"),
      el("td", h.used + "/" + h.slots, "n"), el("td", h.r1m.toFixed(2), "n"), el("td", Math.round(h.ut * 100) + "%", "n"),
      el("td", Math.round(h.mem_mb) + " MB", "n"), el("td", h.gpus ? h.gpus_used + "/" + h.gpus : "-", "n")];
  }));
}

async function showJob(id) {
  const page = document.getElementById("job-page");
  if (!id) { page.hidden = true; return; }
  page.hidden = false;
  setText("job-title", id);
  try {
    const j = await api("/api/job?id=" + encodeURIComponent(id));
    const rows = [];
    for (const job of j.jobs.jobs || []) {
      const spec = job.spec || {};
      rows.push(["Job", job.jobId + (job.index ? "[" + job.index + "]" : "")], ["User", job.user], ["Queue", job.queue],
        ["Status", String(job.state).replace(/^JOB_/, "")], ["Command", spec.command || ""], ["Submitted", job.submitTime ? new Date(job.submitTime * 1000).toString() : "-"],
        ["Started", job.startTime ? new Date(job.startTime * 1000).toString() : "-"],
        ["Execution hosts", (job.execHosts || []).join(" ") || "-"], ["Pending reason", job.pendingReason || "-"],
        ["Exit status", job.exitStatus || 0]);
      // The rest of what bjobs -l has (requirements, limits, files, ...), as mbatchd names it.
      const shown = new Set(["jobId", "index", "user", "queue", "state", "spec", "submitTime", "startTime", "execHosts",
        "pendingReason", "exitStatus"]);
      const more = (obj, prefix) => {
        for (const [k, v] of Object.entries(obj || {})) {
          if (prefix === "" && shown.has(k)) continue;
          if (prefix === "spec." && k === "command") continue;
          if (v !== null && typeof v === "object" && !Array.isArray(v)) more(v, prefix + k + ".");
          else rows.push([prefix + k, Array.isArray(v) ? v.map((x) => (typeof x === "object" ? JSON.stringify(x) : x)).join(" ") : v]);
        }
      };
      more(job, "");
      more(spec, "spec.");
    }
    for (const e of j.jobs.errors || []) rows.push(["Error", e]);
    fillKv("job-fields", rows);
    fillBody("job-history", (j.history.events || []).map((e) => {
      // The record's one object field is the event (jobNew, jobStart, ...); the rest are
      // its time, sequence number and the master's term.
      const kind = Object.keys(e).find((k) => e[k] !== null && typeof e[k] === "object") || "event";
      return [when(e.time || 0), kind + " " + JSON.stringify(e[kind])];
    }));
  } catch (err) {
    fillKv("job-fields", [["Error", err.message]]);
  }
}

async function refreshState() {
  try { renderState(await api("/api/state")); setText("error", ""); } catch (err) { setText("error", err.message); }
}
async function refreshHosts() {
  try { renderHosts(await api("/api/hosts")); } catch (err) { setText("error", err.message); }
}

document.getElementById("job-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  location.hash = "job=" + document.getElementById("job-id").value.trim();
});
document.getElementById("job-close").addEventListener("click", (ev) => { ev.preventDefault(); location.hash = ""; });
window.addEventListener("hashchange", () => showJob((location.hash.match(/job=([^&]+)/) || [])[1]));

refreshState();
refreshHosts();
showJob((location.hash.match(/job=([^&]+)/) || [])[1]);
setInterval(refreshState, 2000);
setInterval(refreshHosts, 5000);
