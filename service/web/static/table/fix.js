/* Fix an entry (ui.md, "Fix an earlier entry"; api.md, POST …/correct).
 *
 * The panel lists the entries of the current hand (earlier hands one tap further, "Earlier
 * hands") from GET …/timeline; opening one asks GET …/actions?before=<seq> what could have been
 * recorded in its place and offers it with the recording controls (the deck's cards for a play,
 * the action buttons otherwise); the choice is sent as POST …/correct {target, action} and the
 * result, or the service's sentence naming the later entry that no longer fits, is shown. A fix
 * needs the service's answer: while it cannot be reached the panel says so and nothing waits. */
import {K, S, WORDS, base, cardName, cardValue, el, ended, kind, refresh, say, text} from "./state.js";

const BOOKKEEPING = ["game_created", "undo", "redo", "note", "adjust", "abandon", "correct"];
const ONE_TAP = ["knock", "stay", "fold", "laundry", "stop"];
let steps = [];
let showAll = false;
let closePanel = function () {};  // given by whoever opened the panel (menu.js): a fix recorded closes it

function handOf(s) { return s.hand_number || s.round_number || 0; }

/* Open the panel (the menu's "Fix an entry"); `close()` closes it once a fix is recorded. */
export function openFix(close) {
  closePanel = close || function () {};
  var note = el("fix-note");
  el("fix-list").innerHTML = "";
  el("fix-earlier").hidden = true;
  showAll = false;
  if (S.offline) {
    note.textContent = "The service cannot be reached: fixing an entry needs its answer, so it cannot be done now (nothing is queued).";
    return;
  }
  note.textContent = "Loading the entries…";
  K.api("GET", base + "/timeline", {token: S.token}).then(function (answer) {
    if (answer.status !== 200) { note.textContent = ended((answer.body && answer.body.detail) || "The entries cannot be read now."); return; }
    steps = (answer.body.steps || []).filter(function (st) { return !st.undone && BOOKKEEPING.indexOf(st.type) < 0; });
    list();
  }, function () {
    note.textContent = "The service cannot be reached: fixing an entry needs its answer, so it cannot be done now (nothing is queued).";
  });
}

function list() {
  var box = el("fix-list");
  box.innerHTML = "";
  var hand = handOf(S.game.state);
  var shown = showAll ? steps : steps.filter(function (st) { return st.hand === hand; });
  el("fix-earlier").hidden = showAll || shown.length === steps.length;
  el("fix-note").textContent = shown.length ? "Tap the entry to fix." : "No entry of this hand to fix yet.";
  var lastHand = null;
  for (var i = shown.length - 1; i >= 0; i--) {  // the newest first
    var st = shown[i];
    if (showAll && st.hand !== lastHand) {
      lastHand = st.hand;
      box.appendChild(text("li", null)).appendChild(text("h3", null, (kind === "toepen" ? "Hand " : "Round ") + st.hand));
    }
    var li = text("li");
    var b = text("button", "fix-entry", entryWords(st));
    b.type = "button";
    b.setAttribute("data-seq", String(st.seq));
    b.addEventListener("click", (function (step, item) { return function () { choose(step, item); }; })(st, li));
    li.appendChild(b);
    box.appendChild(li);
  }
}

/* An entry as it stands in the record now, named by where it was recorded as card players say
 * it (the timeline's place), never by an event number (ui.md, "Words for card players"):
 * "Hand 2, trick 1: Cas played 9♦ …", or once corrected "Hand 2, trick 1: Cas played 7♦, not 9♦
 * (corrected)" (the timeline's own words). */
function entryWords(st) {
  var place = st.place ? st.place.charAt(0).toUpperCase() + st.place.slice(1) + ": " : "";
  return place + (st.corrected ? st.corrected.replace(/^corrected: /, "") + " (corrected)" : st.summary);
}

export function showEarlier() { showAll = true; list(); }

/* The entry `step` opened: what could have been recorded in its place. */
function choose(step, li) {
  var old = el("fix-list").querySelector(".fixing");
  if (old) { old.remove(); }
  var box = text("div", "fixing");
  box.appendChild(text("p", "hint", "Replace this entry (" + entryWords(step).replace(/\.$/, "") + ") with:"));
  li.appendChild(box);
  K.api("GET", base + "/actions?before=" + step.seq, {token: S.token}).then(function (answer) {
    if (answer.status !== 200) { box.appendChild(text("p", "alert", ended((answer.body && answer.body.detail) || "Cannot be read now."))); return; }
    offer(step, answer.body.actions || [], box);
  }, function () {
    box.appendChild(text("p", "alert", "The service cannot be reached: fixing an entry needs its answer, so it cannot be done now."));
  });
}

function offer(step, actions, box) {
  var offered = 0;
  for (var i = 0; i < actions.length; i++) {
    var a = actions[i];
    if (a.player !== step.player && step.type !== "deal") { continue; }  // the same player's entry, another way
    if (a.type === "play") {
      var allowed = a.cards || a.possible || null;
      /* laid out as the recording deck: its suit (or colour) rows, the same card buttons */
      var group = text("div", "deck fix-cards");
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", "Replacement: " + a.player);
      var rows = document.querySelectorAll("#deck .deck-row");
      for (var r = 0; r < rows.length; r++) {
        var deck = rows[r].querySelectorAll("button[data-card]");
        var label = rows[r].querySelector(".row-label");
        var row = text("div", "deck-row");
        row.setAttribute("role", "group");
        row.setAttribute("aria-label", rows[r].getAttribute("aria-label") || "");
        var rowLabel = row.appendChild(text("span", "row-label", label ? label.textContent : ""));
        rowLabel.setAttribute("aria-hidden", "true");
        var cards = row.appendChild(text("div", "row-cards"));
        for (var c = 0; c < deck.length; c++) {
          var code = deck[c].getAttribute("data-card");
          if (allowed && allowed.map(String).indexOf(code) < 0) { continue; }
          if (step.type === "play" && step.data && String(step.data.card) === code && step.player === a.player) { continue; }
          var b = text("button", deck[c].className.replace(/\b(picked|queued)\b/g, ""), cardName(code));
          b.type = "button";
          b.addEventListener("click", (function (player, card) {
            return function () { send(step, {type: "play", player: player, card: cardValue(card)}, box); };
          })(a.player, code));
          cards.appendChild(b);
          offered += 1;
        }
        if (cards.childNodes.length) { group.appendChild(row); }
      }
      box.appendChild(text("p", "fix-who", a.player + " plays:"));
      box.appendChild(group);
    } else if (ONE_TAP.indexOf(a.type) >= 0 && step.type !== "play") {
      var one = text("button", "action", (WORDS[a.type] || a.type) + ": " + a.player);
      one.type = "button";
      one.addEventListener("click", (function (entry) {
        return function () { send(step, {type: entry.type, player: entry.player}, box); };
      })(a));
      box.appendChild(one);
      offered += 1;
    }
  }
  if (!offered) { box.appendChild(text("p", "hint", "Nothing this page can offer in its place: use Undo for this entry.")); }
  /* the service's answer to a fix is shown here too, where the scorekeeper is looking */
  box.appendChild(text("p", "fix-answer"));
  box.scrollIntoView({block: "nearest"});
}

/* The service's sentence shown whole in the opened entry (and in the page's alert). */
function answered(box, sentence) {
  var where = box.querySelector(".fix-answer");
  if (where) {
    where.textContent = sentence;
    where.scrollIntoView({block: "nearest"});
  }
  say(sentence);
}

function send(step, action, box) {
  if (S.offline) { answered(box, "The service cannot be reached: fixing an entry needs its answer, so nothing was sent."); return; }
  var body = {target: step.seq, action: action};
  K.api("POST", base + "/correct", {body: body, token: S.token, ifMatch: S.version, key: K.newKey()}).then(function (answer) {
    var b = answer.body || {};
    if (answer.status === 201) {
      var was = b.target && b.target.summary ? b.target.summary : "the entry";
      var now = b.replacement && b.replacement.summary ? b.replacement.summary : "";
      el("changes").textContent = ended("Fixed: " + was + (now ? " is now " + now : ""));
      say("");
      closePanel();  // the panel closes and the table comes back into view
      refresh();
      return;
    }
    if (answer.status >= 500 && b.code !== "record_damaged") {
      answered(box, "The service cannot be reached: fixing an entry needs its answer, so it was not fixed. Try again when it answers.");
      return;
    }
    answered(box, ended(b.detail || ("The service answered " + answer.status + ".")));
    if (answer.status === 412) { refresh(); }
  }, function () {
    answered(box, "The service cannot be reached: fixing an entry needs its answer, so it was not fixed. Try again when it answers.");
  });
}
