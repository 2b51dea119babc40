/* Taps, multi-card selections, the action buttons, the deck, Undo and Redo. */
import {fresh, guessNext, guessing, localUndoable, pendingPlays, saveQueue, waiting, write} from "./queue.js";
import {K, ORDER, S, WORDS, actionsBox, base, canPlay, cardClass, cardName, cardValue, composeBody, composeBox, composeTitle, confirmButton, deckBox, el, ended, entries, findPlayer, hasBookkeeping, iso, kind, listed, players, redoButton, refresh, refreshActions, render, root, say, seatSlot, showTable, seatSlots, seatsBox, text, undoButton, visibility} from "./state.js";


export function tapCard(code, owner) {
  if (S.compose) { composeTap(code, owner || null, null); return; }
  var player;
  var guessed = false;
  if (waiting() || !fresh()) {  // an answer is still on its way: the player is settled once it is in
    player = owner || guessNext();
    guessed = !owner;
  } else {
    var play = owner ? entries("play", owner) : entries("play");
    if (!play.length) { return; }
    player = play[0].player;
  }
  write("events", {type: "play", player: player, card: cardValue(code)}, player + " plays " + cardName(code), guessed);
}

export function oneTap(entry) {
  var body = {type: entry.type};
  if (entry.player && entry.type !== "deal") { body.player = entry.player; }
  /* a second tap on the same button while its first is on its way (a double tap): nothing more */
  var last = S.queue.items[S.queue.items.length - 1];
  if (last && last.path === "events" && last.body.type === body.type && last.body.player === body.player) { return; }
  var label = entry.type === "deal" ? "the deal" : (WORDS[entry.type] || entry.type) + " by " + entry.player;
  write("events", body, label);
}

// ------------------------------------------------------------------ multi-card selections

export function handSize() {
  var o = (S.game && S.game.options) || {};
  if (kind === "toepen") { return 4; }
  if (kind === "stop_the_bus") { return 3; }
  return o.hand_size || 1;
}

/* compose = {type, player, title, slots: [{name, label, need, min, max, cards: []}], at, body(fn)} */
export function startCompose(spec) {
  S.compose = spec;
  S.compose.at = 0;
  say("");
  render();
  composeBox.scrollIntoView({block: "nearest"});
  bringDeck();
}

/* a panel open: bring the deck's first two rows into view, Confirm staying in view */
function bringDeck() {
  if (deckBox.hidden) { return; }
  var boxes = Array.prototype.map.call(deckBox.querySelectorAll("button[data-card]"), function (b) { return b.getBoundingClientRect(); });
  var tops = boxes.map(function (r) { return Math.round(r.top); }).filter(function (top, i, all) { return all.indexOf(top) === i; });
  tops.sort(function (a, b) { return a - b; });
  if (tops.length < 2) { return; }
  var second = Math.max.apply(null, boxes.filter(function (r) { return Math.abs(r.top - tops[1]) < 1.5; }).map(function (r) { return r.bottom; }));
  var want = second - window.innerHeight + 6;
  if (want <= 0) { return; }
  var bar = document.querySelector(".table-page .topbar").getBoundingClientRect().bottom;
  var confirmTop = el("compose-confirm").getBoundingClientRect().top;
  window.scrollBy(0, Math.max(0, Math.min(want, confirmTop - bar - 4)));
}

/* A panel closes (`button`: its Confirm or Cancel): for SETTLING ms a tap at that place is not taken
 * by what comes back under it (a double tap records nothing more). */
export const SETTLING = 450;
export function endCompose(button) {
  S.compose = null;
  if (button) { S.settling = {until: Date.now() + SETTLING, box: button.getBoundingClientRect()}; }
  render();
}
/* True for a tap (`event`, a click) at the place of a panel's button that has just closed it. */
export function settling(event) {
  var s = S.settling;
  if (!s || Date.now() >= s.until || !event || event.clientX === undefined) { return false; }
  return event.clientX >= s.box.left - 4 && event.clientX <= s.box.right + 4 &&
    event.clientY >= s.box.top - 4 && event.clientY <= s.box.bottom + 4;
}
export function cancelCompose() { endCompose(el("compose-cancel")); showTable(); }

export function slotFull(slot) { return slot.max !== undefined && slot.cards.length >= slot.max; }

export function copiesUsed(code) {
  var n = 0;
  for (var s = 0; s < S.compose.slots.length; s++) {
    var cards = S.compose.slots[s].cards;
    for (var i = 0; i < cards.length; i++) { if (String(cards[i]) === String(code)) { n += 1; } }
  }
  return n;
}

export function copiesOf(code) {
  var button = deckBox.querySelector('button[data-card="' + String(code) + '"]');
  return button ? Number(button.getAttribute("data-copies") || "1") : 1;
}

/* A card tapped while composing: from the deck, a hand (owner) or the centre (place). */
export function composeTap(code, owner, place) {
  var slots = S.compose.slots;
  var target = null;
  if (place === "centre") {
    for (var i = 0; i < slots.length; i++) { if (slots[i].from === "centre") { target = slots[i]; } }
    if (!target) { return; }
  } else {
    target = slots[S.compose.at];
    if (target.from === "centre") {
      for (var j = 0; j < slots.length; j++) { if (slots[j].from !== "centre") { target = slots[j]; } }
    }
  }
  var copies = copiesOf(code);
  var at = target.cards.indexOf(String(code));
  S.compose.note = "";
  if (copies <= 1 && at >= 0) {
    target.cards.splice(at, 1);          // tapping a chosen single card again takes it back
  } else if (copiesUsed(code) >= copies && target.from !== "centre") {
    S.compose.note = "All " + copies + " copies of " + cardName(code) + " are chosen: tap a chosen card to remove it.";
  } else if (slotFull(target) && target.max !== 1) {
    S.compose.note = target.label + ": " + target.cards.length + " of " + target.max + " chosen: tap a chosen card to remove it.";
  } else {
    if (slotFull(target)) { target.cards = []; }
    target.cards.push(String(code));
    if (place === "centre" && S.compose.type === "swap") {  // taken: the give is chosen next, from the hand
      for (var g = 0; g < slots.length; g++) { if (slots[g].from !== "centre") { S.compose.at = g; break; } }
    } else if (slotFull(target) && S.compose.autoNext) {
      for (var k = 0; k < slots.length; k++) {
        if (!slotFull(slots[k]) && slots[k].from !== "centre") { S.compose.at = k; break; }
      }
    }
  }
  render();
}

export function composeReady() {
  for (var i = 0; i < S.compose.slots.length; i++) {
    var s = S.compose.slots[i];
    var n = s.cards.length;
    if (s.exact !== undefined && n !== s.exact && !(s.optional && n === 0)) { return false; }
    if (s.min !== undefined && n < s.min) { return false; }
  }
  if (S.compose.needsTarget && !S.compose.target) { return false; }
  return true;
}

export function confirmCompose() {
  if (!S.compose || !composeReady()) { return; }
  var spec = S.compose;
  var body = spec.build();
  write("events", body, spec.label).then(function (outcome) {
    if (outcome !== "refused" && S.compose === spec) {
      endCompose(confirmButton);
      /* the panel is gone: bring the status line and the seats back into view, once the
       * answer is in, never while the tap is pending */
      showTable();
    }
  });
}

export function slot(name, label, need, extra) {
  var s = {name: name, label: label, cards: [], exact: need, max: need};
  for (var k in (extra || {})) { if (Object.prototype.hasOwnProperty.call(extra, k)) { s[k] = extra[k]; } }
  return s;
}

export function values(list) {
  var out = [];
  for (var i = 0; i < list.length; i++) { out.push(cardValue(list[i])); }
  return out;
}

export function startDeal() {
  var slots = [];
  if (kind === "stop_the_bus") { slots.push(slot("centre", "Centre", 3)); }
  if (visibility === "open") {
    var list = players();
    for (var i = 0; i < list.length; i++) {
      if (stillInGame(list[i])) { slots.push(slot("hand:" + list[i].name, "Hand: " + list[i].name, handSize())); }
    }
  }
  var dealer = (S.game.state.next_dealer || S.game.state.dealer);
  startCompose({
    type: "deal", title: kind === "stop_the_bus" ? "Deal: tap the three centre cards" + (visibility === "open" ? ", then each hand" : "")
      : "Deal: tap each player's cards, hand by hand",
    label: "the deal", slots: slots, autoNext: true,
    build: function () {
      var body = {type: "deal"};
      var hands = null;
      for (var i = 0; i < slots.length; i++) {
        if (slots[i].name === "centre") { body.centre = values(slots[i].cards); }
        else { hands = hands || {}; hands[slots[i].name.slice(5)] = values(slots[i].cards); }
      }
      if (hands) { body.hands = hands; }
      if (dealer && kind !== "fuji_flush") { body.dealer = dealer; }
      return body;
    }
  });
}

export function stillInGame(p) { return !(p.eliminated || p.out); }

export function startCards(entry, type, need, extra) {
  extra = extra || {};
  var p = findPlayer(entry.player) || {};
  var s = slot("cards", extra.slotLabel || "Cards", need, extra.slot);
  var known = p.hand_known || p.cards_known || [];
  if (extra.prefill) { for (var i = 0; i < known.length && i < 3; i++) { s.cards.push(String(known[i])); } }
  var spec = {
    possible: entry.possible || entry.cards || null,
    type: type, player: entry.player, title: extra.title, label: extra.label || (WORDS[type] + " by " + entry.player),
    slots: [s], autoNext: false,
    build: function () {
      var body = {type: type === "swap_all" ? "swap" : type, player: entry.player};
      if (extra.field === "card") { body.card = cardValue(s.cards[0]); }
      else if (type === "swap_all") { body.take_all = true; body.give = values(s.cards); }
      else if (s.cards.length || !s.optional) { body[extra.field || "cards"] = values(s.cards); }
      if (spec.target) { body.target = spec.target; }
      return body;
    }
  };
  if (extra.targets) {
    spec.targets = extra.targets;
    spec.needsTarget = true;
    if (extra.targets.length === 1) { spec.target = extra.targets[0]; }
  }
  startCompose(spec);
}

export function startSwap(entry, take) {
  var t = slot("take", "Take from the centre", 1, {from: "centre"});
  var g = slot("give", "Give", 1);
  if (take) { t.cards.push(String(take)); }
  startCompose({
    possible: entry.possible || entry.cards || null,
    type: "swap", player: entry.player, title: entry.player + " swaps: tap the card taken from the centre, then the card given",
    label: "Swap by " + entry.player, slots: [t, g], autoNext: false,
    build: function () {
      return {type: "swap", player: entry.player, take: cardValue(t.cards[0]), give: cardValue(g.cards[0])};
    }
  });
  S.compose.at = take ? 1 : 0;
  render();
}

export function actionClicked(entry, variant) {
  var type = variant || entry.type;
  if (type === "deal") {
    if (kind === "stop_the_bus" || visibility === "open") { startDeal(); } else { oneTap(entry); }
    return;
  }
  if (type === "swap") { startSwap(entry, null); return; }
  if (type === "swap_all") {
    startCards(entry, "swap_all", 3, {title: entry.player + " swaps the whole hand: tap the three cards given to the centre",
                                      slotLabel: "Give", label: "Swap all by " + entry.player});
    return;
  }
  if (type === "show") {
    startCards(entry, "show", 3, {title: "Show: tap " + entry.player + "'s three cards", prefill: true});
    return;
  }
  if (type === "reveal") {
    startCards(entry, "reveal", undefined, {title: "Reveal: tap the cards " + entry.player + " holds",
                                           slot: {min: 1, exact: undefined, max: 30}});
    return;
  }
  if (type === "challenge") {
    var targets = [];
    var same = entries("challenge", entry.player);
    for (var i = 0; i < same.length; i++) { if (same[i].target && targets.indexOf(same[i].target) < 0) { targets.push(same[i].target); } }
    startCards(entry, "challenge", 4, {
      title: entry.player + " challenges a laundry: tap the four cards turned face up" + (visibility === "open" ? " (or Confirm if they are known)" : ""),
      slot: visibility === "open" ? {optional: true} : {}, targets: targets, label: "Challenge by " + entry.player});
    return;
  }
  if (type === "laundry" && visibility === "open") {
    startCards(entry, "laundry", 4, {title: entry.player + " launders: tap the four new cards if they were seen, then Confirm",
                                     slot: {optional: true}});
    return;
  }
  if (type === "draw") {
    startCards(entry, "draw", 1, {title: "Draw: tap the card " + entry.player + " drew", field: "card"});
    return;
  }
  oneTap(entry);
}

export function undo() {
  var local = localUndoable();
  if (local && S.queue.items.length > 1) {
    S.queue.items.pop();
    saveQueue();
    render();
    return;
  }
  var entry = entries("undo")[0];
  write("undo", {}, entry && entry.target ? "Undo: " + entry.target.summary : "Undo");
}

export function redo() {
  var entry = entries("redo")[0];
  write("redo", {}, entry && entry.target ? "Redo: " + entry.target.summary : "Redo");
}
/* A seat's own actions go into its room (board.js); every other action into a row above the deck,
 * one row per kind, in ORDER. Each button keeps its place in its row for the hand (docs/table-page.md,
 * "Nothing moves under a finger"): a place left by an answer stays empty until a later answer; the
 * actions of TURNS keep one place for whoever's turn it is. */
const TURNS = ["deal", "swap", "swap_all", "show", "draw"];
let slotsKey = null;
let slotsMemo = {};  // type -> [{key, freed}], the row's places in order

function handKey() {
  var s = S.game.state;
  return [s.hand_number || s.round_number || 0, s.phase === "deal", s.status].join(":");
}

/* `items` laid into the row's remembered places (see renderActions). */
function placed(type, items) {
  var places = slotsMemo[type] = slotsMemo[type] || [];
  var keys = items.map(function (item) { return item.entry.player || type; });
  var at = keys.map(function (key) {
    for (var k = 0; k < places.length; k++) { if (places[k].key === key) { return k; } }
    return -1;
  });
  var left = [];  // places whose button went away now
  for (var i = 0; i < places.length; i++) {
    if (places[i].key !== null && keys.indexOf(places[i].key) < 0) { left.push(i); }
  }
  if (TURNS.indexOf(type) >= 0) {
    for (var j = 0; j < items.length && left.length; j++) {
      if (at[j] < 0) { at[j] = left.shift(); places[at[j]] = {key: keys[j], freed: null}; }
    }
  }
  for (var l = 0; l < left.length; l++) { places[left[l]] = {key: null, freed: S.version, was: places[left[l]].key}; }
  for (var n = 0; n < items.length; n++) {
    if (at[n] >= 0) { continue; }
    for (var f = 0; f < places.length && at[n] < 0; f++) {
      if (places[f].key === null && places[f].freed < S.version) { at[n] = f; }
    }
    if (at[n] < 0) { at[n] = places.length; places.push(null); }
    places[at[n]] = {key: keys[n], freed: null};
  }
  var out = places.map(function (place) { return {empty: place.key === null ? place.was : place.key}; });
  for (var m = 0; m < items.length; m++) { out[at[m]] = items[m]; }
  return out;
}

export function renderActions() {
  actionsBox.innerHTML = "";
  if (!S.token || !S.actions) { return; }
  if (handKey() !== slotsKey) {
    /* the actions shown are still those of the hand (or the deal) before: none of them is offered
     * now, and laid out they would keep a room for this hand (a Deal's under a knock's folds) */
    if (!fresh()) { return; }
    slotsKey = handKey(); slotsMemo = {};
  }
  var list = S.actions.actions || [];
  var rows = {};
  var to = (S.game.state.to_act || []);
  for (var i = 0; i < list.length; i++) {
    var e = list[i];
    if (["play", "undo", "redo", "note", "adjust", "abandon", "correct"].indexOf(e.type) >= 0) { continue; }  // menu, toolbar, Fix an entry
    if (e.type === "challenge" && rows.challenge && rows.challenge.some(function (x) { return x.entry.player === e.player; })) { continue; }
    var slotted = seatSlot(e.type);
    var room = slotted && e.player ? roomOf(e.player) : null;
    if (room) { room.appendChild(seatButton(e, slotted, to.indexOf(e.player) >= 0)); continue; }
    (rows[e.type] = rows[e.type] || []).push({entry: e, variant: null});
    if (e.type === "swap" && e.take_all) { (rows.swap_all = rows.swap_all || []).push({entry: e, variant: "swap_all"}); }
  }
  for (var kept in slotsMemo) {  // a row whose buttons all went away keeps its room this hand
    if (Object.prototype.hasOwnProperty.call(slotsMemo, kept) && !rows[kept]) { rows[kept] = []; }
  }
  var types = Object.keys(rows).sort(function (a, b) {
    var x = ORDER.indexOf(a), y = ORDER.indexOf(b);
    return (x < 0 ? 99 : x) - (y < 0 ? 99 : y);
  });
  for (var t = 0; t < types.length; t++) {
    var items = placed(types[t], rows[types[t]]);
    if (items.length) { actionsBox.appendChild(actionRow(types[t], items, to)); }
  }
}

/* One row of the action room (`empty`: a place kept); board.js measures such rows for a knock's folds. */
export function actionRow(type, items, to) {
  /* one action for several players: on a phone with many seats its word once (table.css) */
  var perPlayer = TURNS.indexOf(type) < 0;
  var row = text("div", "action-row" + (perPlayer ? " per-player" : ""));
  if (perPlayer) {
    row.style.setProperty("--places", String(items.length));
    row.appendChild(text("span", "row-word", WORDS[type] || type)).setAttribute("aria-hidden", "true");
  }
  for (var j = 0; j < items.length; j++) {
    var item = items[j];
    if (item.empty !== undefined) {  // the room of a button that went away: nothing to tap, nothing read out
      var keep = text("span", "action-keep action action-" + type);
      var kept = keep.appendChild(text("span", "label"));  // laid out as a button's label, so as wide
      kept.appendChild(text("span", "verb", (WORDS[type] || type) + ": "));
      kept.appendChild(text("bdi", "", item.empty));
      keep.setAttribute("aria-hidden", "true");
      row.appendChild(keep);
      continue;
    }
    var b;
    if (type === "deal") {
      b = text("button", "primary big", "Deal");
    } else {
      b = text("button", "action action-" + type);
      var label = b.appendChild(text("span", "label"));  // "Fold: " apart, so a phone's row may show it once
      label.appendChild(text("span", "verb", (WORDS[type] || type) + ": "));
      label.appendChild(text("bdi", "", item.entry.player));
      if (to.indexOf(item.entry.player) >= 0 && ["knock", "reveal", "laundry", "challenge", "fold"].indexOf(type) < 0) { b.className += " primary"; }
    }
    if (item.variant !== undefined || item.entry.type) { wireAction(b, item.entry, item.variant, type); }
    row.appendChild(b);
  }
  return row;
}

/* A seat's action button: its word on screen, its name ("Knock: Ann") from a label never laid out
 * (aria-labelledby reads hidden text; a laid-out, visually hidden one costs a layout per tap). */
function seatButton(entry, slotted, due) {
  /* due: the seat is the one to act, and this is its next step (Fool!'s reveals once a round is over) */
  var b = text("button", "action seat-action action-" + entry.type + (due && entry.type === "reveal" && S.game.state.phase === "reveal" ? " primary" : ""));
  var word = WORDS[entry.type] || entry.type;
  b.appendChild(text("span", "word", word));
  var name = text("span", "seat-action-name", word + ": ");
  name.appendChild(text("bdi", "", entry.player));
  name.hidden = true;
  name.id = "seat-action-" + entry.type + "-" + seatIndex(entry.player);
  b.appendChild(name);
  b.setAttribute("aria-labelledby", name.id);
  b.style.setProperty("--row", String(slotted[1]));  // its place (table.css): row and column on a tablet,
  b.style.setProperty("--col", String(slotted[2]));
  b.style.setProperty("--slot", String(seatSlots().indexOf(slotted) + 1));  // its column in a phone's one row
  wireAction(b, entry, null, entry.type);
  return b;
}

function wireAction(b, entry, variant, type) {
  b.type = "button";
  b.disabled = !fresh();  // until the actions of this version arrive
  b.setAttribute("data-action", type);
  b.setAttribute("data-player", entry.player || "");
  b.addEventListener("click", function (event) { if (!settling(event)) { actionClicked(entry, variant); } });
}

function seatIndex(player) {
  var list = players();
  for (var i = 0; i < list.length; i++) { if (list[i].name === player) { return i; } }
  return -1;
}

function roomOf(player) {
  var rooms = seatsBox.querySelectorAll(".seat-actions");
  for (var i = 0; i < rooms.length; i++) { if (rooms[i].getAttribute("data-player") === player) { return rooms[i]; } }
  return null;
}

export function renderCompose() {
  composeBox.hidden = !S.compose;
  /* while choosing cards only Confirm and Cancel act: the panel lies over the action room (kept, its
   * buttons hidden: table.css) and, when taller, over the band and the seats above it; the deck does
   * not move */
  root.classList.toggle("composing", !!S.compose);
  if (!S.compose) { composeBox.style.maxHeight = ""; return; }
  var room = el("action-room");
  composeBox.style.maxHeight = Math.max(room.offsetTop + room.offsetHeight, 120) + "px";
  composeTitle.textContent = S.compose.title;
  composeBody.innerHTML = "";
  el("compose-note").textContent = S.compose.note || "";
  if (S.compose.targets && S.compose.targets.length > 1) {
    var trow = text("div", "action-row");
    trow.appendChild(text("span", "row-label", "Whose laundry"));
    for (var t = 0; t < S.compose.targets.length; t++) {
      var tb = text("button", S.compose.target === S.compose.targets[t] ? "primary" : "", "Target: " + S.compose.targets[t]);
      tb.type = "button";
      tb.setAttribute("aria-pressed", S.compose.target === S.compose.targets[t] ? "true" : "false");
      tb.addEventListener("click", (function (name) { return function () { S.compose.target = name; render(); }; })(S.compose.targets[t]));
      trow.appendChild(tb);
    }
    composeBody.appendChild(trow);
  }
  for (var i = 0; i < S.compose.slots.length; i++) {
    var s = S.compose.slots[i];
    var box = text("div", "slot" + (i === S.compose.at ? " current" : ""));
    var heading = s.label + " (" + s.cards.length + (s.exact ? "/" + s.exact : "") + ")";
    var pick;
    if (S.compose.slots.length > 1) {  // a heading that also chooses where the next taps go
      pick = text("button", "slot-name", heading);
      pick.type = "button";
      pick.setAttribute("aria-pressed", i === S.compose.at ? "true" : "false");
      pick.addEventListener("click", (function (n) { return function () { S.compose.at = n; S.compose.note = ""; render(); }; })(i));
    } else {
      pick = text("h3", "slot-name", heading);
    }
    box.appendChild(pick);
    var counts = {};
    var order = [];
    for (var c = 0; c < s.cards.length; c++) {
      var code = s.cards[c];
      if (counts[code] === undefined) { counts[code] = 0; order.push(code); }
      counts[code] += 1;
    }
    for (var o = 0; o < order.length; o++) {
      var remove = text("button", "chip-button " + cardClass(order[o]), cardName(order[o]) + (counts[order[o]] > 1 ? " ×" + counts[order[o]] : ""));
      remove.type = "button";
      remove.title = "Take back";
      remove.addEventListener("click", (function (slotRef, cardCode) {
        return function () { slotRef.cards.splice(slotRef.cards.indexOf(cardCode), 1); render(); };
      })(s, order[o]));
      box.appendChild(remove);
    }
    composeBody.appendChild(box);
  }
  confirmButton.disabled = !composeReady();
  keepPanelInView();
}

/* While cards are chosen, the panel's heading never goes under the sticky bar: scrolled past (to tap
 * a card lower in the deck), the panel stays just under the bar, as the bar itself does. */
export function keepPanelInView() {
  composeBox.style.transform = "";
  if (!S.compose || composeBox.hidden) { return; }
  var bar = document.querySelector(".table-page .topbar").getBoundingClientRect().bottom;
  var top = composeBox.getBoundingClientRect().top;
  if (top < bar) { composeBox.style.transform = "translateY(" + Math.ceil(bar - top) + "px)"; }
}
window.addEventListener("scroll", keepPanelInView, {passive: true});

export function renderDeck() {
  var buttons = deckBox.querySelectorAll("button[data-card]");
  var deckUsed = kind !== "stop_the_bus" || S.compose;
  deckBox.hidden = kind === "stop_the_bus" && !S.compose;
  for (var i = 0; i < buttons.length; i++) {
    var b = buttons[i];
    var code = b.getAttribute("data-card");
    var used = S.compose ? copiesUsed(code) : 0;
    var count = b.querySelector(".count");
    if (count) { count.textContent = used > 1 || (used === 1 && Number(b.getAttribute("data-copies")) > 1) ? "×" + used : ""; }
    b.classList.toggle("picked", used > 0);
    b.classList.remove("queued");
    b.removeAttribute("aria-disabled");  // set again below only where a tap asks the service why
    if (!S.token || !deckUsed) { b.disabled = true; continue; }
    if (S.compose) {
      var copies = Number(b.getAttribute("data-copies") || "1");
      var here = S.compose.slots[S.compose.at];
      if (here && here.from === "centre") { b.disabled = true; continue; }  // a swap's take: from the centre only
      var usedHere = here ? here.cards.filter(function (x) { return x === code; }).length : 0;
      b.disabled = (copies > 1 && used >= copies) || (copies === 1 && used === 1 && usedHere === 0) ||
        (!!S.compose.possible && used === 0 && !listed(S.compose.possible, code));
      continue;
    }
    // a card that cannot be played now stays tappable (aria-disabled): a tap asks the service why
    b.disabled = false;
    var off = guessing() ? guessedOff(code)
      : waiting() || !fresh() ? !(entries("play").length || pendingPlays().length || (S.game.state.to_act || []).length)
        : !canPlay(code, null);
    /* a card already waiting on the device (offline, or behind a refusal), every copy of it,
     * looks waiting, not playable: a tap on it says it waits (table.js) and queues nothing */
    var queued = S.offline || S.queue.stopped ? pendingPlays().filter(function (it) { return String(it.body.card) === code; }).length >=
      Number(b.getAttribute("data-copies") || "1") : false;  // every copy of it waits (Fool!'s 1, Fuji Flush's numbers: several)
    b.classList.toggle("queued", queued);
    b.setAttribute("aria-disabled", off || queued ? "true" : "false");
  }
}

/* While taps wait on the device (offline, or behind a refusal) the deck is the confirmed board's
 * plus the waiting taps, never less (issue 25): a card is offered for the guessed player when the
 * last answer allowed it (the `cards` or `possible` of GET …/actions at the version shown: a card
 * played in this hand is in neither) and it is not a card known in another player's hand; a
 * player whose whole hand is known (open hands) is offered the cards of that hand not waiting.
 * The page keeps no rules of its own: the service has the last word when the taps are sent. */
export function guessedOff(code) {
  var who = guessNext();
  var me = findPlayer(who);
  var waitingCards = pendingPlays().map(function (it) { return String(it.body.card); });
  var copies = Number((deckBox.querySelector("button[data-card='" + code + "']") || {getAttribute: function () { return "1"; }}).getAttribute("data-copies") || "1");
  var own = me ? (me.cards_known || me.hand_known || null) : null;
  if (own && typeof me.hand_size === "number" && own.length >= me.hand_size) {
    var left = own.map(String).filter(function (c) { var at = waitingCards.indexOf(c); if (at >= 0) { waitingCards.splice(at, 1); return false; } return true; });
    return left.indexOf(code) < 0;
  }
  if (copies === 1) {
    var list = players();
    for (var i = 0; i < list.length; i++) {
      if (list[i].name !== who && listed(list[i].cards_known || list[i].hand_known || [], code)) { return true; }
    }
  }
  var allowed = entries("play").map(function (e) { return e.possible || (e.player === who ? e.cards : null); })
    .filter(function (l) { return !!l; });
  if (allowed.length) { return !allowed.some(function (l) { return listed(l, code); }); }
  return !(entries("play").length || pendingPlays().length || (S.game.state.to_act || []).length);
}

/* A tap on a card that cannot be played now: the play sent as a dry run (POST …/events?dry_run=true,
 * api.md), so the service says why in its own words; nothing is recorded. */
export function explainCard(code) {
  if (!S.token || !S.game) { return; }
  var play = entries("play");
  var player = play.length ? play[0].player : ((S.game.state.to_act || [])[0] || guessNext());
  var body = {type: "play", player: player, card: cardValue(code), at: K.nowIso()};
  var unreachableWords = "The service cannot be reached, so it cannot say now why " + cardName(code) + " cannot be played.";
  say("");
  K.api("POST", base + "/events?dry_run=true", {body: body, token: S.token, ifMatch: S.version}).then(function (answer) {
    var b = answer.body || {};
    if (answer.status === 200 && b.dry_run) {
      say(cardName(code) + " can be played by " + player + " now: tap it again to record it.");
      refreshActions();
      return;
    }
    if (answer.status === 201) { refresh(); return; }  // a service without dry runs recorded it: show it
    if (answer.status >= 500 && b.code !== "record_damaged") { say(unreachableWords); return; }
    say(ended(b.detail || ("The service answered " + answer.status + ".")));
  }, function () { say(unreachableWords); });
}

export function renderUndo() {
  var local = localUndoable();
  var undoEntry = entries("undo")[0];
  var redoEntry = entries("redo")[0];
  if (local && S.queue.items.length > 1) {
    iso(undoButton, "Undo: ", local.label, " (not sent)");
    undoButton.disabled = false;
  } else if (undoEntry && undoEntry.target) {
    iso(undoButton, "Undo: ", undoEntry.target.summary);
    undoButton.disabled = !S.token || (!fresh() && !waiting());
  } else {
    undoButton.textContent = "Undo";
    undoButton.disabled = !S.token || hasBookkeeping();
  }
  if (redoEntry && redoEntry.target) {
    redoButton.hidden = false;
    iso(redoButton, "Redo: ", redoEntry.target.summary);
    redoButton.disabled = !S.token || (!fresh() && !waiting());
  } else {
    redoButton.hidden = true;
  }
}
