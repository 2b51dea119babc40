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
import {K, QUEUE_KEY, S, base, cardName, changesSince, chip, el, ended, entries, fetchActions, gameId, iso, joinSummaries, players, refresh, refreshActions, refreshSheet, render, saveBoard, say, text} from "./state.js";

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

/* The waiting tap shown with its chooser: the one last opened, else the newest unsent play. */
let queueOpen = null;
function openItem() {
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


/* "Sending: …" once a write has waited 300 ms (a timer, not an animation); the taps waiting on the
 * device (offline, or a stopped queue) over the band, where a guessed player can be fixed. */
let sendingTimer = null;
export function renderQueue() {
  var box = el("queue");
  var onDevice = S.queue.items.length > 0 && (S.offline || !!S.queue.stopped);
  var sending = el("sending");
  sending.textContent = S.queue.items.length && !onDevice ? sendingLine() : "";
  if (!sending.textContent) {
    if (sendingTimer) { window.clearTimeout(sendingTimer); sendingTimer = null; }
    sending.classList.remove("shown");
  } else if (!sendingTimer && !sending.classList.contains("shown")) {
    sendingTimer = window.setTimeout(function () { sendingTimer = null; sending.classList.add("shown"); }, 300);
  }
  box.hidden = !onDevice;
  el("queue-refused").hidden = !S.queue.stopped;
  if (!onDevice) { return; }
  var damagedRecord = S.queue.stopped && S.queue.stopped.code === "record_damaged";
  var note = damagedRecord ? S.queue.stopped.detail + " These taps wait on this device:"
    : S.queue.stopped ? "Refused: " + S.queue.stopped.detail + " Choose what to keep."
    : S.offline ? "The service cannot be reached. These taps wait on this device and are sent in order when it answers:"
      : "Sending…";
  el("queue-note").textContent = note;
  box.classList.toggle("plain", !S.queue.stopped);
  var list = el("queue-list");
  list.innerHTML = "";
  var open = openItem();
  for (var i = 0; i < S.queue.items.length; i++) {
    var it = S.queue.items[i];
    var li = text("li", "queued" + (i === 0 && S.queue.stopped ? " refused" : "") + (i === open ? " open" : " compact"));
    if (i === open) {
      li.appendChild(chip(it.body.card));
      li.appendChild(document.createTextNode(" by "));
      var seats = players();
      /* the player chooser: one button per seat, read as "Ann, Bob, Cas or Dee" (separators
       * for screen readers; on screen the buttons stand apart) */
      var chooser = li.appendChild(text("span", "who-chooser"));
      chooser.setAttribute("role", "group");
      chooser.setAttribute("aria-label", "Who played " + cardName(it.body.card));
      var choices = seats.filter(function (p) { return stillIn(p) || p.name === it.body.player; });
      for (var j = 0; j < seats.length; j++) {
        if (!stillIn(seats[j]) && seats[j].name !== it.body.player) { continue; }
        var at = choices.indexOf(seats[j]);
        if (at > 0) { chooser.appendChild(text("span", "visually-hidden", at === choices.length - 1 ? " or " : ", ")); }
        var who = text("button", "who" + (seats[j].name === it.body.player ? " primary" : ""), seats[j].name);
        who.type = "button";
        who.setAttribute("aria-label", cardName(it.body.card) + " by " + seats[j].name);
        who.setAttribute("aria-pressed", seats[j].name === it.body.player ? "true" : "false");
        who.addEventListener("click", (function (n, name) { return function () { setPlayer(n, name); }; })(i, seats[j].name));
        chooser.appendChild(who);
      }
      if (it.guessed) { li.appendChild(text("span", "hint", " (guessed)")); }
    } else if (it.body.type === "play" && it.attempts === 0) {
      /* an earlier waiting tap: card and player; a tap on it shows its chooser */
      var change = text("button", "who-open");
      change.type = "button";
      change.appendChild(chip(it.body.card));
      change.appendChild(document.createTextNode(" " + it.body.player + (it.guessed ? "?" : "")));
      change.setAttribute("aria-label", cardName(it.body.card) + " by " + it.body.player + (it.guessed ? " (guessed)" : "") + ": change");
      change.addEventListener("click", (function (n) { return function () { queueOpen = n; render(); }; })(i));
      li.appendChild(change);
    } else if (it.body.type === "play") {
      li.appendChild(chip(it.body.card));
      li.appendChild(document.createTextNode(" by " + it.body.player));
    } else {
      li.appendChild(document.createTextNode(it.label));
    }
    li.appendChild(text("span", "hint", i === 0 && S.queue.stopped && !damagedRecord ? " — refused" : " — waiting"));
    list.appendChild(li);
  }
  placeQueue(box);
}


/* The waiting taps lie in the room kept under the board (the band's empty foot, above the deck),
 * so the seats' own buttons (Knock, Reveal, …) stay free to tap while the Wi-Fi is down. Where that
 * room is taken (a knock's folds shown) or too low for one row of buttons: beside the action row's
 * last button where that row leaves room (a tablet), else under the deck where that is on screen,
 * else over the board's current trick (the box lists the taps that line would show). Never over a
 * control (issue 25: it fell back over the seats' Knock and Reveal), nor the facts or the finished
 * trick (the confirmed board plus the waiting taps stays in view). Taller than its room, the box is
 * one strip scrolled sideways, the newest tap's choice in view. */
export function placeQueue(box) {
  var area = box.parentNode.getBoundingClientRect();
  var deck = el("deck").getBoundingClientRect();
  var free = freeBandTop();
  box.style.left = "";
  box.classList.add("in-band");
  if (fits(box, deck.top - 1 - free)) {
    place(box, free - area.top, deck.top - 1 - free);
    return;
  }
  var need = stripHeight(box);
  var beside = besideActions(area);
  if (beside && beside.height >= need) {
    box.style.left = Math.round(beside.left - area.left) + "px";
    place(box, beside.top - area.top, beside.height);
    return;
  }
  if (deck.bottom + 4 + need <= window.innerHeight) {
    place(box, deck.bottom + 4 - area.top, need);
    return;
  }
  var line = el("board").querySelector(".trick.current") || el("board");
  place(box, line.getBoundingClientRect().top - area.top, need);
}

/* The height the box needs as one strip. */
function stripHeight(box) {
  box.classList.add("one-row");
  box.style.maxHeight = "";
  var need = box.scrollHeight;
  box.classList.remove("one-row");
  return need;
}

/* The room right of the action row's last button, in that row: {left, top, height}, or null
 * where less than 12rem is left. */
function besideActions(area) {
  var shown = el("action-room").querySelectorAll("button");
  var last = null;
  for (var i = 0; i < shown.length; i++) {
    var r = shown[i].getBoundingClientRect();
    if (!r.width || getComputedStyle(shown[i]).visibility === "hidden") { continue; }
    if (!last || r.top > last.top + 2 || (Math.abs(r.top - last.top) <= 2 && r.right > last.right)) { last = r; }
  }
  if (!last) { return null; }
  var left = last.right + 8;
  if (area.right - left < 12 * parseFloat(getComputedStyle(document.documentElement).fontSize)) { return null; }
  return {left: left, top: last.top - 2, height: last.height + 4};
}

/* The top of the band's empty foot: under the last line of the board and under any button or
 * line shown in the action room. */
function freeBandTop() {
  var band = el("band");
  var lowest = band.getBoundingClientRect().top;
  var shown = band.querySelectorAll("#board > *, .hand-result, #action-room button, #action-room .action-row > :not(.empty), #action-room p");
  for (var i = 0; i < shown.length; i++) {
    var node = shown[i];
    if (node.hidden || node.closest("[hidden]") || getComputedStyle(node).visibility === "hidden") { continue; }
    var r = node.getBoundingClientRect();
    if (r.width && r.height) { lowest = Math.max(lowest, r.bottom); }
  }
  return lowest + 1;
}

/* Whether the box, as one strip, fits in ``height`` px. */
function fits(box, height) {
  box.classList.add("one-row");
  box.style.maxHeight = "";
  var need = box.scrollHeight;
  box.classList.remove("one-row");
  return height >= need;
}

function place(box, top, height) {
  box.style.top = Math.round(top) + "px";
  box.style.maxHeight = Math.max(0, Math.floor(height)) + "px";
  box.classList.remove("one-row");
  box.scrollLeft = 0;
  if (box.scrollHeight > box.clientHeight + 1) { box.classList.add("one-row"); }  // one strip, the open tap first
  var open = box.querySelector("li.open") || box.querySelector("li:last-child");
  if (open && box.scrollHeight > box.clientHeight + 1) {
    box.scrollTop = open.offsetTop + open.offsetHeight - box.clientHeight;
  }
  var guess = box.querySelector(".who.primary");  // the guessed player's name in view in a strip
  if (guess && guess.offsetLeft + guess.offsetWidth > box.scrollLeft + box.clientWidth) {
    box.scrollLeft = guess.offsetLeft + guess.offsetWidth - box.clientWidth + 8;
  }
}

function sendingLine() {
  var first = S.queue.items[0];
  var more = S.queue.items.length - 1;
  return "Sending: " + ended(first.label).replace(/[.]$/, "") + "…" +
    (more > 0 ? " then " + S.queue.items.slice(1).map(function (it) {
      return it.follow ? cardName(it.body.card) + " for whoever is next" : it.label;
    }).join(", ") + "." : "");
}

export function localUndoable() {
  var last = S.queue.items[S.queue.items.length - 1];
  return last && last.attempts === 0 && !S.sending ? last : null;
}
