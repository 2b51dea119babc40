/* When a game ends (ui.md): who won, the record's fingerprint, the review (replay and each hand's
 * audit) and Play again: a new game with the same seats, options and visibility and the next
 * dealer (or first player) clockwise, created through POST /games like the new-game page does
 * (the club key asked for where the server has one), its token kept on this device. A 422 on a
 * name stored before today's rules for names lets the scorekeeper edit the seats and try again. */
import {K, S, base, el, ended, gameId, kind, names, root, say, text} from "./state.js";

let shownFor = null;   // the version the game-over panel was filled for
let firstDealer = null;

const HAND = {toepen: "Hand", fool: "Round", stop_the_bus: "Round", fuji_flush: "Round"};

/* Fill and show the game-over panel once the game is finished or abandoned; hide it otherwise. */
export function renderEnd() {
  var box = el("game-over");
  var s = S.game.state;
  var over = s.status === "finished" || s.status === "abandoned";
  box.hidden = !over;
  if (!over || shownFor === S.version) { return; }
  shownFor = S.version;
  var result = el("game-over-result");
  if (s.status === "abandoned") {
    result.textContent = "Game abandoned: no winners, no losers.";
  } else {
    var parts = [];
    if ((s.winners || []).length) { parts.push((s.winners.length > 1 ? "Winners: " : "Winner: ") + names(s.winners)); }
    if ((s.losers || []).length) { parts.push("lost: " + names(s.losers)); }
    result.textContent = ended(parts.length ? parts.join("; ") : "Game over");
  }
  var audits = el("game-over-audits");
  audits.innerHTML = "";
  var n = s.hand_number || s.round_number || 0;
  for (var i = 1; i <= n; i++) {
    var a = text("a", "button", (HAND[kind] || "Hand") + " " + i + " audit");
    a.href = "/watch/" + encodeURIComponent(gameId) + "/hands/" + i;
    audits.appendChild(a);
  }
  K.api("GET", base, {token: S.token}).then(function (answer) {
    var hash = answer.body && answer.body.record_hash;
    el("game-over-fingerprint").textContent = hash ? "Fingerprint of the record: " + hash.slice(0, 16).replace(/(.{4})(?!$)/g, "$1 ") +
      " (note it down: it proves later that the record is unchanged)." : "";
  }, function () { /* offline: no fingerprint now */ });
}

function seatInputs() { return el("again-seats").querySelectorAll("input"); }

/* The seats to play again with: as typed after a 422, else the game's. */
function seats() {
  var inputs = seatInputs();
  if (!inputs.length) { return S.game.players.slice(); }
  var out = [];
  for (var i = 0; i < inputs.length; i++) { out.push(inputs[i].value.trim()); }
  return out;
}

function showSeatInputs() {
  var box = el("again-seats");
  if (seatInputs().length) { box.hidden = false; return; }
  for (var i = 0; i < S.game.players.length; i++) {
    var label = text("label", null, "Seat " + (i + 1));
    var input = document.createElement("input");
    input.value = S.game.players[i];
    input.maxLength = 40;
    input.autocomplete = "off";
    label.setAttribute("for", "again-seat-" + (i + 1));
    input.id = "again-seat-" + (i + 1);
    var wrap = text("div", "field");
    wrap.appendChild(label);
    wrap.appendChild(input);
    box.appendChild(wrap);
  }
  box.hidden = false;
  seatInputs()[0].focus();
}

/* The first dealer (first player) of this game, from its game_created event. */
function first() {
  if (firstDealer !== null) { return Promise.resolve(firstDealer); }
  return K.api("GET", base + "/events?limit=1", {token: S.token}).then(function (answer) {
    var data = answer.body && answer.body.events && answer.body.events[0] && answer.body.events[0].data;
    firstDealer = (data && (data.dealer || data.first_player)) || S.game.players[0];
    return firstDealer;
  });
}

function playAgain(event) {
  event.preventDefault();
  var note = el("again-note");
  note.textContent = "";
  var typed = el("again-club-key").value.trim();
  if (root.getAttribute("data-club-key-required") === "true" && !typed && !K.clubKey.get()) {
    el("again-club-key-field").hidden = false;
    el("again-club-key").focus();
    note.textContent = "This server lets only club members start games: type the club key, then Play again.";
    return;
  }
  first().then(function (dealer) {
    var players = seats();
    var at = S.game.players.indexOf(dealer);
    var next = players[((at < 0 ? 0 : at) + 1) % players.length];
    var options = {};
    for (var k in S.game.options) {
      if (Object.prototype.hasOwnProperty.call(S.game.options, k) && S.game.options[k] !== null) { options[k] = S.game.options[k]; }
    }
    var body = {game: S.game.game, players: players, visibility: S.game.visibility, options: options};
    body[kind === "fuji_flush" ? "first_player" : "dealer"] = next;
    if (S.game.title) { body.title = S.game.title; }
    body.play_again_of = gameId;  // the home page counts the night's series by this link
    return K.startGame(body, typed, function () {
      el("again-club-key").value = "";
      el("again-club-key-field").hidden = false;
      el("again-club-key").focus();
    }).then(function (answer) {
      if (!answer) { return; }  // started: the table page opens
      var b = answer.body || {};
      var sentence = ended(b.detail || ("The service answered " + answer.status + "."));
      if (b.errors) {
        var parts = [];
        for (var field in b.errors) {
          if (Object.prototype.hasOwnProperty.call(b.errors, field)) { parts.push([].concat(b.errors[field]).join(" ")); }
        }
        if (parts.length) { sentence = sentence + " " + parts.map(ended).join(" "); }
        if (b.errors.players || b.errors.dealer || b.errors.first_player) {
          showSeatInputs();
          sentence += " Change the names below, then Play again.";
        }
      }
      note.textContent = sentence;
      say(sentence);
    });
  }).then(null, function () {
    note.textContent = "The service cannot be reached, so no new game was started. Try again when it answers.";
  });
}

export function wireEnd() {
  el("again").addEventListener("submit", playAgain);
}
