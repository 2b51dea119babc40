/* The table page's shared ground: the elements, the game as last read, small helpers and the reads.
 *
 * `S` holds what the page knows now (the game, its actions, the version shown, the write queue,
 * the selection being made, the token, whether the service is out of reach); every module
 * reads and sets it through `S.…`, so there is one copy of each.
 *
 * The bottom of the page's modules: it imports none of them. What it cannot do itself it asks
 * for through `page`, an EventTarget the page's entry module (table.js) wires up: "render"
 * (draw the board from `S`: board.js) and "sheet" (the score sheet may have changed: sheet.js).
 * The modules above it raise the same events (docs/table-page.md, "Where the code is").
 */
export const page = new EventTarget();

/* Ask the page to draw itself from `S` now (synchronously: the listeners run before this returns). */
export function render() { page.dispatchEvent(new Event("render")); }

/* Ask for the score sheet to be read again if the game moved on (`force`: even if not). */
export function refreshSheet(force) { page.dispatchEvent(new CustomEvent("sheet", {detail: {force: !!force}})); }

export const K = window.Kibitz;
export const root = document.getElementById("table");
export const gameId = root.getAttribute("data-game-id");
export const kind = root.getAttribute("data-game");
export const visibility = root.getAttribute("data-visibility");
export const deckNames = JSON.parse(document.getElementById("deck-data").textContent);
export const base = "/games/" + encodeURIComponent(gameId);
export const QUEUE_KEY = "kibitz.queue." + gameId;
export const BOARD_KEY = "kibitz.board." + gameId;

export const el = function (id) { return document.getElementById(id); };
export const turnBox = el("turn"), alertBox = el("alert"), seatsBox = el("seats"), boardBox = el("board");
export const actionsBox = el("actions"), deckBox = el("deck"), undoButton = el("undo"), redoButton = el("redo");
export const composeBox = el("compose"), composeTitle = el("compose-title"), composeBody = el("compose-body");
export const confirmButton = el("compose-confirm");

export const S = {
  game: null,       // GET /games/<id>
  actions: null,    // GET /games/<id>/actions
  version: null,    // the version the page shows
  queue: null,      // the write queue (queue.js)
  compose: null,    // the multi-card selection being made (controls.js)
  token: null,      // this game's token on this device (token.js)
  tokenUnconfirmed: false,  // a share link's token the service has not yet accepted (token.js)
  offline: false,   // the service could not be reached at the last try
  sending: false,   // a write is on its way
  settling: null    // a panel has just closed: {until, box}, where a tap is not taken until then (controls.js)
};
let lastSentence = "";

export const UNITS = {toepen: "lives lost (positive is worse)", fool: "points (positive is better)",
                    stop_the_bus: "chips (positive is better)"};
export const WORDS = {knock: "Knock", stay: "Stay", fold: "Fold", laundry: "Laundry", challenge: "Challenge",
                    stop: "Stop", swap: "Swap", swap_all: "Swap all", draw: "Draw", show: "Show", reveal: "Reveal"};
export const ORDER = ["deal", "stay", "fold", "swap", "swap_all", "stop", "show", "reveal", "knock", "laundry",
                    "challenge", "draw"];
/* A seat's own actions, shown in that seat in places fixed for the whole hand: [type, row, column]
 * per game and visibility (the actions a player may take at any moment of a hand, the others
 * being answers or turns in the row above the deck). The seat keeps room for all of them, so a
 * button that comes or goes never moves another (ui.md, "Nothing moves under a finger"). On a
 * phone (table.css) they stand side by side in one row instead, in this order, each column as
 * wide as its word. */
export const SEAT_SLOTS = {
  toepen: {table: [["knock", 1, 1], ["laundry", 1, 2], ["reveal", 2, 1]], open: [["knock", 1, 1], ["laundry", 1, 2]]},
  fool: {table: [["reveal", 1, 1]], open: []}
};
/* Toepen's Laundry keeps a place only in hands begun with a stock of 4 or more (decided once a hand). */
let laundryRoom = {key: null, kept: true};
export function seatSlots() {
  var slots = (SEAT_SLOTS[kind] || {})[visibility] || [];
  if (kind === "toepen" && S.game) {
    var s = S.game.state;
    var key = [s.hand_number, s.status].join(":");
    if (laundryRoom.key !== key) {
      laundryRoom = {key: key, kept: !(typeof s.stock_size === "number" && s.stock_size < 4)};
    }
    if (!laundryRoom.kept) { slots = slots.filter(function (slot) { return slot[0] !== "laundry"; }); }
  }
  return slots;
}
export function seatSlot(type) {
  var slots = seatSlots();
  for (var i = 0; i < slots.length; i++) { if (slots[i][0] === type) { return slots[i]; } }
  return null;
}
export function seatRows() {
  var rows = 0;
  var slots = seatSlots();
  for (var i = 0; i < slots.length; i++) { rows = Math.max(rows, slots[i][1]); }
  return rows;
}


// ------------------------------------------------------------------ small helpers

export function text(tag, cls, content) {
  var node = document.createElement(tag);
  if (cls) { node.className = cls; }
  if (content !== undefined && content !== null) { node.textContent = content; }
  return node;
}

/* node's text: before, then typed text (a name, a summary naming one) in a <bdi>, then after:
   a right-to-left name or a stored override never reorders the label around it (api.md) */
export function iso(node, before, typed, after) {
  /* one inline label, so that a flex button keeps the space after the colon ("Knock: Ann") */
  var label = text("span", "label", before);
  label.appendChild(keepCardsWhole(text("bdi", "", typed)));
  if (after) { label.appendChild(document.createTextNode(after)); }
  node.textContent = "";
  node.appendChild(label);
  return node;
}

/* Card names of more than one word (Fool!'s "Yellow 2", "Wild 1") in a sentence: each kept on one
 * line (a span, table.css) when the sentence wraps; the text itself is unchanged. */
const spaced = Object.keys(deckNames).map(function (code) { return deckNames[code]; })
  .filter(function (name) { return name.indexOf(" ") >= 0; })
  .sort(function (a, b) { return b.length - a.length; })
  .map(function (name) { return name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); });
const spacedName = spaced.length ? new RegExp("(" + spaced.join("|") + ")(?![0-9])", "g") : null;
export function keepCardsWhole(node) {
  var said = node.textContent;
  if (!spacedName || !said) { return node; }
  var parts = said.split(spacedName);
  if (parts.length < 2) { return node; }
  node.textContent = "";
  for (var i = 0; i < parts.length; i++) {
    if (!parts[i]) { continue; }
    node.appendChild(i % 2 ? text("span", "card-words", parts[i]) : document.createTextNode(parts[i]));
  }
  return node;
}

export function cardName(code) {
  var name = deckNames[String(code)];
  return name === undefined ? String(code) : name;
}

export function cardValue(code) { return kind === "fuji_flush" ? Number(code) : String(code); }

export function cardClass(code) {
  var c = String(code);
  if (kind === "toepen" || kind === "stop_the_bus") { return "suit-" + c.charAt(1); }
  if (kind === "fool") { return c === "1" ? "colour-W" : "colour-" + c.charAt(0); }
  return "number";
}

export function chip(code, extra) {
  var span = text("span", "chip " + cardClass(code) + (extra ? " " + extra : ""), cardName(code));
  return span;
}

export function players() { return S.game ? S.game.state.players : []; }

export function playerNames() {
  var out = [];
  var list = players();
  for (var i = 0; i < list.length; i++) { out.push(list[i].name); }
  return out;
}

export function findPlayer(name) {
  var list = players();
  for (var i = 0; i < list.length; i++) { if (list[i].name === name) { return list[i]; } }
  return null;
}

export function entries(type, player) {
  var out = [];
  var list = (S.actions && S.actions.actions) || [];
  for (var i = 0; i < list.length; i++) {
    if (list[i].type === type && (player === undefined || list[i].player === player)) { out.push(list[i]); }
  }
  return out;
}

export function hasBookkeeping() {
  var list = (S.actions && S.actions.actions) || [];
  for (var i = 0; i < list.length; i++) {
    if (["undo", "redo", "note", "adjust", "abandon"].indexOf(list[i].type) >= 0) { return true; }
  }
  return false;
}

/* After a panel closes (a multi-card action's, Fix an entry, a menu form): if the page was left
 * scrolled so that the seats sit under the sticky bar (or far down the screen), scroll back to
 * the top, so the status line and the seats are in view. Never called while a tap is pending. */
export function showTable() {
  var seats = document.getElementById("seats");
  var bar = document.querySelector(".table-page .topbar");
  if (!seats || !bar || window.scrollY === 0) { return; }
  var top = seats.getBoundingClientRect().top;
  if (top < bar.getBoundingClientRect().bottom || top > window.innerHeight / 2) { window.scrollTo(0, 0); }
}

export function say(sentence) {
  lastSentence = sentence || "";
  alertBox.textContent = lastSentence;
  if (lastSentence) { document.getElementById("changes").textContent = ""; }  // one message at a time: the newest
}

/* Summaries joined into one sentence: "a; b." (each summary's own final full stop dropped). */
export function joinSummaries(list) {
  var out = [];
  for (var i = 0; i < list.length; i++) { out.push(String(list[i] || "").trim().replace(/[.]+$/, "")); }
  return out.join("; ") + ".";
}

/* `sentence` with exactly one closing punctuation mark. */
export function ended(sentence) {
  var t = String(sentence || "").trim();
  return !t || /[.!?…]$/.test(t) ? t : t + ".";
}

export function names(list) {
  if (list.length <= 1) { return list.join(""); }
  return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
}


export function saveBoard() {
  try { window.localStorage.setItem(BOARD_KEY, JSON.stringify({game: S.game, actions: S.actions})); } catch (e) { /* ignore */ }
}

export function loadBoard() {
  try {
    var saved = JSON.parse(window.localStorage.getItem(BOARD_KEY) || "null");
    if (saved && saved.game) { S.game = saved.game; S.actions = saved.actions; S.version = S.game.version; return true; }
  } catch (e) { /* ignore */ }
  return false;
}

// ------------------------------------------------------------------ reading

export function fetchGame() {
  return K.api("GET", base, {token: S.token}).then(function (answer) {
    if (answer.status !== 200) { throw {answer: answer}; }
    return answer.body;
  });
}

export function fetchActions() {
  return K.api("GET", base + "/actions", {token: S.token}).then(function (answer) {
    if (answer.status !== 200) { throw {answer: answer}; }
    return answer.body;
  });
}

/* Reload the whole board (game and actions); resolves when rendered. */
export function refresh(again) {
  return Promise.all([fetchGame(), fetchActions()]).then(function (both) {
    if (both[0].version !== both[1].version && !again) { return refresh(true); }  // a write came between
    S.game = both[0];
    S.actions = both[1];
    S.version = S.game.version;
    S.offline = false;
    saveBoard();
    render();
    refreshSheet(false);
  });
}

export function refreshActions() {
  return fetchActions().then(function (body) {
    S.actions = body;
    saveBoard();
    render();
  }, function () { render(); });
}

/* The timeline's summaries of what was recorded after `since` (for a 412 or a poll). */
export function changesSince(since) {
  return K.api("GET", base + "/timeline", {token: S.token}).then(function (answer) {
    var steps = (answer.body && answer.body.steps) || [];
    var out = [];
    for (var i = 0; i < steps.length; i++) {
      if (steps[i].seq > since) { out.push(steps[i].summary); }
    }
    return out;
  }, function () { return []; });
}

export function listed(list, code) {
  for (var i = 0; i < list.length; i++) { if (String(list[i]) === String(code)) { return true; } }
  return false;
}

export function canPlay(code, owner) {
  var play = owner ? entries("play", owner) : entries("play");
  if (!play.length) { return false; }
  var e = play[0];
  var list = e.cards || e.possible;
  if (!list) { return true; }
  for (var i = 0; i < list.length; i++) { if (String(list[i]) === String(code)) { return true; } }
  return false;
}
