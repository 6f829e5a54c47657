/**
 * Offline Google sign-in through the Firebase Auth emulator's popup.
 *
 * WHY THIS FILE EXISTS
 * --------------------
 * `signInWithPopup(auth, new GoogleAuthProvider())` with `connectAuthEmulator`
 * (firebase 12.x / @firebase/auth 1.13.x) does two things that touch the network:
 *
 * 1. `BrowserPopupRedirectResolver._initialize()` -> `initAndGetManager()` ->
 *    `_openIframe(auth)` (@firebase/auth src/platform_browser/iframe/iframe.ts)
 *    -> `_loadGapi(auth)` (src/platform_browser/iframe/gapi.ts) which injects
 *    `<script src="https://apis.google.com/js/api.js?onload=__iframefcbNNN">`,
 *    then calls `gapi.load('gapi.iframes', {callback, ontimeout, timeout})` and
 *    `gapi.iframes.getContext().open({where, url, messageHandlersFilter,
 *    attributes, dontclear}, iframe => ...)`. The url is the emulator helper
 *    iframe `http://127.0.0.1:9099/emulator/auth/iframe?apiKey=..&appName=..&v=..`.
 *    Inside the open callback the SDK calls `iframe.restyle({setHideOnLeave:false})`
 *    and `iframe.ping(cb)` (rejects with auth/network-request-failed after
 *    PING_TIMEOUT = 5s if the ping never answers). It then does
 *    `iframe.register('authEvent', handler, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER)`
 *    where the handler feeds `AuthEventManager.onEvent()` and returns
 *    `{status: 'ACK'|'ERROR'}`.
 *    `PopupOperation.onExecution()` also calls
 *    `resolver._isIframeWebStorageSupported()` which does
 *    `iframe.send('webStorageSupport', {type:'webStorageSupport'}, cb, filter)`
 *    and reads `cb(result)` as `result[0].webStorageSupport` (and then always
 *    calls `_fail(...)` inside the callback -> the stub must swallow errors
 *    thrown by callbacks).
 *
 * 2. The emulator helper iframe page (firebase-tools
 *    lib/emulator/auth/handlers.js, route `/emulator/auth/iframe`) ALSO loads
 *    `https://apis.google.com/js/api.js` and expects `window.gapi_onload` to be
 *    called; it then does `gapi.load('gapi.iframes', {callback: initFrameMessaging})`,
 *    `gapi.iframes.getContext().getParentIframe()`, registers a
 *    'webStorageSupport' handler (returns `{status:'ACK', webStorageSupport:true}`)
 *    and `send('authEvent', {type:'authEvent', authEvent}, cb)`; cb expects an
 *    array whose last element has `status === 'ACK'` (otherwise it alert()s).
 *    It sends a `{type:'unknown', error:{code:'auth/no-auth-event'}}` event
 *    right after start-up (possibly before the parent registered 'authEvent',
 *    hence the stub queues requests until a handler is registered).
 *
 * The popup itself (`/emulator/auth/handler?apiKey=..&appName=..&authType=signInViaPopup
 * &redirectUrl=..&v=..&eventId=..&providerId=google.com`, built by
 * `_getRedirectUrl()` / `getHandlerBase()` with EMULATOR_WIDGET_PATH) does NOT use
 * gapi: its widget script (lib/emulator/auth/widget_ui.js,
 * `sendAuthEventViaIframeRelay`) loops over `window.opener.frames`, picks the
 * same-origin frame whose `location.search` has the same apiKey/appName and does
 * `frame.postMessage({eventType:'sendAuthEvent', data:{authEvent, storageKey}}, '*')`.
 * The helper iframe relays that to the parent via gapi `send('authEvent')`, the
 * SDK closes the popup (`PopupOperation.cleanUp()`) and calls signInWithIdp on
 * the emulator. Therefore the stub MUST create a real child <iframe> of the app
 * page (so it appears in `window.opener.frames`) pointing at the emulator URL.
 *
 * The widget page also references unpkg.com (material-components-web CSS/JS)
 * and fonts.googleapis.com. Offline these fail (the page degrades gracefully:
 * `window.mdc && ...`), but a blocking <script src> that hangs on DNS would delay
 * the page, so `installGoogleApiStub` fulfils them with empty bodies.
 *
 * The stand-in below implements the minimal gapi surface for both sides over a
 * private postMessage protocol (messages tagged with `__pwGapiStub`).
 */
import type { BrowserContext, Page } from '@playwright/test';

/** Source of the stand-in for https://apis.google.com/js/api.js (runs in the app page AND in the emulator helper iframe). */
export const GOOGLE_API_STUB_SOURCE = String.raw`(function () {
  'use strict';
  var w = window;
  var MARK = '__pwGapiStub';

  // The SDK loads "api.js?onload=<callbackName>"; the emulator iframe relies on window.gapi_onload.
  var onloadName = null;
  try {
    var cs = document.currentScript;
    if (cs && cs.src) onloadName = new URL(cs.src, location.href).searchParams.get('onload');
  } catch (e) {}
  function fireOnload() {
    setTimeout(function () {
      if (onloadName && typeof w[onloadName] === 'function') w[onloadName]();
      else if (typeof w.gapi_onload === 'function') w.gapi_onload();
    }, 0);
  }
  if (w.gapi && w.gapi.iframes && w.gapi.iframes.__pwStub) { fireOnload(); return; }

  var seq = 0;
  function newId() { return MARK + '_' + (++seq) + '_' + Math.random().toString(36).slice(2); }
  function safeCall(fn, arg) { if (typeof fn !== 'function') return; try { fn(arg); } catch (e) { /* e.g. SDK _fail() after cb */ } }

  var channels = [];

  /** One end of a parent<->child iframe link (stands in for gapi.iframes.Iframe). */
  function Channel(getWin, el) {
    this._getWin = getWin;
    this._el = el || null;
    this._handlers = {};
    this._queue = {};
    this._pending = {};
    channels.push(this);
  }
  Channel.prototype._post = function (msg) {
    msg[MARK] = 1;
    var win = this._getWin();
    if (win) win.postMessage(msg, '*');
  };
  Channel.prototype.getWindow = function () { return this._getWin(); };
  Channel.prototype.getIframeEl = function () { return this._el; };
  Channel.prototype.register = function (type, handler /*, filter */) {
    this._handlers[type] = handler;
    var queued = this._queue[type] || [];
    delete this._queue[type];
    for (var i = 0; i < queued.length; i++) this._dispatch(queued[i]);
  };
  Channel.prototype.unregister = function (type) { delete this._handlers[type]; };
  Channel.prototype.send = function (type, data, cb /*, filter */) {
    var self = this;
    var id = newId();
    return new Promise(function (resolve) {
      self._pending[id] = function (results) { safeCall(cb, results); resolve(results); };
      self._post({ t: 'req', id: id, type: type, data: data });
    });
  };
  Channel.prototype._dispatch = function (msg) {
    var self = this;
    var handler = this._handlers[msg.type];
    if (!handler) {
      // Real gapi buffers too; the helper iframe sends 'authEvent' before the SDK registers it.
      (this._queue[msg.type] = this._queue[msg.type] || []).push(msg);
      return;
    }
    var result;
    try { result = handler(msg.data, self); } catch (e) { result = { status: 'ERROR', error: String(e) }; }
    Promise.resolve(result).then(function (r) {
      // gapi delivers an array with one entry per handler.
      self._post({ t: 'res', id: msg.id, data: [r] });
    });
  };
  Channel.prototype.ping = function (cb) {
    var self = this;
    var id = newId();
    return new Promise(function (resolve) {
      var timer = null;
      self._pending[id] = function (res) {
        if (timer) clearInterval(timer);
        safeCall(cb, res);
        resolve(res);
      };
      // Keep pinging: early messages land in the iframe's initial about:blank document and get lost.
      function tick() { self._post({ t: 'ping', id: id }); }
      timer = setInterval(tick, 50);
      tick();
    });
  };
  Channel.prototype.restyle = function () { return Promise.resolve(); };
  Channel.prototype.close = function () {
    if (this._el && this._el.parentNode) this._el.parentNode.removeChild(this._el);
  };

  function channelFor(source) {
    for (var i = 0; i < channels.length; i++) if (channels[i]._getWin() === source) return channels[i];
    return null;
  }

  w.addEventListener('message', function (e) {
    var m = e.data;
    if (!m || typeof m !== 'object' || !m[MARK]) return;
    if (m.t === 'ping') {
      var reply = { t: 'pong', id: m.id }; reply[MARK] = 1;
      if (e.source) e.source.postMessage(reply, '*');
      return;
    }
    var ch = channelFor(e.source);
    if (!ch) return;
    if (m.t === 'pong' || m.t === 'res') {
      var p = ch._pending[m.id];
      if (p) { delete ch._pending[m.id]; p(m.data); }
    } else if (m.t === 'req') {
      ch._dispatch(m);
    }
  });

  // Child side (emulator helper iframe): the link to our parent exists from the start so
  // requests arriving before getParentIframe() are queued, not dropped.
  var parentChannel = w.parent !== w ? new Channel(function () { return w.parent; }) : null;

  var context = {
    open: function (opts, onOpen) {
      var el = document.createElement('iframe');
      var attrs = (opts && opts.attributes) || {};
      for (var k in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, k)) continue;
        if (k === 'style' && typeof attrs.style === 'object') {
          for (var s in attrs.style) el.style[s] = attrs.style[s];
        } else {
          el.setAttribute(k, attrs[k]);
        }
      }
      el.setAttribute('name', 'pwGapiStubFrame' + (++seq));
      el.src = opts.url;
      ((opts && opts.where) || document.body).appendChild(el);
      var ch = new Channel(function () { return el.contentWindow; }, el);
      var r = onOpen ? onOpen(ch) : undefined;
      return r && typeof r.then === 'function' ? r : Promise.resolve(ch);
    },
    getParentIframe: function () { return parentChannel; },
    getWindow: function () { return w; }
  };

  w.gapi = w.gapi || {};
  w.gapi.load = function (name, cfg) {
    var cb = typeof cfg === 'function' ? cfg : cfg && cfg.callback;
    setTimeout(function () { if (typeof cb === 'function') cb(); }, 0);
  };
  w.gapi.iframes = {
    __pwStub: true,
    Iframe: Channel,
    CROSS_ORIGIN_IFRAMES_FILTER: function () { return true; },
    SAME_ORIGIN_IFRAMES_FILTER: function () { return true; },
    getContext: function () { return context; }
  };
  fireOnload();
})();
`;

/** URL(s) of the Google JS loader the Firebase SDK and the emulator helper iframe request. */
export const GOOGLE_API_URL_PATTERN = /^https:\/\/apis\.google\.com\/js\/api\.js(\?.*)?$/;

/** Third-party assets referenced by the emulator's popup widget (cosmetic only). */
const EMULATOR_WIDGET_ASSET_PATTERN =
  /^https:\/\/(unpkg\.com\/material-components-web@|fonts\.googleapis\.com\/|fonts\.gstatic\.com\/)/;

/**
 * Serve the gapi stand-in for https://apis.google.com/js/api.js in every page of
 * `context` (routes on the context also apply to popups and iframes), and stub the
 * emulator widget's external CSS/JS/fonts so the popup never waits on the network.
 * Call before the page navigates / before signInWithPopup runs.
 */
export async function installGoogleApiStub(
  context: BrowserContext,
  opts: { stubWidgetAssets?: boolean } = {},
): Promise<void> {
  await context.route(GOOGLE_API_URL_PATTERN, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/javascript; charset=utf-8',
      headers: { 'access-control-allow-origin': '*', 'cache-control': 'no-store' },
      body: GOOGLE_API_STUB_SOURCE,
    }),
  );
  if (opts.stubWidgetAssets !== false) {
    await context.route(EMULATOR_WIDGET_ASSET_PATTERN, (route) => {
      const url = route.request().url();
      const contentType = url.endsWith('.js') ? 'text/javascript' : 'text/css';
      return route.fulfill({ status: 200, contentType, body: '' });
    });
  }
}

/**
 * Drive the Auth emulator's IdP popup (`/emulator/auth/handler`, firebase-tools
 * lib/emulator/auth/widget_ui.js) to sign in as a Google account.
 *
 * - With `email`: if an account with that email is already listed
 *   (`li.js-reuse-account`), pick it (re-adding the same email would mint a new
 *   random provider uid); otherwise "Add new account" (`#add-account-button`),
 *   fill `#email-input` / `#display-name-input`, submit `#sign-in`.
 * - Without `email`: "Add new account" + "Auto-generate user information"
 *   (`#autogen-button`), optionally overriding the display name.
 *
 * Resolves after the popup closes (the SDK closes it once the auth event was
 * delivered), with the email/display name that were used.
 */
export async function completeEmulatorGooglePopup(
  popup: Page,
  opts: { email?: string; displayName?: string; timeout?: number } = {},
): Promise<{ email: string; displayName: string }> {
  const timeout = opts.timeout ?? 15_000;
  await popup.waitForLoadState('domcontentloaded', { timeout });
  await popup.locator('#add-account-button').waitFor({ state: 'visible', timeout });

  // Subscribe before clicking: the SDK may close the popup very quickly. Errors are
  // captured (not left as an unhandled rejection) and rethrown when awaited.
  const closeWait: Promise<unknown> = popup.isClosed()
    ? Promise.resolve()
    : popup.waitForEvent('close', { timeout: timeout * 2 }).then(
        () => undefined,
        (e: unknown) => e,
      );
  const closed = async (): Promise<void> => {
    const err = await closeWait;
    if (err) throw err;
  };

  if (opts.email) {
    const existing = popup.locator('li.js-reuse-account', {
      has: popup.locator('.mdc-list-item__secondary-text', { hasText: new RegExp(`^\\s*${escapeRegExp(opts.email)}\\s*$`) }),
    });
    if ((await existing.count()) > 0) {
      const displayName = ((await existing.first().locator('.mdc-list-item__primary-text').textContent()) ?? '').trim();
      await existing.first().click({ timeout });
      await closed();
      return { email: opts.email, displayName };
    }
  }

  await popup.locator('#add-account-button').click({ timeout });
  await popup.locator('#add-user').waitFor({ state: 'visible', timeout });
  if (opts.email) {
    await popup.locator('#email-input').fill(opts.email, { timeout });
    if (opts.displayName !== undefined) await popup.locator('#display-name-input').fill(opts.displayName, { timeout });
  } else {
    await popup.locator('#autogen-button').click({ timeout });
    if (opts.displayName !== undefined) await popup.locator('#display-name-input').fill(opts.displayName, { timeout });
  }
  const email = await popup.locator('#email-input').inputValue({ timeout });
  const displayName = await popup.locator('#display-name-input').inputValue({ timeout });
  // Button label is "Sign in with Google.com"; it is disabled until the email contains "@".
  await popup.locator('#sign-in').click({ timeout });
  await closed();
  return { email, displayName };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
