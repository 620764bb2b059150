// The lecture deck's page script (python -m publish deck): what a deck page needs and nothing else.
//
// Voila's own page script (~5 MB: JupyterLab's application, its renderers, MathJax, the federated widget
// extensions) starts only after the page's load event and connects to the kernel once its app has started.
// A deck needs less: connect to the kernel Voila started for the page (preheated: it has already run the
// deck), fetch every widget's state in one message, render the widget views of the live slides (the current
// slide first), then typeset the slides' maths with the MathJax shipped next to this file (loaded only then).
//
// Built by build.sh (esbuild) into ../share/jupyter/voila/templates/ch02-deck/static/deck-widgets.js and
// deck-widgets.css; nothing is fetched from another host.

import * as base from '@jupyter-widgets/base';
import * as controls from '@jupyter-widgets/controls';
import { ManagerBase } from '@jupyter-widgets/base-manager';
import { KernelConnection } from '@jupyterlab/services/lib/kernel/default';
import { ServerConnection } from '@jupyterlab/services/lib/serverconnection';
import { Widget } from '@lumino/widgets';
import '@jupyter-widgets/controls/css/widgets.css';

const VIEW_MIME = 'application/vnd.jupyter.widget-view+json';
const MODULES = { '@jupyter-widgets/base': base, '@jupyter-widgets/controls': controls };

class DeckWidgetManager extends ManagerBase {
  constructor(kernel) {
    super();
    this.kernel = kernel;
    // Widgets the kernel creates later (e.g. in a button's callback) arrive as comm_open messages.
    kernel.registerCommTarget(this.comm_target_name, async (comm, msg) => {
      await this.handle_comm_open(new base.shims.services.Comm(comm), msg);
    });
  }

  async loadClass(className, moduleName, moduleVersion) {
    const mod = MODULES[moduleName];
    if (mod && mod[className]) {
      return mod[className];
    }
    throw new Error(`the deck page has no widget class ${className} of ${moduleName} ${moduleVersion}`);
  }

  async _create_comm(targetName, modelId, data, metadata, buffers) {
    const comm = this.kernel.createComm(targetName, modelId);
    if (data || metadata) {
      comm.open(data, metadata, buffers);
    }
    return new base.shims.services.Comm(comm);
  }

  async _get_comm_info() {
    const reply = await this.kernel.requestCommInfo({ target_name: this.comm_target_name });
    return reply.content.status === 'ok' ? reply.content.comms : {};
  }

  async loadFromKernel() {
    await this._loadFromKernel();
  }
}

// The page config, once the parser has written all of it (null before: the element can be in the document while
// its text is still arriving).
function pageConfig() {
  const el = document.getElementById('jupyter-config-data');
  if (!el || !el.nextSibling && document.readyState === 'loading') {
    return null;
  }
  try {
    return JSON.parse(el.textContent);
  } catch (err) {
    if (document.readyState === 'loading') {
      return null;
    }
    throw err;
  }
}

// An output that is not a widget (a setup cell's text, say): shown as Jupyter would, without JupyterLab's renderers.
function renderPlain(output, host) {
  const data = output.data || {};
  if (output.output_type === 'stream' || output.output_type === 'error') {
    return; // stdout/stderr and tracebacks are not slide content (Voila hides tracebacks too)
  }
  if (data['image/png']) {
    const img = document.createElement('img');
    img.src = 'data:image/png;base64,' + String(data['image/png']).replace(/\n/g, '');
    host.appendChild(img);
  } else if (data['text/html']) {
    host.innerHTML = [].concat(data['text/html']).join('');
  } else if (data['text/plain']) {
    const pre = document.createElement('pre');
    pre.textContent = [].concat(data['text/plain']).join('');
    host.appendChild(pre);
  }
}

async function renderWidget(manager, modelId, host) {
  let model;
  for (let tries = 0; ; tries++) {
    try {
      model = await manager.get_model(modelId);
      break;
    } catch (err) {
      // Not in the state the kernel sent: it may still be opened by the kernel (comm_open); wait a little.
      if (tries >= 50) {
        throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const view = await manager.create_view(model);
  host.classList.add('jupyter-widgets-view');
  Widget.attach(view.luminoWidget, host);
  return view;
}

// Every cell output in the page, the live slides' widgets first (current slide, then the next ones in order).
function outputsInOrder() {
  const scripts = Array.from(document.querySelectorAll('script[type="application/vnd.voila.cell-output+json"]'));
  const current = document.querySelector('.deck-slide.deck-current');
  const rank = (s) => {
    const slide = s.closest('.deck-slide');
    if (!slide) {
      return 1e6; // setup cells: out of sight
    }
    const n = Number(slide.dataset.slide);
    const c = current ? Number(current.dataset.slide) : 1;
    return n >= c ? n - c : 1e3 + n;
  };
  return scripts.map((s, i) => ({ s, r: rank(s), i })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.s);
}

// The page config (with the kernel's id) comes before the slides; this script is loaded async from the head,
// so it may run before the parser has reached it.
function whenConfig() {
  return new Promise((resolve) => {
    const config = pageConfig();
    if (config) {
      resolve(config);
      return;
    }
    const check = () => {
      const c = pageConfig();
      if (c) {
        observer.disconnect();
        document.removeEventListener('DOMContentLoaded', check);
        resolve(c);
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document, { childList: true, subtree: true, characterData: true });
    document.addEventListener('DOMContentLoaded', check);
  });
}

function whenParsed() {
  return new Promise((resolve) => {
    if (document.readyState !== 'loading') {
      resolve();
    } else {
      document.addEventListener('DOMContentLoaded', () => resolve(), { once: true });
    }
  });
}

const mark = (name) => performance.mark && performance.mark('deck:' + name);

//: Seconds the page waits for its kernel's connection and the widgets' state before it says it cannot start.
const START_TIMEOUT_MS = 15000;

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// The widgets could not start: every slide still waiting says so, and what to do (the projector shows it).
function showStartFailure() {
  for (const wait of document.querySelectorAll('.deck-wait')) {
    if (wait.closest('.deck-live') && wait.closest('.deck-live').querySelector('.jupyter-widgets')) {
      continue;
    }
    const msg = document.createElement('div');
    msg.className = 'deck-start-failed';
    msg.style.cssText = 'font-size:24px;color:#b00020;line-height:1.5';
    msg.textContent = '无法连接到内核，互动图没有启动：请刷新页面（F5）；若仍不行，请查看运行 python -m publish deck '
      + '的终端窗口（它是否还在运行、有没有报错）。 (The page could not reach its kernel: reload the page; '
      + 'if that does not help, check the terminal running python -m publish deck.)';
    wait.replaceWith(msg);
  }
}

let unloading = false;

// The kernel died, is restarting (a restarted kernel has none of the deck's widgets) or its connection is lost: the
// page says so once, in a banner, and the widgets' inputs stop taking input (slide navigation still works).
function kernelLost(manager, why) {
  if (unloading || document.body.dataset.deckKernel === 'lost') {
    return;
  }
  console.error('deck: the kernel is lost:', why);
  document.body.dataset.deckKernel = 'lost';
  const banner = document.createElement('div');
  banner.className = 'deck-kernel-lost';
  banner.setAttribute('role', 'alert');
  banner.style.cssText = 'position:fixed;top:0;left:0;right:0;z-index:10000;background:#b00020;color:#fff;'
    + 'font-size:24px;line-height:1.4;padding:8px 16px;text-align:center;font-family:inherit';
  banner.textContent = '内核已断开：请刷新页面（F5）。 (The kernel is gone: reload the page.)';
  document.body.appendChild(banner);
  for (const live of document.querySelectorAll('.deck-live')) {
    live.style.pointerEvents = 'none';
    live.style.opacity = '0.6';
  }
  for (const el of document.querySelectorAll('.deck-live input, .deck-live button, .deck-live select, .deck-live textarea')) {
    el.disabled = true;
  }
  // Sliders are not <input>s: each widget's own 'disabled' (set here only, never sent to the kernel).
  for (const pending of Object.values(manager._models || {})) {
    Promise.resolve(pending).then((model) => {
      if (model && model.get('disabled') !== undefined) {
        model.set('disabled', true);
      }
    }, () => {});
  }
}

async function main() {
  mark('script');
  const started = Date.now();
  const left = () => Math.max(0, START_TIMEOUT_MS - (Date.now() - started));
  const config = (await withTimeout(whenConfig(), left(), 'the page config')) || {};
  const kernelId = config.kernelId;
  if (!kernelId) {
    throw new Error('the page config has no kernelId');
  }
  mark('config');
  const settings = ServerConnection.makeSettings({ baseUrl: config.baseUrl });
  // No comm subshells (JupyterLab 4.6's default, one per comm target): Voila's server refuses their
  // create_subshell_request, and the requests it leaves unanswered fail when the page is closed or reloaded.
  const kernel = new KernelConnection({ model: { id: kernelId, name: 'python3' }, serverSettings: settings,
                                        commsOverSubshells: 'disabled' });
  // As Voila's page does: closing the page shuts its kernel down. The server checks the form's _xsrf against the
  // _xsrf cookie (double submit), and Voila's standalone server never sets that cookie, so its own page's request
  // is refused (403); without one, this page sets a random token for the shutdown path only.
  window.addEventListener('beforeunload', () => {
    unloading = true;
    const form = new FormData();
    const path = `${settings.baseUrl}voila/api/shutdown/`;
    const xsrf = document.cookie.match('(?:^|;\\s*)_xsrf=([^;]*)');
    let token = xsrf && xsrf[1];
    if (!token) {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      token = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
      document.cookie = `_xsrf=${token}; path=${path}; SameSite=Strict`;
    }
    form.append('_xsrf', token);
    navigator.sendBeacon(`${path}${kernel.id}`, form);
    kernel.dispose();
  });
  const manager = new DeckWidgetManager(kernel);
  window.deckWidgets = { kernel, manager };
  kernel.statusChanged.connect((_, status) => {
    if (status === 'autorestarting' || status === 'restarting' || status === 'dead') {
      kernelLost(manager, `kernel status ${status}`);
    }
  });
  // 'disconnected': the connection gave up; 'connecting' again after it was up (the server stopped, say: the
  // connection then retries for ever) is lost too if it is not back within a few seconds.
  let connected = false, retry = null;
  kernel.connectionStatusChanged.connect((_, status) => {
    clearTimeout(retry);
    if (status === 'disconnected') {
      kernelLost(manager, 'connection closed');
    } else if (status === 'connected') {
      connected = true;
    } else if (status === 'connecting' && connected) {
      retry = setTimeout(() => kernelLost(manager, 'connection lost'), 5000);
    }
  });
  await withTimeout(manager.loadFromKernel(), left(), "the kernel's connection and the widgets' state");
  mark('state');
  await whenParsed(); // the live slides' outputs are in their slides only once the page is parsed
  mark('parsed');
  const jobs = [];
  for (const script of outputsInOrder()) {
    const output = JSON.parse(script.textContent);
    const host = document.createElement('div');
    host.className = 'jp-OutputArea-output';
    script.replaceWith(host);
    const view = output.data && output.data[VIEW_MIME];
    if (view && view.model_id) {
      jobs.push(renderWidget(manager, view.model_id, host).catch((err) => {
        // Said on the slide, in the words JupyterLab uses (the teacher's guide: reload the page).
        console.error('deck: a widget did not render', err);
        const pre = document.createElement('pre');
        pre.className = 'deck-widget-error';
        pre.textContent = `Error displaying widget: ${err && err.message ? err.message : err}`;
        host.appendChild(pre);
      }));
      if (jobs.length === 1) {
        await jobs[0]; // the first live widget before anything else
        mark('first-view');
      }
    } else {
      renderPlain(output, host);
    }
  }
  await Promise.all(jobs);
  mark('all-views');
  document.body.dataset.deckWidgets = 'ready';
  window.dispatchEvent(new Event('deck-widgets-ready'));
}

main().catch((err) => {
  console.error('deck: the widgets could not start', err);
  whenParsed().then(showStartFailure);
  document.body.dataset.deckWidgets = 'failed';
  window.dispatchEvent(new Event('deck-widgets-ready'));
});
