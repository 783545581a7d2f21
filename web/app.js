// app.js - the llmroof page: every number comes from POST /api/v1/<command> (docs/api.md),
// which returns exactly what `llmroof <command> --format json` prints. Plain JS, no framework.
'use strict';

const $ = (id) => document.getElementById(id);
const setupForm = $('inputs');
const servingForm = $('serving');
const planForm = $('plan');

// ---- numbers with units --------------------------------------------------------------------
// Seconds up to a minute, then minutes, hours and days; past 1,000 days seconds in scientific
// notation ("1.6e14 s"): a 10^9-token request had printed "163879838705929.50 s" across the cards.
function fmtTime(s) {
  if (!Number.isFinite(s)) return '–';
  if (s < 1e-3) return (s * 1e6).toFixed(1) + ' µs';
  if (s < 1) return (s * 1e3).toFixed(1) + ' ms';
  if (s < 60) return s.toFixed(2) + ' s';
  if (s < 3600) return (s / 60).toFixed(1) + ' min';
  if (s < 86400) return (s / 3600).toFixed(1) + ' h';
  if (s < 1000 * 86400) return (s / 86400).toFixed(1) + ' days';
  return s.toExponential(1).replace('e+', 'e') + ' s';
}
// bytes a weight of each dtype name the JSON gives (weight_dtype)
function dtypeBytes(d) {
  return { fp32: 4, tf32: 4, fp16: 2, bf16: 2, fp8: 1, int8: 1, int4: 0.5, fp4: 0.5 }[d] || 2;
}
function fmtBytes(b) {
  if (!Number.isFinite(b)) return '–';
  const g = b / 1073741824;
  if (g >= 1) return g.toFixed(2) + ' GiB';
  return b >= 1048576 ? (b / 1048576).toFixed(1) + ' MiB' : (b / 1024).toFixed(1) + ' KiB';
}
function fmtRate(x, unit) { return Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(2)) + ' ' + unit : '–'; }
function fmtInt(x) { return Number(x).toLocaleString('en-US'); }
function pct(x) { return (100 * x).toFixed(1) + ' %'; }
function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

// ---- the API -------------------------------------------------------------------------------
// the server's warnings and notes of each command's last answer (X-Llmroof-Warning headers, one a
// line): a 5-request closed loop's "times one burst" warning had reached the command line only
const lastWarnings = {};
async function api(command, options, asText) {
  lastWarnings[command] = [];
  const r = await fetch('/api/v1/' + command, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(options),
  });
  // fetch joins a repeated header's values with ", ": each line starts "llmroof: warning|note: "
  const h = r.headers.get('X-Llmroof-Warning');
  lastWarnings[command] = h ? h.split(/, (?=llmroof: (?:warning|note): )/) : [];
  const text = await r.text();
  if (!r.ok) {
    let msg = text;
    try { msg = JSON.parse(text).error; } catch (e) { /* keep the text */ }
    throw new Error(msg);
  }
  return asText ? text : JSON.parse(text);
}

// The server's message names a request option as the command line's flag ("option '--tp'"); on
// the page it names the field the user typed into, by its label (the panel's own fields first,
// then the setup's; data-flag where a field feeds an option of another name), and the command
// line's advice ("try 'llmroof estimate --help'") goes.
function fieldLabel(flag, panel) {
  // the panel's own fields, then the setup's (its TP before the plan's "TP values"), then any
  for (const scope of [panel, setupForm, document]) {
    if (!scope) continue;
    const el = scope.querySelector(`[data-flag~="${flag}"]`) || scope.querySelector(`[name="${flag.replace(/-/g, '_')}"]`);
    const label = el && el.closest('label');
    if (label) return label.firstChild.textContent.trim() || label.textContent.trim();
  }
  return null;
}

// the command line's one-letter flags, by the request option each stands for
const SHORT_FLAGS = { t: 'tp', m: 'model', g: 'gpu', b: 'batch', p: 'prompt', o: 'output', e: 'engine', w: 'workload',
  c: 'concurrency', r: 'rate', n: 'requests', j: 'jobs' };

function pageTerms(msg, panel) {
  // every line's "llmroof: error: " / "llmroof: note: " goes (a note before an error had shown both
  // prefixes), and so does the command line's advice ("see 'llmroof list gpus'")
  // ("request: ", the server's own checks' prefix, too: a review found it kept)
  msg = msg.replace(/(^|\n)llmroof: (error|warning|note): (request: )?/g, '$1').replace(/\s*\(see 'llmroof [^']*'\)/g, '')
    // an unknown name says which field holds it
    .replace(/^unknown (GPU|model|engine) '/, (m, kind) => {
      const f = kind === 'GPU' ? fieldLabel('gpus', panel) || fieldLabel('gpu', panel) : fieldLabel(kind.toLowerCase(), panel);
      return (f ? `field '${f}': ` : '') + m;
    })
    // "-t's GPUs", "give -t 1": a one-letter flag by its field's label
    .replace(/(^|[\s(])-([a-z])\b/g, (m, pre, c) => { const f = SHORT_FLAGS[c] && fieldLabel(SHORT_FLAGS[c], panel); return f ? pre + f : m; });
  return msg.replace(/\s*try 'llmroof [^']*'\s*$/, '')
    .replace(/option '--([a-z0-9-]+)'/g, (m, flag) => { const f = fieldLabel(flag, panel); return f ? `field '${f}'` : m; })
    // a request's own field names ("fields 'gpus' x 'tp'") and a bare flag ("--ep 4") by their labels
    // (hyphens too: 'sweep-rate' is the Points field)
    .replace(/'([a-z][a-z0-9_-]*)'/g, (m, key) => { const f = fieldLabel(key.replace(/_/g, '-'), panel); return f ? `'${f}'` : m; })
    .replace(/--([a-z][a-z0-9-]*)/g, (m, flag) => fieldLabel(flag, panel) || m);
}

// a panel's warnings and notes (the server's X-Llmroof-Warning lines), in the page's terms
function showWarnings(id, command) {
  const el = $(id), w = lastWarnings[command] || [];
  el.textContent = w.map((m) => pageTerms(m, el.closest('section'))).join('\n');
  el.hidden = !w.length;
}

function showError(id, err) {
  const el = $(id);
  if (err) { el.textContent = pageTerms(String(err.message || err), el.closest('section')); el.hidden = false; }
  else { el.hidden = true; el.textContent = ''; }
}

// ---- state <-> URL -------------------------------------------------------------------------
const forms = [setupForm, servingForm, planForm];
function readState() {
  const st = {};
  for (const f of forms)
    for (const el of f.elements) {
      if (!el.name) continue;
      st[el.name] = el.type === 'checkbox' ? (el.checked ? '1' : '0') : el.value;
    }
  return st;
}
// A select's value in the link that names none of its options: name -> the value as written. Its
// select shows no choice, nothing is computed from it, and the link keeps it, until a choice is
// made there (the page had shown the default model's numbers as if asked, and rewritten the link).
const linkUnknown = {};
// A number field's value in the link that is no number ("abc", "1e400"): the browser keeps no such
// value in the field, which had then read "is empty" and the link lost it (a review of session 65).
// Said with the value, kept in the link, until the field is edited.
const linkNotNumber = {};
function writeURL() {
  const q = new URLSearchParams(readState());
  for (const [name, v] of Object.entries(linkUnknown)) q.set(name, v);
  for (const [name, v] of Object.entries(linkNotNumber)) q.set(name, v);
  history.replaceState(null, '', '?' + q.toString());
}
// The option a link's value names, as the CLI resolves a name: its id or one of its aliases, in
// any case (-g H200 and -g h200 are h200-sxm-141gb; --kv-dtype FP8 is fp8)
function findOption(sel, v) {
  const low = v.toLowerCase();
  return [...sel.options].find((x) => x.value !== '' && x.value.toLowerCase() === low) ||
    [...sel.options].find((x) => (x.dataset.aliases || '').toLowerCase().split(/[\s,]+/).includes(low)) ||
    (v === '' ? [...sel.options].find((x) => x.value === '') : undefined);
}
function applyURL() {
  const q = new URLSearchParams(location.search);
  for (const f of forms)
    for (const el of f.elements) {
      if (!el.name || !q.has(el.name)) continue;
      const v = q.get(el.name);
      if (el.type === 'checkbox') el.checked = v === '1';
      else if (el.tagName === 'SELECT') {
        const o = findOption(el, v);
        if (o) el.value = o.value;
        else { linkUnknown[el.name] = v; el.selectedIndex = -1; }
      } else {
        el.value = v;
        if (el.type === 'number' && el.value === '' && v.trim() !== '') linkNotNumber[el.name] = v;
      }
    }
}
// The link's unknown values among these fields, as one message; null when none
function linkProblem(names) {
  const bad = names.filter((n) => n in linkUnknown);
  if (!bad.length) return null;
  return new Error(bad.map((n) => `unknown ${n} '${linkUnknown[n]}' in the link`).join('; ') +
    ': pick one in its list (nothing is computed for a value the catalog does not hold)');
}
// A number field left empty, by its label: said before asking the server (an empty Requests had
// gone out as 0, "'0' is not a whole number")
function emptyProblem(form, names) {
  for (const n of names) {
    const el = form.elements[n];
    if (el && el.value.trim() === '') {
      const label = el.closest('label');
      const field = label ? label.firstChild.textContent.trim() : n;
      if (n in linkNotNumber)
        return new Error(`field '${field}': '${linkNotNumber[n]}' in the link is not a number: give one in the field`);
      return new Error(`field '${field}' is empty: it needs a value`);
    }
  }
  return null;
}
// The optional number fields (PP, EP, MoE TP: empty is their default) whose link value is no number
function notNumberProblem(form, names) {
  return emptyProblem(form, names.filter((n) => n in linkNotNumber));
}

// The status line of a panel that answered, naming the other panels still showing an error (with
// run=1 the plan's "plan: 3 GPUs" had hidden the Serving panel's error: a review of session 65)
function statusWithErrors(text) {
  const bad = ['estimate', 'serving', 'plan'].filter((p) => { const el = $(p + '-error'); return el && !el.hidden; });
  return bad.length ? text + ' · error in ' + bad.join(', ') : text;
}

// ---- the setup's options object (the C API's names) ----------------------------------------
// A number field as typed: its value, or the text itself where it is none ("" or "abc"), which the
// server refuses quoting it (an empty Prompt had gone out as 0)
function numOrText(v) { return v.trim() !== '' && Number.isFinite(+v) ? +v : v; }

function setupOptions(forRoofline) {
  const s = readState();
  const o = { model: s.model, gpu: s.gpu, tp: numOrText(s.tp), batch: numOrText(s.batch), prompt: numOrText(s.prompt),
    output: numOrText(s.output), kv_dtype: s.kv_dtype };
  // "checkpoint's": the command's default, the checkpoint's own dtype (DeepSeek-V3's fp8), else fp16
  if (s.weight_dtype) o.weight_dtype = s.weight_dtype;
  void forRoofline; // roofline takes the same options as estimate
  if (s.pp.trim() !== '' && +s.pp !== 1) o.pp = numOrText(s.pp);
  if (s.ep.trim() !== '' && +s.ep !== 0) o.ep = numOrText(s.ep);
  if (s.dp_attention === '1') o.dp_attention = true;
  if (s.moe_tp !== undefined && s.moe_tp.trim() !== '' && +s.moe_tp !== 0) o.moe_tp = numOrText(s.moe_tp);
  if (s.engine) o.engine = s.engine;
  return o;
}

// ---- estimate, memory, shares, roofline ----------------------------------------------------
function sharesTable(id, ops) {
  const rows = [...ops].sort((a, b) => b.share - a.share).map((op) =>
    `<tr><th>${esc(op.name)}</th><td class="bar"><span style="width:${(100 * op.share).toFixed(1)}%"
      class="${op.bound}" title="${esc(op.bound)} bound"></span></td><td class="num">${pct(op.share)}</td>
      <td class="num">${fmtTime(op.time_s)}</td></tr>`);
  $(id).innerHTML = rows.join('');
}

function renderEstimate(e) {
  const set = (id, text, raw) => { const el = $(id); el.textContent = text; el.dataset.raw = raw; };
  set('ttft', fmtTime(e.ttft_s), e.ttft_s);
  set('tpot', fmtTime(e.tpot_s), e.tpot_s);
  set('e2e', fmtTime(e.e2e_s), e.e2e_s);
  set('out_tok', fmtRate(e.output_tok_s, 'tok/s'), e.output_tok_s);
  // output 1 has no decode step (decode is null): the prefill's bound is the request's
  // (the card is the decode's: without one it had said "compute" under "Decode bound")
  const bound = e.decode ? e.decode.bound : e.prefill.bound;
  set('bound', e.decode ? bound : 'no decode (prefill: ' + bound + ')', bound);
  const m = e.memory;
  // a setup that cannot run: said above the cards, which are struck through (their times assume
  // it ran; the raw "weights_do_not_fit" had been the only sign)
  const why = {
    weights_do_not_fit: `the weights need ${fmtBytes(m.weights_bytes_per_gpu)} per GPU, more than the ` +
      `${fmtBytes(m.usable_bytes_per_gpu)} usable of ${fmtBytes(m.gpu_memory_bytes)}: more GPUs (TP, PP) or narrower weights`,
    context_does_not_fit: `one sequence of ${fmtInt(m.context_len)} tokens does not fit the KV cache ` +
      `(${fmtInt(m.kv_capacity_tokens)} tokens)`,
    batch_does_not_fit: `the KV cache holds ${fmtInt(m.max_batch)} sequences of ${fmtInt(m.context_len)} tokens, ` +
      `fewer than the batch`,
  }[m.fit];
  const warn = $('fit-warning');
  const msgs = [];
  if (!m.fits) msgs.push('Does not fit: ' + (why || m.fit) + '. The times below assume it ran.');
  if (e.within_max_context === false)
    msgs.push(`Prompt + output (${fmtInt(e.prompt_len + e.output_len)} tokens) exceed ${e.model}'s context of ` +
      `${fmtInt(e.max_context)} tokens: an engine refuses such a request.`);
  warn.hidden = !msgs.length;
  warn.textContent = msgs.join(' ');
  // the text output's note: the simulation prefills this batch in several steps, each reading the
  // weights again, where this estimate takes one pass (a review: only the table had said so)
  const sp = e.simulate_prefill, spEl = $('prefill-steps');
  spEl.hidden = !(sp && sp.steps > 1);
  if (sp && sp.steps > 1)
    spEl.textContent = `This prefill is one pass; the Serving panel's simulation takes these prompts in ${sp.steps} ` +
      `steps (${sp.chunked ? 'chunks of up to ' + fmtInt(sp.budget_tokens) + ' tokens' : 'whole prompts, up to ' +
      fmtInt(sp.budget_tokens) + ' tokens a step'}), each reading the weights again.`;
  document.querySelector('#estimate-panel .cards').classList.toggle('nofit', !m.fits);
  const used = m.weights_bytes_per_gpu + m.workspace_bytes_per_gpu + m.reserve_bytes_per_gpu;
  const total = m.gpu_memory_bytes;
  // the bar spans the larger of the GPU's memory and what the setup needs, the part past the GPU's
  // memory drawn apart: 131 GiB of weights on an 80 GiB GPU had filled the bar as if they fitted
  // (a review)
  const span = Math.max(total, used);
  const w = (x) => Math.max(0, Math.min(100, (100 * x) / span)).toFixed(1) + '%';
  const over = used > total;
  $('membar').innerHTML =
    `<span class="w" style="width:${w(Math.min(m.weights_bytes_per_gpu, total))}" title="weights"></span>` +
    (over ? '' : `<span class="o" style="width:${w(m.workspace_bytes_per_gpu + m.reserve_bytes_per_gpu)}" title="workspace and reserve"></span>`) +
    (over ? '' : `<span class="kvb" style="width:${w(Math.max(0, m.kv_capacity_bytes_per_gpu))}" title="KV cache"></span>`) +
    (over ? `<span class="over" style="width:${w(used - total)}" title="beyond the GPU's memory"></span>` : '');
  // what the engine leaves unused: memory the runtime does not report, and the share past mem_util
  // (the bar's empty end, about 8.7 GiB of an H100's 80, had no name and no row)
  const held = over ? 0 : Math.max(0, total - used - Math.max(0, m.kv_capacity_bytes_per_gpu));
  $('memlegend').innerHTML =
    '<span><i class="w"></i>weights</span> <span><i class="o"></i>workspace + reserve</span> ' +
    '<span><i class="kvb"></i>KV cache</span>' + (held > 0 ? ' <span><i class="held"></i>held back</span>' : '') +
    (over ? ` <span><i class="over"></i>beyond the GPU's memory: needs ${esc(fmtBytes(used))} of ` +
      `${esc(fmtBytes(total))} (${(used / total).toFixed(2)}x)</span>` : '');
  $('membar').dataset.over = over ? (used / total).toFixed(3) : '';
  // a hybrid or state-space model (Mamba layers) also holds a fixed state per sequence, whatever its
  // length: the cache holds fewer sequences than its KV tokens alone suggest (granite-4.0-h-tiny on
  // an A10 had shown 748,673 tokens beside 133 sequences of 2,048 without a word why)
  const state = m.state_bytes_per_seq_per_gpu || 0;
  const seqBytes = m.context_len * m.kv_bytes_per_token_per_gpu + state;
  const rows = [
    ['GPU memory', fmtBytes(total)],
    // the dtypes the estimate took: "checkpoint's" weights had been fp8 for DeepSeek-V3 with fp8 said
    // nowhere on the page (a review)
    ['weights', fmtBytes(m.weights_bytes_per_gpu) + (e.weight_dtype ? ' (' + e.weight_dtype + ' weights' +
      // gpt-oss: MXFP4 experts, most of the bytes, beside bf16 (a review had read "bf16 weights")
      (e.checkpoint && e.checkpoint.expert_bits && e.checkpoint.expert_bits / 8 < dtypeBytes(e.weight_dtype)
        ? ', ' + e.checkpoint.format.toUpperCase() + ' experts' : '') + ', ' + e.kv_dtype + ' KV cache)' : '')],
    ['workspace + reserve', fmtBytes(m.workspace_bytes_per_gpu + m.reserve_bytes_per_gpu)],
    ['KV cache capacity', fmtBytes(m.kv_capacity_bytes_per_gpu) + ' = ' + fmtInt(m.kv_capacity_tokens) + ' tokens' +
      (state > 0 ? ' of KV alone' : '')],
    ['KV per token', fmtBytes(m.kv_bytes_per_token_per_gpu) + ' per GPU'],
  ];
  // TensorRT-LLM's and LMDeploy's fraction is the KV cache's share of the free memory, not of the
  // visible (a review: "takes 0.9 of the 79.18 GiB" beside 6.96 GiB held back)
  const free = m.usable_bytes_per_gpu - m.weights_bytes_per_gpu - m.workspace_bytes_per_gpu - m.reserve_bytes_per_gpu -
    (m.drafter_bytes_per_gpu || 0);
  if (held > 0)
    rows.splice(4, 0, ['held back', fmtBytes(held) + (m.mem_util_of === 'free'
      ? ' (the engine\'s KV cache takes ' + m.mem_util + ' of the ' + fmtBytes(free) +
        ' that weights, workspace and reserve leave of the ' + fmtBytes(m.visible_bytes_per_gpu) +
        ' the runtime reports of the GPU\'s ' + fmtBytes(total) + ')'
      : (($('engine').value ? ' (the engine takes ' : ' (without an engine llmroof takes ') + m.mem_util + ' of the ' +
        fmtBytes(m.visible_bytes_per_gpu) + ' the runtime reports of the GPU\'s ' + fmtBytes(total) + ')'))]);
  if (state > 0) rows.push(['state per sequence', fmtBytes(state) + ' per GPU (recurrent layers; any length)']);
  rows.push(['max batch at this context', fmtInt(m.max_batch) + ' sequences (' + fmtInt(m.context_len) + ' tokens each' +
      (state > 0 ? ': ' + fmtBytes(m.context_len * m.kv_bytes_per_token_per_gpu) + ' KV + ' + fmtBytes(state) +
        ' state = ' + fmtBytes(seqBytes) + ' a sequence' : '') + ')'],
    ['fits', m.fits ? 'yes' : 'no (see above)']);
  $('memory').innerHTML = rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  $('memory').dataset.used = used;
  sharesTable('shares-prefill', e.prefill.ops);
  sharesTable('shares-decode', e.decode ? e.decode.ops : []);
}

// After an error nothing of the previous input's answer stays on screen beside it.
function clearEstimate() {
  for (const id of ['ttft', 'tpot', 'e2e', 'out_tok', 'bound']) { $(id).textContent = '–'; delete $(id).dataset.raw; }
  $('fit-warning').hidden = true;
  for (const id of ['membar', 'memlegend', 'memory', 'shares-prefill', 'shares-decode', 'roofline']) $(id).innerHTML = '';
}

let estimateSeq = 0;
async function updateEstimate() {
  const seq = ++estimateSeq;
  writeURL();
  $('status').textContent = 'computing…';
  try {
    const bad = linkProblem(['model', 'gpu', 'engine', 'weight_dtype', 'kv_dtype']) ||
      emptyProblem(setupForm, ['tp', 'batch', 'prompt', 'output']) || notNumberProblem(setupForm, ['pp', 'ep', 'moe_tp']);
    if (bad) throw bad;
    const [e, svg] = await Promise.all([
      api('estimate', setupOptions(false)),
      api('roofline.svg', setupOptions(true), true).catch((err) => '<p class="error">' + esc(err.message) + '</p>'),
    ]);
    if (seq !== estimateSeq) return; // a newer input won
    showError('estimate-error', null);
    showWarnings('estimate-warning', 'estimate');
    renderEstimate(e);
    $('roofline').innerHTML = svg.replace(/^<\?xml[^>]*>\s*/, '');
    const rs = $('roofline').querySelector('svg');
    if (rs) {
      rs.setAttribute('role', 'img'); rs.setAttribute('aria-label', 'roofline of ' + e.model + ' on ' + e.gpu);
    }
    document.body.dataset.ready = 'estimate';
    $('status').textContent = statusWithErrors(e.model + ' on ' + e.gpu);
  } catch (err) {
    if (seq !== estimateSeq) return;
    clearEstimate();
    showError('estimate-error', err);
    showWarnings('estimate-warning', 'estimate');
    $('status').textContent = 'error';
    document.body.dataset.ready = 'error';
  }
}

// ---- serving: latency/throughput curve and goodput -----------------------------------------
// The top of an axis with four equal steps of a round size (1, 2, 2.5 or 5 x 10^k) at or above v:
// its ticks read 5 / 10 / 15 / 20, where a tenth over the data had read 4 / 8 / 11 / 15 for 15.3.
function niceMax(v) {
  const raw = (v > 0 ? v : 1) / 4, p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 2.5, 5]) if (m * p >= raw * (1 - 1e-12)) return 4 * m * p;
  return 40 * p;
}
const tickText = (x) => String(+x.toPrecision(6));
function curveSVG(points, kind) {
  const W = 640, H = 260, L = 60, R = 60, T = 16, B = 40;
  const xs = points.map((p) => p.x), y1 = points.map((p) => p.tpot * 1e3), y2 = points.map((p) => p.tok);
  const xmax = niceMax(Math.max(...xs)), y1max = niceMax(Math.max(...y1)), y2max = niceMax(Math.max(...y2));
  const X = (x) => L + ((W - L - R) * x) / xmax;
  const Y1 = (y) => H - B - ((H - T - B) * y) / y1max;
  const Y2 = (y) => H - B - ((H - T - B) * y) / y2max;
  const path = (ys, Y) => points.map((p, i) => (i ? 'L' : 'M') + X(p.x).toFixed(1) + ',' + Y(ys[i]).toFixed(1)).join(' ');
  // an overloaded point is hollow: its latency grows with the run, not a point of the curve
  const dots = (ys, Y, cls) => points.map((p, i) => `<circle class="${cls}" cx="${X(p.x).toFixed(1)}" cy="${Y(ys[i]).toFixed(1)}" r="3.5"${
    p.over ? ' style="fill:#fff"' : ''}><title>${p.x} → ${cls === 'lat' ? ys[i].toFixed(1) + ' ms' : ys[i].toFixed(0) + ' tok/s'}${
    p.over ? ' (overloaded)' : ''}</title></circle>`).join('');
  // three inner ticks an axis, beside its ends
  let ticks = '';
  for (let k = 1; k < 4; k++) {
    const f = k / 4, yy = (H - B) - (H - T - B) * f, xx = L + (W - L - R) * f;
    ticks += `<text x="${L - 6}" y="${yy + 4}" text-anchor="end">${tickText(y1max * f)}</text>` +
      `<text x="${W - R + 6}" y="${yy + 4}">${tickText(y2max * f)}</text>` +
      `<text x="${xx}" y="${H - B + 14}" text-anchor="middle">${tickText(xmax * f)}</text>`;
  }
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="latency and throughput against load">
    <line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" class="axis"/>
    <line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" class="axis"/>
    <line x1="${W - R}" y1="${T}" x2="${W - R}" y2="${H - B}" class="axis"/>
    <text x="${(W) / 2}" y="${H - 8}" text-anchor="middle">${kind === 'rate' ? 'offered rate (requests/s)' : 'users (closed loop)'}</text>
    <text x="14" y="${(H - B + T) / 2}" transform="rotate(-90 14 ${(H - B + T) / 2})" text-anchor="middle" class="lat">p99 TPOT (ms)</text>
    <text x="${W - 14}" y="${(H - B + T) / 2}" transform="rotate(90 ${W - 14} ${(H - B + T) / 2})" text-anchor="middle" class="tok">output (tok/s)</text>
    <text x="${L - 6}" y="${T + 4}" text-anchor="end">${tickText(y1max)}</text>
    <text x="${W - R + 6}" y="${T + 4}">${tickText(y2max)}</text>
    <text x="${W - R}" y="${H - B + 14}" text-anchor="end">${tickText(xmax)}</text>
    <text x="${L}" y="${H - B + 14}" text-anchor="middle">0</text>
    <text x="${L - 6}" y="${H - B}" text-anchor="end">0</text><text x="${W - R + 6}" y="${H - B}">0</text>${ticks}
    <path d="${path(y1, Y1)}" class="lat"/><path d="${path(y2, Y2)}" class="tok"/>
    ${dots(y1, Y1, 'lat')}${dots(y2, Y2, 'tok')}</svg>`;
}

// Each panel answers its newest submit only: a slower, older answer arriving later is dropped (a
// review: a 5 s plan overwrote the 1 s one asked after it, the form showing the newer inputs)
let servingSeq = 0, planSeq = 0;
async function updateServing(ev) {
  if (ev) ev.preventDefault();
  const seq = ++servingSeq;
  writeURL();
  const bad = linkProblem(['model', 'gpu', 'engine', 'weight_dtype', 'kv_dtype', 'workload', 'loadkind']) ||
    emptyProblem(servingForm, ['points', 'requests']) || emptyProblem(setupForm, ['tp']) ||
    notNumberProblem(setupForm, ['pp', 'ep', 'moe_tp']);
  if (bad) { showError('serving-error', bad); $('status').textContent = 'error'; return; }
  const s = readState();
  const o = setupOptions(false);
  delete o.batch; delete o.prompt; delete o.output;
  o.workload = s.workload;
  o.requests = numOrText(s.requests);
  o['sweep_' + s.loadkind] = s.points;
  if (s.ttft_slo) o.ttft_slo = s.ttft_slo;
  if (s.tpot_slo) o.tpot_slo = s.tpot_slo;
  $('status').textContent = 'simulating…';
  try {
    const d = await api('simulate', o);
    if (seq !== servingSeq) return; // a newer submit won
    showError('serving-error', null);
    showWarnings('serving-warning', 'simulate');
    const pts = d.points.map((p) => ({ x: p[s.loadkind], tpot: p.tpot_s.p99, tok: p.output_tok_s, p,
      over: !!(p.load && p.load.overloaded) }));
    $('curve').innerHTML = curveSVG(pts, s.loadkind);
    const head = `<tr><th>${s.loadkind === 'rate' ? 'rate' : 'users'}</th><th>p99 TTFT</th><th>p99 TPOT</th>
      <th>output</th><th>requests/s</th><th>mean batch</th><th>goodput</th><th>within SLOs</th><th>overloaded</th></tr>`;
    $('serving-table').innerHTML = head + pts.map(({ x, p, over }) => `<tr><td>${x}${s.loadkind === 'rate' ? ' req/s' : ''}</td>
      <td class="num">${fmtTime(p.ttft_s.p99)}</td><td class="num">${fmtTime(p.tpot_s.p99)}</td>
      <td class="num">${fmtRate(p.output_tok_s, 'tok/s')}</td><td class="num">${fmtRate(p.request_per_s, 'req/s')}</td>
      <td class="num">${p.mean_batch.toFixed(1)}</td>
      <td class="num${over ? ' over' : ''}">${p.slo ? (over ? '–' : fmtRate(p.slo.goodput_qps, 'req/s')) : '–'}</td>
      <td class="num${over ? ' over' : ''}">${p.slo ? (over ? '–' : pct(p.slo.within_share)) : '–'}</td>
      <td class="${over ? 'over' : ''}">${over ? 'yes' : 'no'}</td></tr>`).join('');
    // the CLI's verdict: an overloaded point's latencies grow with the run, so its SLO shares say
    // nothing (slo_met no); the page had shown 100 % within SLOs beside "overloaded yes"
    const nover = pts.filter((q) => q.over).length;
    // the CLI's "overloaded, or still filling its batch" (load.may_be_filling): a run of fewer than
    // 3 request lives cannot tell the two apart, and more requests settle it
    const filling = pts.filter((q) => q.over && q.p.load.may_be_filling);
    const settle = Math.max(0, ...filling.map((q) => q.p.load.requests_to_settle || 0));
    $('serving-note').hidden = !nover;
    $('serving-note').textContent = nover ? `${nover} point${nover === 1 ? ' is' : 's are'} overloaded (hollow on the ` +
      'curve, "yes" in red): the server completes less than arrives, its queue and latencies grow with the run, and no SLO is ' +
      'met there.' + (filling.length ? ` ${filling.length === nover ? (nover === 1 ? 'It' : 'Each') : filling.length + ' of them'} ` +
      `may instead be still filling its batch (the run spans fewer than 3 request lives there): about ${settle} Requests ` +
      'or more settle it.' : '') : '';
    setStale('serving', false);
    $('status').textContent = statusWithErrors('simulated ' + pts.length + ' point' + (pts.length === 1 ? '' : 's'));
  } catch (err) {
    if (seq !== servingSeq) return;
    // no curve or table of an earlier run beside the error
    $('curve').innerHTML = ''; $('serving-table').innerHTML = ''; $('serving-note').hidden = true;
    showError('serving-error', err);
    showWarnings('serving-warning', 'simulate');
    $('status').textContent = 'error';
  }
}

// ---- plan: options table and the chosen row's launch commands ------------------------------
let lastPlan = null;
let lastPlanNoEngine = false; // the last plan ran without an engine profile (renderLaunch says so)
function renderLaunch(opt) {
  const title = $('launch-title');
  if (!opt || !opt.launch) { title.hidden = true; $('launch').innerHTML = ''; return; }
  if (!opt.launch.length) { // the plan's engine is not one llmroof writes commands for (docs/planning.md)
    title.hidden = false;
    title.textContent = 'Launch commands';
    $('launch').innerHTML = '<div class="note">None: the plan simulated an engine profile llmroof writes no ' +
      'commands for (it writes them for current vLLM, SGLang and TensorRT-LLM releases); another engine\'s ' +
      'commands would not run what was simulated.</div>';
    return;
  }
  title.hidden = false;
  title.textContent = 'Launch commands: ' + (opt.parallelism || 'tp') + ' ' + opt.tp + ' on ' + opt.gpu;
  // the CLI's line under its heading when no engine was named (plan's text output)
  const generic = lastPlanNoEngine ? '<div class="note">No engine chosen: these commands carry the batch limits of ' +
    'the generic engine this plan simulated; pick vllm, sglang or tensorrt-llm as the Engine to plan with that ' +
    'engine\'s own defaults.</div>' : '';
  $('launch').innerHTML = generic + opt.launch.map((c) => `<div class="cmd"><div class="cmdhead">${esc(c.engine)} · ${esc(c.role)} ·
    ${c.instances} instance${c.instances === 1 ? '' : 's'} × ${c.gpus_per_instance} GPU${c.gpus_per_instance === 1 ? '' : 's'}</div>
    <pre>${esc(c.command)}</pre>${c.note ? '<div class="note">' + esc(c.note) + '</div>' : ''}</div>`).join('');
}

// A users plan's binding SLO with the figure that breaks it one user later (next_users).
function bindingCell(op) {
  if (!op.next_users) return esc(op.binding);
  const v = op.binding === 'tpot' ? 'TPOT ' + fmtTime(op.next_tpot_s) : 'TTFT ' + fmtTime(op.next_ttft_s);
  return esc(op.binding) + ' <span class="muted">(' + op.next_users + ' users: ' + esc(v) + ', over its SLO)</span>';
}
// The text table's note: a run whose KV cache forced preemptions (each recomputes a prompt).
function starved(op) {
  const p = op.preemptions_per_request;
  return p >= 0.1 ? '; KV-starved: ' + p.toFixed(2) + ' preemptions per request' : '';
}

async function updatePlan(ev) {
  if (ev) ev.preventDefault();
  const seq = ++planSeq;
  writeURL();
  const bad = linkProblem(['model', 'engine', 'weight_dtype', 'kv_dtype', 'workload', 'plankind']) ||
    emptyProblem(planForm, ['gpus', 'tps', 'amount']) || emptyProblem(servingForm, ['ttft_slo', 'tpot_slo']);
  if (bad) { planFailed(bad); return; }
  const s = readState();
  const o = { model: s.model, gpus: s.gpus, tp: s.tps, kv_dtype: s.kv_dtype,
    ttft_slo: s.ttft_slo, tpot_slo: s.tpot_slo, workload: s.workload };
  if (s.weight_dtype) o.weight_dtype = s.weight_dtype;
  if (s.engine) o.engine = s.engine;
  lastPlanNoEngine = !s.engine;
  // the text as typed: "abc" as NaN would go out as null, which means "the default" (10,000 users);
  // as text the server names the option and what it expected
  if (s.plankind === 'rate') o.rate = s.amount; else { o.users = s.amount; if (s.fast === '1') o.fast = true; }
  $('status').textContent = 'planning…';
  try {
    const d = await api('plan', o);
    if (seq !== planSeq) return; // a newer submit won
    lastPlan = d;
    showWarnings('plan-warning', 'plan');
    showError('plan-error', d.best ? null : new Error('no configuration meets the SLOs; every row says why'));
    const rate = s.plankind === 'rate';
    // the statistic the plan judged its SLOs at: a percentile of simulated runs, the mean under
    // --fast (the headings had said "TTFT" for both, and the serving panel's are p99)
    const stat = d.fast ? 'mean' : 'p' + d.percentile;
    const head = `<tr><th>gpu</th><th>layout</th><th>${rate ? 'instances' : 'users / instance'}</th><th>gpus</th>
      <th>nodes</th><th>${stat} TTFT</th><th>${stat} TPOT</th><th>${rate ? 'goodput / GPU' : 'binding'}</th><th>note</th></tr>`;
    $('plan-table').innerHTML = head + d.options.map((op, i) => {
      const best = d.best && op.gpu === d.best.gpu && op.tp === d.best.tp && op.parallelism === d.best.parallelism &&
        op.layout === d.best.layout;
      // "P tp 2 / D tp 4" (the prefill pool's TP had read as an instance count: "P 2 / D tp 4")
      const lay = (op.layout === 'disaggregated' ? 'P ' + (op.prefill_parallelism || 'tp') + ' ' + (op.prefill_tp ?? '?') + ' / D ' : '') +
        (op.parallelism || 'tp') + ' ' + op.tp;
      if (!op.feasible) return `<tr class="infeasible"><td>${esc(op.gpu)}</td><td>${esc(lay)}</td><td colspan="6"></td><td>${esc(op.reason)}</td></tr>`;
      return `<tr data-i="${i}" class="${best ? 'best' : ''} pick" tabindex="0" role="button"
        aria-label="launch commands for ${esc(lay)} on ${esc(op.gpu)}"><td>${esc(op.gpu)}</td><td>${esc(lay)}</td>
        <td class="num">${rate ? (op.layout === 'disaggregated' ? op.prefill_instances + '+' + op.decode_instances : op.instances) : fmtInt(op.users_per_instance)}</td>
        <td class="num">${op.gpus}</td><td class="num">${op.nodes}</td><td class="num">${fmtTime(op.ttft_s)}</td>
        <td class="num">${fmtTime(op.tpot_s)}</td><td>${rate ? fmtRate(op.goodput_per_gpu, 'req/s') : bindingCell(op)}</td>
        <td>${best ? 'best' : 'feasible'}${starved(op)}</td></tr>`;
    }).join('');
    renderLaunch(d.best);
    // the plan's own explanations (why a row binds, how to rerun it, what the commands carry)
    const obs = d.observations || [];
    $('plan-obs-title').hidden = !obs.length;
    $('plan-obs').innerHTML = obs.map((t) => '<li>' + esc(t) + '</li>').join('');
    setStale('plan', false);
    $('status').textContent = statusWithErrors(d.best ? 'plan: ' + d.best.gpus + ' GPU' + (d.best.gpus === 1 ? '' : 's')
      : 'plan: nothing feasible');
  } catch (err) {
    if (seq !== planSeq) return;
    planFailed(err);
  }
}
// A plan that did not run: no table, observations or commands of an earlier one left beside its error.
function planFailed(err) {
  lastPlan = null;
  $('plan-table').innerHTML = '';
  $('plan-obs').innerHTML = ''; $('plan-obs-title').hidden = true;
  renderLaunch(null);
  showError('plan-error', err);
  showWarnings('plan-warning', 'plan');
  $('status').textContent = 'error';
}
function pickRow(tr) {
  if (!tr || !lastPlan) return;
  for (const r of $('plan-table').querySelectorAll('tr.chosen')) r.classList.remove('chosen');
  tr.classList.add('chosen');
  renderLaunch(lastPlan.options[+tr.dataset.i]);
}
$('plan-table').addEventListener('click', (ev) => pickRow(ev.target.closest('tr.pick')));
// the keyboard's way to the same commands (rows take focus: tabindex 0, role button)
$('plan-table').addEventListener('keydown', (ev) => {
  if (ev.key !== 'Enter' && ev.key !== ' ') return;
  const tr = ev.target.closest('tr.pick');
  if (tr) { ev.preventDefault(); pickRow(tr); }
});

// ---- results of an earlier setup -----------------------------------------------------------
// A serving curve or plan stays on screen after the setup changes, marked as the previous
// setup's until it runs again (it had gone on showing the other model's numbers and commands)
function setStale(which, on) {
  const out = $(which + '-out'), note = $(which + '-stale');
  const has = which === 'serving' ? $('serving-table').innerHTML !== '' : $('plan-table').innerHTML !== '';
  out.classList.toggle('stale', on && has);
  note.hidden = !(on && has);
}
function slosText() {
  const s = readState();
  // an SLO field left empty is not said as "TPOT ≤ " with nothing after it (a review)
  // both SLOs at the plan's percentile (p90), or as means under fast: the heading had put "p90"
  // before TTFT alone and the table shows means (a review)
  const slos = [];
  if (s.ttft_slo) slos.push(`TTFT ≤ ${s.ttft_slo}`);
  if (s.tpot_slo) slos.push(`TPOT ≤ ${s.tpot_slo}`);
  $('plan-slos').textContent = s.workload + (slos.length ? ', ' + slos.join(' and ') + ' at p90 (as means with fast)' : '');
}

// ---- start ---------------------------------------------------------------------------------
function fillSelect(sel, items, label) {
  for (const it of items) {
    const o = document.createElement('option');
    o.value = it.id;
    if (it.aliases) o.dataset.aliases = Array.isArray(it.aliases) ? it.aliases.join(',') : it.aliases;
    o.textContent = label(it);
    sel.appendChild(o);
  }
}

let timer = 0;
// A setup change greys the results it changes: the serving curve takes every field but the
// request's batch, prompt and output (its workload is its own), the plan only the model, engine and
// dtypes (it searches GPUs and layouts itself); a batch of 9 had greyed both.
const REQUEST_FIELDS = ['batch', 'prompt', 'output'];
const PLAN_FIELDS = ['model', 'engine', 'weight_dtype', 'kv_dtype'];
function later(ev) {
  const name = ev && ev.target ? ev.target.name : '';
  if (!REQUEST_FIELDS.includes(name)) setStale('serving', true);
  if (!name || PLAN_FIELDS.includes(name)) setStale('plan', true);
  clearTimeout(timer);
  timer = setTimeout(updateEstimate, 150);
}

async function boot() {
  const run = new URLSearchParams(location.search).get('run') === '1'; // read before writeURL rewrites it
  const [lm, lg, le] = await Promise.all(['models', 'gpus', 'engines'].map((w) => api('list', { args: [w] })));
  fillSelect($('model'), lm.models, (m) => m.id + ' (' + (m.moe ? 'MoE, ' : '') + m.params_B.toFixed(m.params_B >= 100 ? 0 : 1) + ' B)');
  for (const [i, m] of lm.models.entries())
    $('model').options[i].title = m.id + ': ' + m.params_B.toFixed(1) + ' B parameters' + (m.moe ? ', MoE ' + m.moe : '');
  fillSelect($('gpu'), lg.gpus, (g) => g.id + ' · ' + g.memory_GiB + ' GiB');
  for (const [i, g] of lg.gpus.entries()) $('gpu').options[i].title = g.memory_GiB + ' GiB, ' + g.bandwidth_GBps + ' GB/s';
  fillSelect($('engine'), le.engines, (e) => e.id);
  $('model').value = 'llama-3.1-8b';
  $('gpu').value = 'h100-sxm5-80gb';
  applyURL();
  // a choice made in a select the link named wrongly replaces the link's value
  for (const f of forms) f.addEventListener('change', (ev) => { delete linkUnknown[ev.target.name]; }, true);
  for (const f of forms) f.addEventListener('input', (ev) => { delete linkNotNumber[ev.target.name]; }, true);
  setupForm.addEventListener('input', later);
  setupForm.addEventListener('change', later);
  servingForm.addEventListener('submit', updateServing);
  // the plan runs on the serving panel's workload and SLOs: shown in its heading, stale on change;
  // the link follows every field as it changes (it had waited for Simulate or Plan)
  const onServing = () => { slosText(); setStale('serving', true); setStale('plan', true); writeURL(); };
  servingForm.addEventListener('input', onServing);
  servingForm.addEventListener('change', onServing);
  planForm.addEventListener('input', writeURL);
  planForm.addEventListener('change', writeURL);
  slosText();
  planForm.addEventListener('submit', updatePlan);
  await updateEstimate();
  if (run) { await updateServing(); await updatePlan(); }
  document.body.dataset.done = '1';
}
boot().catch((err) => { showError('estimate-error', err); document.body.dataset.ready = 'error'; });
