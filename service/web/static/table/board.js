/* The board per game: the status line, the seats, tricks, groups or centre, the hand just ended.
 * The top of the drawing: `draw` draws the whole page from `S` (table.js runs it on state.js's
 * "render" event); it reads the queue and state and calls the other modules' drawing. */
import {actionRow, renderActions, renderCompose, renderDeck, renderUndo} from "./controls.js";
import {renderMenu} from "./menu.js";
import {fresh, guessNext, guessing, pendingPlays, pendingWho, stillIn, waiting} from "./queue.js";
import {renderQueue} from "./waiting.js";
import {K, S, WORDS, actionsBox, deckNames, base, boardBox, canPlay, cardClass, cardName, chip, el, ended, entries, gameId, kind, listed, names, render, root, say, seatRows, seatSlots, seatsBox, text, turnBox, visibility} from "./state.js";
import {renderEnd} from "./end.js";

// ------------------------------------------------------------------ what to say in the status line

/* The status line: the state's own `status_sentence` (GET /games/<id>, docs/decisions.md, "The
 * status sentence"; the game page's headline is the same field), after a word on the taps waiting
 * on this device. Only what the service cannot have said is composed here: while taps wait
 * offline (or behind a refusal), the player guessed to play next. */
export function statusSentence() {
  if (!S.game) { return "Loading…"; }
  var s = S.game.state;
  var waitingNote = "";
  if (S.queue.stopped) { waitingNote = "A waiting tap was refused: choose what to keep. "; }
  else if (S.offline) { waitingNote = "Offline: " + S.queue.items.length + " waiting. "; }
  if (s.status === "in_progress" && guessing() && !S.queue.stopped) {
    var guess = guessNext();
    if (guess && entries("play").length) { return waitingNote + guess + " to play (guessed)"; }
  }
  return waitingNote + (s.status_sentence || "");
}

// ------------------------------------------------------------------ the hand just ended

let ended_ = {key: null, line: "", reason: ""};  // the result line of the hand just ended

/* Between hands (a deal due after hand n): "Hand n: Dee won; Bob lost 1 life" from GET
 * hands/<n>'s `result`, else the timeline's last summary. The page computes no rules. */
export function renderResult(s) {
  var box = el("hand-result");
  var n = s.hand_number || s.round_number || 0;
  if (kind === "fuji_flush") { renderLastTurn(s, box); return; }
  // between hands, and once the game is over its last hand's result with the reason (as Fuji Flush's last turn)
  var shown = s.status === "finished" || (s.status === "in_progress" && s.phase === "deal");
  if (!shown || !n) { box.hidden = true; return; }
  var key = gameId + ":" + n + ":" + S.version;
  if (ended_.key !== key) {
    ended_ = {key: key, line: "", reason: ""};
    var word = kind === "toepen" ? "Hand " : "Round ";
    Promise.all([
      K.api("GET", base + "/hands/" + n, {token: S.token}).then(function (a) { return a.status === 200 ? a.body : null; }, function () { return null; }),
      K.api("GET", base + "/timeline", {token: S.token}).then(function (a) { return a.status === 200 ? a.body : null; }, function () { return null; })
    ]).then(function (both) {
      if (ended_.key !== key) { return; }
      var result = (both[0] && both[0].result) || null;
      var parts = result ? resultParts(result) : [];
      var steps = (both[1] && both[1].steps) || [];
      var last = "";
      for (var i = steps.length - 1; i >= 0 && !last; i--) {
        if (!steps[i].undone && ["note", "undo", "redo"].indexOf(steps[i].type) < 0) { last = steps[i].summary || ""; }
      }
      ended_.line = word + n + ": " + ended(parts.length ? parts.join("; ") : last);
      ended_.reason = parts.length && result.reason ? ended(result.reason.charAt(0).toUpperCase() + result.reason.slice(1)) : "";
      if (!parts.length && !last) { ended_.line = word + n + " is over."; }
      render();
    });
  }
  box.hidden = !ended_.line;
  box.innerHTML = "";
  box.appendChild(text("strong", null, ended_.line));
  if (ended_.reason) { box.appendChild(text("span", "hint", " " + ended_.reason)); }
}

/* Fuji Flush: after each turn, the service's own sentence of the last turn (who was flushed
 * and must draw, what pushed through), from GET hands/1's turns. */
function renderLastTurn(s, box) {
  var count = (s.turns || []).length;
  /* the line is there from the start, in room kept for it (table.css), so that the deck
   * never moves when the first turn's sentence arrives (ui.md, "Nothing moves under a finger") */
  if (!count) { box.hidden = false; box.textContent = "No card played yet."; return; }
  var key = gameId + ":turn:" + count + ":" + S.version;
  if (ended_.key !== key) {
    ended_ = {key: key, line: ended_.line, reason: ""};
    K.api("GET", base + "/hands/1", {token: S.token}).then(function (a) {
      if (ended_.key !== key || a.status !== 200) { return; }
      var turns = (a.body && a.body.turns) || [];
      ended_.line = turns.length ? ended(turns[turns.length - 1].explanation) : "";
      render();
    }, function () { /* offline: keep the last line */ });
  }
  box.hidden = !ended_.line;
  box.innerHTML = "";
  box.appendChild(text("strong", null, ended_.line));
}

/* The words of a hand's `result` (GET hands/<n>): who won, who lost what, who is out. */
export function resultParts(result) {
  var parts = [];
  if (kind === "fool") {  // {name: points}: the round's result first, "Ann +10, Bob -9, Cas 0"
    var scored = [];
    for (var name in result) {
      if (Object.prototype.hasOwnProperty.call(result, name) && typeof result[name] === "number") {
        scored.push(name + " " + (result[name] > 0 ? "+" : "") + result[name]);
      }
    }
    if (scored.length) { parts.push(scored.join(", ")); }
    return parts;
  }
  var won = result.winner ? [result.winner] : (result.winners || []);
  if (won.length) { parts.push(names(won) + " won"); }
  if (result.losses) {
    var lost = [];
    for (var who in result.losses) {
      if (!Object.prototype.hasOwnProperty.call(result.losses, who) || !result.losses[who]) { continue; }
      var n = result.losses[who];
      lost.push(who + " lost " + n + (kind === "toepen" ? (n === 1 ? " life" : " lives") : ""));
    }
    if (lost.length) { parts.push(lost.join(", ")); }
  } else if ((result.losers || []).length) {
    parts.push(names(result.losers) + " lost the " + (kind === "toepen" ? "hand" : "round"));
  }
  if ((result.eliminated || []).length) { parts.push(names(result.eliminated) + " out of the game"); }
  if (result.abandoned) { parts.push("not finished"); }  // cut short (the game's end, a ruling): the reason says how
  return parts;
}

// ------------------------------------------------------------------ rendering

/* The whole page drawn from `S` (state.js's `render()` asks for it). */
export function draw() {
  if (!S.game) { return; }
  var s = S.game.state;
  root.setAttribute("data-version", String(S.version));
  root.setAttribute("data-pending", String(S.queue.items.length));
  root.setAttribute("data-offline", S.offline ? "true" : "false");
  root.setAttribute("data-fresh", fresh() ? "true" : "false");
  root.setAttribute("data-seats", String(s.players.length));
  root.classList.toggle("many-seats", s.players.length > 4);
  /* a phone lays many seats in three columns where each seat's own actions are two words at most
   * (Stop the Bus keeps two: its seats hold the cards known to be in a hand) */
  root.classList.toggle("narrow-seats", s.players.length > 4 && seatSlots().length <= 2 && kind !== "stop_the_bus");
  root.classList.toggle("in-hand", !handOver(s) && !!(s.hand_number || s.round_number));
  turnBox.textContent = statusSentence();
  renderResult(s);
  keepRooms(s);
  el("no-token").hidden = !!S.token;
  renderSeats(s);
  renderBoard(s);
  keepTrickRoom(s);
  renderActions();
  renderCompose();
  renderDeck();
  renderUndo();
  renderQueue();
  renderMenu();
  renderEnd();
  fitText(turnBox);
  if (kind === "fuji_flush") { fitText(el("hand-result")); fitRoom(boardBox.querySelector(".groups")); }
  if (kind === "toepen" || kind === "fool") { fitText(el("hand-result")); }
  var facts = seatsBox.querySelectorAll(".seat-info");
  for (var f = 0; f < facts.length; f++) { fitLine(facts[f]); }
  keepPlace(s);
  document.documentElement.style.setProperty("--bar", el("notices").parentNode.offsetHeight + "px");
  placeNotices();
}

/* A sentence in a room of fixed size, set smaller (to 70%) until whole: never cut, never growing. */
export function fitText(node) {
  if (!node || node.hidden) { return; }
  node.style.fontSize = "";
  if (node.scrollHeight <= node.clientHeight + 1) { return; }
  var size = parseFloat(window.getComputedStyle(node).fontSize);
  var least = size * 0.7;
  while (node.scrollHeight > node.clientHeight + 1 && size > least) {
    size -= 1;
    node.style.fontSize = size + "px";
  }
}

/* Lines in a room kept for them (a min-height): set smaller (to 70%) until they fit in it, so the
 * room grows only when even that is not enough (Fuji Flush's groups, many seats on a phone). */
export function fitRoom(node) {
  if (!node) { return; }
  node.style.fontSize = "";
  var room = parseFloat(window.getComputedStyle(node).minHeight) || 0;
  if (!room || node.getBoundingClientRect().height <= room + 0.5) { return; }
  var size = parseFloat(window.getComputedStyle(node).fontSize);
  var least = size * 0.7;
  while (node.getBoundingClientRect().height > room + 0.5 && size > least) {
    size -= 1;
    node.style.fontSize = size + "px";
  }
}

/* A seat's facts: set smaller (to 75%) until whole in their width. */
export function fitLine(node) {
  node.style.fontSize = "";
  if (node.scrollWidth <= node.clientWidth + 1) { return; }
  var size = parseFloat(window.getComputedStyle(node).fontSize);
  var least = size * 0.75;
  while (node.scrollWidth > node.clientWidth + 1 && size > least) {
    size -= 0.5;
    node.style.fontSize = size + "px";
  }
}

/* Messages over the board, their foot at the action row, under the last line of seat names (else
 * over the seats, else down); just under the sticky bar when scrolled away (docs/table-page.md).
 * Over the board a message covers whole lines: reaching into one (the facts, a trick), it grows up
 * to that line's top, so no line is left half hidden under it. */
const BAND_LINES = "#board .facts, #board .trick > *, #board .group, #board .centre, #hand-result:not([hidden])";
export function placeNotices() {
  var notices = el("notices");
  var bar = notices.parentNode;
  var shown = !!(el("alert").textContent || el("changes").textContent || el("sending").textContent);
  notices.classList.toggle("has-message", shown);
  var message = el("alert").textContent ? el("alert") : el("changes").textContent ? el("changes") : null;
  el("alert").style.minHeight = el("changes").style.minHeight = "";
  if (!shown) { return; }
  var pad = parseFloat(window.getComputedStyle(notices).paddingTop);
  var barBottom = bar.getBoundingClientRect().bottom;
  var high = notices.offsetHeight - pad;
  // Stop the Bus: its actions stand above its board, whose Centre a message may cover
  var foot = kind === "stop_the_bus" ? boardBox.getBoundingClientRect().bottom : el("action-room").getBoundingClientRect().top;
  var heads = seatsBox.querySelectorAll(".seat-head");
  var names = heads.length ? heads[heads.length - 1].getBoundingClientRect().bottom + 2 : barBottom;
  var top = foot - high;
  if (top < names) { top = foot - high >= seatsBox.getBoundingClientRect().top ? foot - high : names; }
  var placed = Math.max(barBottom, Math.min(top, window.innerHeight - notices.offsetHeight - 4));
  if (message && placed === top && top >= names) {
    var reach = top;
    document.querySelectorAll(BAND_LINES).forEach(function (line) {
      var r = line.getBoundingClientRect();
      if (r.height && r.top < top - 1 && r.bottom > top + 1) { reach = Math.min(reach, r.top); }
    });
    if (reach < top && reach >= Math.max(names, barBottom)) {
      message.style.minHeight = (message.offsetHeight + top - reach) + "px";
      placed = reach;
    }
  }
  notices.style.marginTop = Math.max(0, Math.round(placed - barBottom - pad)) + "px";
}
// a message set anywhere (say(), the changes line, "Sending…") is placed at once
new MutationObserver(function () { if (S.game) { placeNotices(); } putAwayLater(); })
  .observe(el("notices"), {childList: true, characterData: true, subtree: true});

/* A message puts itself away once read (docs/table-page.md, "Messages go away"): it lies over the
 * board's current trick or result, which the scorekeeper needs next. "Undone …", "Fixed …" and
 * "Recorded on another device …" after 3 s, a refusal or an irregularity after 5 s, each with 60 ms
 * more per letter (about 200 words a minute), at most 15 s. It stays while taps wait on the device
 * (offline, or behind a refusal or a damaged record: the scorekeeper decides with it) and while a
 * sheet is open over the page; a tap puts it away at once (table.js). */
export function readingTime(sentence, alert) { return Math.min(15000, (alert ? 5000 : 3000) + 60 * sentence.length); }
let awayTimer = null, awayText = null;
function putAwayLater() {
  var node = el("alert").textContent ? el("alert") : el("changes").textContent ? el("changes") : null;
  var sentence = node ? node.id + ":" + node.textContent : "";
  if (sentence === awayText) { return; }
  awayText = sentence;
  window.clearTimeout(awayTimer);
  if (!node) { return; }
  var away = function () {
    if (awayText !== sentence) { return; }
    if ((S.queue && (S.queue.stopped || S.queue.items.length)) || S.offline || document.body.classList.contains("sheet-open")) {
      awayTimer = window.setTimeout(away, 2000);
      return;
    }
    if (node.id === "alert") { say(""); } else { node.textContent = ""; }
  };
  awayTimer = window.setTimeout(away, readingTime(node.textContent, node.id === "alert"));
}
window.addEventListener("scroll", function () { if (el("notices").classList.contains("has-message")) { placeNotices(); } }, {passive: true});
window.addEventListener("resize", function () { if (S.game) { fitText(turnBox); placeNotices(); } });

/* A phone with many seats: the tricks wrap onto as many lines as they need (every card of the current and the last
 * trick read whole, nothing scrolled or faded). The room they can take in a hand (both tricks full,
 * the longest names first with the deck's widest cards, laid out as they would be, measured) is
 * kept from the deal on (the board's height, which the current trick's line fills), so the deck never
 * moves when a trick grows. */
const PHONE = window.matchMedia("(max-width: 600px)");
let trickKey = null, trickHeight = 0;
function keepTrickRoom(s) {
  if (kind !== "toepen" && kind !== "fool") { return; }
  var kept = PHONE.matches && s.players.length > 4 && !handOver(s) && !!boardBox.querySelector(".trick");
  boardBox.classList.toggle("trick-room", kept);
  if (!kept) { trickKey = null; boardBox.style.minHeight = ""; return; }
  var key = [s.hand_number || 0, s.players.length, boardBox.clientWidth].join(":");
  if (key !== trickKey) { trickKey = key; trickHeight = trickRoom(s); }
  boardBox.style.minHeight = trickHeight + "px";  // the current trick's line fills it (table.css)
}

/* The board's height with both tricks full: the facts, the last trick and the current one with a
 * play of every seat, the longest names first, playing the widest cards of the deck. */
function trickRoom(s) {
  var longest = s.players.map(function (p) { return p.name; }).sort(function (a, b) { return b.length - a.length; });
  var widest = Object.keys(deckNames).sort(function (a, b) { return cardName(b).length - cardName(a).length; });
  var plays = longest.map(function (name, i) { return {player: name, card: widest[i % widest.length]}; });
  var number = kind === "toepen" ? 4 : 10;  // Toepen's hands are four tricks
  var ghost = text("div", "board");
  ghost.style.cssText = "position: absolute; left: 0; right: 0; top: 0; visibility: hidden;";
  ghost.setAttribute("aria-hidden", "true");
  var head = ghost.appendChild(text("div", "board-head"));
  var facts = kind === "fool"
    ? "Round " + (s.hand_number || 1) + " · lead colour Yellow · sitting out: " + names(longest.slice(0, 2))
    : "Hand " + (s.hand_number || 1) + " · stake 10 · stock 16";
  head.appendChild(text("p", "facts", facts));
  head.appendChild(ghostTrick({number: number, complete: true, winner: longest[0], plays: plays, fools: longest.slice(0, 2)}, false));
  ghost.appendChild(ghostTrick({number: number, plays: plays}, true));
  el("play-area").appendChild(ghost);
  var high = ghost.offsetHeight;
  ghost.parentNode.removeChild(ghost);
  return high;
}

function ghostTrick(trick, current) {
  var line = trickLine(Object.assign({}, trick, {plays: []}), current);
  var waiting = line.querySelectorAll(".play");
  for (var w = 0; w < waiting.length; w++) { line.removeChild(waiting[w]); }
  var fools = line.querySelector(".trick-fools");
  for (var i = 0; i < trick.plays.length; i++) {
    var one = text("span", "play");
    one.appendChild(text("span", "play-name", trick.plays[i].player + " "));
    one.appendChild(chip(trick.plays[i].card));
    line.insertBefore(one, fools);
  }
  if (kind === "fool" && !fools && trick.complete) { line.appendChild(text("span", "trick-fools", "Fool: " + names(trick.fools))); }
  return line;
}

/* The deck stays where it is for the whole hand: the play area, the action room and the page keep
 * their tallest height until the next deal; Toepen keeps room for a knock's folds from the deal.
 * In Toepen and Fool! the band keeps its rooms from the first draw on (keepRooms), so the deck does
 * not move at a deal or when a hand ends either. */
let placeKey = null;
const placeHeights = {};
export function keepPlace(s) {
  var key = [s.hand_number || s.round_number || 0, s.status].join(":");
  // the whole page too: a page that got shorter would pull a phone scrolled to the deck along with it
  var room = el("action-room");
  var parts = [el("play-area"), room, root];
  if (key !== placeKey) {
    placeKey = key;
    for (var i = 0; i < parts.length; i++) { parts[i].style.minHeight = ""; placeHeights[parts[i].id] = 0; }
    if (kind === "toepen" && !handOver(s) && S.token && !root.hasAttribute("data-rooms")) { room.style.minHeight = foldRoom(s) + "px"; }
  }
  for (var j = 0; j < parts.length; j++) {
    var part = parts[j];
    if (part.hidden) { continue; }
    var h = part.offsetHeight;
    if (h > placeHeights[part.id]) { placeHeights[part.id] = h; part.style.minHeight = h + "px"; }
  }
}

/* A knock's folds (and stays) as the action row lays them out, for the longest names. */
function foldRows(s) {
  var names = s.players.filter(stillIn).map(function (p) { return p.name; });
  names.sort(function (a, b) { return b.length - a.length; });  // the longest names: the widest row
  var folds = names.slice(0, Math.max(1, names.length - 1)).map(function (name) { return {entry: {player: name}}; });
  var rows = [];
  if ((S.game.options || {}).knock_responses === "explicit") { rows.push(actionRow("stay", folds, [])); }
  rows.push(actionRow("fold", folds, []));
  return rows;
}

/* The height of a knock's folds (and stays), laid out as the action row would, measured. */
function foldRoom(s) {
  var ghost = text("div", "actions");
  ghost.style.cssText = "position: absolute; left: 0; right: 0; top: 0; visibility: hidden;";
  ghost.setAttribute("aria-hidden", "true");
  foldRows(s).forEach(function (row) { ghost.appendChild(row); });
  var room = el("action-room");
  room.appendChild(ghost);
  var high = ghost.offsetHeight;
  room.removeChild(ghost);
  return high;
}

/* The band's rooms in a trick game (Toepen, Fool!), laid out hidden as the band would be during a
 * hand, with every seat's play in the tricks (the widest card): the board's head (the facts, the
 * last trick), the current trick, and the action row (a knock's folds, or Deal). Kept from the first
 * draw on (table.css, #table[data-rooms]): between hands (and before the first deal) the result
 * stands in the current trick's room, kept empty until there is one, and Deal in the action row's
 * (Fool!: beside the result), so the deck does not move at a deal or when a hand ends. Measured once per width and seat count;
 * none where the page does not record (no token), once the game is over, or in the other games. */
let rooms = {key: null, head: 0, trick: 0, action: 0};
function keepRooms(s) {
  var on = (kind === "toepen" || kind === "fool") && !!S.token && s.status === "in_progress" && !!widestCard();
  root.toggleAttribute("data-rooms", on);
  if (!on) { return; }
  var key = [el("band").clientWidth, s.players.length, s.players.filter(stillIn).length, (S.game.options || {}).knock_responses].join(":");
  if (rooms.key !== key) {
    root.removeAttribute("data-rooms");
    /* as keepTrickRoom lays them out: the longest names first, playing the deck's widest cards */
    var longest = s.players.map(function (p) { return p.name; }).sort(function (a, b) { return b.length - a.length; });
    var widest = Object.keys(deckNames).sort(function (a, b) { return cardName(b).length - cardName(a).length; });
    var plays = longest.map(function (name, i) { return {player: name, card: widest[i % widest.length]}; });
    var done = {number: 10, plays: plays, complete: true, winner: longest[0], fools: longest.slice(0, 2)};
    var facts = text("p", "facts", kind === "toepen" ? "Hand 10 (over) · stake 10 · stock 16"
      : "Round 10 (over) · lead colour Yellow · sitting out: " + names(longest.slice(0, 2)));
    var wasIn = root.classList.contains("in-hand");
    root.classList.add("in-hand");
    var ghost = text("div", "band");
    ghost.style.cssText = "position: absolute; left: 0; top: 0; visibility: hidden;";
    ghost.style.width = el("band").clientWidth + "px";
    ghost.setAttribute("aria-hidden", "true");
    var board = ghost.appendChild(text("div", "board"));
    var head = board.appendChild(text("div", "board-head"));
    head.appendChild(facts);
    head.appendChild(ghostTrick(done, false));
    var current = board.appendChild(ghostTrick({number: 10, plays: plays}, true));
    var folds = ghost.appendChild(text("div", "actions"));
    if (kind === "toepen") { foldRows(s).forEach(function (row) { folds.appendChild(row); }); }
    var deal = ghost.appendChild(text("div", "actions"));
    deal.appendChild(actionRow("deal", [{entry: {type: "deal"}}], []));
    var result = ghost.appendChild(text("p", "hand-result", "Hand 10: over."));
    el("play-area").appendChild(ghost);
    /* the result's room: two lines (a phone: three), or the trick's if taller; Fool! lays Deal beside
     * the result (table.css), so its action row keeps no room during a round */
    var wide = window.matchMedia("(min-width: 601px)").matches;
    var gap = parseFloat(window.getComputedStyle(ghost).rowGap) || 0;
    var lines = (wide ? 2 : 3) * parseFloat(window.getComputedStyle(result).lineHeight) + gap;
    rooms = {key: key, head: head.offsetHeight, trick: Math.ceil(Math.max(current.offsetHeight, lines)),
             action: kind === "fool" ? 0 : Math.max(folds.offsetHeight, deal.offsetHeight)};
    el("play-area").removeChild(ghost);
    root.classList.toggle("in-hand", wasIn);
    root.style.setProperty("--head-room", rooms.head + "px");
    root.style.setProperty("--trick-room", rooms.trick + "px");
    root.style.setProperty("--action-room", rooms.action + "px");
    root.setAttribute("data-rooms", "");
  }
}

/* The card of the deck with the longest name (its chip the widest in a trick line). */
function widestCard() {
  var best = null, most = -1;
  document.querySelectorAll("#deck button[data-card]").forEach(function (b) {
    var code = b.getAttribute("data-card");
    if (cardName(code).length > most) { most = cardName(code).length; best = code; }
  });
  return best;
}

export function scoreLine(p) {
  if (kind === "fuji_flush") {  /* cards held as the score sheet counts them: in hand and in front */
    var held = p.hand_size + (p.table_card !== null && p.table_card !== undefined ? 1 : 0);
    return [held + (held === 1 ? " card held" : " cards held"), p.pushed_through + " pushed through"];
  }
  if (kind === "toepen") { return ["Lives lost " + p.lives_lost + "/" + S.game.options.limit]; }
  if (kind === "fool") {  // "10 points (+10 this round)": the round just ended, between rounds and at the end
    var points = p.score + (Math.abs(p.score) === 1 ? " point" : " points");
    var rounds = p.round_scores || [];
    if (handOver(S.game.state) && rounds.length) {
      var last = rounds[rounds.length - 1];
      points += " (" + (last > 0 ? "+" : "") + last + " this round)";
    }
    return [points];
  }
  if (kind === "stop_the_bus") { return ["Chips " + p.chips]; }
  return [p.pushed_through + " pushed through"];
}

/* Whether the hand (or round) on the board is over: between hands the state keeps the ended hand's
 * fields (api.md, "Which hand is current") and `phase` says a deal is due. */
export function handOver(s) { return s.phase === "deal" || s.status !== "in_progress"; }

export function renderSeats(s) {
  seatsBox.innerHTML = "";
  var to = s.to_act || [];
  var list = s.players;
  var guess = guessing() ? guessNext() : null;
  var over = handOver(s);
  /* the seats' own actions keep their room from before the first deal to the game's end, so the
   * seats are as tall between hands as during one (the deck does not move at a deal) */
  var rows = S.token && s.status === "in_progress" ? seatRows() : 0;
  for (var i = 0; i < list.length; i++) {
    var p = list[i];
    var acting = guess ? p.name === guess : to.indexOf(p.name) >= 0;
    // between hands only what lasts beyond a hand greys a seat (out of the game), not a fold
    var sittingOut = over ? !!(p.eliminated || p.out) : !stillIn(p);
    var seat = text("div", "seat" + (acting ? " to-act" : "") + (sittingOut ? " sitting-out" : ""));
    seat.setAttribute("data-player", p.name);
    var head = text("div", "seat-head");  // one line: the name (cut with "…" if need be), then the badges
    var nameBox = head.appendChild(text("span", "seat-name", p.name));
    nameBox.title = p.name;
    var badges = text("span", "seat-badges");  // at the name's right: a badge never moves the seat's name
    if (acting) { badges.appendChild(text("span", "badge act", guess ? "next?" : "to act")); }
    // between hands the next dealer; once the game is over nobody deals (api.md: next_dealer null)
    var dealer = s.status !== "in_progress" ? null : s.phase === "deal" ? (s.next_dealer || s.dealer) : s.dealer;
    if (kind !== "fuji_flush" && dealer && dealer === p.name) { badges.appendChild(text("span", "badge", "dealer")); }
    // the hand's own markers only while it is played: they are the ended hand's between hands
    if (!over && p.in_hand === false) { badges.appendChild(text("span", "badge", "folded")); }
    if (p.eliminated) { badges.appendChild(text("span", "badge", "out")); }
    if (p.out) { badges.appendChild(text("span", "badge", "out")); }
    if (!over && p.is_fool) { badges.appendChild(text("span", "badge fool", "Fool")); }
    // the winners once the game is over, in every game (Fuji Flush marks a player out of cards at once)
    if (p.won || (s.status === "finished" && (s.winners || []).indexOf(p.name) >= 0)) { badges.appendChild(text("span", "badge", "won")); }
    if (!over && kind === "toepen" && s.last_knocker === p.name) { badges.appendChild(text("span", "badge", "knocked")); }
    if (!over && kind === "stop_the_bus" && s.stopped_by === p.name) { badges.appendChild(text("span", "badge", "stopped")); }
    head.appendChild(badges);
    seat.appendChild(head);
    var info = scoreLine(p);
    if (kind !== "fuji_flush" && (!over || kind === "fool")) { info.push(p.hand_size + (p.hand_size === 1 ? " card" : " cards")); }
    var infoBox = text("div", "seat-info");
    for (var f = 0; f < info.length; f++) {  // each fact kept on one line (count and word together)
      if (f) { infoBox.appendChild(text("span", "sep", " · ")); }
      infoBox.appendChild(text("span", "fact", info[f]));
    }
    var known = p.hand_known || p.cards_known || [];
    if (kind === "stop_the_bus") {  // the known cards beside the chips, in a line kept for them all round
      var line = text("div", "seat-line");
      line.appendChild(infoBox);
      if (known.length) { line.appendChild(handGroup(p.name, known, s.phase === "deal")); }
      seat.appendChild(line);
    } else {
      seat.appendChild(infoBox);
    }
    if (kind === "fuji_flush") {  // the line is always there, so a card laid down never grows the seat
      var lying = text("div", "seat-table");
      if (p.table_card !== null && p.table_card !== undefined) {
        lying.appendChild(document.createTextNode("In front: "));
        lying.appendChild(chip(p.table_card));
      }
      seat.appendChild(lying);
    }
    /* in table visibility the cards a reveal made known are not shown once the hand is over (nor
     * while a round's reveals are made): a line of them would grow the seat and move the deck */
    var knownShown = visibility === "open" || !(over || s.phase === "reveal");
    if (known.length && kind !== "stop_the_bus" && knownShown) { seat.appendChild(handGroup(p.name, known, s.phase === "deal")); }
    if (rows) {  // room for the seat's own actions (controls.js fills it), kept whether or not they are offered
      seat.appendChild(seatRoom(p.name, rows));
    }
    seatsBox.appendChild(seat);
  }
}

/* A seat's room for its own actions, its places fixed for the hand; a hidden line of each slot's
 * word sizes a phone's columns. */
function seatRoom(player, rows) {
  var slots = seatSlots();
  var room = text("div", "seat-actions rows-" + rows + " slots-" + slots.length);
  room.setAttribute("data-player", player);
  for (var i = 0; i < slots.length; i++) {
    var size = text("span", "slot-size");
    size.setAttribute("aria-hidden", "true");
    size.setAttribute("data-word", WORDS[slots[i][0]] || slots[i][0]);
    size.style.setProperty("--slot", String(i + 1));
    room.appendChild(size);
  }
  return room;
}

/* While cards are chosen for a player's action (a swap's give, a show, a reveal): only that
 * player's own cards can be picked from a hand, those the action may use (its `cards` or
 * `possible`), and none while the slot being filled takes from the centre. */
export function composeMayUse(code, owner) {
  var c = S.compose;
  // a challenge's cards are those the launderer turns up; every other selection the player's own
  var owners = c.type === "challenge" ? (c.target ? [c.target] : (c.targets || [])) : [c.player];
  if (!owner || owners.indexOf(owner) < 0) { return false; }
  var here = c.slots[c.at];
  if (here && here.from === "centre") { return false; }
  return !c.possible || listed(c.possible, code);
}

/* A player's known cards as a group "Hand: <name>", each card a button (play it, or pick it). */
export function handGroup(name, known, over) {
  var group = text("div", "hand");
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "Hand: " + name);
  for (var i = 0; i < known.length; i++) {
    var usable = !over && !!S.token && (S.compose ? composeMayUse(known[i], name)
      : (!waiting() && fresh() && canPlay(known[i], name)) || (guessing() && entries("play").length > 0));
    if (!usable) { group.appendChild(chip(known[i])); continue; }
    var b = text("button", "card small " + cardClass(known[i]), cardName(known[i]));
    b.type = "button";
    b.setAttribute("data-card", String(known[i]));
    b.setAttribute("data-owner", name);
    group.appendChild(b);
  }
  return group;
}


export function trickLine(trick, current) {
  var box = text("div", "trick" + (current ? " current" : " previous"));
  box.appendChild(text("span", "trick-label", "Trick " + trick.number + (trick.complete && trick.winner ? " → " + trick.winner : "") + ":"));
  var plays = trick.plays || [];
  for (var i = 0; i < plays.length; i++) {
    var one = text("span", "play" + (trick.complete && plays[i].player === trick.winner ? " won" : ""));
    one.appendChild(text("span", "play-name", plays[i].player + " "));
    one.appendChild(chip(plays[i].card));
    box.appendChild(one);
  }
  if (current) {
    var pending = pendingPlays();
    for (var j = 0; j < pending.length; j++) {
      var w = text("span", "play waiting");
      w.appendChild(text("span", "play-name", pendingWho(pending[j]) + " "));
      w.appendChild(chip(pending[j].body.card, "waiting"));
      box.appendChild(w);
    }
  }
  if (kind === "fool" && trick.fools && trick.fools.length && trick.complete) {
    box.appendChild(text("span", "trick-fools", "Fool: " + names(trick.fools)));
  }
  return box;
}

export function renderBoard(s) {
  boardBox.innerHTML = "";
  var facts = [];
  var handWord = kind === "fool" || kind === "stop_the_bus" ? "Round " : "Hand ";
  if (s.hand_number) { facts.push((kind === "fuji_flush" ? "" : handWord + s.hand_number + (handOver(s) ? " (over)" : ""))); }
  if (kind === "toepen" && s.stake) { facts.push("stake " + s.stake); }
  if (kind === "toepen" && s.stock_size !== null && s.stock_size !== undefined) { facts.push("stock " + s.stock_size); }
  if (kind === "fool" && s.lead_colour) { facts.push("lead colour " + ({G: "Green", R: "Red", Y: "Yellow", B: "Blue"}[s.lead_colour] || s.lead_colour)); }
  if (kind === "fool" && !handOver(s) && (s.sitting_out || []).length) { facts.push("sitting out: " + names(s.sitting_out)); }
  if (kind === "fuji_flush" && s.draw_pile_size !== null && s.draw_pile_size !== undefined) { facts.push("draw pile " + s.draw_pile_size); }
  if (kind === "fuji_flush" && s.discard_size) { facts.push("discards " + s.discard_size); }
  if (kind === "stop_the_bus" && s.stopped_by) { facts.push("stopped by " + s.stopped_by + (s.final_turns_left ? ", " + s.final_turns_left + " turn" + (s.final_turns_left > 1 ? "s" : "") + " left" : "")); }
  var line = facts.filter(function (f) { return f; }).join(" · ");
  /* the facts with the last trick beside them, then the current trick from the deal on */
  var head = boardBox.appendChild(text("div", "board-head"));
  if (line) { head.appendChild(text("p", "facts", line)); }

  if (kind === "toepen" || kind === "fool") {
    var tricks = s.tricks || [];
    var playing = s.status === "in_progress" && (s.phase === "playing" || s.phase === "answering");
    var previous = null, current = null;
    if (tricks.length) {
      var last = tricks[tricks.length - 1];
      if (handOver(s) && root.hasAttribute("data-rooms")) {
        previous = last;  // between hands: the trick just ended in the head, the result in the current trick's room
      } else if (last.complete && playing) {
        previous = last;
        current = {number: last.number + 1, plays: []};
      } else {
        if (tricks.length > 1 && !handOver(s)) { previous = tricks[tricks.length - 2]; }
        current = last;
      }
    } else if (playing || pendingPlays().length) {
      current = {number: 1, plays: []};
    }
    if (previous) { head.appendChild(trickLine(previous, false)); }
    if (current) {
      boardBox.appendChild(trickLine(current, true));
    }
  }
  if (kind === "fuji_flush") {
    var groups = s.groups || [];
    var box = text("div", "groups");
    for (var g = 0; g < groups.length; g++) {
      var one = text("span", "group");
      one.appendChild(chip(groups[g].number));
      one.appendChild(text("span", "group-info", " ×" + groups[g].players.length + " = " + groups[g].strength + " (" + names(groups[g].players) + ")"));
      box.appendChild(one);
    }
    var pend = pendingPlays();
    for (var q = 0; q < pend.length; q++) {
      var w = text("span", "group waiting");
      w.appendChild(text("span", "play-name", pendingWho(pend[q]) + " "));
      w.appendChild(chip(pend[q].body.card, "waiting"));
      box.appendChild(w);
    }
    boardBox.appendChild(box);  // always there (its room kept: table.css), so the first card laid never grows the board
  }
  if (kind === "stop_the_bus" && s.centre && s.centre.length) {
    var centre = text("div", "centre");
    centre.setAttribute("role", "group");
    centre.setAttribute("aria-label", "Centre");
    centre.appendChild(text("span", "row-label", "Centre"));
    var swap = entries("swap")[0];
    for (var c = 0; c < s.centre.length; c++) {
      var b = text("button", "card " + cardClass(s.centre[c]), cardName(s.centre[c]));
      b.type = "button";
      b.setAttribute("data-card", s.centre[c]);
      b.setAttribute("data-place", "centre");
      var takeable = swap && (!swap.take || swap.take.indexOf(s.centre[c]) >= 0);
      b.disabled = S.compose ? !(S.compose.type === "swap") : !takeable;
      if (S.compose && S.compose.type === "swap" && S.compose.slots[0].cards.indexOf(s.centre[c]) >= 0) { b.classList.add("picked"); }
      centre.appendChild(b);
    }
    boardBox.appendChild(centre);
  }
}
