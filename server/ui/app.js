// byref run inspector: lists runs, follows one run's events live, answers
// what it awaits, cancels it, follows it up and shows its replay code.
// Plain JavaScript, no build step. Every text from the server goes into
// the page through textContent (never innerHTML).
'use strict';
(() => {
  const $ = (sel) => document.querySelector(sel);
  const TOKEN_KEY = 'byref.inspector.token';
  const SYMBOL = { created: '○', running: '▶', awaiting: '‖', completed: '✓', failed: '✗', cancelling: '⊘', canceled: '⊘' };
  const API = '/ui/api/runs';

  // el builds an element: attributes (class, text, on<event>, others) and
  // children (nodes or strings, which become text).
  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === 'class') n.className = v;
      else if (k === 'text') n.textContent = v;
      else if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
      else n.setAttribute(k, v === true ? '' : v);
    }
    for (const k of kids.flat()) {
      if (k == null || k === false) continue;
      n.append(k instanceof Node ? k : String(k));
    }
    return n;
  }
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const runURL = (id, tail = '') => `${API}/${encodeURIComponent(id)}${tail}`;

  // ---- Authentication: a token kept in sessionStorage, sent as a header.

  class AuthError extends Error {}
  let authed = false;

  async function api(path, opts = {}) {
    const headers = Object.assign({}, opts.headers);
    const tok = sessionStorage.getItem(TOKEN_KEY);
    if (tok) headers.Authorization = 'Bearer ' + tok;
    let body;
    if (opts.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    const resp = await fetch(path, { method: opts.method || 'GET', headers, body, signal: opts.signal, cache: 'no-store' });
    if (resp.status === 401) {
      needToken(tok ? 'The server refused that token. Enter it again.' : '');
      throw new AuthError('a token is needed');
    }
    if (!resp.ok) {
      let msg = `${resp.status} ${resp.statusText}`;
      try { const e = await resp.json(); if (e && e.message) msg = e.message; } catch (_) { /* not JSON */ }
      throw new Error(msg);
    }
    authed = true;
    $('#forget').hidden = !tok;
    return resp;
  }
  const getJSON = async (path, opts) => (await api(path, opts)).json();

  function needToken(msg) {
    authed = false;
    stopStream();
    $('#layout').hidden = true;
    $('#auth').hidden = false;
    $('#auth-error').textContent = msg || '';
    $('#token').focus();
  }

  $('#auth-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const v = $('#token').value.trim();
    if (!v) return;
    sessionStorage.setItem(TOKEN_KEY, v);
    $('#token').value = '';
    $('#auth').hidden = true;
    start();
  });
  $('#forget').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    $('#forget').hidden = true;
    needToken('');
  });

  // ---- Formatting.

  function statusBadge(st, reason) {
    return el('span', { class: 'status', 'data-status': st, title: reason || null }, `${SYMBOL[st] || '•'} ${st || 'unknown'}`);
  }
  function fmtTime(iso) {
    if (!iso) return '';
    const d = new Date(iso);
    if (isNaN(d)) return iso;
    const today = new Date().toDateString() === d.toDateString();
    return today ? d.toLocaleTimeString() : d.toLocaleString();
  }
  function fmtAgo(iso) {
    const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
    if (!isFinite(s)) return '';
    if (s < 5) return 'just now';
    if (s < 60) return `${s} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
    return new Date(iso).toLocaleDateString();
  }
  function fmtDur(ns) {
    if (ns == null) return '';
    if (ns < 1e6) return `${Math.round(ns / 1e3)} µs`;
    if (ns < 1e9) return `${Math.round(ns / 1e6)} ms`;
    return `${(ns / 1e9).toFixed(ns < 1e10 ? 2 : 1)} s`;
  }
  function pretty(s) {
    if (s == null || s === '') return '';
    try { return JSON.stringify(typeof s === 'string' ? JSON.parse(s) : s, null, 2); } catch (_) { return String(s); }
  }
  function tagList(tags) {
    return Object.entries(tags || {}).sort().map(([k, v]) => el('span', { class: 'tag' }, `${k}=${v}`));
  }
  const short = (id) => (id && id.length > 16 ? id.slice(0, 8) + '…' + id.slice(-6) : id || '');

  // ---- The list of runs.

  const list = { status: '', tag: '', runs: [], next: '', seq: 0 };

  async function loadRuns(more) {
    const p = new URLSearchParams();
    if (list.status) p.set('status', list.status);
    if (list.tag) p.append('tag', list.tag);
    if (more) p.set('cursor', list.next);
    else p.set('limit', String(Math.min(1000, Math.max(50, list.runs.length))));
    const seq = ++list.seq;
    try {
      const r = await getJSON(`${API}?${p}`);
      if (seq !== list.seq) return; // a newer listing is on its way
      list.runs = more ? list.runs.concat(r.runs) : r.runs;
      list.next = r.next;
      renderRuns();
    } catch (e) {
      if (!(e instanceof AuthError) && seq === list.seq) $('#list-msg').textContent = `Could not list the runs: ${e.message}`;
    }
  }

  function renderRuns() {
    const rows = list.runs.map((s) => el('tr', {
      'data-run-id': s.id, 'data-status': s.status,
      'aria-current': cur.id === s.id ? 'true' : null,
      onclick: (ev) => { if (ev.target.tagName !== 'A') location.hash = '#/runs/' + encodeURIComponent(s.id); },
    },
    el('td', { 'data-label': 'Status' }, statusBadge(s.status, s.reason)),
    el('td', { 'data-label': 'Name' }, el('a', { href: '#/runs/' + encodeURIComponent(s.id) }, s.name || '(unnamed)'), ' ',
      el('span', { class: 'id muted', title: s.id }, short(s.id))),
    el('td', { 'data-label': 'Tags' }, tagList(s.tags)),
    el('td', { 'data-label': 'Session' }, el('span', { class: 'id', title: s.session || '' }, short(s.session) || '—')),
    el('td', { 'data-label': 'Updated' }, el('time', { datetime: s.updated_at, title: fmtTime(s.updated_at) }, fmtAgo(s.updated_at)))));
    $('#runs tbody').replaceChildren(...rows);
    const filtered = list.status || list.tag;
    $('#list-msg').textContent = list.runs.length === 0
      ? (filtered ? 'No run matches these filters.' : 'No runs yet.')
      : `${list.runs.length} run${list.runs.length === 1 ? '' : 's'}${filtered ? ' matching' : ''}${list.next ? ' (more below)' : ''}`;
    $('#more').hidden = !list.next;
    const tags = new Set();
    for (const s of list.runs) for (const [k, v] of Object.entries(s.tags || {})) tags.add(`${k}=${v}`);
    $('#tag-list').replaceChildren(...[...tags].sort().map((t) => el('option', { value: t })));
  }

  $('#filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    list.status = $('#f-status').value;
    list.tag = $('#f-tag').value.trim();
    list.runs = [];
    loadRuns(false);
  });
  $('#f-status').addEventListener('change', () => $('#filters').requestSubmit());
  $('#f-clear').addEventListener('click', () => {
    $('#f-status').value = '';
    $('#f-tag').value = '';
    $('#filters').requestSubmit();
  });
  $('#more').addEventListener('click', () => loadRuns(true));

  // ---- One run: its snapshot (header, await, result) and its events.

  let cur = newRun(null);
  function newRun(id) {
    return { id, view: null, lastSeq: 0, abort: null, streaming: false, calls: new Map(), vars: new Map(), setters: new Map(), live: new Map(), awaitKey: '', refresh: null, session: '' };
  }

  function openRun(id) {
    stopStream();
    cur = newRun(id);
    $('#events').replaceChildren();
    $('#vars').replaceChildren();
    $('#vars-empty').hidden = false;
    $('#session').hidden = true;
    $('#session-vars').replaceChildren();
    $('#notice').textContent = '';
    $('#await').hidden = true;
    $('#await').replaceChildren();
    $('#result').hidden = true;
    $('#followup').hidden = true;
    $('#replay-code').hidden = true;
    $('#replay-code').textContent = '';
    $('#run-name').textContent = 'Loading…';
    $('#run-status').replaceChildren();
    $('#run-facts').replaceChildren();
    $('#run-why').textContent = '';
    resetCancel();
    refreshView().then(() => { if (cur.id === id) startStream(); });
  }

  async function refreshView() {
    const id = cur.id;
    try {
      const v = await getJSON(runURL(id));
      if (cur.id !== id) return;
      cur.view = v;
      renderView();
    } catch (e) {
      if (!(e instanceof AuthError) && cur.id === id) {
        $('#run-name').textContent = 'Run not available';
        $('#notice').textContent = e.message;
      }
    }
  }
  function scheduleRefresh() {
    clearTimeout(cur.refresh);
    cur.refresh = setTimeout(refreshView, 100);
  }

  function renderView() {
    const v = cur.view;
    const s = v.snapshot;
    $('#run-name').textContent = s.name || '(unnamed run)';
    $('#run-status').replaceChildren(statusBadge(s.status, s.failure_reason));
    $('#run-phase').textContent = s.phase && s.status === 'running' ? `phase: ${s.phase}` : '';
    const facts = [
      ['Run ID', el('span', { class: 'id' }, s.run)],
      ['Session', s.session ? el('span', { class: 'id' }, s.session) : '—'],
      s.parent_run ? ['Parent run', el('a', { href: '#/runs/' + encodeURIComponent(s.parent_run) }, s.parent_run)] : null,
      ['Tags', Object.keys(s.tags || {}).length ? tagList(s.tags) : '—'],
      ['Created', fmtTime(s.created_at)],
      ['Updated', fmtTime(s.updated_at)],
      ['Steps', String(s.step || 0)],
      ['Tokens', tokens(s.usage)],
      s.compactions ? ['Context', `compacted ${s.compactions} time${s.compactions > 1 ? 's' : ''}`] : null,
      s.options && s.options.model ? ['Model', s.options.model] : null,
      s.options && s.options.approval ? ['Approval', s.options.approval] : null,
      s.failure_reason ? ['Failed because', el('span', { class: 'error' }, s.failure_reason)] : null,
      s.failure_kind ? ['Failure kind', s.failure_kind] : null,
      s.refusal ? ['Refusal', el('span', { class: 'error' }, s.refusal)] : null,
      s.last_error ? ['Last error', s.last_error] : null,
    ].filter(Boolean);
    $('#run-facts').replaceChildren(...facts.flatMap(([k, val]) => [el('dt', {}, k), el('dd', {}, val)]));
    $('#run-why').textContent = v.can.why || '';
    if (!$('#cancel-confirm').hidden && !v.can.cancel) resetCancel();
    if ($('#cancel-confirm').hidden) $('#cancel').hidden = !v.can.cancel;
    $('#followup').hidden = !v.can.follow_up;
    if (s.result !== undefined && s.result !== null) {
      $('#result').hidden = false;
      $('#result-value').textContent = typeof s.result === 'string' ? s.result : pretty(s.result);
    } else {
      $('#result').hidden = true;
    }
    renderAwait();
    markSelected();
    // Again when the run's status changes: an ended turn left variables.
    if (s.session && cur.session !== s.session + ' ' + s.status) loadSession(s.session, s.status);
    const row = list.runs.find((r) => r.id === s.run);
    if (row && row.status !== s.status) { row.status = s.status; renderRuns(); }
  }

  // ---- The event stream: fetch with the token header, read as SSE.

  function stopStream() {
    if (cur.abort) cur.abort.abort();
    cur.abort = null;
    cur.streaming = false;
  }

  async function startStream() {
    if (cur.streaming) return;
    const id = cur.id;
    const ctl = new AbortController();
    cur.abort = ctl;
    cur.streaming = true;
    $('#live').textContent = '(live)';
    let failures = 0;
    while (cur.id === id && !ctl.signal.aborted) {
      try {
        const resp = await api(runURL(id, `/events?from=${cur.lastSeq + 1}`), { signal: ctl.signal, headers: { Accept: 'text/event-stream' } });
        const end = await readSSE(resp.body, (type, data) => {
          if (type === 'message') { onEvent(JSON.parse(data)); failures = 0; }
          if (type === 'error') $('#notice').textContent = `The event stream failed: ${JSON.parse(data).message}`;
        });
        if (end) {
          if (cur.id === id) {
            cur.streaming = false;
            $('#live').textContent = '';
            scheduleRefresh();
          }
          return;
        }
      } catch (e) {
        if (ctl.signal.aborted || e instanceof AuthError || cur.id !== id) return;
        failures++;
      }
      $('#live').textContent = '(reconnecting…)';
      await sleep(Math.min(5000, 300 * 2 ** Math.min(failures, 4)));
      if (cur.id === id && !ctl.signal.aborted) $('#live').textContent = '(live)';
    }
  }

  // readSSE reads server-sent events from a byte stream, calling on(type,
  // data) for each; it returns true after an "end" event, false when the
  // stream closes without one.
  async function readSSE(body, on) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      buf += value.replace(/\r\n?/g, '\n');
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let type = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const c = line.indexOf(':');
          const field = c < 0 ? line : line.slice(0, c);
          const val = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
          if (field === 'event') type = val;
          else if (field === 'data') data.push(val);
        }
        if (data.length === 0) continue;
        if (type === 'end') { reader.cancel().catch(() => {}); return true; }
        on(type, data.join('\n'));
      }
    }
  }

  // ---- Events into the timeline and the variables.

  const MAJOR_REFRESH = new Set(['status_changed', 'await_requested', 'await_resolved', 'result', 'run_created']);

  function onEvent(e) {
    if (e.type === 'delta') { onDelta(e); return; }
    if (e.seq <= cur.lastSeq) return;
    cur.lastSeq = e.seq;
    settleLive(e);
    const li = render(e);
    if (li) $('#events').append(li);
    if (MAJOR_REFRESH.has(e.type)) {
      if (e.type === 'status_changed' && cur.view) {
        cur.view.snapshot.status = e.data.to;
        $('#run-status').replaceChildren(statusBadge(e.data.to, e.data.reason));
      }
      if (e.type === 'result' && e.data.value != null) {
        $('#result').hidden = false;
        $('#result-value').textContent = typeof e.data.value === 'string' ? e.data.value : pretty(e.data.value);
      }
      scheduleRefresh();
    }
  }

  // ---- Live deltas: the model's text, a call's arguments and a snippet's
  // output as they are written, in entries of their own that the logged
  // event replaces when it comes (the log has them whole).

  function liveKey(d) {
    if (d.kind === 'text' || d.kind === 'reasoning') return `${d.kind}-${d.step}`;
    return `${d.kind}-${d.step}-${d.call_id || ''}`;
  }

  function onDelta(e) {
    const d = e.data || {};
    const key = liveKey(d);
    let live = cur.live.get(key);
    if (!live) {
      const what = { text: 'Assistant (writing…)', reasoning: 'Reasoning (writing…)', tool_call: `Tool call ${d.name || ''} (forming…)`, output: 'Output (running…)' }[d.kind] || d.kind;
      const pre = el('pre', { class: 'live-text' });
      const li = el('li', { class: `k-live k-${d.kind === 'tool_call' ? 'tool' : d.kind === 'output' ? 'snippet' : 'assistant'}`, 'data-type': 'delta', 'data-live': key },
        el('div', { class: 'ev-head' }, el('span', { class: 'what' }, what), el('span', { class: 'muted' }, `step ${d.step}`)), pre);
      $('#events').append(li);
      live = { li, pre, step: d.step, kind: d.kind };
      cur.live.set(key, live);
    }
    live.pre.textContent += d.text;
  }

  // settleLive removes the live entries the logged event completes.
  function settleLive(e) {
    const d = e.data || {};
    const done = { assistant_message: ['text', 'reasoning'], tool_call_scheduled: ['tool_call'], snippet_executed: ['output'], tool_call_completed: ['output'] }[e.type];
    const ended = e.type === 'status_changed' && ['awaiting', 'completed', 'failed', 'canceled'].includes(d.to);
    for (const [key, live] of cur.live) {
      if (ended || (done && done.includes(live.kind) && (!d.step || live.step <= d.step))) {
        live.li.remove();
        cur.live.delete(key);
      }
    }
  }

  function item(kind, what, e, ...body) {
    const step = e.data && e.data.step ? el('span', { class: 'muted' }, `step ${e.data.step}`) : null;
    const head = el('div', { class: 'ev-head' }, el('span', { class: 'what' }, what), step,
      el('time', { class: 'when', datetime: e.time, title: `event ${e.seq}` }, `#${e.seq} ${fmtTime(e.time)}`));
    const fresh = Date.now() - new Date(e.time).getTime() < 3000; // flash only what just happened
    return el('li', { class: `k-${kind}${fresh ? ' new' : ''}`, 'data-type': e.type, 'data-seq': String(e.seq) }, head, ...body);
  }
  const minor = (li) => { li.classList.add('minor'); return li; };
  // tokens writes a usage: input (with what the prompt cache read and
  // wrote, when it did), output (with the reasoning part, when the
  // provider counted it) and the cost the provider reported, if any.
  function tokens(u) {
    const cache = u.cache_read_tokens || u.cache_write_tokens
      ? ` (${u.cache_read_tokens || 0} read from the prompt cache, ${u.cache_write_tokens || 0} written)` : '';
    const reasoning = u.reasoning_tokens ? ` (${u.reasoning_tokens} reasoning)` : '';
    const cost = u.cost ? `, $${+u.cost.toPrecision(6)} reported by the provider` : '';
    return `${u.input_tokens} in${cache}, ${u.output_tokens} out${reasoning}${cost}`;
  }
  const block = (label, text, cls) => (text ? el('div', {}, el('div', { class: 'muted small' }, label), el('pre', { class: cls || null }, text)) : null);
  const names = (label, infos) => (infos && infos.length ? el('div', { class: 'small' }, `${label}: `, infos.map((v) => v.name).join(', ')) : null);

  function refsTable(refs) {
    const keys = Object.keys(refs || {}).sort();
    if (!keys.length) return null;
    return el('table', { class: 'refs' },
      el('thead', {}, el('tr', {}, el('th', {}, 'parameter'), el('th', {}, 'reference'), el('th', {}, 'type'), el('th', {}, 'preview'))),
      el('tbody', {}, keys.map((k) => { const r = refs[k]; return el('tr', {}, el('td', {}, k), el('td', { class: 'id' }, `<<var:${r.variable}>>`), el('td', { class: 'id' }, r.type), el('td', { class: 'var-preview' }, r.preview || '')); })));
  }

  function answerText(a) {
    if (a.decision === 'approved') return a.arguments ? `approved, with the arguments ${a.arguments}` : 'approved';
    if (a.decision === 'denied') return a.reason ? `denied: ${a.reason}` : 'denied';
    if (a.text) return a.text;
    if (a.input) return `input ${JSON.stringify(a.input)}`;
    return JSON.stringify(a);
  }

  function render(e) {
    const d = e.data || {};
    switch (e.type) {
      case 'run_created':
        return item('run', 'Run created', e, el('div', { class: 'small' }, d.name || '', d.options && d.options.model ? ` · model ${d.options.model}` : ''),
          d.input ? block('input', pretty(d.input)) : null);
      case 'status_changed': {
        const li = item('status', `Status ${d.from} → ${d.to}`, e, d.reason ? el('div', { class: 'small' }, d.reason) : null);
        if (d.to === 'failed') li.classList.add('failed');
        return li;
      }
      case 'phase_changed':
        return minor(item('phase', `Phase: ${d.to}`, e));
      case 'usage':
        return minor(item('usage', `Tokens: ${tokens(d)}`, e));
      case 'context_compacted':
        return item('compaction', `Context compacted after step ${d.step}: ${d.messages} messages became a summary (${d.tokens} of ${d.threshold} tokens)`, e,
          block('summary', d.summary));
      case 'user_message':
        return item('user', 'User', e, el('div', { class: 'ev-body' }, d.text));
      case 'assistant_message':
        return item('assistant', 'Assistant', e, d.text ? el('div', { class: 'ev-body' }, d.text) : null,
          d.reasoning ? el('details', {}, el('summary', {}, 'reasoning'), el('div', { class: 'ev-body' }, d.reasoning)) : null);
      case 'tool_call_scheduled': {
        const c = d.call;
        const outcome = el('span', { class: 'outcome' }, '… running');
        const extra = el('div');
        const li = item('tool', `Tool call ${c.action}`, e, block('arguments', pretty(c.arguments)), refsTable(c.references), extra);
        li.querySelector('.ev-head').insertBefore(outcome, li.querySelector('.when'));
        li.dataset.call = c.id;
        cur.calls.set(c.id, { outcome, extra, label: `${c.action} (step ${d.step || 0})` });
        return li;
      }
      case 'tool_call_completed': {
        const call = cur.calls.get(d.call_id);
        const label = call ? call.label : d.call_id;
        for (const v of [...(d.created || []), ...(d.modified || [])]) cur.setters.set(v.name, `call ${label}`);
        const outcome = (call && call.client ? 'answered by the client: ' : '') + (d.success ? `✓ succeeded in ${fmtDur(d.duration)}` : `✗ failed in ${fmtDur(d.duration)}`);
        const body = [d.error ? block('error', d.error, 'error') : null, block('output', d.stdout), block('stderr', d.stderr),
          names('created', d.created), names('changed', d.modified)];
        if (!call) return item('tool', `Tool call ${d.call_id} ended: ${outcome}`, e, ...body);
        call.outcome.textContent = outcome;
        call.outcome.classList.add(d.success ? 'ok' : 'bad');
        call.extra.replaceChildren(...body.filter(Boolean));
        return null;
      }
      case 'progress': {
        // What a running action reports (agent.Progress): shown on its
        // call while it runs, and as an entry of its own.
        const call = cur.calls.get(d.call_id);
        if (call && !call.outcome.classList.contains('ok') && !call.outcome.classList.contains('bad')) call.outcome.textContent = `… ${d.message}`;
        return minor(item('progress', `Progress of ${call ? call.label : d.call_id}`, e, el('div', { class: 'ev-body progress' }, d.message)));
      }
      case 'snippet_executed': {
        for (const v of [...(d.created || []), ...(d.modified || [])]) cur.setters.set(v.name, `snippet (step ${d.step || 0})`);
        const li = item('snippet', 'Go snippet', e, block('code', d.snippet.code),
          d.snippet.reads && d.snippet.reads.length ? el('div', { class: 'small' }, 'reads: ', d.snippet.reads.join(', ')) : null,
          d.snippet.writes && d.snippet.writes.length ? el('div', { class: 'small' }, 'writes: ', d.snippet.writes.join(', ')) : null,
          d.error ? block('error', d.error, 'error') : null, block('output', d.stdout), block('stderr', d.stderr),
          names('created', d.created), names('changed', d.modified));
        li.querySelector('.ev-head').insertBefore(el('span', { class: 'outcome ' + (d.success ? 'ok' : 'bad') },
          `${d.success ? '✓ succeeded' : '✗ failed'} in ${fmtDur(d.duration)}`), li.querySelector('.when'));
        return li;
      }
      case 'variable_created':
      case 'variable_modified': {
        setVariable(e);
        const v = d.variable;
        return minor(item('var', `Variable ${v.name} ${e.type === 'variable_created' ? 'created' : 'changed'}`, e,
          el('div', { class: 'var-preview' }, `${v.type}${d.secret ? ' (secret)' : ''}: ${v.preview || ''}`)));
      }
      case 'await_requested': {
        const client = d.client && d.call ? cur.calls.get(d.call.id) : null;
        if (client && !client.client) {
          // A call of the client's own tool (an AG-UI front end's): the
          // client runs it and answers with its result.
          client.client = true;
          client.outcome.textContent = '… the client runs it';
          client.outcome.parentNode.insertBefore(el('span', { class: 'badge client' }, 'answered by the client'), client.outcome);
        }
        const what = d.client ? "the client's answer (it runs the call)" : { approval: d.call ? 'approval of a tool call' : d.snippet ? 'approval of a snippet' : 'approval',
          question: 'an answer', authorization: 'authorization', input: 'input' }[d.kind] || d.kind;
        return item('await', `Awaits ${what}`, e, d.message ? el('div', { class: 'ev-body' }, d.message) : null,
          d.call ? el('div', { class: 'id' }, `${d.call.action}(${d.call.arguments || ''})`) : null,
          d.snippet ? block('code', d.snippet.code) : null, d.link ? el('div', { class: 'small' }, `link: ${d.link}`) : null);
      }
      case 'await_resolved':
        return item('await', 'Answered', e, el('div', { class: 'ev-body' }, answerText(d.answer || {})));
      case 'child_run_started':
        return item('child', 'Child run started', e, el('a', { href: '#/runs/' + encodeURIComponent(d.child) }, d.name || d.child));
      case 'child_run_finished':
        return item('child', `Child run ${d.status}`, e, el('a', { href: '#/runs/' + encodeURIComponent(d.child) }, d.child),
          d.error ? block('error', d.error, 'error') : null, d.result ? block('result', pretty(d.result)) : null);
      case 'result':
        return item('result', 'Result', e, el('pre', {}, typeof d.value === 'string' ? d.value : pretty(d.value)));
      case 'error':
        return item('error', 'Error', e, el('div', { class: 'ev-body error' }, d.message));
      default:
        return minor(item('other', e.type, e, block('data', pretty(d))));
    }
  }

  function setVariable(e) {
    const d = e.data;
    const v = d.variable;
    let st = cur.vars.get(v.name);
    if (!st) { st = { history: [] }; cur.vars.set(v.name, st); }
    Object.assign(st, { name: v.name, type: v.type, preview: v.preview || '', secret: !!d.secret });
    const by = cur.setters.get(v.name) || (d.step ? `step ${d.step}` : '');
    cur.setters.delete(v.name);
    st.history.push({ seq: e.seq, step: d.step || 0, created: e.type === 'variable_created', type: v.type, preview: v.preview || '', by });
    renderVars();
  }

  function renderVars() {
    $('#vars-empty').hidden = cur.vars.size > 0;
    $('#vars').replaceChildren(...[...cur.vars.values()].map((v) => el('li', { 'data-var': v.name },
      el('div', {}, el('span', { class: 'var-name' }, v.name), ' ', el('span', { class: 'var-type' }, v.type), ' ',
        v.secret ? el('span', { class: 'secret' }, 'secret, redacted') : null),
      el('div', { class: 'var-preview' }, v.preview || (v.secret ? '(redacted)' : '')),
      el('details', {}, el('summary', {}, `history (${v.history.length})`),
        el('ol', { class: 'history' }, v.history.map((h) => el('li', {},
          `${h.step ? 'step ' + h.step : 'start'}: ${h.by ? (h.created ? 'created' : 'set') + ' by ' + h.by : 'starting value'} — ${h.type}: ${h.preview}`)))))));
  }

  // loadSession shows the session of the run: the variables its runs
  // left (what the session's next run starts with), as previews.
  async function loadSession(session, status) {
    const id = cur.id;
    cur.session = session + ' ' + status;
    try {
      const s = await getJSON(`/ui/api/sessions/${encodeURIComponent(session)}`);
      if (cur.id !== id) return;
      const vars = Object.entries(s.state.variables);
      $('#session').hidden = false;
      $('#session-msg').textContent = `${s.runs.length} run${s.runs.length === 1 ? '' : 's'}; ` +
        (vars.length ? 'its next run starts with these variables:' : 'no variables yet.');
      $('#session-vars').replaceChildren(...vars.map(([name, v]) => el('li', { 'data-session-var': name },
        el('div', {}, el('span', { class: 'var-name' }, name), ' ', el('span', { class: 'var-type' }, v.type), ' ',
          v.secret ? el('span', { class: 'secret' }, 'secret, redacted') : null),
        el('div', { class: 'var-preview' }, v.preview))));
    } catch (e) {
      if (!(e instanceof AuthError) && cur.id === id) $('#session-msg').textContent = `Could not read the session: ${e.message}`;
    }
  }

  // ---- What the run awaits.

  function renderAwait() {
    const sec = $('#await');
    const v = cur.view;
    const a = v && v.snapshot.await;
    if (!a || v.snapshot.status !== 'awaiting') {
      sec.hidden = true;
      sec.replaceChildren();
      cur.awaitKey = '';
      return;
    }
    const key = `${a.id}:${v.can.resume}`;
    if (key === cur.awaitKey) return; // keep what the user is typing
    cur.awaitKey = key;
    const parts = [];
    const deny = () => [el('input', { id: 'deny-reason', 'aria-label': 'Reason for denying (told to the model)', placeholder: 'reason for denying (told to the model)' }),
      el('button', { type: 'button', id: 'deny', class: 'danger', onclick: () => answer({ decision: 'denied', reason: $('#deny-reason').value.trim() }) }, 'Deny')];
    if (a.kind === 'approval' && a.call) {
      parts.push(el('h3', {}, 'Approve this tool call?'),
        el('p', {}, 'The model calls ', el('code', {}, a.call.action), '.'),
        el('label', { for: 'await-args' }, 'Arguments (JSON; edit them to call with other arguments)'),
        el('textarea', { id: 'await-args', class: 'code', rows: String(Math.min(12, pretty(a.call.arguments || '{}').split('\n').length + 1)), spellcheck: 'false' }),
        refsTable(a.call.references),
        el('div', { class: 'buttons' }, el('button', { type: 'button', id: 'approve', class: 'primary', onclick: approveCall }, 'Approve'), ...deny()));
    } else if (a.kind === 'approval') {
      parts.push(el('h3', {}, a.snippet ? 'Approve running this Go code?' : 'Approve?'),
        a.message ? el('div', { class: 'ev-body' }, a.message) : null,
        a.snippet ? el('pre', {}, a.snippet.code) : null,
        a.snippet && a.snippet.reads && a.snippet.reads.length ? el('p', { class: 'small' }, 'It reads ', a.snippet.reads.join(', ')) : null,
        a.snippet && a.snippet.writes && a.snippet.writes.length ? el('p', { class: 'small' }, 'It writes ', a.snippet.writes.join(', ')) : null,
        el('div', { class: 'buttons' }, el('button', { type: 'button', id: 'approve', class: 'primary', onclick: () => answer({ decision: 'approved' }) }, 'Approve'), ...deny()));
    } else if (a.kind === 'question') {
      parts.push(el('h3', {}, 'The run asks a question'),
        el('p', { class: 'ev-body', id: 'question' }, a.message || ''),
        el('form', { id: 'answer-form', onsubmit: (ev) => { ev.preventDefault(); const t = $('#answer-text').value.trim(); if (!t) { $('#notice').textContent = 'Write an answer first.'; return; } answer({ text: t }); } },
          el('label', { for: 'answer-text' }, 'Your answer'),
          el('textarea', { id: 'answer-text', rows: '3' }),
          el('div', { class: 'buttons' }, el('button', { type: 'submit', id: 'answer-send', class: 'primary' }, 'Answer'))));
    } else if (a.kind === 'authorization') {
      const link = /^https?:\/\//i.test(a.link || '') ? el('a', { href: a.link, target: '_blank', rel: 'noopener noreferrer' }, a.link) : (a.link || null);
      parts.push(el('h3', {}, 'The run needs your authorization'),
        el('p', { class: 'ev-body' }, a.message || (a.call ? `The call of ${a.call.action} needs your authorization.` : '')),
        link ? el('p', {}, 'Authorize at: ', link) : null,
        el('div', { class: 'buttons' }, el('button', { type: 'button', id: 'approve', class: 'primary', onclick: () => answer({ decision: 'approved' }) }, 'I have authorized'), ...deny()));
    } else if (a.kind === 'input') {
      parts.push(el('h3', {}, a.client ? "The run awaits its client's answer" : 'The run awaits input'),
        a.client && a.call ? el('p', {}, 'The client runs ', el('code', {}, a.call.action), ' itself (a front-end tool) and answers with its result; an answer sent here stands in for it.') : null,
        el('p', { class: 'ev-body' }, a.message || ''),
        el('label', { for: 'input-json' }, 'Input (JSON)'),
        el('textarea', { id: 'input-json', class: 'code', rows: '4' }),
        el('div', { class: 'buttons' }, el('button', { type: 'button', id: 'input-send', class: 'primary', onclick: () => {
          const t = $('#input-json').value;
          try { answer({ input: JSON.parse(t) }); } catch (err) { $('#notice').textContent = `The input is not JSON: ${err.message}`; }
        } }, 'Send input')));
    } else {
      parts.push(el('h3', {}, `The run awaits ${a.kind}`), el('p', {}, a.message || ''));
    }
    if (a.deadline) parts.push(el('p', { class: 'small muted' }, `Unanswered, the run fails at ${fmtTime(a.deadline)}.`));
    if (!v.can.resume) parts.push(el('p', { class: 'muted' }, v.can.why || 'This await cannot be answered from here.'));
    sec.replaceChildren(...parts.filter(Boolean));
    if (a.call && $('#await-args')) $('#await-args').value = pretty(a.call.arguments || '{}');
    if (!v.can.resume) for (const b of sec.querySelectorAll('button, textarea, input')) b.disabled = true;
    sec.hidden = false;
  }

  function approveCall() {
    const a = cur.view.snapshot.await;
    const text = $('#await-args').value;
    let edited;
    try {
      edited = JSON.parse(text);
    } catch (err) {
      $('#notice').textContent = `The arguments are not JSON: ${err.message}`;
      return;
    }
    if (edited === null || typeof edited !== 'object' || Array.isArray(edited)) {
      $('#notice').textContent = 'The arguments must be a JSON object.';
      return;
    }
    let orig = null;
    try { orig = JSON.stringify(JSON.parse(a.call.arguments || '{}')); } catch (_) { /* keep null */ }
    const now = JSON.stringify(edited);
    answer(now === orig ? { decision: 'approved' } : { decision: 'approved', arguments: now });
  }

  async function answer(ans) {
    const id = cur.id;
    const a = cur.view.snapshot.await;
    const buttons = [...$('#await').querySelectorAll('button')];
    buttons.forEach((b) => { b.disabled = true; });
    $('#notice').textContent = '';
    try {
      const v = await getJSON(runURL(id, '/resume'), { method: 'POST', json: { await_id: a.id, answer: ans } });
      if (cur.id !== id) return;
      cur.view = v;
      renderView();
      startStream();
    } catch (e) {
      if (e instanceof AuthError) return;
      $('#notice').textContent = `Could not answer: ${e.message}`;
      buttons.forEach((b) => { b.disabled = false; });
    }
  }

  // ---- Cancel (asked twice), follow-up, replay code.

  function resetCancel() {
    $('#cancel').hidden = !(cur.view && cur.view.can.cancel);
    $('#cancel-confirm').hidden = true;
    $('#cancel-keep').hidden = true;
  }
  $('#cancel').addEventListener('click', () => {
    $('#cancel').hidden = true;
    $('#cancel-confirm').hidden = false;
    $('#cancel-keep').hidden = false;
    $('#cancel-confirm').focus();
  });
  $('#cancel-keep').addEventListener('click', resetCancel);
  $('#cancel-confirm').addEventListener('click', async () => {
    const id = cur.id;
    $('#cancel-confirm').disabled = true;
    $('#notice').textContent = '';
    try {
      const v = await getJSON(runURL(id, '/cancel'), { method: 'POST', json: {} });
      if (cur.id !== id) return;
      cur.view = v;
      resetCancel();
      renderView();
    } catch (e) {
      if (!(e instanceof AuthError)) $('#notice').textContent = `Could not cancel: ${e.message}`;
    } finally {
      $('#cancel-confirm').disabled = false;
    }
  });

  $('#followup-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const id = cur.id;
    const text = $('#followup-text').value.trim();
    if (!text) return;
    $('#followup-send').disabled = true;
    $('#notice').textContent = '';
    try {
      const v = await getJSON(runURL(id, '/follow-up'), { method: 'POST', json: { text } });
      if (cur.id !== id) return;
      $('#followup-text').value = '';
      cur.view = v;
      renderView();
      startStream(); // the stream ended with the run's completion
    } catch (e) {
      if (!(e instanceof AuthError)) $('#notice').textContent = `Could not send the follow-up: ${e.message}`;
    } finally {
      $('#followup-send').disabled = false;
    }
  });

  $('#replay-show').addEventListener('click', async () => {
    const pre = $('#replay-code');
    try {
      pre.textContent = await (await api(runURL(cur.id, '/replay'))).text();
      pre.classList.remove('error');
    } catch (e) {
      if (e instanceof AuthError) return;
      pre.textContent = `No replay code: ${e.message}`;
      pre.classList.add('error');
    }
    pre.hidden = false;
  });
  $('#replay-download').addEventListener('click', async () => {
    try {
      const resp = await api(runURL(cur.id, '/replay?download=1'));
      const m = /filename="?([^";]+)"?/.exec(resp.headers.get('Content-Disposition') || '');
      const url = URL.createObjectURL(await resp.blob());
      const a = el('a', { href: url, download: m ? m[1] : 'replay.go', hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) {
      if (!(e instanceof AuthError)) $('#notice').textContent = `Could not download the replay code: ${e.message}`;
    }
  });

  $('#all-events').addEventListener('change', (ev) => $('#events').classList.toggle('all', ev.target.checked));

  // ---- Routing: #/ is the list, #/runs/ID a run.

  function markSelected() {
    for (const tr of document.querySelectorAll('#runs tbody tr')) {
      if (tr.dataset.runId === cur.id) tr.setAttribute('aria-current', 'true'); else tr.removeAttribute('aria-current');
    }
  }

  function route() {
    const m = /^#\/runs\/(.+)$/.exec(location.hash);
    const id = m ? decodeURIComponent(m[1]) : null;
    $('#layout').classList.toggle('has-run', !!id);
    $('#detail').hidden = !id;
    if (id && id !== cur.id) openRun(id);
    if (!id && cur.id) { stopStream(); cur = newRun(null); }
    markSelected();
  }
  window.addEventListener('hashchange', () => { if (authed) route(); });

  async function start() {
    $('#layout').hidden = false;
    await loadRuns(false);
    if (authed) route();
  }

  // The list follows new runs and status changes while it is in view.
  setInterval(() => {
    if (!authed || document.hidden || $('#layout').hidden) return;
    if (cur.id && matchMedia('(max-width: 900px)').matches) return; // the list is not shown
    loadRuns(false);
  }, 2000);

  start();
})();
