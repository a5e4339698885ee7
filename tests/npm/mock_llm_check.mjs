// A server this project did not write as a target of `anthro-wb session`, `bench` and
// `diagnose` (issue 40): @dwmkerr/mock-llm, an OpenAI-compatible mock from npm (the version
// package-lock.json pins), started as its users start it (its `mock-llm` program).
//
//   node mock_llm_check.mjs ANTHRO_WB NPM_DIR
//
// NPM_DIR holds node_modules (CTest's sdk_npm_install ran `npm ci` there). What the server does,
// read from its source (dist/streaming.js, dist/server.js, dist/config.js) and pinned by the first
// test here: POST /v1/chat/completions echoes the last user message; with "stream": true it
// answers SSE, the text cut into chunks of `streaming.chunkSize` UTF-16 code units (50), one
// chunk each `streaming.chunkIntervalMs` (50 ms, the first one interval after the request), the
// first delta with the role, the last with finish_reason "stop", then `data: [DONE]` an interval
// later; no chunk carries usage, stream_options or not; max_tokens is ignored. No
// /v1/messages: 404. So `bench` must time TTFT at about one interval and count one token a chunk,
// and `diagnose` must leave every item that reads what this server does not have (anthro-v1,
// the server's timing, a 429) inconclusive with the reason, and fail or warn on none: the tables
// VERDICTS_* below, also in docs/profiles.md ("Servers this project did not write").
//
// TTFT and gaps come from the server's timer, so they are checked from below (never sooner than
// its interval) with a loose upper bound; `ttft-tail`'s pass rests on that timer's jitter, which
// is why CTest runs this alone (label timing).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve as absolute } from 'node:path';

if (process.argv.length !== 4) {
  console.error('usage: node mock_llm_check.mjs ANTHRO_WB NPM_DIR');
  process.exit(2);
}
const [wb, npmDir] = process.argv.slice(2).map((p) => absolute(p));  // the servers run in folders of their own
for (const name of Object.keys(process.env))
  if (name.startsWith('ANTHROPIC_') || name.startsWith('OPENAI_')) delete process.env[name];

const PACKAGE = join(npmDir, 'node_modules', '@dwmkerr', 'mock-llm');
const VERSION = '0.1.29';  // the expectations below are this version's; another is a new check
const CHUNK = 50, INTERVAL_MS = 50;  // the server's defaults (dist/config.js)
// A second server streaming in chunks of 12: replies of several tokens, the cancel probes reach
// their 5th token (the HTTP client then closes: HTTP's only cancel) and the max_tokens probe gets
// more than the 2 tokens a 16-bit max_tokens keeps. 12 cuts no 4-byte character of diagnose's
// prompts in two (50 and 12 do not; 10 would: see the split test below).
const SHORT_CHUNK = 12;
const TIMER_GRAIN_MS = 2;  // node's timers fire whole milliseconds after the loop time they were set at
const CALL_TIMEOUT_MS = 300_000;
const TEST = { timeout: 600_000 };
// Much longer than one chunk, ASCII (a UTF-16 code unit a character): ceil(111 / 50) = 3 chunks.
const PROMPT = 'Streaming replies are timed at the socket: TTFT is the first content chunk, and each chunk counts as one token.';

const tmp = mkdtempSync(join(tmpdir(), 'mock-llm-check-'));
const servers = [];

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.on('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

// `mock-llm` in a folder of its own (it reads ./mock-llm.yaml when there is one) on a free port;
// resolves with its chat-completions URL once /ready answers.
async function startMock(name, yaml) {
  const cwd = join(tmp, name);
  mkdirSync(cwd);
  if (yaml) writeFileSync(join(cwd, 'mock-llm.yaml'), yaml);
  for (let attempt = 1; ; ++attempt) {
    const port = await freePort();  // mock-llm prints the port it was given, not the one it got
    const child = spawn(process.execPath, [join(PACKAGE, 'dist', 'main.js')], {
      cwd, env: { ...process.env, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = { name, child, output: '', exited: null };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d) => (server.output += d));
    child.stderr.on('data', (d) => (server.output += d));
    server.done = new Promise((resolve) => child.on('exit', (code, signal) => resolve((server.exited = { code, signal }))));
    servers.push(server);
    const base = `http://127.0.0.1:${port}`;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && !server.exited;) {
      const ready = await fetch(`${base}/ready`).then((r) => r.ok, () => false);
      if (ready) return `${base}/v1/chat/completions`;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!server.exited || attempt === 3 || !/EADDRINUSE/.test(server.output))
      throw new Error(`mock-llm ${name}: not ready on ${base}\n${server.output}`);
    // another program took the port between our look and its listen: another port
  }
}

// anthro-wb with ARGS; resolves with its exit code and parsed JSON stdout.
function anthroWb(args) {
  return new Promise((resolve, reject) => {
    execFile(wb, [...args, '--format', 'json'], {
      env: { ...process.env, XDG_DATA_HOME: join(tmp, 'data') }, timeout: CALL_TIMEOUT_MS, maxBuffer: 64 << 20,
    }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(new Error(`anthro-wb ${args[0]}: ${error.message}\n${stderr}`));
      let doc;
      try {
        doc = JSON.parse(stdout);
      } catch (e) {
        return reject(new Error(`anthro-wb ${args[0]}: exit ${error?.code ?? 0}, stdout not JSON (${e.message})\n${stderr}`));
      }
      resolve({ code: error?.code ?? 0, doc, stderr });
    });
  });
}

// The server's own stream for PROMPT: the data lines, in order.
async function rawStream(url, body) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/event-stream/);
  const text = await res.text();
  return text.split('\n\n').filter((e) => e.trim()).map((e) => {
    assert.match(e, /^data: /, `an event that is not one data line: ${JSON.stringify(e)}`);
    return e.slice(6);
  });
}

const chunksOf = (text, size) => Math.max(1, Math.ceil(text.length / size));  // .length: UTF-16 units, as the server cuts

// ---- the verdicts of the latency checklist against this server, item by item ----
// Items that read only anthro-v1 (its frames, CANCEL, receive ring, ALPN, connections).
const ANTHRO_ONLY = ['inconclusive', /^cannot apply: it measures .*none of the \d+ requests spoke anthro-v1 .*an anthro:\/\/ or anthro\+lab:\/\/ target, or a capture of one, would$/];
const COMMON = {
  'alpn': ANTHRO_ONLY,                       // cleartext HTTP: no ALPN, no anthro-v1 offered
  'http-fallback': ['inconclusive', /^not measured: a capture source would measure it$/],
  'connection-reuse': ANTHRO_ONLY,
  'frame-decode-time': ANTHRO_ONLY,          // no frames (and no --system here: this machine's governor)
  'gpu-context-wait': ['inconclusive', /^cannot apply: none of the \d+ answered requests carried the server's timing/],
  'nic-drops': ['inconclusive', /^not measured: a system source would measure it$/],  // this machine's NICs, not the server
  'ring-buffer-stall': ANTHRO_ONLY,
  'server-stall': ANTHRO_ONLY,
  'connection-reset': ['pass'],              // every stream ends with finish_reason and [DONE]
  'cancel-not-sent': ['pass'],               // HTTP's cancel is the close
  'cancel-latency': ANTHRO_ONLY,             // HTTP has no CANCEL, so no cancelled reply to time
  'retry-after-ignored': ['inconclusive', /^no 429 arrived/],  // the default rules answer 200 only
  'frame-drops': ANTHRO_ONLY,
  'ttft-tail': ['pass'],                     // TTFT = the server's 50 ms timer
  'utf8-mismatch': ANTHRO_ONLY,              // the pair compares anthro-v1 with the HTTP baseline
  'connection-duration': ANTHRO_ONLY,
  'cancel-rate': ANTHRO_ONLY,
};
// Defaults: every workload prompt fits in one or two 50-unit chunks; the max_tokens probe's
// reply (the prompt echoed) is 1 token, within the 2 that max_tokens 65538 would keep in 16 bits.
const VERDICTS_DEFAULT = {
  ...COMMON,
  'max-tokens-truncation': ['inconclusive', /^1 max_tokens probe replies ended on their own after at most 1 tokens, within the 2 .*more probes will not help/],
};
// Chunks of 12: the probe's reply is 4 tokens, ended by "stop": not cut at 2.
const VERDICTS_SHORT_CHUNKS = { ...COMMON, 'max-tokens-truncation': ['pass'] };

function checkDiagnosis(run, expected, what) {
  const { code, doc } = run;
  assert.equal(doc.kind, 'diagnosis');
  assert.equal(code, 0, `${what}: diagnose exit ${code} (1: an item failed)`);
  const got = Object.fromEntries(doc.checklist.map((i) => [i.id, i]));
  assert.deepEqual(Object.keys(got).sort(), Object.keys(expected).sort(), `${what}: the checklist's items against the table`);
  const wrong = [];
  for (const [id, [verdict, reason]] of Object.entries(expected)) {
    const item = got[id];
    if (item.verdict !== verdict || (reason && !reason.test(item.evidence)))
      wrong.push(`${id}: ${item.verdict}: ${item.evidence} (expected ${verdict}${reason ? `, matching ${reason}` : ''})`);
    // An item left inconclusive is one no longer run could settle: it says why, not how many more.
    if (item.verdict === 'inconclusive' && item.evidence.startsWith('need '))
      wrong.push(`${id}: asks for more samples of a run that cannot give them: ${item.evidence}`);
  }
  assert.deepEqual(wrong, [], `${what}: items with another verdict or reason than the table's`);
  assert.equal(doc.verdict, 'inconclusive', `${what}: the diagnosis's verdict`);
  assert.ok(got['connection-reset'].n >= 100, `${what}: connection-reset measured ${got['connection-reset'].n} streams`);
  assert.ok(got['ttft-tail'].n >= 100, `${what}: ttft-tail measured ${got['ttft-tail'].n} requests`);
  assert.ok(got['ttft-tail'].statistic >= INTERVAL_MS - TIMER_GRAIN_MS, `${what}: p99 TTFT ${got['ttft-tail'].statistic} ms below the server's interval`);
  return doc;
}

let base, shortChunks;

before(async () => {
  const version = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).version;
  console.log(`# @dwmkerr/mock-llm ${version}, node ${process.version}`);
  assert.equal(version, VERSION, 'the expectations here are those of mock-llm ' + VERSION);
  // Both keys: a mock-llm.yaml replaces `streaming` whole (dist/config.js merges one level deep).
  [base, shortChunks] = await Promise.all([
    startMock('defaults', null),
    startMock('chunks-of-12', `streaming:\n  chunkSize: ${SHORT_CHUNK}\n  chunkIntervalMs: ${INTERVAL_MS}\n`),
  ]);
});

after(async () => {
  const problems = [];
  await Promise.all(servers.map(async (s) => {
    if (s.exited) return;
    s.child.kill('SIGTERM');
    let timer;
    const ended = await Promise.race([s.done, new Promise((r) => (timer = setTimeout(() => r(null), 10_000)))]);
    clearTimeout(timer);
    if (!ended) {
      s.child.kill('SIGKILL');
      problems.push(`mock-llm ${s.name}: still running 10 s after SIGTERM`);
    }
  }));
  rmSync(tmp, { recursive: true, force: true });
  assert.deepEqual(problems, []);
});
process.on('exit', () => servers.forEach((s) => s.exited || s.child.kill('SIGKILL')));

describe('@dwmkerr/mock-llm', () => {
  it('streams as its source says: chunks of 50 UTF-16 units, role first, stop last, [DONE], no usage', TEST, async () => {
    const data = await rawStream(base, {
      model: 'm', messages: [{ role: 'user', content: PROMPT }], stream: true, stream_options: { include_usage: true }, max_tokens: 1,
    });
    assert.equal(data.at(-1), '[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    assert.equal(chunks.length, chunksOf(PROMPT, CHUNK), 'max_tokens is ignored: the whole echo comes');
    assert.equal(chunks.map((c) => c.choices[0].delta.content).join(''), PROMPT);
    assert.equal(chunks[0].choices[0].delta.role, 'assistant');
    assert.deepEqual(chunks.map((c) => c.choices[0].finish_reason), [...Array(chunks.length - 1).fill(null), 'stop']);
    assert.ok(chunks.every((c) => c.usage === undefined && c.object === 'chat.completion.chunk'), 'a chunk with usage');
    const res = await fetch(base.replace('/chat/completions', '/messages'), {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m","max_tokens":8,"messages":[]}',
    });
    assert.equal(res.status, 404, 'the Messages API');
  });

  it('session: TTFT one interval, a token a chunk, the text whole, no usage', TEST, async () => {
    const { code, doc } = await anthroWb(['session', '--target', base, '--prompt', PROMPT]);
    assert.equal(code, 0);
    assert.equal(doc.transport, 'http');
    const r = doc.requests[0];
    assert.equal(r.error, null);
    assert.equal(r.end, 'response');
    assert.equal(r.text, PROMPT);
    assert.equal(r.tokens, chunksOf(PROMPT, CHUNK));
    assert.equal(r.usage_output_tokens, null, 'the server sends no usage');
    assert.equal(r.stop_reason, 'end_turn', 'finish_reason "stop"');
    assert.ok(r.ttft_ms >= INTERVAL_MS - TIMER_GRAIN_MS && r.ttft_ms < 10_000, `TTFT ${r.ttft_ms} ms`);
    assert.equal(r.itl_ms.length, r.tokens - 1);
    for (const gap of r.itl_ms) assert.ok(gap < 10_000, `a gap of ${gap} ms`);
    // The chunks go out on one timer, an interval apart: from the first token to the last is
    // about an interval a gap (half of it allowed for the reader's own delays).
    const spread = r.itl_ms.reduce((a, b) => a + b, 0);
    assert.ok(spread >= (r.tokens - 1) * INTERVAL_MS / 2, `first to last token ${spread} ms`);
    // A whole reply carries no usage either: the text read, the counts unknown (null), no error.
    const whole = await anthroWb(['session', '--target', base, '--prompt', PROMPT, '--no-stream']);
    assert.equal(whole.code, 0, JSON.stringify(whole.doc?.requests?.[0]));
    assert.equal(whole.doc.requests[0].text, PROMPT);
    assert.equal(whole.doc.requests[0].usage_output_tokens, null);
    // The Messages API is not served: the request's 404, said as a failed request (exit 3).
    const messages = await anthroWb(['session', '--target', base.replace('/chat/completions', '/messages'), '--prompt', 'hi']);
    assert.equal(messages.code, 3);
    assert.equal(messages.doc.requests[0].error_code, 404);
    assert.equal(messages.doc.requests[0].end, 'error');
  });

  it('a 4-byte character cut between two chunks is never reported intact', TEST, async () => {
    // The server cuts UTF-16: a surrogate pair across a chunk edge goes out as two lone escapes
    // ("\ud83d" then "\ude00"), which a client reading each chunk as JSON text cannot join. The
    // server's defect, not the workbench's: the request either fails or, if some day the halves
    // are joined, carries the text exact.
    const prompt = 'x'.repeat(CHUNK - 1) + '😀 and the rest';
    const data = await rawStream(base, { model: 'm', messages: [{ role: 'user', content: prompt }], stream: true });
    assert.match(data[0], /\\ud83d"/, 'the first chunk ends in a lone high surrogate');
    const { code, doc } = await anthroWb(['session', '--target', base, '--prompt', prompt]);
    const r = doc.requests[0];
    if (r.error === null) {
      assert.equal(r.text, prompt, 'a cut character read with no error');
      assert.equal(code, 0);
    } else {
      assert.match(r.error, /^invalid_event: chunk: not valid JSON at byte \d+: .*surrogate/, 'the parser says where and why');
      assert.equal(code, 3, 'a failed request: exit 3');
    }
  });

  it('bench: every request timed, TTFT and tokens as the stream says', TEST, async () => {
    const { code, doc } = await anthroWb(['bench', '--target', base, '--prompt', PROMPT, '--concurrency', '2', '--requests', '10']);
    assert.equal(code, 0);
    assert.equal(doc.requests, 10);
    assert.deepEqual(doc.errors, {});
    assert.equal(doc.summary.ttft_ms.n, 10);
    assert.ok(doc.summary.ttft_ms.p50 >= INTERVAL_MS - TIMER_GRAIN_MS && doc.summary.ttft_ms.p50 < 10_000, `p50 TTFT ${doc.summary.ttft_ms.p50} ms`);
    assert.equal(doc.summary.itl_ms.n, 10 * (chunksOf(PROMPT, CHUNK) - 1), 'one gap between each two chunks');
    assert.ok(doc.summary.itl_ms.p50 >= INTERVAL_MS / 2 && doc.summary.itl_ms.p50 < 10_000, `p50 gap ${doc.summary.itl_ms.p50} ms`);
    for (const r of doc.records) {
      assert.equal(r.error, null);
      assert.equal(r.tokens, chunksOf(PROMPT, CHUNK));
      assert.equal(r.usage_output_tokens, null);
    }
    assert.ok(doc.tokens_per_s > 0);
  });

  it('diagnose, the standard workload: no item fails or warns; those that cannot apply say why', TEST, async () => {
    checkDiagnosis(await anthroWb(['diagnose', '--target', base, '--quiet']), VERDICTS_DEFAULT, 'defaults');
  });

  it('diagnose, chunks of 12: the cancel probes close at their 5th token, not flagged; max_tokens measured', TEST, async () => {
    const doc = checkDiagnosis(await anthroWb(['diagnose', '--target', shortChunks, '--requests', '100', '--quiet']),
                               VERDICTS_SHORT_CHUNKS, 'chunks of 12');
    const streams = doc.connections.flatMap((c) => c.streams);
    const cancelProbes = streams.filter((s) => s.max_tokens === 4096);  // the probes ask 4096 (kCancelProbeTokens)
    assert.equal(cancelProbes.length, 5);
    for (const s of cancelProbes) {
      assert.equal(s.end, 'client_closed', 'a cancel probe that did not reach its cancel point');
      assert.equal(s.tokens, 5);
    }
    const maxTokensProbe = streams.find((s) => s.max_tokens === 65538);
    assert.ok(maxTokensProbe.tokens > 2 && maxTokensProbe.stop_reason === 'end_turn', JSON.stringify(maxTokensProbe));
    assert.ok(streams.filter((s) => s.max_tokens === null).every((s) => s.error === null && s.tokens >= 2), 'an ordinary stream with an error or one token');
  });
});
