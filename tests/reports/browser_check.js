#!/usr/bin/env node
// Loads an HTML report in headless Chromium and checks that it is a working, inert page:
// it loads, logs no console error and throws no exception, fetches nothing, opens no
// dialog, has no <img> or <script> element, shows the texts it is given and has at least
// the given number of bank pictures and an element for each selector given. Saves a
// full-page screenshot.
//
// Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
// NUL-separated JSON on file descriptors 3 and 4), so no network port and no npm package.
//
// Usage: node browser_check.js CHROMIUM PAGE.html SCREENSHOT.png
//            [--text STRING]... [--min-svgs N] [--selector CSS]...
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');

const [chromium, page, screenshot, ...rest] = process.argv.slice(2);
if (!chromium || !page || !screenshot) {
  console.error('usage: browser_check.js CHROMIUM PAGE.html SCREENSHOT.png [--text S]... [--min-svgs N] [--selector CSS]...');
  process.exit(2);
}
const texts = [];
const selectors = [];
let minSvgs = 0;
for (let i = 0; i < rest.length; i += 2) {
  if (rest[i] === '--text') texts.push(rest[i + 1]);
  else if (rest[i] === '--selector') selectors.push(rest[i + 1]);
  else if (rest[i] === '--min-svgs') minSvgs = Number(rest[i + 1]);
  else { console.error(`browser_check: unknown argument ${rest[i]}`); process.exit(2); }
}

const pageUrl = pathToFileURL(path.resolve(page)).href;
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bankcheck-chromium-'));
const browser = spawn(chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe',
  `--user-data-dir=${profile}`, '--no-first-run', '--no-default-browser-check',
  '--disable-extensions', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-default-apps', '--mute-audio', '--hide-scrollbars',
  'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
let browserLog = '';
let finished = false;
browser.on('exit', (code, signal) => {
  if (finished) return;
  console.error(`browser_check: ${chromium} exited (${code ?? signal}) before the check ended`);
  if (browserLog) console.error(browserLog.slice(-2000));
  process.exit(1);
});
browser.stderr.on('data', (d) => { browserLog += d; });

const problems = [];
let nextId = 1;
const pending = new Map();
const listeners = [];
let buffer = '';
browser.stdio[4].on('data', (chunk) => {
  buffer += chunk.toString('utf8');
  let end;
  while ((end = buffer.indexOf('\0')) >= 0) {
    const msg = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject, method } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
      else resolve(msg.result);
    } else if (msg.method) {
      for (const l of listeners) l(msg);
    }
  }
});

function send(method, params = {}, sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  browser.stdio[3].write(JSON.stringify(msg) + '\0');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
}

function waitFor(method, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${method}`)), timeoutMs);
    listeners.push((msg) => {
      if (msg.method === method) { clearTimeout(timer); resolve(msg.params); }
    });
  });
}

async function main() {
  listeners.push((msg) => {
    const p = msg.params || {};
    switch (msg.method) {
      case 'Runtime.consoleAPICalled':
        if (p.type === 'error' || p.type === 'assert')
          problems.push(`console.${p.type}: ${(p.args || []).map((a) => a.value ?? a.description).join(' ')}`);
        break;
      case 'Runtime.exceptionThrown':
        problems.push(`exception: ${p.exceptionDetails.exception?.description ?? p.exceptionDetails.text}`);
        break;
      case 'Log.entryAdded':
        if (p.entry.level === 'error') problems.push(`console error (${p.entry.source}): ${p.entry.text}`);
        break;
      case 'Network.requestWillBeSent': {
        const url = p.request.url;
        if (url !== pageUrl && !url.startsWith('data:')) problems.push(`the page fetched ${url}`);
        break;
      }
      case 'Page.javascriptDialogOpening':
        problems.push(`the page opened a ${p.type} dialog: ${p.message}`);
        break;
    }
  });
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const s = (method, params) => send(method, params, sessionId);
  await s('Runtime.enable');
  await s('Log.enable');
  await s('Network.enable');
  await s('Page.enable');
  const loaded = waitFor('Page.loadEventFired', 30000);
  const nav = await s('Page.navigate', { url: pageUrl });
  if (nav.errorText) throw new Error(`navigation failed: ${nav.errorText}`);
  await loaded;
  await new Promise((r) => setTimeout(r, 300));  // late console messages

  const evaluate = async (expr) => {
    const r = await s('Runtime.evaluate', { expression: expr, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`evaluating ${expr}: ${r.exceptionDetails.text}`);
    return r.result.value;
  };
  const dom = await evaluate(`({
    imgs: document.querySelectorAll('img').length,
    scripts: document.querySelectorAll('script').length,
    handlers: [...document.querySelectorAll('*')].filter((e) =>
        [...e.attributes].some((a) => a.name.startsWith('on'))).length,
    svgs: document.querySelectorAll('svg.banks').length,
    text: document.body.textContent,
    title: document.title,
    matched: ${JSON.stringify(selectors)}.map((q) => document.querySelectorAll(q).length),
  })`);
  if (dom.imgs) problems.push(`the page has ${dom.imgs} <img> element(s)`);
  if (dom.scripts) problems.push(`the page has ${dom.scripts} <script> element(s)`);
  if (dom.handlers) problems.push(`${dom.handlers} element(s) have event-handler attributes`);
  if (dom.svgs < minSvgs) problems.push(`${dom.svgs} bank picture(s), expected at least ${minSvgs}`);
  for (const t of texts)
    if (!dom.text.includes(t)) problems.push(`the page does not show the text ${JSON.stringify(t)}`);
  selectors.forEach((q, i) => {
    if (!dom.matched[i]) problems.push(`no element matches ${q}`);
  });

  // A full-page screenshot (height capped: the source of a big file is long).
  const metrics = await s('Page.getLayoutMetrics');
  const size = metrics.cssContentSize || metrics.contentSize;
  const width = Math.ceil(Math.max(size.width, 1000));
  const height = Math.ceil(Math.min(size.height, 12000));
  await s('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
  const shot = await s('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
  fs.writeFileSync(screenshot, Buffer.from(shot.data, 'base64'));
  console.log(`browser_check: ${page}: "${dom.title}", ${dom.svgs} bank picture(s), screenshot ${screenshot} (${width}x${height})`);
  await send('Browser.close').catch(() => {});
}

const deadline = setTimeout(() => {
  console.error('browser_check: timed out after 90 s');
  if (browserLog) console.error(browserLog.slice(-2000));
  browser.kill('SIGKILL');
  process.exit(1);
}, 90000);

// Ends the browser, waits for it to exit (it writes its profile until then), cleans up.
function finish(status) {
  finished = true;
  clearTimeout(deadline);
  const done = () => {
    try { fs.rmSync(profile, { recursive: true, force: true }); } catch (e) { /* left in tmp */ }
    process.exit(status);
  };
  if (browser.exitCode !== null || browser.signalCode !== null) return done();
  browser.once('exit', done);
  browser.kill();
  setTimeout(() => { browser.kill('SIGKILL'); }, 5000).unref();
}

main().then(() => {
  for (const p of problems) console.error(`browser_check: FAIL: ${p}`);
  finish(problems.length ? 1 : 0);
}, (e) => {
  console.error(`browser_check: ${e.message}`);
  if (browserLog) console.error(browserLog.slice(-2000));
  finish(1);
});
