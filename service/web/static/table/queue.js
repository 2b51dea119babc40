/* The write queue: every write of the page, in order, persisted on the device (localStorage).
 *
 * Each item has its own Idempotency-Key (crypto.getRandomValues) and the client's time `at`;
 * the first carries If-Match with the version the page shows, each later one the version the
 * previous answer returned. One write is on its way at a time: a tap made while another is
 * pending waits for that answer, and a card tap that named no player is then sent for the
 * player GET …/actions names at that moment (`follow`); only taps queued while the service
 * cannot be reached are sent with the clockwise guess. When the service cannot be reached (no
 * answer, a network error, 503 storage_unavailable or another 5xx) the items wait and are
 * retried in order with their own keys; a refusal (409, 412, 422) of a tap that waited stops the
 * queue and shows the service's sentence. 503 record_damaged stops the queue as well (waiting
 * will not mend the record): the taps stay on the device and the service's sentence is shown.
 */
import {K, QUEUE_KEY, S, base, cardName, changesSince, el, ended, entries, fetchActions, gameId, iso, joinSummaries, players, refresh, refreshActions, refreshSheet, render, saveBoard, say} from "./state.js";

let retryDelay = 1000;
let retryTimer = null;

// ------------------------------------------------------------------ storage

export function loadQueue() {
  try {
    var saved = JSON.parse(window.localStorage.getItem(QUEUE_KEY) || "null");
    if (saved && saved.items) { return saved; }
  } catch (e) { /* a damaged entry is dropped */ }
  return {base: null, items: [], stopped: null};
}

export function saveQueue() {
  try {
    if (S.queue.items.length) {
      var items = [];
      for (var i = 0; i < S.queue.items.length; i++) {
        var it = S.queue.items[i];
        items.push({key: it.key, path: it.path, body: it.body, label: it.label, guessed: it.guessed,
                    attempts: it.attempts, waited: it.waited, follow: it.follow});
      }
      window.localStorage.setItem(QUEUE_KEY, JSON.stringify({base: S.queue.base, items: items, stopped: S.queue.stopped}));
    } else {
      window.localStorage.removeItem(QUEUE_KEY);
    }
  } catch (e) { /* storage full or disabled: the queue still lives in memory */ }
}
// ------------------------------------------------------------------ writing (the queue)

/* Record `body` at `path` ("events", "undo", "redo"). Resolves to "stored", "queued" or "refused". */
export function write(path, body, label, guessed) {
  if (!S.token) { say("This device cannot record this game: it does not hold the game's token."); return Promise.resolve("refused"); }
  var payload = {};
  for (var k in body) { if (Object.prototype.hasOwnProperty.call(body, k)) { payload[k] = body[k]; } }
  if (path === "events") { payload.at = K.nowIso(); }
  var item = {key: K.newKey(), path: path, body: payload, label: label, guessed: !!guessed, attempts: 0,
              waited: S.offline || S.queue.stopped !== null};
  // a card tap made while another write is on its way: its player is the one GET …/actions names
  // once that answer is in (ui.md, "Nothing moves under a finger")
  item.follow = !!guessed && !item.waited && (S.queue.items.length > 0 || !fresh()) && path === "events" && payload.type === "play";
  if (!S.queue.items.length) { S.queue.base = S.version; }
  S.queue.items.push(item);
  saveQueue();
  var result = new Promise(function (resolve) { item.resolve = resolve; });
  say("");
  render();
  drain();
  if (item.waited) { return Promise.resolve("queued"); }
  return result;
}

export function settle(item, outcome) {
  if (item.resolve) { item.resolve(outcome); item.resolve = null; }
}

export function drain() {
  if (S.sending || !S.queue.items.length || S.queue.stopped) { return; }
  if (retryTimer) { window.clearTimeout(retryTimer); retryTimer = null; }
  var item = S.queue.items[0];
  if (item.follow && item.attempts === 0 && !S.offline) {
    if (!fresh()) { return follow(item); }
    settlePlayer(item);
  }
  S.sending = true;
  item.attempts += 1;
  saveQueue();
  var ifMatch = S.queue.base === null ? S.version : S.queue.base;
  K.api("POST", base + "/" + item.path, {body: item.body, token: S.token, ifMatch: ifMatch, key: item.key})
    .then(function (answer) {
      S.sending = false;
      if (answer.status === 201 || answer.status === 200) { return stored(item, answer.body); }
      if (answer.status === 503 && answer.body && answer.body.code === "record_damaged") { return damaged(item, answer); }
      if (answer.status >= 500) { return unreachable(item); }
      return refused(item, answer);
    }, function () {
      S.sending = false;
      unreachable(item);
    });
}

/* The answer before `item` is in: read what can be recorded now and send the card for the player
 * `actions` names (the card a finger chose, the player the service says is next). */
function follow(item) {
  S.sending = true;
  render();
  fetchActions().then(function (body) {
    S.sending = false;
    S.actions = body;
    saveBoard();
    settlePlayer(item);
    drain();
  }, function () {
    S.sending = false;
    unreachable(item);
  });
}

/* A follow-up card tap gets the player the actions on hand name (they are fresh). */
function settlePlayer(item) {
  var play = entries("play");
  if (play.length) {
    item.body.player = play[0].player;
    item.label = item.body.player + " plays " + cardName(item.body.card);
  }
  item.follow = false;
  item.guessed = false;
  saveQueue();
}

/* 503 record_damaged: this game's stored record is not what Kibitz writes. Nothing more is sent
 * (waiting will not mend it); every tap stays on the device, and the service's sentence is shown. */
export function damaged(item, answer) {
  var b = answer.body || {};
  var sentence = ended(b.detail || "This game's record is damaged.");
  for (var i = 0; i < S.queue.items.length; i++) { S.queue.items[i].waited = true; }
  S.queue.stopped = {status: answer.status, code: b.code, detail: sentence};
  saveQueue();
  say(sentence + " " + S.queue.items.length + (S.queue.items.length === 1 ? " tap waits" : " taps wait") + " on this device.");
  settle(item, "queued");
  render();
}

export function stored(item, body) {
  if (S.tokenUnconfirmed) { K.tokens.set(gameId, S.token); S.tokenUnconfirmed = false; }  // accepted: keep it
  S.queue.items.shift();
  S.queue.base = S.queue.items.length ? body.version : null;
  saveQueue();
  if (S.offline) { S.offline = false; retryDelay = 1000; }
  if (S.game && body.state) { S.game.state = body.state; S.game.version = body.version; S.game.status = body.state.status; }
  S.version = body.version;
  if (item.path === "undo" || item.path === "redo") {
    if (body.target && body.target.summary) { iso(el("changes"), item.path === "undo" ? "Undone: " : "Redone: ", body.target.summary); } else { el("changes").textContent = ""; }
  } else {
    el("changes").textContent = "";
  }
  var irregular = body.irregularities || [];
  if (irregular.length) {
    var parts = [];
    for (var i = 0; i < irregular.length; i++) {
      parts.push(irregular[i].detail || irregular[i].summary || irregular[i].reason || irregular[i].message || "");
    }
    say("Irregularity: " + parts.map(ended).join(" "));
  }
  settle(item, "stored");
  render();  // the new board at once; the buttons follow when the actions arrive
  if (S.queue.items.length) {
    drain();
  } else {
    refreshActions().then(function () { refreshSheet(false); });
  }
}

export function unreachable(item) {
  S.offline = true;
  for (var i = 0; i < S.queue.items.length; i++) { S.queue.items[i].waited = true; }
  saveQueue();
  settle(item, "queued");
  render();
  retryTimer = window.setTimeout(function () { retryTimer = null; drain(); }, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 3000);
}

/* A 403 token_invalid (the token was revoked or is wrong): forget it at once (README: "a table
 * page holding it says so and forgets it") and show the page as one without a token. */
export function forgetToken() {
  K.tokens.remove(gameId);
  S.token = null;
  refresh().then(null, function () { render(); });
}

export function refused(item, answer) {
  var b = answer.body || {};
  var sentence = ended(b.detail || ("The service answered " + answer.status + "."));
  if (answer.status === 403 && b.code === "token_invalid") {
    if (item.waited) {  // taps that waited offline stay queued for a new token (the share link)
      S.queue.stopped = {status: answer.status, code: b.code, detail: sentence};
      saveQueue();
      say("Not recorded: " + ended(item.label) + " " + sentence);
    } else {
      say(sentence + dropLive());
    }
    settle(item, "refused");
    forgetToken();
    return;
  }
  if (b.errors) {
    var parts = [];
    for (var field in b.errors) {
      if (Object.prototype.hasOwnProperty.call(b.errors, field)) { parts.push(field + ": " + [].concat(b.errors[field]).join(" ")); }
    }
    if (parts.length) { sentence = sentence.replace(/[.]+$/, "") + " (" + parts.join("; ") + ")."; }
  }
  if (answer.status === 412) {
    var since = S.version;
    if (item.waited) {
      S.queue.stopped = {status: answer.status, detail: sentence};
      saveQueue();
      say("Not recorded: " + ended(item.label) + " " + sentence);
    }
    var dropped = item.waited ? "" : dropLive();
    refresh().then(function () { return changesSince(since); }).then(function (changes) {
      var what = changes.length ? "Recorded on another device: " + joinSummaries(changes) : "";
      if (item.waited) {
        say("Not recorded: " + ended(item.label) + " " + sentence + (what ? " " + what : ""));
      } else {
        say("The game moved on, so " + item.label + " was not recorded." + dropped + (what ? " " + what : "") +
            " The board is up to date.");
      }
    });
    settle(item, "refused");
    return;
  }
  if (item.waited) {
    S.queue.stopped = {status: answer.status, detail: sentence};
    saveQueue();
    say("Not recorded: " + ended(item.label) + " " + sentence);
    settle(item, "refused");
    render();
    return;
  }
  say(sentence + dropLive());
  settle(item, "refused");
  render();
  if (!fresh()) { refreshActions(); }  // refused after an earlier tap was stored: the buttons of the board shown
}

/* A live tap was refused: drop it and the taps made on top of it before its answer came;
 * returns the words saying how many later taps were dropped ("" when none). */
export function dropLive() {
  var later = S.queue.items.length - 1;
  for (var i = 0; i < S.queue.items.length; i++) { settle(S.queue.items[i], "refused"); }
  S.queue.items = [];
  S.queue.base = null;
  saveQueue();
  return later > 0 ? " " + later + " later tap" + (later > 1 ? "s were" : " was") + " not sent." : "";
}

export function dropStopped(all) {
  if (all) { S.queue.items = []; } else { S.queue.items.shift(); }
  S.queue.stopped = null;
  S.queue.base = null;
  saveQueue();
  say("");
  refresh().then(function () {
    if (S.queue.items.length) { S.queue.base = S.version; reguess(); saveQueue(); drain(); }
  }, function () { render(); });
}

// ------------------------------------------------------------------ guessing the player while waiting

export function stillIn(p) {
  if (p.in_hand === false || p.eliminated || p.out || p.in_round === false || p.won || p.is_fool) { return false; }
  return true;
}

export function nextSeat(name) {
  var list = players();
  var at = -1;
  for (var i = 0; i < list.length; i++) { if (list[i].name === name) { at = i; } }
  for (var step = 1; step <= list.length; step++) {
    var p = list[(at + step) % list.length];
    if (stillIn(p)) { return p.name; }
  }
  return name;
}

/* True when the actions on hand were read at the version the page shows. */
export function fresh() { return !!S.actions && S.actions.version === S.version; }

export function firstToPlay() {
  var play = fresh() ? entries("play") : [];
  if (play.length) { return play[0].player; }
  var to = (S.game && S.game.state.to_act) || [];
  return to.length ? to[0] : (players()[0] || {}).name;
}

/* The player of the next card tap while earlier taps have no answer yet. */
export function guessNext(upTo) {
  var last = null;
  var n = upTo === undefined ? S.queue.items.length : upTo;
  for (var i = 0; i < n; i++) {
    var it = S.queue.items[i];
    if (it.path === "events" && it.body.type === "play") { last = it.body.player; }
  }
  return last === null ? firstToPlay() : nextSeat(last);
}

export function reguess() {
  for (var i = 0; i < S.queue.items.length; i++) {
    var it = S.queue.items[i];
    if (it.guessed && it.attempts === 0 && it.body.type === "play") {
      it.body.player = guessNext(i);
      it.label = it.body.player + " plays " + cardName(it.body.card);
    }
  }
}

/* One tap on a name in the waiting list: that card was played by `name`. */
export function setPlayer(index, name) {
  var it = S.queue.items[index];
  if (!it || it.attempts > 0) { return; }
  it.body.player = name;
  it.guessed = false;
  it.label = name + " plays " + cardName(it.body.card);
  queueOpen = null;  // the chooser goes back to the newest tap
  reguess();
  saveQueue();
  render();
}

/* The waiting tap shown with its chooser: the one last opened (openTap), else the newest unsent
 * play; -1 when none is waiting. */
let queueOpen = null;
export function openTap(index) { queueOpen = index; }
export function openItem() {
  var items = S.queue.items;
  if (queueOpen !== null && items[queueOpen] && items[queueOpen].body.type === "play" && items[queueOpen].attempts === 0) { return queueOpen; }
  queueOpen = null;
  for (var i = items.length - 1; i >= 0; i--) {
    if (items[i].body.type === "play" && items[i].attempts === 0) { return i; }
  }
  return -1;
}

// ------------------------------------------------------------------ taps

export function waiting() { return S.queue.items.length > 0; }

/* True when the page shows guesses: taps waiting on the device (offline, or a stopped queue). Taps
 * made while a write is on its way are not guesses: each waits for the answer before it and is
 * sent for the player GET …/actions names then. */
export function guessing() { return waiting() && (S.offline || S.queue.stopped !== null); }

/* Who a pending play is shown for: its player, or "next" while the answer before it decides. */
export function pendingWho(it) { return it.follow && !S.offline ? "next:" : it.body.player; }
export function pendingPlays() {
  var out = [];
  for (var i = 0; i < S.queue.items.length; i++) {
    if (S.queue.items[i].body.type === "play") { out.push(S.queue.items[i]); }
  }
  return out;
}


export function localUndoable() {
  var last = S.queue.items[S.queue.items.length - 1];
  return last && last.attempts === 0 && !S.sending ? last : null;
}
