/* Drawing the write queue: the "Sending: …" line and the box of the taps waiting on the device,
 * with a chooser of who played a guessed card. What the queue holds and does is queue.js's; this
 * module reads it and calls its actions (setPlayer, openTap), and board.js draws it with the
 * rest of the board.
 */
import {S, cardName, chip, el, ended, players, render, text} from "./state.js";
import {openItem, openTap, setPlayer, stillIn} from "./queue.js";

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
      change.addEventListener("click", (function (n) { return function () { openTap(n); render(); }; })(i));
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
