/**
 * The report page's own script and styles, inlined into every report (no network, no
 * server). Plain ES2017 for any current browser; it reads the run from the page's
 * `application/json` script tag. Lists are virtualized (tests) or paged (calls), so a run
 * with thousands of calls opens and filters at once.
 *
 * Kept as text: the package compiles without DOM types, and the page must not depend on a
 * bundler. It avoids backticks and template placeholders so it can live in `String.raw`.
 */

/** The page's CSS. */
export const REPORT_STYLES = String.raw`
:root { --fg:#1d2330; --muted:#5f6b7a; --line:#dde2ea; --bg:#f6f8fb; --pass:#137333; --fail:#c5221f; --skip:#8a6d00; --accent:#1a56db; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
header { padding:10px 16px; background:#fff; border-bottom:1px solid var(--line); }
header h1 { font-size:16px; margin:0 8px 0 0; display:inline; }
.meta { color:var(--muted); font-size:12px; margin-top:2px; }
.totals span { margin-right:10px; font-weight:600; }
.filters { display:flex; gap:8px; flex-wrap:wrap; align-items:center; padding:8px 16px; background:#fff; border-bottom:1px solid var(--line); }
.filters select, .filters input { font:inherit; padding:3px 6px; border:1px solid var(--line); border-radius:4px; background:#fff; }
.filters input[type=search] { min-width:260px; }
#count { color:var(--muted); font-size:12px; }
main { display:flex; height:calc(100vh - 104px); }
#list { width:38%; min-width:280px; overflow:auto; position:relative; border-right:1px solid var(--line); background:#fff; }
#list-inner { position:relative; }
.row { position:absolute; left:0; right:0; height:48px; padding:4px 10px; border-bottom:1px solid #eef1f5; cursor:pointer; overflow:hidden; }
.row:hover { background:#f1f5fd; }
.row.selected { background:#e3ecfd; }
.row .name { white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
.row .sub { color:var(--muted); font-size:12px; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
#detail { flex:1; overflow:auto; padding:12px 18px 40px; }
.v { display:inline-block; min-width:54px; text-align:center; font-size:11px; font-weight:700; border-radius:3px; padding:1px 4px; color:#fff; margin-right:6px; text-transform:uppercase; }
.v-passed { background:var(--pass); } .v-failed { background:var(--fail); } .v-skipped, .v-todo { background:var(--skip); }
h2 { font-size:17px; margin:4px 0; }
h3 { font-size:15px; margin:16px 0 6px; }
h4 { font-size:13px; margin:12px 0 4px; }
pre { white-space:pre-wrap; word-break:break-word; background:#fff; border:1px solid var(--line); border-radius:4px; padding:8px; margin:4px 0; font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; }
pre.failure { border-color:#f1b7b5; background:#fff6f5; }
.session { background:#fff; border:1px solid var(--line); border-radius:6px; padding:8px 12px; margin:12px 0; }
.turn { border-top:1px solid #eef1f5; margin-top:8px; padding-top:4px; }
.label { color:var(--muted); font-size:12px; }
table.calls, table.stats { border-collapse:collapse; width:100%; font-size:12px; margin:4px 0; }
table.stats th, table.stats td { text-align:left; border-bottom:1px solid var(--line); padding:3px 4px; }
table.stats th { color:var(--muted); font-weight:600; }
table.calls th { text-align:left; color:var(--muted); font-weight:600; border-bottom:1px solid var(--line); padding:3px 4px; }
table.calls td { border-bottom:1px solid #eef1f5; padding:3px 4px; vertical-align:top; }
table.calls tr.call { cursor:pointer; }
table.calls tr.call:hover { background:#f7f9fc; }
td.args, td.res { font-family:ui-monospace,Menlo,Consolas,monospace; word-break:break-all; max-width:320px; }
.bar { position:relative; height:8px; width:120px; background:#eef1f5; border-radius:2px; }
.bar i { position:absolute; top:0; height:8px; background:var(--accent); border-radius:2px; min-width:2px; }
.st-success { color:var(--pass); font-weight:600; } .st-bad { color:var(--fail); font-weight:600; }
.ev { font-size:11px; border:1px solid var(--line); border-radius:3px; padding:0 3px; }
.gap, .err { color:var(--fail); }
button.more { font:inherit; margin:6px 0; }
.empty { color:var(--muted); padding:20px; }
[hidden] { display:none !important; }
.views { display:inline-flex; gap:2px; margin-right:6px; }
.views a { padding:3px 10px; border:1px solid var(--line); border-radius:4px; color:var(--fg); text-decoration:none; }
.views a.on { background:var(--accent); border-color:var(--accent); color:#fff; }
#grid { height:calc(100vh - 104px); overflow:auto; background:#fff; padding:0 0 40px; }
table.grid { border-collapse:separate; border-spacing:0; font-size:12px; }
table.grid th, table.grid td { border-bottom:1px solid #eef1f5; padding:3px 6px; text-align:left; white-space:nowrap; }
table.grid thead th { position:sticky; top:0; background:#fff; border-bottom:1px solid var(--line); color:var(--muted); font-weight:600; z-index:1; }
table.grid th.name { position:sticky; left:0; background:#fff; font-weight:400; max-width:420px; overflow:hidden; text-overflow:ellipsis; }
table.grid tr.group th { background:#f1f4f8; color:var(--muted); font-weight:600; position:static; }
table.grid td.cell { cursor:pointer; text-align:center; min-width:96px; }
table.grid td.cell:hover { outline:2px solid var(--accent); outline-offset:-2px; }
td.c-passed { background:#e6f4ea; color:var(--pass); } td.c-failed { background:#fce8e6; color:var(--fail); }
td.c-partial { background:#fef7e0; color:var(--skip); } td.c-none { color:#b0b8c4; }
td.cell .ci { color:var(--muted); font-size:11px; margin-left:3px; }
.grid-note { color:var(--muted); font-size:12px; padding:8px 16px; }
tr.stats-row.on td { background:#e3ecfd; }
.verdict { border:1px solid var(--line); border-left:4px solid var(--muted); border-radius:4px; padding:4px 8px; margin:6px 0; background:#fbfcfe; }
.verdict.j-pass { border-left-color:var(--pass); } .verdict.j-fail { border-left-color:var(--fail); } .verdict.j-error { border-left-color:var(--skip); }
.verdict .word { font-weight:700; text-transform:uppercase; font-size:11px; margin-right:6px; }
.j-pass .word { color:var(--pass); } .j-fail .word { color:var(--fail); } .j-error .word { color:var(--skip); }
.trial { font-size:12px; font-weight:600; border:1px solid var(--line); border-radius:3px; padding:0 5px; margin-left:6px; color:var(--muted); }
.trial.t-pass { color:var(--pass); border-color:#b7dfc3; } .trial.t-fail { color:#fff; background:var(--fail); border-color:var(--fail); }
.session.trial-failed { border-color:#f1b7b5; border-left:4px solid var(--fail); }
.usage { color:var(--muted); font-size:12px; margin:4px 0; }
details.file-diff { margin:4px 0; } details.file-diff summary { cursor:pointer; font-family:ui-monospace,Menlo,Consolas,monospace; font-size:12px; }
pre.diff .add { color:var(--pass); } pre.diff .del { color:var(--fail); } pre.diff .hunk { color:var(--accent); }
`;

/** The page's script. */
export const REPORT_SCRIPT = String.raw`
(function () {
  'use strict';
  var started = performance.now();
  var data = JSON.parse(document.getElementById('m3-data').textContent);
  var parsed = performance.now();
  var tests = data.tests;
  var ROW = 48, PAGE = 100;
  var state = { verdict: '', agent: '', server: '', tool: '', q: '', selected: null };
  var visible = [];
  var byId = {};
  var el = function (id) { return document.getElementById(id); };

  // The one way a value reaches the page's markup: every value from the run's data, text or
  // number, goes through esc (a number in a blob may hold markup as well as a text can).
  function esc(text) {
    return String(text == null ? '' : text).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function agentLabel(s) {
    return (s.harness || s.agent) + (s.version ? ' ' + s.version : '') + ' · ' + s.model;
  }
  function badStatus(status) { return status !== 'success'; }
  function ms(value) { return value == null ? '' : value < 1000 ? Math.round(value) + ' ms' : (value / 1000).toFixed(2) + ' s'; }

  // Per test, once: its agents, servers, tools and call count, for the filters.
  var agents = {}, servers = {}, tools = {};
  function statsLabel(a) { return a.harness + (a.version ? ' ' + a.version : '') + ' · ' + a.model; }
  tests.forEach(function (t) {
    byId[t.id] = t;
    t._agents = {}; t._servers = {}; t._tools = {}; t._calls = 0;
    t._all = t.sessions.concat(t.direct || []);
    (t.stats || []).forEach(function (r) { var a = statsLabel(r.agent); t._agents[a] = 1; agents[a] = 1; });
    t._all.forEach(function (s) {
      if (s.kind !== 'direct') { var a = agentLabel(s); t._agents[a] = 1; agents[a] = 1; }
      s.turns.forEach(function (turn) {
        turn.toolCalls.forEach(function (c) {
          t._calls += 1; t._servers[c.server] = 1; servers[c.server] = 1; t._tools[c.tool] = 1; tools[c.tool] = 1;
        });
      });
    });
  });
  function haystack(t) {
    if (t._text === undefined) {
      var parts = [t.fullName, t.file, t.verdict].concat(t.failureMessages);
      t._all.forEach(function (s) {
        parts.push(s.agent, s.model, s.harness || '', s.error || '');
        s.turns.forEach(function (turn) {
          parts.push(turn.prompt, turn.reply || '', turn.error || '');
          turn.toolCalls.forEach(function (c) { parts.push(c.server, c.tool, c.arguments, c.result || '', c.error || ''); });
        });
      });
      (t.verdicts || []).forEach(function (v) { parts.push(v.criteria, v.reasoning || '', v.error ? v.error.message : ''); });
      t.sessions.forEach(function (s) { if (s.workspace) s.workspace.changes.forEach(function (f) { parts.push(f.path); }); });
      t._text = parts.join('\n').toLowerCase();
    }
    return t._text;
  }
  function fill(select, values, all) {
    var html = '<option value="">' + esc(all) + '</option>';
    Object.keys(values).sort().forEach(function (v) { html += '<option value="' + esc(v) + '">' + esc(v) + '</option>'; });
    select.innerHTML = html;
  }
  fill(el('f-agent'), agents, 'all agents');
  fill(el('f-server'), servers, 'all servers');
  fill(el('f-tool'), tools, 'all tools');

  function matches(t) {
    if (state.verdict && t.verdict !== state.verdict) return false;
    if (state.agent && !t._agents[state.agent]) return false;
    if (state.server && !t._servers[state.server]) return false;
    if (state.tool && !t._tools[state.tool]) return false;
    if (state.q && haystack(t).indexOf(state.q) < 0) return false;
    return true;
  }
  function callShown(c) {
    return (!state.server || c.server === state.server) && (!state.tool || c.tool === state.tool);
  }

  // The test list: only the rows in view exist in the page.
  var list = el('list'), inner = el('list-inner');
  function renderRows() {
    var top = list.scrollTop, height = list.clientHeight || 600;
    var first = Math.max(0, Math.floor(top / ROW) - 5);
    var last = Math.min(visible.length, Math.ceil((top + height) / ROW) + 5);
    var html = '';
    for (var i = first; i < last; i += 1) {
      var t = visible[i];
      var who = Object.keys(t._agents).join(', ') || (t.direct && t.direct.length ? 'direct client' : 'no agent');
      var sub = t.file + ' · ' + who + (t._calls ? ' · ' + t._calls + ' calls' : '');
      html += '<div class="row' + (t.id === state.selected ? ' selected' : '') + '" data-top="' + esc(i * ROW) + '" data-test-id="' + esc(t.id) + '">' +
        '<div class="name"><span class="v v-' + esc(t.verdict) + '">' + esc(t.verdict) + '</span>' + esc(t.fullName) + '</div>' +
        '<div class="sub">' + esc(sub) + '</div></div>';
    }
    inner.innerHTML = html;
    place(inner);
  }
  // Positions and widths go through the style object, never a style attribute: the page's
  // policy allows no inline style (nor inline script) but its own, by hash.
  function place(root) {
    Array.prototype.forEach.call(root.querySelectorAll('[data-top]'), function (node) {
      node.style.top = node.getAttribute('data-top') + 'px';
    });
    Array.prototype.forEach.call(root.querySelectorAll('[data-left]'), function (node) {
      node.style.left = node.getAttribute('data-left') + '%';
      node.style.width = node.getAttribute('data-width') + '%';
    });
  }
  function applyFilters() {
    visible = tests.filter(matches);
    inner.style.height = visible.length * ROW + 'px';
    el('count').textContent = visible.length + ' of ' + tests.length + ' tests';
    if (view === 'grid') { renderGrid(); return; }
    renderRows();
    if (state.selected) renderDetail(byId[state.selected]);
  }
  list.addEventListener('scroll', renderRows);
  list.addEventListener('click', function (event) {
    var row = event.target.closest('.row');
    if (row) location.hash = 'test=' + row.getAttribute('data-test-id');
  });

  function callRows(calls, turnMs, from, to) {
    var html = '';
    for (var i = from; i < to; i += 1) {
      var c = calls[i];
      var span = turnMs && turnMs > 0 ? turnMs : null;
      var left = span && c.offsetMs != null ? Math.min(100, Math.max(0, c.offsetMs / span * 100)) : 0;
      var width = span && c.latencyMs != null ? Math.min(100 - left, c.latencyMs / span * 100) : 0;
      html += '<tr class="call" data-call="' + esc(i) + '"><td>' + esc(c.id || i + 1) + '</td>' +
        '<td><div class="bar" title="' + esc(ms(c.offsetMs)) + ' after the turn began"><i data-left="' + esc(left.toFixed(1)) + '" data-width="' + esc(width.toFixed(1)) + '"></i></div></td>' +
        '<td>' + esc(c.server) + '</td><td>' + esc(c.tool) + '</td>' +
        '<td class="args">' + esc(c.arguments) + '</td>' +
        '<td class="res">' + (c.error ? '<span class="err">' + esc(c.error) + '</span>' : esc(c.result == null ? '' : c.result)) + '</td>' +
        '<td class="' + (badStatus(c.status) ? 'st-bad' : 'st-success') + '">' + esc(c.status) + '</td>' +
        '<td><span class="ev">' + esc(c.evidence) + '</span></td><td>' + esc(ms(c.latencyMs)) + '</td></tr>';
    }
    return html;
  }
  function messagesHtml(c) {
    if (!c.messages || c.messages.length === 0) return '<span class="label">No JSON-RPC messages: the agent reported this call but it was not seen on the wire.</span>';
    return c.messages.map(function (m) {
      var text = m.json;
      try { text = JSON.stringify(JSON.parse(m.json), null, 2); } catch (e) { /* clipped: shown as recorded */ }
      return '<div class="label">' + (m.direction === 'to_server' ? '→ to server' : '← from server') + ' · ' + esc(m.kind) +
        (m.afterMs ? ' · +' + esc(ms(m.afterMs)) : '') + (m.origin ? ' · answered by the wire capture (' + esc(m.origin) + ')' : '') + '</div><pre>' + esc(text) + '</pre>';
    }).join('');
  }
  function money(v) { return v < 0.01 ? v.toPrecision(2) : v.toFixed(4); }
  function costCell(c) {
    if (!c) return '-';
    if (c.unavailable != null) return '<span class="label unavailable" title="' + esc(c.unavailable) + '">unavailable: ' + esc(c.unavailable) + '</span>';
    return esc(money(c.p50)) + ' / ' + esc(money(c.p95));
  }
  function num(value) { return value == null ? '-' : String(value); }
  function tokensText(u) {
    if (!u) return 'tokens: not reported';
    return 'tokens: ' + u.inputTokens + ' in · ' + u.outputTokens + ' out · ' + u.totalTokens + ' total' +
      (u.cachedInputTokens != null ? ' · ' + u.cachedInputTokens + ' cached' : '') +
      (u.reasoningTokens != null ? ' · ' + u.reasoningTokens + ' reasoning' : '') +
      ' (' + u.source + ', ' + u.requests + ' request(s))';
  }
  function verdictHtml(v) {
    var word = v.error ? 'judge error' : v.passed ? 'pass' : 'fail';
    var cls = v.error ? 'j-error' : v.passed ? 'j-pass' : 'j-fail';
    var html = '<div class="verdict ' + cls + '"><span class="word">' + esc(word) + '</span><span class="label">judge' + (v.isNot ? ' (.not)' : '') +
      (v.trial != null ? ' · trial ' + esc(v.trial) : '') + '</span><div>criteria: <span class="criteria">' + esc(v.criteria) + '</span></div>';
    if (v.error) return html + '<div class="err">' + esc(v.error.reason + (v.error.status != null ? ' (HTTP ' + v.error.status + ')' : '') + ': ' + v.error.message) + '</div></div>';
    html += '<div class="label">score <span class="score">' + esc(v.score) + '</span>' + (v.threshold != null ? ' · threshold ' + esc(v.threshold) : '') +
      ' · judge said ' + esc(v.pass ? 'pass' : 'fail') + (v.judge ? ' · model ' + esc(v.judge.model) + ' (' + esc(v.judge.provider + ', ' + v.judge.wireApi) + ')' : '') +
      (v.latencyMs != null ? ' · ' + esc(ms(v.latencyMs)) : '') +
      (v.usage ? ' · judge tokens ' + esc(num(v.usage.inputTokens)) + ' in / ' + esc(num(v.usage.outputTokens)) + ' out' : '') + '</div>';
    return html + '<div class="label">reasoning</div><pre class="reasoning">' + esc(v.reasoning) + '</pre></div>';
  }
  function verdictsOn(s, turnNumber) {
    return (current && current.verdicts || []).filter(function (v) {
      return v.subject && v.subject.executionId === s.executionId && v.subject.turn === turnNumber;
    });
  }
  function requestsHtml(list) {
    if (!list || list.length === 0) return '';
    return '<div class="label">model requests (' + esc(list.length) + ')</div><table class="stats model-requests"><thead><tr><th>request</th><th>model</th><th>status</th><th>latency</th><th>tokens in / out</th><th>messages</th><th>tools offered (bytes)</th><th>request bytes</th><th>tool calls asked</th></tr></thead><tbody>' +
      list.map(function (r) {
        return '<tr><td>' + esc(r.id) + '</td><td>' + esc(r.model || '-') + '</td><td>' + esc(r.status == null ? 'no answer' : r.status) + (r.error ? ' <span class="err">' + esc(r.error) + '</span>' : '') +
          '</td><td>' + esc(ms(r.latencyMs)) + '</td><td>' + (r.usage ? esc(r.usage.inputTokens) + ' / ' + esc(r.usage.outputTokens) : '<span class="label">' + esc(r.usageNote || 'none') + '</span>') +
          '</td><td>' + esc(r.messages) + '</td><td>' + esc(r.tools) + ' (' + esc(r.toolBytes) + ')</td><td>' + esc(r.requestBytes) + '</td><td>' + esc(r.toolCalls.join(', ') || '-') + '</td></tr>';
      }).join('') + '</tbody></table>';
  }
  function diffLines(text) {
    return text.split('\n').map(function (line) {
      var c = line.charAt(0);
      var cls = line.indexOf('@@') === 0 ? 'hunk' : (c === '+' && line.indexOf('+++') !== 0) ? 'add' : (c === '-' && line.indexOf('---') !== 0) ? 'del' : '';
      return cls ? '<span class="' + cls + '">' + esc(line) + '</span>' : esc(line);
    }).join('\n');
  }
  function workspaceHtml(w) {
    var html = '<div class="workspace"><h4>Workspace <span class="label">' + esc(w.kind) + ' of ' + esc(w.source) + (w.ref ? ' at ' + esc(w.ref) : '') + (w.commit ? ' (' + esc(w.commit.slice(0, 12)) + ')' : '') +
      (w.kept ? ' · kept' : '') + ' · ' + esc(w.changes.length) + ' changed path(s)</span></h4>';
    if (w.error) html += '<div class="err">workspace error: ' + esc(w.error) + '</div>';
    if (w.changes.length === 0) html += '<div class="label">nothing changed</div>';
    w.changes.forEach(function (f) {
      var head = f.change + ' ' + (f.from ? f.from + ' → ' : '') + f.path + (f.type === 'symlink' ? ' (symlink)' : '') + (f.binary ? ' (binary)' : '') + (f.size != null ? ' · ' + f.size + ' bytes' : '');
      html += '<details class="file-diff"><summary>' + esc(head) + '</summary>' +
        (f.diff != null ? '<pre class="diff">' + diffLines(f.diff) + '</pre>' : '<div class="label">' + esc(f.binary ? 'binary: no text diff' : f.note || 'no text diff') + '</div>') + '</details>';
    });
    if (w.artifacts.length) html += '<div class="label">artifacts: ' + esc(w.artifacts.map(function (a) { return a.path + (a.exists ? ' (' + a.size + ' bytes)' : ' (missing)'); }).join(', ')) + '</div>';
    return html + '</div>';
  }
  function toolList(tools) { return tools.map(function (t) { return t.name + ' ' + t.bytes + ' B'; }).join(', ') || 'none'; }
  function catalogCostHtml(c) {
    return '<div class="usage catalog-cost">tool catalog cost: ' + esc(c.bytes) + ' bytes (about ' + esc(c.estimatedTokens) + ' tokens) in all' +
      c.servers.map(function (sv) {
        return '<div class="catalog-server">server ' + esc(sv.server) + ': ' + esc(sv.tools.length) + ' tool(s), ' + esc(sv.bytes) + ' bytes (about ' + esc(sv.estimatedTokens) + ' tokens)' +
          (sv.requestId ? ', first offered in ' + esc(sv.requestId) : ', never offered') + ': ' + esc(toolList(sv.tools)) + '</div>';
      }).join('') +
      '<div class="catalog-agent">the agent\'s own tools: ' + esc(c.agentTools.length) + ': ' + esc(toolList(c.agentTools)) + '</div></div>';
  }
  function turnHtml(s, si, turn, ti) {
    var calls = turn.toolCalls.filter(callShown);
    var html = s.kind === 'direct' ? '<div class="turn" id="' + esc('s' + si + 't' + turn.number) + '"><div class="label direct-messages">' + esc(turn.prompt) + '</div>' :
      '<div class="turn" id="' + esc('s' + si + 't' + turn.number) + '"><h4>Turn ' + esc(turn.number) + ' <span class="label">[' + esc(turn.outcome) + ']' + (turn.durationMs != null ? ' · ' + esc(ms(turn.durationMs)) : '') + '</span></h4>' +
      '<div class="label">prompt</div><pre class="prompt">' + esc(turn.prompt) + '</pre>' +
      '<div class="label">reply</div><pre class="reply">' + esc(turn.reply == null ? '(none)' : turn.reply) + '</pre>';
    if (turn.error) html += '<div class="err">turn error: ' + esc(turn.error) + '</div>';
    if (turn.usage !== undefined) html += '<div class="usage turn-usage">' + esc(tokensText(turn.usage)) + '</div>';
    html += requestsHtml(turn.modelRequests);
    verdictsOn(s, turn.number).forEach(function (v) { html += verdictHtml(v); });
    (turn.gaps || []).forEach(function (g) { html += '<div class="gap">evidence gap: ' + esc(g) + '</div>'; });
    var filtered = calls.length !== turn.toolCalls.length ? ' (' + esc(calls.length) + ' of ' + esc(turn.toolCalls.length) + ' shown by the filters)' : '';
    if (turn.toolCalls.length === 0) return html + '<div class="label">tool calls: none observed</div></div>';
    html += '<div class="label">tool calls' + filtered + ' · click a call for its JSON-RPC messages</div>' +
      '<table class="calls" data-session="' + esc(si) + '" data-turn="' + esc(ti) + '"><thead><tr><th>#</th><th>timeline</th><th>server</th><th>tool</th><th>arguments</th><th>result or error</th><th>status</th><th>evidence</th><th>latency</th></tr></thead><tbody>' +
      callRows(calls, turn.durationMs, 0, Math.min(PAGE, calls.length)) + '</tbody></table>';
    if (calls.length > PAGE) html += '<button class="more" data-session="' + esc(si) + '" data-turn="' + esc(ti) + '" data-shown="' + esc(PAGE) + '">show ' + esc(Math.min(PAGE, calls.length - PAGE)) + ' more of ' + esc(calls.length - PAGE) + '</button>';
    return html + '</div>';
  }
  var current = null;
  function renderDetail(t) {
    var detail = el('detail');
    current = t || null;
    if (!t) { detail.innerHTML = '<div class="empty">Choose a test.</div>'; detail.removeAttribute('data-test-id'); return; }
    detail.setAttribute('data-test-id', t.id);
    var html = '<h2><span class="v v-' + esc(t.verdict) + '">' + esc(t.verdict) + '</span>' + esc(t.fullName) + '</h2>' +
      '<div class="meta">' + esc(t.file) + (t.durationMs != null ? ' · ' + esc(ms(t.durationMs)) : '') +
      (t.trials ? ' · trials ' + esc(t.trials.passed) + '/' + esc(t.trials.total) + ' passed (' + esc(Math.round(t.trials.passed / t.trials.total * 100)) + '%)' : '') +
      ' · <a href="#test=' + esc(t.id) + '">link to this test</a></div>';
    if (t.failureMessages.length > 0) {
      html += '<h3>Failed assertion</h3>' + t.failureMessages.map(function (m) { return '<pre class="failure">' + esc(m) + '</pre>'; }).join('') +
        (t.sessions.length ? '<div class="label">The calls the message lists are in the timeline of each turn below.</div>' : '');
    }
    if (t.stats && t.stats.length) {
      var judged = t.stats.some(function (r) { return r.judgeScores; });
      html += '<h3>Per agent</h3><table class="stats"><thead><tr><th>agent</th><th>passed</th><th>pass rate (95% CI)</th><th>turn p50</th><th>turn p95</th><th>tool calls</th><th>per session p50 / max</th><th>tokens p50 / p95</th><th>cost p50 / p95</th>' + (judged ? '<th>judge mean (n)</th>' : '') + '</tr></thead><tbody>' +
        t.stats.map(function (r) {
          var pct = function (v) { return Math.round(v * 100) + '%'; };
          return '<tr class="stats-row' + (state.agent === statsLabel(r.agent) ? ' on' : '') + '"><td>' + esc(r.agent.harness + (r.agent.version ? ' ' + r.agent.version : '') + ' · ' + r.agent.model) + '</td><td>' + esc(r.trials.passed) + '/' + esc(r.trials.run) +
            '</td><td>' + esc(pct(r.trials.rate)) + ' (' + esc(pct(r.trials.interval[0])) + '–' + esc(pct(r.trials.interval[1])) + ')</td><td>' + (r.turnLatencyMs ? esc(ms(r.turnLatencyMs.p50)) : '-') +
            '</td><td>' + (r.turnLatencyMs ? esc(ms(r.turnLatencyMs.p95)) : '-') + '</td><td>' + esc(r.toolCalls.total) + '</td><td>' + esc(r.toolCalls.perSession.p50) + ' / ' + esc(r.toolCalls.perSession.max) + '</td>' +
            '<td class="tokens">' + (r.tokens ? esc(r.tokens.p50) + ' / ' + esc(r.tokens.p95) : '<span class="label">not counted</span>') + '</td>' +
            '<td class="cost">' + costCell(r.cost) + '</td>' +
            (judged ? '<td class="judge-mean">' + (r.judgeScores ? esc(r.judgeScores.mean) + ' (' + esc(r.judgeScores.n) + ')' : '-') + '</td>' : '') + '</tr>';
        }).join('') + '</tbody></table>';
    }
    var ids = {};
    t.sessions.forEach(function (s) { ids[s.executionId] = 1; });
    var loose = (t.verdicts || []).filter(function (v) { return !v.subject || !ids[v.subject.executionId]; });
    if (loose.length) html += '<h3>Judge verdicts</h3>' + loose.map(verdictHtml).join('');
    if (t.sessions.length === 0 && !(t.direct && t.direct.length)) html += '<p class="label">This test ran no agent sessions.</p>';
    var others = state.agent ? t.sessions.filter(function (s) { return agentLabel(s) !== state.agent; }).length : 0;
    if (others) html += '<p class="label agent-only">The sessions on ' + esc(state.agent) + ' only: ' + esc(others) + ' session(s) on other agents hidden by the agent filter.</p>';
    t.sessions.forEach(function (s, si) {
      if (state.agent && agentLabel(s) !== state.agent) return;
      var count = s.turns.reduce(function (n, turn) { return n + turn.toolCalls.length; }, 0);
      var tr = s.trialOf, trialText = tr ? 'trial ' + tr.trial + ' of ' + tr.of + (tr.passed === false ? ' · failed' : tr.passed ? ' · passed' : '') : '';
      html += '<div class="session' + (tr && tr.passed === false ? ' trial-failed' : '') + '"><h3>' + esc(s.agent) +
        (tr ? ' <span class="trial ' + (tr.passed === false ? 't-fail' : tr.passed ? 't-pass' : '') + '">' + esc(trialText) + '</span>' : '') + '</h3><div class="meta agent">harness ' + esc(s.harness || s.agent) + (s.version ? ' ' + esc(s.version) : '') + ' · model ' + esc(s.model) +
        (s.provider ? ' · provider <span class="provider">' + esc(s.provider.name + ' (' + s.provider.dialect + ', ' + s.provider.baseUrl + ')') + '</span>' : '') + ' · session ' + esc(s.sessionId || '(never opened)') + ' · outcome ' + esc(s.outcome) + ' · ' + esc(count) + ' calls' + (s.durationMs != null ? ' · ' + esc(ms(s.durationMs)) : '') + '</div>';
      if (s.error) html += '<div class="err">session error: ' + esc(s.error) + '</div>';
      s.gaps.forEach(function (g) { html += '<div class="gap">evidence gap: ' + esc(g) + '</div>'; });
      if (s.outsideTurns) html += '<div class="label">' + esc(s.outsideTurns) + ' call(s) outside any turn</div>';
      if (s.usage !== undefined) html += '<div class="usage session-usage">session ' + esc(tokensText(s.usage)) + (s.modelRequestCount != null ? ' · ' + esc(s.modelRequestCount) + ' model request(s)' : '') +
        (s.cost != null ? ' · <span class="session-cost">cost ' + esc(money(s.cost)) + '</span>' : s.costNote ? ' · <span class="session-cost">cost unavailable: ' + esc(s.costNote) + '</span>' : '') + '</div>';
      if (s.catalogCost) html += catalogCostHtml(s.catalogCost);
      verdictsOn(s, null).forEach(function (v) { html += verdictHtml(v); });
      if (s.workspace) html += workspaceHtml(s.workspace);
      s.turns.forEach(function (turn, ti) { html += turnHtml(s, si, turn, ti); });
      html += '</div>';
    });
    (t.direct || []).forEach(function (d, di) {
      var si = t.sessions.length + di, turn = d.turns[0], count = turn ? turn.toolCalls.length : 0;
      html += '<div class="session direct"><h3>direct client · ' + esc(d.model) + '</h3>' +
        '<div class="meta">no agent: the test called the server itself (kit.direct) · ' + esc(count) + ' calls' + (d.durationMs != null ? ' · ' + esc(ms(d.durationMs)) : '') + '</div>';
      d.gaps.forEach(function (g) { html += '<div class="gap">evidence gap: ' + esc(g) + '</div>'; });
      if (turn) html += turnHtml(d, si, turn, 0);
      html += '</div>';
    });
    detail.innerHTML = html;
    place(detail);
  }
  el('detail').addEventListener('click', function (event) {
    if (!current) return;
    var more = event.target.closest('button.more');
    if (more) {
      var si = +more.getAttribute('data-session'), ti = +more.getAttribute('data-turn'), shown = +more.getAttribute('data-shown');
      var turn = current._all[si].turns[ti], calls = turn.toolCalls.filter(callShown);
      var next = Math.min(calls.length, shown + PAGE);
      var body = el('detail').querySelector('table.calls[data-session="' + si + '"][data-turn="' + ti + '"] tbody');
      body.insertAdjacentHTML('beforeend', callRows(calls, turn.durationMs, shown, next));
      place(body);
      if (next >= calls.length) more.remove();
      else { more.setAttribute('data-shown', next); more.textContent = 'show ' + Math.min(PAGE, calls.length - next) + ' more of ' + (calls.length - next); }
      return;
    }
    var row = event.target.closest('tr.call');
    if (!row) return;
    if (row.nextElementSibling && row.nextElementSibling.classList.contains('messages')) { row.nextElementSibling.remove(); return; }
    var table = row.closest('table.calls');
    var t2 = current._all[+table.getAttribute('data-session')].turns[+table.getAttribute('data-turn')];
    var call = t2.toolCalls.filter(callShown)[+row.getAttribute('data-call')];
    row.insertAdjacentHTML('afterend', '<tr class="messages"><td colspan="9">' + messagesHtml(call) + '</td></tr>');
  });

  function fromHash() {
    var match = /test=([^&]+)/.exec(location.hash);
    var id = match ? decodeURIComponent(match[1]) : null;
    var onAgent = /[#&]agent=([^&]+)/.exec(location.hash);
    var agent = onAgent ? decodeURIComponent(onAgent[1]) : null;
    if (id && byId[id]) {
      state.selected = id;
      if (agent !== null && agents[agent] && state.agent !== agent) {
        state.agent = agent; el('f-agent').value = agent; applyFilters();
      }
      if (visible.indexOf(byId[id]) < 0) { // a deep link to a test the filters hide: clear them
        state.verdict = state.server = state.tool = state.q = '';
        if (!byId[id]._agents[state.agent]) state.agent = '';
        ['f-verdict', 'f-server', 'f-tool', 'f-search'].forEach(function (f) { el(f).value = ''; });
        el('f-agent').value = state.agent;
        applyFilters();
      }
      var index = visible.indexOf(byId[id]);
      if (index >= 0 && (index * ROW < list.scrollTop || index * ROW > list.scrollTop + list.clientHeight - ROW)) list.scrollTop = index * ROW;
      renderRows();
      renderDetail(byId[id]);
    }
  }
  window.addEventListener('hashchange', route);
  [['f-verdict', 'verdict'], ['f-agent', 'agent'], ['f-server', 'server'], ['f-tool', 'tool']].forEach(function (pair) {
    el(pair[0]).addEventListener('change', function (event) { state[pair[1]] = event.target.value; applyFilters(); });
  });
  var timer = null;
  el('f-search').addEventListener('input', function (event) {
    clearTimeout(timer);
    var value = event.target.value.trim().toLowerCase();
    timer = setTimeout(function () { state.q = value; applyFilters(); }, 120);
  });

  // The grid: rows are tests (grouped by file and describe block), columns agents; each cell
  // the test's trials passed on that agent with the Wilson 95% interval of its pass rate. Below
  // it, a row per server and tool: per agent, the calls that succeeded of those it made.
  var agentList = Object.keys(agents).sort();
  var toolRows = (function () {
    var rows = {};
    function row(server, tool) {
      var key = JSON.stringify([server, tool]);
      if (!rows[key]) rows[key] = { server: server, tool: tool, listed: false, cells: {} };
      return rows[key];
    }
    tests.forEach(function (t) {
      t.sessions.forEach(function (s) {
        var a = agentLabel(s);
        (s.catalogs || []).forEach(function (c) { c.tools.forEach(function (tool) { row(c.server, tool.name).listed = true; }); });
        s.turns.forEach(function (turn) {
          turn.toolCalls.forEach(function (c) {
            var r = row(c.server, c.tool), cell = r.cells[a] || (r.cells[a] = { calls: 0, ok: 0 });
            cell.calls += 1; if (c.status === 'success') cell.ok += 1;
          });
        });
      });
    });
    return Object.keys(rows).map(function (k) { return rows[k]; }).sort(function (x, y) {
      return x.server < y.server ? -1 : x.server > y.server ? 1 : x.tool < y.tool ? -1 : x.tool > y.tool ? 1 : 0;
    });
  })();
  // What each server's tool catalog costs in each agent's context (the sessions' catalogCost):
  // per server and agent, the median bytes and estimated tokens over the sessions that measured it.
  var catalogRows = (function () {
    var rows = {};
    tests.forEach(function (t) {
      t.sessions.forEach(function (s) {
        if (!s.catalogCost) return;
        var a = agentLabel(s);
        s.catalogCost.servers.forEach(function (sv) {
          if (!sv.requestId) return;
          var row = rows[sv.server] || (rows[sv.server] = { server: sv.server, cells: {} });
          (row.cells[a] || (row.cells[a] = [])).push(sv);
        });
      });
    });
    return Object.keys(rows).sort().map(function (k) { return rows[k]; });
  })();
  function median(list, key) {
    var values = list.map(function (x) { return x[key]; }).sort(function (x, y) { return x - y; });
    return values[Math.max(0, Math.ceil(values.length / 2) - 1)];
  }
  function pct(v) { return Math.round(v * 100) + '%'; }
  // describeAgents' ' [<agent>]' after its name is left out: the same test on every agent is one row.
  function describeOf(t) {
    if (t._describe !== undefined) return t._describe;
    var end = t.fullName.length - t.title.length;
    var blocks = end > 0 && t.fullName.slice(end) === t.title ? t.fullName.slice(0, end).trim() : '';
    var agent = / \[([^\]]*)\]$/.exec(blocks), harnesses = [];
    (t.stats || []).forEach(function (r) { harnesses.push(r.agent.harness); });
    t.sessions.forEach(function (s) { harnesses.push(s.harness || s.agent); });
    if (agent && harnesses.some(function (h) { return agent[1].indexOf(h + ' ') === 0; })) blocks = blocks.slice(0, agent.index);
    t._describe = blocks;
    return blocks;
  }
  function testOn(row, a) {
    for (var i = 0; i < row.tests.length; i += 1) if (row.tests[i]._agents[a]) return row.tests[i];
    return row.tests[0];
  }
  function gridCell(row, a) {
    var t = testOn(row, a), r = null;
    (t.stats || []).forEach(function (s) { if (statsLabel(s.agent) === a) r = s; });
    var link = ' data-test-id="' + esc(t.id) + '" data-agent="' + esc(a) + '"';
    if (!r) {
      if (!t._agents[a]) return '<td class="cell c-none"' + link + ' title="did not run on this agent">·</td>';
      return '<td class="cell c-' + esc(t.verdict) + '"' + link + '>' + esc(t.verdict) + '</td>';
    }
    var tr = r.trials, outcome = tr.passed === tr.run ? 'passed' : tr.passed === 0 ? 'failed' : 'partial';
    var ci = esc(pct(tr.interval[0])) + '–' + esc(pct(tr.interval[1]));
    return '<td class="cell c-' + outcome + '"' + link + ' title="' + esc(tr.passed + ' of ' + tr.run + ' passed on ' + a + ', ' + pct(tr.rate) + ', Wilson 95% interval ') + ci + '">' +
      esc(tr.passed) + '/' + esc(tr.run) + (tr.run > 1 ? ' ' + esc(pct(tr.rate)) + '<span class="ci">' + ci + '</span>' : '') + '</td>';
  }
  var WEIGHT = { failed: 0, passed: 1, todo: 2, skipped: 3 };
  function gridRowsOf(tests) {
    var rows = [], byKey = {};
    tests.forEach(function (t) {
      var key = JSON.stringify([t.file, describeOf(t), t.title]);
      var row = byKey[key];
      if (!row) { row = byKey[key] = { key: key, tests: [], verdict: t.verdict }; rows.push(row); }
      row.tests.push(t);
      if ((WEIGHT[t.verdict] || 0) < (WEIGHT[row.verdict] || 0)) row.verdict = t.verdict;
    });
    return rows;
  }
  function renderGrid() {
    var started = performance.now();
    var cols = state.agent ? [state.agent] : agentList;
    var head = '<tr><th class="name">test</th><th>verdict</th>' + cols.map(function (a) { return '<th>' + esc(a) + '</th>'; }).join('') + '</tr>';
    var html = '<table class="grid" id="grid-tests"><thead>' + head + '</thead><tbody>';
    var group = null, width = cols.length + 2;
    gridRowsOf(visible).forEach(function (row) {
      var t = row.tests[0];
      var g = t.file + (describeOf(t) ? ' › ' + describeOf(t) : '');
      if (g !== group) { group = g; html += '<tr class="group"><th colspan="' + esc(width) + '">' + esc(g) + '</th></tr>'; }
      html += '<tr class="test-row" data-test-id="' + esc(t.id) + '"><th class="name" title="' + esc(describeOf(t) ? describeOf(t) + ' ' + t.title : t.title) + '">' + esc(t.title) + '</th><td><span class="v v-' + esc(row.verdict) + '">' + esc(row.verdict) + '</span></td>' +
        cols.map(function (a) { return gridCell(row, a); }).join('') + '</tr>';
    });
    html += '</tbody></table>';
    var shownTools = toolRows.filter(function (r) { return (!state.server || r.server === state.server) && (!state.tool || r.tool === state.tool); });
    if (shownTools.length) {
      html += '<div class="grid-note">Server × tool (each tool a server listed or an agent called): per agent, the calls that succeeded of the calls made (· none made). Click a cell for those tests on that agent.</div>' +
        '<table class="grid" id="grid-tools"><thead><tr><th class="name">server:tool</th>' + cols.map(function (a) { return '<th>' + esc(a) + '</th>'; }).join('') + '</tr></thead><tbody>' +
        shownTools.map(function (r) {
          return '<tr class="tool-row"><th class="name">' + esc(r.server + ':' + r.tool) + '</th>' + cols.map(function (a) {
            var c = r.cells[a];
            var attrs = ' data-server="' + esc(r.server) + '" data-tool="' + esc(r.tool) + '" data-agent="' + esc(a) + '"';
            if (!c) return '<td class="cell c-none"' + attrs + '>·</td>';
            return '<td class="cell ' + (c.ok > 0 ? 'c-passed' : 'c-failed') + '"' + attrs + ' title="' + esc(c.ok + ' of ' + c.calls + ' call(s) succeeded on ' + a) + '">' + (c.ok > 0 ? '✓ ' : '✗ ') + esc(c.ok) + '/' + esc(c.calls) + '</td>';
          }).join('') + '</tr>';
        }).join('') + '</tbody></table>';
    }
    var shownCatalogs = catalogRows.filter(function (r) { return !state.server || r.server === state.server; });
    if (shownCatalogs.length) {
      html += '<div class="grid-note">Tool catalog context cost: per server and agent, the bytes of the tool definitions the agent sent its model for that server (about bytes / 4 tokens), the median over its sessions (n).</div>' +
        '<table class="grid" id="grid-catalogs"><thead><tr><th class="name">server</th>' + cols.map(function (a) { return '<th>' + esc(a) + '</th>'; }).join('') + '</tr></thead><tbody>' +
        shownCatalogs.map(function (r) {
          return '<tr class="catalog-row"><th class="name">' + esc(r.server) + '</th>' + cols.map(function (a) {
            var list = r.cells[a];
            if (!list) return '<td class="cell c-none" title="not measured on this agent">·</td>';
            return '<td class="catalog-cell" data-server="' + esc(r.server) + '" data-agent="' + esc(a) + '">' + esc(median(list, 'bytes')) + ' B · ~' + esc(median(list, 'estimatedTokens')) + ' tok <span class="ci">(' + esc(list.length) + ')</span></td>';
          }).join('') + '</tr>';
        }).join('') + '</tbody></table>';
    }
    html += '<div class="grid-note">Cells: trials passed / run on that agent; with more than one trial, the pass rate and its Wilson 95% interval. Click a cell to open that test on that agent.</div>';
    el('grid').innerHTML = html;
    gridMs = performance.now() - started;
  }
  var view = 'list', gridMs = null;
  function showView(next) {
    view = next;
    el('grid').hidden = next !== 'grid';
    document.querySelector('main').hidden = next === 'grid';
    el('tab-grid').className = next === 'grid' ? 'on' : '';
    el('tab-list').className = next === 'grid' ? '' : 'on';
  }
  el('grid').addEventListener('click', function (event) {
    var cell = event.target.closest('td.cell');
    if (!cell) return;
    var agent = cell.getAttribute('data-agent');
    if (cell.hasAttribute('data-server')) {
      state.server = cell.getAttribute('data-server'); state.tool = cell.getAttribute('data-tool'); state.agent = agent;
      el('f-server').value = state.server; el('f-tool').value = state.tool; el('f-agent').value = agent;
      location.hash = 'tests';
      return;
    }
    location.hash = 'test=' + cell.getAttribute('data-test-id') + '&agent=' + encodeURIComponent(agent);
  });
  function route() {
    if (/^#grid/.test(location.hash)) { showView('grid'); applyFilters(); return; }
    var was = view;
    showView('list');
    if (was === 'grid') applyFilters();
    if (/test=/.test(location.hash)) fromHash();
  }

  showView(/^#grid/.test(location.hash) ? 'grid' : 'list');
  applyFilters();
  if (/test=/.test(location.hash)) fromHash();
  else if (view === 'list') {
    var first = visible.filter(function (t) { return t.verdict === 'failed'; })[0] || visible[0];
    if (first) { state.selected = first.id; renderRows(); renderDetail(first); }
  }
  window.m3Report = { ready: true, parseMs: parsed - started, renderMs: performance.now() - parsed,
    gridMs: function () { return gridMs; }, view: function () { return view; },
    filter: function (next) { Object.keys(next).forEach(function (k) { state[k] = next[k]; }); applyFilters(); return visible.length; } };
})();
`;
