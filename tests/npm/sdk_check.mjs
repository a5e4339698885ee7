// The official npm clients, @anthropic-ai/sdk and openai (versions pinned in package-lock.json),
// against `anthro-wb endpoint`'s HTTP baseline: a reply whole and streamed (text, usage, stop
// reason, the same text anthro-wb's own client reads), and the clients' error classes on the
// endpoint's 400, 401 and 429, the 429's retry-after honoured by the clients' own retry.
//
//   node sdk_check.mjs ANTHRO_WB NPM_DIR
//
// NPM_DIR holds node_modules (CTest's sdk_npm_install ran `npm ci` there). The endpoints run on
// ports the system picks (each prints `listening http://…`) and are stopped at the end; each must
// then exit 0 (under the sanitizers that includes LeakSanitizer's verdict). Timing is checked
// only from below (a retry not sooner than the server asked), so a loaded machine or a sanitized
// anthro-wb only makes it slower.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const [wb, npmDir] = process.argv.slice(2).map((arg) => arg && resolve(arg));
if (!wb || !npmDir) {
  console.error('usage: node sdk_check.mjs ANTHRO_WB NPM_DIR');
  process.exit(2);
}
// The clients read ANTHROPIC_* and OPENAI_* (base URL, auth token, custom headers, organisation,
// log level): none of the developer's may change what is sent. Keys and URLs are given in code.
for (const name of Object.keys(process.env))
  if (name.startsWith('ANTHROPIC_') || name.startsWith('OPENAI_')) delete process.env[name];

const require = createRequire(join(npmDir, 'package.json'));
const Anthropic = require('@anthropic-ai/sdk');
const OpenAI = require('openai');
const installed = (name) => JSON.parse(readFileSync(join(npmDir, 'node_modules', name, 'package.json'), 'utf8')).version;

const KEY_ENV = 'ANTHRO_SDK_CHECK_KEY';
const KEY = `sdk-check-${process.pid}-${Date.now()}`;
const TOKENS = 24;          // the endpoint's --tokens: every whole reply has this many
const SHORT = 5;            // a max_tokens below it: cut there, stop reason max_tokens / length
const PROMPT = 'Why is the p99 time to first token so much higher than the median today';
const PROMPT_WORDS = PROMPT.split(/[ \t\r\n]+/).filter(Boolean).length;  // the model's input_tokens
const MODEL = 'sdk-check-model';
const CALL_TIMEOUT_MS = 300_000;  // a sanitized endpoint is slow; the clients' own default is 10 min
const TEST = { timeout: 600_000 };
// libuv's timers, which the clients sleep on, count whole milliseconds from a loop time taken
// after the 429 arrived: a retry can come up to 1 ms before the exact retry-after-ms.
const TIMER_GRAIN_MS = 1;
// The clients' own back-off before a first retry is at most 0.5 s (0.5 s × 2^0, less jitter).
const REPLAY_RETRY_MS = 1500;

const tmp = mkdtempSync(join(tmpdir(), 'sdk-check-'));
const endpoints = [];
const counters = [];

// `anthro-wb endpoint` on a free port with ARGS; resolves with its base URL once it listens.
function startEndpoint(name, args) {
  const child = spawn(wb, ['endpoint', '--http-listen', '127.0.0.1:0', '--require-api-key-env', KEY_ENV, ...args], {
    env: { ...process.env, [KEY_ENV]: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ep = { name, child, output: '', exited: null };
  endpoints.push(ep);
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => (ep.output += d));
  ep.done = new Promise((resolve) => child.on('exit', (code, signal) => resolve((ep.exited = { code, signal }))));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`endpoint ${name}: no "listening http://" line within 120 s\n${ep.output}`)), 120_000);
    child.on('error', (e) => reject(new Error(`endpoint ${name}: cannot start ${wb}: ${e.message}`)));
    child.on('exit', (code, signal) => reject(new Error(`endpoint ${name} ended before listening (exit ${code}, signal ${signal})\n${ep.output}`)));
    let pending = '';
    child.stdout.on('data', (d) => {
      ep.output += d;
      pending += d;
      const m = pending.match(/^listening (http:\/\/127\.0\.0\.1:\d+)$/m);
      if (m) {
        clearTimeout(timer);
        ep.url = m[1];
        resolve(m[1]);
      }
    });
  });
}

// A pass-through in front of an endpoint that counts what reaches it: when each request arrived,
// the status answered, when the answer went back and the retry-after it carried.
function startCounter(target) {
  const { hostname, port } = new URL(target);
  const seen = [];
  const server = http.createServer((req, res) => {
    const entry = { arrived: performance.now(), method: req.method, path: req.url };
    seen.push(entry);
    const upstream = http.request({ host: hostname, port, method: req.method, path: req.url, headers: req.headers, agent: false }, (up) => {
      entry.status = up.statusCode;
      entry.retryAfterMs = up.headers['retry-after-ms'] === undefined ? null : Number(up.headers['retry-after-ms']);
      entry.retryAfter = up.headers['retry-after'] ?? null;
      entry.answered = performance.now();  // before the client can have any of it
      res.writeHead(up.statusCode, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (e) => {
      entry.status = `upstream error: ${e.message}`;
      entry.answered = performance.now();
      res.destroy();
    });
    req.pipe(upstream);
  });
  const counter = { seen, server };
  counters.push(counter);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ ...counter, url: `http://127.0.0.1:${server.address().port}` })));
}

// `anthro-wb session` (the project's own client) against PATH: the reference text and counts.
function referenceSession(base, path) {
  return new Promise((resolve, reject) => {
    execFile(wb, ['session', '--target', base + path, '--prompt', PROMPT, '--max-tokens', '64', '--api-key-env', KEY_ENV,
                  '--timeout-s', '240', '--format', 'json'],
             { env: { ...process.env, [KEY_ENV]: KEY }, timeout: CALL_TIMEOUT_MS, maxBuffer: 16 << 20 },
             (error, stdout, stderr) => {
               if (error) return reject(new Error(`anthro-wb session ${path}: ${error.message}\n${stderr}`));
               const r = JSON.parse(stdout).requests[0];
               if (r.error) return reject(new Error(`anthro-wb session ${path}: ${r.error}`));
               resolve(r);
             });
  });
}

// The thrown error of PROMISE, which must reject.
async function rejection(promise, what) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail(`${what}: resolved; an error was expected`);
}

function header(err, name) {
  const h = err.headers;
  return typeof h?.get === 'function' ? h.get(name) : h?.[name];
}

// Every request after a 429 arrived no sooner than that 429's retry-after-ms after it was sent.
function assertRetriesWaited(t, seen, what) {
  for (let i = 1; i < seen.length; ++i) {
    const before = seen[i - 1];
    if (before.status !== 429) continue;
    assert.ok(Number.isFinite(before.retryAfterMs) && before.retryAfterMs > 0, `${what}: 429 #${i} carried retry-after-ms ${before.retryAfterMs}`);
    const waited = seen[i].arrived - before.answered;
    t.diagnostic(`${what}: request ${i + 1} came ${waited.toFixed(1)} ms after a 429 asking for ${before.retryAfterMs} ms`);
    assert.ok(waited >= before.retryAfterMs - TIMER_GRAIN_MS,
              `${what}: request ${i + 1} came ${waited.toFixed(1)} ms after a 429 asking for retry-after-ms ${before.retryAfterMs}`);
  }
}

// The 429s of the overload fault: retry-after-ms drawn from 50..500, Retry-After the same in whole seconds.
function assertOverloadHeaders(err, what) {
  const ms = Number(header(err, 'retry-after-ms'));
  assert.ok(ms >= 50 && ms <= 500, `${what}: retry-after-ms ${header(err, 'retry-after-ms')}, expected 50..500`);
  assert.equal(header(err, 'retry-after'), String(Math.ceil(ms / 1000)), `${what}: retry-after against retry-after-ms ${ms}`);
}

// A saved session (the shape `anthro-wb session --format json` writes) whose first HTTP stream is
// a 429 asking for REPLAY_RETRY_MS and whose second is a reply: `endpoint --replay` answers the
// first request with the 429 and the retry with the reply.
const REPLAY_TEXT = 'replayed after the retry';
function replayFile() {
  const record = (fields) => ({
    auth_failures: 0, cancel_latency_ms: null, e2e_ms: null, end: 'response', error: null, error_code: null,
    invalid_utf8_frames: 0, itl_ms: [], jitter_ms: null, max_gap_ms: null, max_tokens: null, mean_itl_ms: null,
    p99_itl_ms: null, probe: null, retry_after_ms: null, sent_s: null, server_timing: null, stop_reason: null,
    stream_id: 0, text: '', time_to_message_start_ms: null, token_duplicates: 0, token_gaps: 0, tokens: 0,
    tokens_per_s: null, tpot_ms: null, ttfb_ms: null, ttfot_ms: null, ttft_ms: null, usage_mismatch: false,
    usage_output_tokens: null, ...fields,
  });
  const requests = [
    record({ stream_id: 1, end: 'error', sent_s: 1, e2e_ms: 5, error: '429: overloaded', error_code: 429, retry_after_ms: REPLAY_RETRY_MS }),
    record({ stream_id: 3, end: 'response', sent_s: 2, ttft_ms: 20, tokens: 4, itl_ms: [5, 5, 5], stop_reason: 'end_turn',
             text: REPLAY_TEXT, usage_output_tokens: 4 }),
  ];
  const path = join(tmp, 'retry-replay.json');
  writeFileSync(path, JSON.stringify({ kind: 'session', protocol: 'http', requests }));
  return path;
}

const common = ['--ttft-ms', '30:0', '--itl-ms', '3:0', '--seed', '11'];
let main, overloaded, reference;

before(async () => {
  console.log(`# @anthropic-ai/sdk ${installed('@anthropic-ai/sdk')}, openai ${installed('openai')}, node ${process.version}`);
  const [m, o] = await Promise.all([
    startEndpoint('main', [...common, '--tokens', String(TOKENS)]),
    startEndpoint('overload=1', [...common, '--fault', 'overload=1']),
  ]);
  main = { url: m, counter: await startCounter(m) };
  overloaded = { url: o, counter: await startCounter(o) };
  const [messages, chat] = await Promise.all([referenceSession(m, '/v1/messages'), referenceSession(m, '/v1/chat/completions')]);
  for (const [path, r] of [['/v1/messages', messages], ['/v1/chat/completions', chat]]) {
    assert.equal(r.tokens, TOKENS, `anthro-wb session ${path}: tokens`);
    assert.equal(r.usage_output_tokens, TOKENS, `anthro-wb session ${path}: usage output tokens`);
    assert.ok(r.text.length > 0, `anthro-wb session ${path}: empty text`);
  }
  // The simulated model's text depends on the seed and the prompt only, whichever API carries it.
  assert.equal(chat.text, messages.text, 'anthro-wb session: /v1/chat/completions text against /v1/messages');
  reference = messages;
});

// Whatever failed: no endpoint or pass-through outlives the script.
after(() => {
  for (const c of counters) c.server.close();
  for (const ep of endpoints) if (!ep.exited) ep.child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});
process.on('exit', () => endpoints.forEach((ep) => ep.exited || ep.child.kill('SIGKILL')));

describe('@anthropic-ai/sdk', () => {
  const client = (base, options = {}) =>
    new Anthropic({ apiKey: KEY, authToken: null, baseURL: base, maxRetries: 0, timeout: CALL_TIMEOUT_MS, ...options });
  const request = (fields = {}) => ({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: PROMPT }], ...fields });

  it('a whole reply: text, usage and stop reason as the endpoint sent them', TEST, async () => {
    const msg = await client(main.url).messages.create(request());
    assert.equal(msg.type, 'message', 'anthropic whole: type');
    assert.equal(msg.role, 'assistant', 'anthropic whole: role');
    assert.equal(msg.model, MODEL, 'anthropic whole: model');
    assert.equal(msg.content.length, 1, 'anthropic whole: content blocks');
    assert.equal(msg.content[0].type, 'text', 'anthropic whole: block type');
    assert.equal(msg.content[0].text, reference.text, 'anthropic whole: text against anthro-wb session');
    assert.equal(msg.stop_reason, 'end_turn', 'anthropic whole: stop_reason');
    assert.equal(msg.usage.output_tokens, TOKENS, 'anthropic whole: usage.output_tokens');
    assert.equal(msg.usage.input_tokens, PROMPT_WORDS, 'anthropic whole: usage.input_tokens');
  });

  it('a reply cut by max_tokens', TEST, async () => {
    const msg = await client(main.url).messages.create(request({ max_tokens: SHORT }));
    assert.equal(msg.stop_reason, 'max_tokens', 'anthropic cut: stop_reason');
    assert.equal(msg.usage.output_tokens, SHORT, 'anthropic cut: usage.output_tokens');
    const text = msg.content[0].text;
    assert.ok(text.length > 0 && text.length < reference.text.length && reference.text.startsWith(text),
              `anthropic cut: ${JSON.stringify(text)} is not a shorter start of ${JSON.stringify(reference.text)}`);
  });

  it('a streamed reply: events, deltas, final message', TEST, async () => {
    const stream = client(main.url).messages.stream(request());
    const types = [];
    const deltas = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') deltas.push(event.delta.text);
    }
    const msg = await stream.finalMessage();
    assert.equal(types[0], 'message_start', 'anthropic stream: first event');
    assert.deepEqual(types.slice(-3), ['content_block_stop', 'message_delta', 'message_stop'], 'anthropic stream: last events');
    assert.equal(deltas.length, TOKENS, 'anthropic stream: text deltas (one a token)');
    assert.equal(deltas.join(''), reference.text, 'anthropic stream: deltas against anthro-wb session');
    assert.equal(msg.content[0].text, reference.text, 'anthropic stream: final message text');
    assert.equal(msg.stop_reason, 'end_turn', 'anthropic stream: stop_reason');
    assert.equal(msg.usage.output_tokens, TOKENS, 'anthropic stream: usage.output_tokens');
    assert.equal(msg.usage.input_tokens, PROMPT_WORDS, 'anthropic stream: usage.input_tokens');
  });

  it('400: BadRequestError, not retried', TEST, async () => {
    const from = main.counter.seen.length;
    const err = await rejection(client(main.counter.url, { maxRetries: 2 }).messages.create(request({ max_tokens: 0 })), 'anthropic max_tokens 0');
    assert.ok(err instanceof Anthropic.BadRequestError, `anthropic 400: ${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 400, 'anthropic 400: status');
    assert.equal(err.type, 'invalid_request_error', 'anthropic 400: error type');
    assert.match(err.message, /max_tokens/, 'anthropic 400: message names the field');
    assert.equal(main.counter.seen.length - from, 1, 'anthropic 400: requests the endpoint saw');
  });

  it('401: AuthenticationError on a wrong key, not retried', TEST, async () => {
    const from = main.counter.seen.length;
    const err = await rejection(client(main.counter.url, { apiKey: `${KEY}-wrong`, maxRetries: 2 }).messages.create(request()), 'anthropic wrong key');
    assert.ok(err instanceof Anthropic.AuthenticationError, `anthropic 401: ${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 401, 'anthropic 401: status');
    assert.equal(err.type, 'authentication_error', 'anthropic 401: error type');
    assert.equal(main.counter.seen.length - from, 1, 'anthropic 401: requests the endpoint saw');
  });

  it('429 with retries off: RateLimitError carrying the retry-after', TEST, async () => {
    const from = overloaded.counter.seen.length;
    const err = await rejection(client(overloaded.counter.url, { maxRetries: 0 }).messages.create(request()), 'anthropic overload, no retry');
    assert.ok(err instanceof Anthropic.RateLimitError, `anthropic 429: ${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 429, 'anthropic 429: status');
    assert.equal(err.type, 'rate_limit_error', 'anthropic 429: error type');
    assertOverloadHeaders(err, 'anthropic 429');
    assert.equal(overloaded.counter.seen.length - from, 1, 'anthropic 429, no retry: requests the endpoint saw');
  });

  it('429 every time with 2 retries: each retry after its retry-after, then RateLimitError', TEST, async (t) => {
    const from = overloaded.counter.seen.length;
    const err = await rejection(client(overloaded.counter.url, { maxRetries: 2 }).messages.create(request()), 'anthropic overload, 2 retries');
    assert.ok(err instanceof Anthropic.RateLimitError, `anthropic 429 after retries: ${err?.constructor?.name}: ${err}`);
    const seen = overloaded.counter.seen.slice(from);
    assert.deepEqual(seen.map((s) => s.status), [429, 429, 429], 'anthropic 429 after retries: statuses the endpoint sent');
    assertRetriesWaited(t, seen, 'anthropic overload retries');
  });

  it('429 then a reply: the retry waits the retry-after (1.5 s, beyond its own back-off)', TEST, async (t) => {
    const url = await startEndpoint('replay (anthropic)', ['--replay', replayFile()]);
    const counter = await startCounter(url);
    const msg = await client(counter.url, { maxRetries: 2 }).messages.create(request());
    assert.equal(msg.content[0].text, REPLAY_TEXT, 'anthropic retried: text');
    assert.equal(msg.stop_reason, 'end_turn', 'anthropic retried: stop_reason');
    assert.deepEqual(counter.seen.map((s) => s.status), [429, 200], 'anthropic retried: statuses the endpoint sent');
    assert.equal(counter.seen[0].retryAfterMs, REPLAY_RETRY_MS, 'anthropic retried: the 429\'s retry-after-ms');
    assertRetriesWaited(t, counter.seen, 'anthropic replayed 429');
  });
});

describe('openai', () => {
  const client = (base, options = {}) =>
    new OpenAI({ apiKey: KEY, baseURL: `${base}/v1`, maxRetries: 0, timeout: CALL_TIMEOUT_MS, ...options });
  const request = (fields = {}) => ({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: PROMPT }], ...fields });

  it('a whole reply: text, usage and finish reason as the endpoint sent them', TEST, async () => {
    const r = await client(main.url).chat.completions.create(request());
    assert.equal(r.object, 'chat.completion', 'openai whole: object');
    assert.equal(r.model, MODEL, 'openai whole: model');
    assert.equal(r.choices.length, 1, 'openai whole: choices');
    assert.equal(r.choices[0].message.role, 'assistant', 'openai whole: role');
    assert.equal(r.choices[0].message.content, reference.text, 'openai whole: text against anthro-wb session');
    assert.equal(r.choices[0].finish_reason, 'stop', 'openai whole: finish_reason');
    assert.equal(r.usage.completion_tokens, TOKENS, 'openai whole: usage.completion_tokens');
    assert.equal(r.usage.prompt_tokens, PROMPT_WORDS, 'openai whole: usage.prompt_tokens');
    assert.equal(r.usage.total_tokens, TOKENS + PROMPT_WORDS, 'openai whole: usage.total_tokens');
  });

  it('a reply cut by max_tokens', TEST, async () => {
    const r = await client(main.url).chat.completions.create(request({ max_tokens: SHORT }));
    assert.equal(r.choices[0].finish_reason, 'length', 'openai cut: finish_reason');
    assert.equal(r.usage.completion_tokens, SHORT, 'openai cut: usage.completion_tokens');
    const text = r.choices[0].message.content;
    assert.ok(text.length > 0 && text.length < reference.text.length && reference.text.startsWith(text),
              `openai cut: ${JSON.stringify(text)} is not a shorter start of ${JSON.stringify(reference.text)}`);
  });

  it('a streamed reply with include_usage: chunks, finish reason, usage', TEST, async () => {
    const stream = await client(main.url).chat.completions.create(request({ stream: true, stream_options: { include_usage: true } }));
    const deltas = [];
    const finishes = [];
    let usage = null;
    let chunks = 0;
    for await (const chunk of stream) {
      ++chunks;
      assert.equal(chunk.object, 'chat.completion.chunk', 'openai stream: chunk object');
      for (const choice of chunk.choices) {
        if (choice.delta?.content) deltas.push(choice.delta.content);
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    assert.ok(chunks > TOKENS, `openai stream: ${chunks} chunks`);
    assert.equal(deltas.length, TOKENS, 'openai stream: content deltas (one a token)');
    assert.equal(deltas.join(''), reference.text, 'openai stream: deltas against anthro-wb session');
    assert.deepEqual(finishes, ['stop'], 'openai stream: finish_reason');
    assert.ok(usage, 'openai stream: no usage chunk although include_usage was asked');
    assert.equal(usage.completion_tokens, TOKENS, 'openai stream: usage.completion_tokens');
    assert.equal(usage.prompt_tokens, PROMPT_WORDS, 'openai stream: usage.prompt_tokens');
  });

  it('400: BadRequestError, not retried', TEST, async () => {
    const from = main.counter.seen.length;
    const err = await rejection(client(main.counter.url, { maxRetries: 2 }).chat.completions.create(request({ max_tokens: 0 })), 'openai max_tokens 0');
    assert.ok(err instanceof OpenAI.BadRequestError, `openai 400: ${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 400, 'openai 400: status');
    assert.equal(err.type, 'invalid_request_error', 'openai 400: error type');
    assert.match(err.message, /max_tokens/, 'openai 400: message names the field');
    assert.equal(main.counter.seen.length - from, 1, 'openai 400: requests the endpoint saw');
  });

  it('401: AuthenticationError on a wrong key, not retried', TEST, async () => {
    const from = main.counter.seen.length;
    const err = await rejection(client(main.counter.url, { apiKey: `${KEY}-wrong`, maxRetries: 2 }).chat.completions.create(request()), 'openai wrong key');
    assert.ok(err instanceof OpenAI.AuthenticationError, `openai 401: ${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 401, 'openai 401: status');
    assert.equal(err.type, 'authentication_error', 'openai 401: error type');
    assert.equal(main.counter.seen.length - from, 1, 'openai 401: requests the endpoint saw');
  });

  it('429 with retries off: RateLimitError carrying the retry-after', TEST, async () => {
    const from = overloaded.counter.seen.length;
    const err = await rejection(client(overloaded.counter.url, { maxRetries: 0 }).chat.completions.create(request()), 'openai overload, no retry');
    assert.ok(err instanceof OpenAI.RateLimitError, `openai 429: ${err?.constructor?.name}: ${err}`);
    assert.equal(err.status, 429, 'openai 429: status');
    assert.equal(err.type, 'rate_limit_error', 'openai 429: error type');
    assertOverloadHeaders(err, 'openai 429');
    assert.equal(overloaded.counter.seen.length - from, 1, 'openai 429, no retry: requests the endpoint saw');
  });

  it('429 every time with 2 retries: each retry after its retry-after, then RateLimitError', TEST, async (t) => {
    const from = overloaded.counter.seen.length;
    const err = await rejection(client(overloaded.counter.url, { maxRetries: 2 }).chat.completions.create(request()), 'openai overload, 2 retries');
    assert.ok(err instanceof OpenAI.RateLimitError, `openai 429 after retries: ${err?.constructor?.name}: ${err}`);
    const seen = overloaded.counter.seen.slice(from);
    assert.deepEqual(seen.map((s) => s.status), [429, 429, 429], 'openai 429 after retries: statuses the endpoint sent');
    assertRetriesWaited(t, seen, 'openai overload retries');
  });

  it('429 then a reply: the retry waits the retry-after (1.5 s, beyond its own back-off)', TEST, async (t) => {
    const url = await startEndpoint('replay (openai)', ['--replay', replayFile()]);
    const counter = await startCounter(url);
    const r = await client(counter.url, { maxRetries: 2 }).chat.completions.create(request());
    assert.equal(r.choices[0].message.content, REPLAY_TEXT, 'openai retried: text');
    assert.equal(r.choices[0].finish_reason, 'stop', 'openai retried: finish_reason');
    assert.deepEqual(counter.seen.map((s) => s.status), [429, 200], 'openai retried: statuses the endpoint sent');
    assert.equal(counter.seen[0].retryAfterMs, REPLAY_RETRY_MS, 'openai retried: the 429\'s retry-after-ms');
    assertRetriesWaited(t, counter.seen, 'openai replayed 429');
  });
});

// Last: every endpoint stops on SIGTERM with exit 0 (under the sanitizers, with LeakSanitizer's
// verdict in that status).
it('every endpoint exits 0 on SIGTERM', TEST, async () => {
  const problems = [];
  await Promise.all(endpoints.map(async (ep) => {
    if (!ep.exited) ep.child.kill('SIGTERM');
    let timer;
    const ended = await Promise.race([ep.done, new Promise((r) => (timer = setTimeout(() => r(null), 60_000)))]);
    clearTimeout(timer);
    if (!ended) problems.push(`endpoint ${ep.name}: still running 60 s after SIGTERM\n${ep.output}`);
    else if (ended.code !== 0) problems.push(`endpoint ${ep.name}: exit ${ended.code}, signal ${ended.signal} after SIGTERM\n${ep.output}`);
  }));
  assert.equal(endpoints.length, 4, 'endpoints started');
  assert.deepEqual(problems, [], 'endpoints that did not end cleanly');
});
