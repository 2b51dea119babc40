/* The table page: records a live game through the documented API (docs/table-page.md). It keeps
 * no rules of its own; every write goes through one queue (table/queue.js).
 *
 * The page's entry module, the top of table/: it wires state.js's events (a module below asks
 * for the board to be drawn or the score sheet read) to the modules that do it, and the
 * page's elements to the user actions (docs/table-page.md, "Where the code is"). */
import {draw, statusSentence} from "./table/board.js";
import {cancelCompose, composeTap, confirmCompose, explainCard, redo, settling, startSwap, tapCard, undo} from "./table/controls.js";
import {drain, dropStopped, loadQueue, saveQueue, waiting} from "./table/queue.js";
import {wireMenu} from "./table/menu.js";
import {K, S, boardBox, cardName, changesSince, confirmButton, deckBox, el, entries, fetchActions, gameId, joinSummaries, loadBoard, page, redoButton, refresh, render, say, seatsBox, turnBox, undoButton} from "./table/state.js";
import {readSheet} from "./table/sheet.js";
import {chooseToken} from "./table/token.js";
import {keepAwake} from "./table/awake.js";
import {wireEnd} from "./table/end.js";

page.addEventListener("render", draw);
page.addEventListener("sheet", function (event) { readSheet(event.detail.force); });
S.queue = loadQueue();

// ------------------------------------------------------------------ events

deckBox.addEventListener("click", function (event) {
  var b = event.target.closest("button[data-card]");
  if (!b || b.disabled || settling(event)) { return; }
  if (b.classList.contains("queued")) {
    say(cardName(b.getAttribute("data-card")) + " already waits on this device: it is sent when the service answers.");
    return;
  }
  if (b.getAttribute("aria-disabled") === "true") { explainCard(b.getAttribute("data-card")); return; }
  tapCard(b.getAttribute("data-card"), null);
});
seatsBox.addEventListener("click", function (event) {
  var b = event.target.closest("button[data-card]");
  if (b && !b.disabled && !settling(event)) { tapCard(b.getAttribute("data-card"), b.getAttribute("data-owner")); }
});
boardBox.addEventListener("click", function (event) {
  var b = event.target.closest("button[data-place=centre]");
  if (!b || b.disabled || settling(event)) { return; }
  if (S.compose) { composeTap(b.getAttribute("data-card"), null, "centre"); return; }
  var swap = entries("swap")[0];
  if (swap) { startSwap(swap, b.getAttribute("data-card")); }
});
confirmButton.addEventListener("click", confirmCompose);
el("compose-cancel").addEventListener("click", cancelCompose);
undoButton.addEventListener("click", undo);
redoButton.addEventListener("click", redo);
wireMenu();
wireEnd();
// a message lies over the status line: a tap on it puts it away ("Sending…" goes by itself)
el("notices").addEventListener("click", function () { say(""); el("changes").textContent = ""; });
el("queue-drop").addEventListener("click", function () { dropStopped(false); });
el("queue-drop-all").addEventListener("click", function () { dropStopped(true); });
// A share link opened in a tab already showing this table: the new token, once the service takes it.
window.addEventListener("hashchange", function () {
  if (!/token=/.test(window.location.hash || "")) { return; }
  chooseToken().then(function (chosen) {
    say(chosen.note);
    if (!chosen.token || chosen.token === S.token) { return; }
    S.token = chosen.token;
    S.tokenUnconfirmed = chosen.unconfirmed;
    if (S.queue.stopped && S.queue.stopped.code === "token_invalid") { S.queue.stopped = null; saveQueue(); }
    refresh().then(function () { if (S.queue.items.length) { drain(); } }, function () { render(); });
  });
});
window.addEventListener("online", function () { if (S.queue.items.length) { drain(); } });

// Another device may record too: look for a newer version now and then.
window.setInterval(function () {
  if (document.hidden || waiting() || S.compose || S.sending || !S.game) { return; }
  fetchActions().then(function (body) {
    if (body.version === S.version || waiting()) { return; }
    var since = S.version;
    refresh().then(function () { return changesSince(since); }).then(function (changes) {
      if (changes.length) { el("changes").textContent = "Recorded on another device: " + joinSummaries(changes); }
    });
  }, function () { /* unreachable: the next tap will queue */ });
}, 5000);

keepAwake();

// ------------------------------------------------------------------ start

/* Load the board: the token first (a share link's only once the service accepts it), then the game
 * and its actions; without an answer, the board this device last saw, and the waiting taps. */
function start(chosen) {
  S.token = chosen.token;
  S.tokenUnconfirmed = chosen.unconfirmed;
  if (S.queue.stopped === undefined) { S.queue.stopped = null; }
  for (var qi = 0; qi < S.queue.items.length; qi++) { S.queue.items[qi].waited = true; }
  refresh().then(function () {
    if (S.queue.stopped && S.queue.stopped.code === "record_damaged") { S.queue.stopped = null; saveQueue(); render(); }
    if (S.queue.items.length) { drain(); }
  }, function (failure) {
    var answer = failure && failure.answer;
    var damagedRecord = answer && answer.status === 503 && answer.body && answer.body.code === "record_damaged";
    if (answer && answer.status >= 500 && !damagedRecord) { failure = null; }  // cannot be reached: the saved board
    if (failure && failure.answer) {
      var b = failure.answer.body || {};
      turnBox.textContent = b.detail || "This game cannot be loaded.";
      if (failure.answer.status === 403) { K.tokens.remove(gameId); }
      return;
    }
    if (loadBoard()) {
      S.offline = true;
      render();
      if (S.queue.items.length) { drain(); }
      else { turnBox.textContent = "Offline: the board as this device last saw it. " + statusSentence(); }
    } else {
      turnBox.textContent = "The service cannot be reached. Check the Wi-Fi; this page tries again when you reload.";
    }
  });
  if (chosen.note) { say(chosen.note); }
}

chooseToken().then(start);
