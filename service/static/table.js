/* The table page: records a live game through the documented API (README, "Pages").
 *
 * The page keeps no rules of its own: what can be done now comes from GET /games/<id>/actions,
 * every write goes to POST /games/<id>/events (or /undo, /redo) and the service judges it.
 *
 * Every write goes through one queue (persisted in localStorage, so it survives a reload):
 * each item has its own Idempotency-Key (crypto.getRandomValues) and the client's time `at`;
 * the first carries If-Match with the version the page shows, each later one the version the
 * previous answer returned. When the service cannot be reached (no answer, a network error,
 * a 5xx) the items wait and are retried in order with their own keys; a refusal (409, 412,
 * 422) of a tap that waited stops the queue and shows the service's sentence.
 */
(function () {
  "use strict";
  var K = window.Kibitz;
  var root = document.getElementById("table");
  var gameId = root.getAttribute("data-game-id");
  var kind = root.getAttribute("data-game");
  var visibility = root.getAttribute("data-visibility");
  var deckNames = JSON.parse(document.getElementById("deck-data").textContent);
  var token = K.tokens.adoptFromFragment(gameId) || K.tokens.get(gameId);
  var base = "/games/" + encodeURIComponent(gameId);
  var QUEUE_KEY = "kibitz.queue." + gameId;
  var BOARD_KEY = "kibitz.board." + gameId;

  var el = function (id) { return document.getElementById(id); };
  var turnBox = el("turn"), alertBox = el("alert"), seatsBox = el("seats"), boardBox = el("board");
  var actionsBox = el("actions"), moreBox = el("more-actions"), deckBox = el("deck"), undoButton = el("undo"), redoButton = el("redo");
  var composeBox = el("compose"), composeTitle = el("compose-title"), composeBody = el("compose-body");
  var confirmButton = el("compose-confirm");

  var game = null;      // GET /games/<id>
  var actions = null;   // GET /games/<id>/actions
  var version = null;   // the version the page shows
  var queue = loadQueue();
  var compose = null;   // the multi-card selection being made
  var sending = false;
  var retryDelay = 1000;
  var retryTimer = null;
  var offline = false;
  var sheetKey = null;
  var lastSentence = "";

  var UNITS = {toepen: "lives lost (positive is worse)", fool: "points (positive is better)",
               stop_the_bus: "chips (positive is better)"};
  var WORDS = {knock: "Knock", stay: "Stay", fold: "Fold", laundry: "Laundry", challenge: "Challenge",
               stop: "Stop", swap: "Swap", swap_all: "Swap all", draw: "Draw", show: "Show", reveal: "Reveal"};
  var ORDER = ["deal", "stay", "fold", "swap", "swap_all", "stop", "show", "reveal", "knock", "laundry",
               "challenge", "draw"];

  // ------------------------------------------------------------------ small helpers

  function text(tag, cls, content) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (content !== undefined && content !== null) { node.textContent = content; }
    return node;
  }

  function cardName(code) {
    var name = deckNames[String(code)];
    return name === undefined ? String(code) : name;
  }

  function cardValue(code) { return kind === "fuji_flush" ? Number(code) : String(code); }

  function cardClass(code) {
    var c = String(code);
    if (kind === "toepen" || kind === "stop_the_bus") { return "suit-" + c.charAt(1); }
    if (kind === "fool") { return c === "1" ? "colour-W" : "colour-" + c.charAt(0); }
    return "number";
  }

  function chip(code, extra) {
    var span = text("span", "chip " + cardClass(code) + (extra ? " " + extra : ""), cardName(code));
    return span;
  }

  function players() { return game ? game.state.players : []; }

  function playerNames() {
    var out = [];
    var list = players();
    for (var i = 0; i < list.length; i++) { out.push(list[i].name); }
    return out;
  }

  function findPlayer(name) {
    var list = players();
    for (var i = 0; i < list.length; i++) { if (list[i].name === name) { return list[i]; } }
    return null;
  }

  function entries(type, player) {
    var out = [];
    var list = (actions && actions.actions) || [];
    for (var i = 0; i < list.length; i++) {
      if (list[i].type === type && (player === undefined || list[i].player === player)) { out.push(list[i]); }
    }
    return out;
  }

  function hasBookkeeping() {
    var list = (actions && actions.actions) || [];
    for (var i = 0; i < list.length; i++) {
      if (["undo", "redo", "note", "adjust", "abandon"].indexOf(list[i].type) >= 0) { return true; }
    }
    return false;
  }

  function say(sentence) {
    lastSentence = sentence || "";
    alertBox.textContent = lastSentence;
  }

  /* Summaries joined into one sentence: "a; b." (each summary's own final full stop dropped). */
  function joinSummaries(list) {
    var out = [];
    for (var i = 0; i < list.length; i++) { out.push(String(list[i] || "").trim().replace(/[.]+$/, "")); }
    return out.join("; ") + ".";
  }

  /* `sentence` with exactly one closing punctuation mark. */
  function ended(sentence) {
    var t = String(sentence || "").trim();
    return !t || /[.!?…]$/.test(t) ? t : t + ".";
  }

  function names(list) {
    if (list.length <= 1) { return list.join(""); }
    return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
  }

  // ------------------------------------------------------------------ storage

  function loadQueue() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(QUEUE_KEY) || "null");
      if (saved && saved.items) { return saved; }
    } catch (e) { /* a damaged entry is dropped */ }
    return {base: null, items: [], stopped: null};
  }

  function saveQueue() {
    try {
      if (queue.items.length) {
        var items = [];
        for (var i = 0; i < queue.items.length; i++) {
          var it = queue.items[i];
          items.push({key: it.key, path: it.path, body: it.body, label: it.label, guessed: it.guessed,
                      attempts: it.attempts, waited: it.waited});
        }
        window.localStorage.setItem(QUEUE_KEY, JSON.stringify({base: queue.base, items: items, stopped: queue.stopped}));
      } else {
        window.localStorage.removeItem(QUEUE_KEY);
      }
    } catch (e) { /* storage full or disabled: the queue still lives in memory */ }
  }

  function saveBoard() {
    try { window.localStorage.setItem(BOARD_KEY, JSON.stringify({game: game, actions: actions})); } catch (e) { /* ignore */ }
  }

  function loadBoard() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(BOARD_KEY) || "null");
      if (saved && saved.game) { game = saved.game; actions = saved.actions; version = game.version; return true; }
    } catch (e) { /* ignore */ }
    return false;
  }

  // ------------------------------------------------------------------ reading

  function fetchGame() {
    return K.api("GET", base, {token: token}).then(function (answer) {
      if (answer.status !== 200) { throw {answer: answer}; }
      return answer.body;
    });
  }

  function fetchActions() {
    return K.api("GET", base + "/actions", {token: token}).then(function (answer) {
      if (answer.status !== 200) { throw {answer: answer}; }
      return answer.body;
    });
  }

  /* Reload the whole board (game and actions); resolves when rendered. */
  function refresh(again) {
    return Promise.all([fetchGame(), fetchActions()]).then(function (both) {
      if (both[0].version !== both[1].version && !again) { return refresh(true); }  // a write came between
      game = both[0];
      actions = both[1];
      version = game.version;
      offline = false;
      saveBoard();
      render();
      refreshSheet(false);
    });
  }

  function refreshActions() {
    return fetchActions().then(function (body) {
      actions = body;
      saveBoard();
      render();
    }, function () { render(); });
  }

  /* The timeline's summaries of what was recorded after `since` (for a 412 or a poll). */
  function changesSince(since) {
    return K.api("GET", base + "/timeline", {token: token}).then(function (answer) {
      var steps = (answer.body && answer.body.steps) || [];
      var out = [];
      for (var i = 0; i < steps.length; i++) {
        if (steps[i].seq > since) { out.push(steps[i].summary); }
      }
      return out;
    }, function () { return []; });
  }

  // ------------------------------------------------------------------ writing (the queue)

  /* Record `body` at `path` ("events", "undo", "redo"). Resolves to "stored", "queued" or "refused". */
  function write(path, body, label, guessed) {
    if (!token) { say("This device cannot record this game: it does not hold the game's token."); return Promise.resolve("refused"); }
    var payload = {};
    for (var k in body) { if (Object.prototype.hasOwnProperty.call(body, k)) { payload[k] = body[k]; } }
    if (path === "events") { payload.at = K.nowIso(); }
    var item = {key: K.newKey(), path: path, body: payload, label: label, guessed: !!guessed, attempts: 0,
                waited: offline || queue.stopped !== null};
    if (!queue.items.length) { queue.base = version; }
    queue.items.push(item);
    saveQueue();
    var result = new Promise(function (resolve) { item.resolve = resolve; });
    say("");
    render();
    drain();
    if (item.waited) { return Promise.resolve("queued"); }
    return result;
  }

  function settle(item, outcome) {
    if (item.resolve) { item.resolve(outcome); item.resolve = null; }
  }

  function drain() {
    if (sending || !queue.items.length || queue.stopped) { return; }
    if (retryTimer) { window.clearTimeout(retryTimer); retryTimer = null; }
    var item = queue.items[0];
    sending = true;
    item.attempts += 1;
    saveQueue();
    var ifMatch = queue.base === null ? version : queue.base;
    K.api("POST", base + "/" + item.path, {body: item.body, token: token, ifMatch: ifMatch, key: item.key})
      .then(function (answer) {
        sending = false;
        if (answer.status === 201 || answer.status === 200) { return stored(item, answer.body); }
        if (answer.status >= 500) { return unreachable(item); }
        return refused(item, answer);
      }, function () {
        sending = false;
        unreachable(item);
      });
  }

  function stored(item, body) {
    queue.items.shift();
    queue.base = queue.items.length ? body.version : null;
    saveQueue();
    if (offline) { offline = false; retryDelay = 1000; }
    if (game && body.state) { game.state = body.state; game.version = body.version; game.status = body.state.status; }
    version = body.version;
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
    if (queue.items.length) {
      drain();
    } else {
      refreshActions().then(function () { refreshSheet(false); });
    }
  }

  function unreachable(item) {
    offline = true;
    for (var i = 0; i < queue.items.length; i++) { queue.items[i].waited = true; }
    saveQueue();
    settle(item, "queued");
    render();
    retryTimer = window.setTimeout(function () { retryTimer = null; drain(); }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 3000);
  }

  /* A 403 token_invalid (the token was revoked or is wrong): forget it at once (README: "a table
   * page holding it says so and forgets it") and show the page as one without a token. */
  function forgetToken() {
    K.tokens.remove(gameId);
    token = null;
    refresh().then(null, function () { render(); });
  }

  function refused(item, answer) {
    var b = answer.body || {};
    var sentence = ended(b.detail || ("The service answered " + answer.status + "."));
    if (answer.status === 403 && b.code === "token_invalid") {
      if (item.waited) {  // taps that waited offline stay queued for a new token (the share link)
        queue.stopped = {status: answer.status, code: b.code, detail: sentence};
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
      var since = version;
      if (item.waited) {
        queue.stopped = {status: answer.status, detail: sentence};
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
      queue.stopped = {status: answer.status, detail: sentence};
      saveQueue();
      say("Not recorded: " + ended(item.label) + " " + sentence);
      settle(item, "refused");
      render();
      return;
    }
    say(sentence + dropLive());
    settle(item, "refused");
    render();
  }

  /* A live tap was refused: drop it and the taps made on top of it before its answer came;
   * returns the words saying how many later taps were dropped ("" when none). */
  function dropLive() {
    var later = queue.items.length - 1;
    for (var i = 0; i < queue.items.length; i++) { settle(queue.items[i], "refused"); }
    queue.items = [];
    queue.base = null;
    saveQueue();
    return later > 0 ? " " + later + " later tap" + (later > 1 ? "s were" : " was") + " not sent." : "";
  }

  function dropStopped(all) {
    if (all) { queue.items = []; } else { queue.items.shift(); }
    queue.stopped = null;
    queue.base = null;
    saveQueue();
    say("");
    refresh().then(function () {
      if (queue.items.length) { queue.base = version; reguess(); saveQueue(); drain(); }
    }, function () { render(); });
  }

  // ------------------------------------------------------------------ guessing the player while waiting

  function stillIn(p) {
    if (p.in_hand === false || p.eliminated || p.out || p.in_round === false || p.won || p.is_fool) { return false; }
    return true;
  }

  function nextSeat(name) {
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
  function fresh() { return !!actions && actions.version === version; }

  function firstToPlay() {
    var play = fresh() ? entries("play") : [];
    if (play.length) { return play[0].player; }
    var to = (game && game.state.to_act) || [];
    return to.length ? to[0] : (players()[0] || {}).name;
  }

  /* The player of the next card tap while earlier taps have no answer yet. */
  function guessNext(upTo) {
    var last = null;
    var n = upTo === undefined ? queue.items.length : upTo;
    for (var i = 0; i < n; i++) {
      var it = queue.items[i];
      if (it.path === "events" && it.body.type === "play") { last = it.body.player; }
    }
    return last === null ? firstToPlay() : nextSeat(last);
  }

  function reguess() {
    for (var i = 0; i < queue.items.length; i++) {
      var it = queue.items[i];
      if (it.guessed && it.attempts === 0 && it.body.type === "play") {
        it.body.player = guessNext(i);
        it.label = it.body.player + " plays " + cardName(it.body.card);
      }
    }
  }

  /* One tap on a name in the waiting list: that card was played by `name`. */
  function setPlayer(index, name) {
    var it = queue.items[index];
    if (!it || it.attempts > 0) { return; }
    it.body.player = name;
    it.guessed = false;
    it.label = name + " plays " + cardName(it.body.card);
    reguess();
    saveQueue();
    render();
  }

  // ------------------------------------------------------------------ taps

  function waiting() { return queue.items.length > 0; }

  /* True when the page shows guesses: offline, a stopped queue, or taps piling up unanswered. */
  function guessing() { return waiting() && (offline || queue.stopped !== null || queue.items.length > 1); }

  function tapCard(code, owner) {
    if (compose) { composeTap(code, owner || null, null); return; }
    var player;
    var guessed = false;
    if (waiting() || !fresh()) {
      player = owner || guessNext();
      guessed = !owner && waiting();
    } else {
      var play = owner ? entries("play", owner) : entries("play");
      if (!play.length) { return; }
      player = play[0].player;
    }
    write("events", {type: "play", player: player, card: cardValue(code)}, player + " plays " + cardName(code), guessed);
  }

  function oneTap(entry) {
    var body = {type: entry.type};
    if (entry.player && entry.type !== "deal") { body.player = entry.player; }
    var label = entry.type === "deal" ? "the deal" : (WORDS[entry.type] || entry.type) + " by " + entry.player;
    write("events", body, label);
  }

  // ------------------------------------------------------------------ multi-card selections

  function handSize() {
    var o = (game && game.options) || {};
    if (kind === "toepen") { return 4; }
    if (kind === "stop_the_bus") { return 3; }
    return o.hand_size || 1;
  }

  /* compose = {type, player, title, slots: [{name, label, need, min, max, cards: []}], at, body(fn)} */
  function startCompose(spec) {
    compose = spec;
    compose.at = 0;
    say("");
    render();
    composeBox.scrollIntoView({block: "nearest"});
  }

  function endCompose() { compose = null; render(); }

  function slotFull(slot) { return slot.max !== undefined && slot.cards.length >= slot.max; }

  function copiesUsed(code) {
    var n = 0;
    for (var s = 0; s < compose.slots.length; s++) {
      var cards = compose.slots[s].cards;
      for (var i = 0; i < cards.length; i++) { if (String(cards[i]) === String(code)) { n += 1; } }
    }
    return n;
  }

  function copiesOf(code) {
    var button = deckBox.querySelector('button[data-card="' + String(code) + '"]');
    return button ? Number(button.getAttribute("data-copies") || "1") : 1;
  }

  /* A card tapped while composing: from the deck, a hand (owner) or the centre (place). */
  function composeTap(code, owner, place) {
    var slots = compose.slots;
    var target = null;
    if (place === "centre") {
      for (var i = 0; i < slots.length; i++) { if (slots[i].from === "centre") { target = slots[i]; } }
      if (!target) { return; }
    } else {
      target = slots[compose.at];
      if (target.from === "centre") {
        for (var j = 0; j < slots.length; j++) { if (slots[j].from !== "centre") { target = slots[j]; } }
      }
    }
    var copies = copiesOf(code);
    var at = target.cards.indexOf(String(code));
    compose.note = "";
    if (copies <= 1 && at >= 0) {
      target.cards.splice(at, 1);          // tapping a chosen single card again takes it back
    } else if (copiesUsed(code) >= copies && target.from !== "centre") {
      compose.note = "All " + copies + " copies of " + cardName(code) + " are chosen: tap a chosen card to remove it.";
    } else if (slotFull(target) && target.max !== 1) {
      compose.note = target.label + ": " + target.cards.length + " of " + target.max + " chosen: tap a chosen card to remove it.";
    } else {
      if (slotFull(target)) { target.cards = []; }
      target.cards.push(String(code));
      if (slotFull(target) && compose.autoNext) {
        for (var k = 0; k < slots.length; k++) {
          if (!slotFull(slots[k]) && slots[k].from !== "centre") { compose.at = k; break; }
        }
      }
    }
    render();
  }

  function composeReady() {
    for (var i = 0; i < compose.slots.length; i++) {
      var s = compose.slots[i];
      var n = s.cards.length;
      if (s.exact !== undefined && n !== s.exact && !(s.optional && n === 0)) { return false; }
      if (s.min !== undefined && n < s.min) { return false; }
    }
    if (compose.needsTarget && !compose.target) { return false; }
    return true;
  }

  function confirmCompose() {
    if (!compose || !composeReady()) { return; }
    var spec = compose;
    var body = spec.build();
    write("events", body, spec.label).then(function (outcome) {
      if (outcome !== "refused" && compose === spec) { endCompose(); }
    });
  }

  function slot(name, label, need, extra) {
    var s = {name: name, label: label, cards: [], exact: need, max: need};
    for (var k in (extra || {})) { if (Object.prototype.hasOwnProperty.call(extra, k)) { s[k] = extra[k]; } }
    return s;
  }

  function values(list) {
    var out = [];
    for (var i = 0; i < list.length; i++) { out.push(cardValue(list[i])); }
    return out;
  }

  function startDeal() {
    var slots = [];
    if (kind === "stop_the_bus") { slots.push(slot("centre", "Centre", 3)); }
    if (visibility === "open") {
      var list = players();
      for (var i = 0; i < list.length; i++) {
        if (stillInGame(list[i])) { slots.push(slot("hand:" + list[i].name, "Hand: " + list[i].name, handSize())); }
      }
    }
    var dealer = (game.state.next_dealer || game.state.dealer);
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

  function stillInGame(p) { return !(p.eliminated || p.out); }

  function startCards(entry, type, need, extra) {
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

  function startSwap(entry, take) {
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
    compose.at = take ? 1 : 0;
    render();
  }

  function actionClicked(entry, variant) {
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

  // ------------------------------------------------------------------ undo, redo and the menu

  function localUndoable() {
    var last = queue.items[queue.items.length - 1];
    return last && last.attempts === 0 && !sending ? last : null;
  }

  function undo() {
    var local = localUndoable();
    if (local && queue.items.length > 1) {
      queue.items.pop();
      saveQueue();
      render();
      return;
    }
    var entry = entries("undo")[0];
    write("undo", {}, entry && entry.target ? "Undo: " + entry.target.summary : "Undo");
  }

  function redo() {
    var entry = entries("redo")[0];
    write("redo", {}, entry && entry.target ? "Redo: " + entry.target.summary : "Redo");
  }

  function showPanel(id) {
    var panels = ["form-note", "form-ruling", "form-abandon", "share"];
    for (var i = 0; i < panels.length; i++) { el(panels[i]).hidden = panels[i] !== id; }
    closeMenu();
    if (id) {
      var first = el(id).querySelector("textarea, input, select, button");
      if (first) { first.focus(); }
    }
  }

  function closeMenu() { el("menu").hidden = true; el("menu-button").setAttribute("aria-expanded", "false"); }

  function fillPlayerSelect(select, optional) {
    select.innerHTML = "";
    if (optional) { var none = text("option", null, "nobody in particular"); none.value = ""; select.appendChild(none); }
    var list = playerNames();
    for (var i = 0; i < list.length; i++) { var o = text("option", null, list[i]); o.value = list[i]; select.appendChild(o); }
  }

  function share() {
    showPanel("share");
    el("share-qr").textContent = "…";
    K.api("POST", "/table/" + encodeURIComponent(gameId) + "/share", {token: token, body: {}}).then(function (answer) {
      if (answer.status !== 200) { el("share-qr").textContent = (answer.body && answer.body.detail) || "No link."; return; }
      el("share-qr").innerHTML = answer.body.svg;
      var link = el("share-link");
      link.href = answer.body.link;
      link.textContent = answer.body.link;
    }, function () { el("share-qr").textContent = "The service cannot be reached, so the link cannot be drawn now."; });
  }

  function copyLink() {
    var link = el("share-link").href;
    if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(link); return; }
    var range = document.createRange();
    range.selectNodeContents(el("share-link"));
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try { document.execCommand("copy"); } catch (e) { /* the link stays selected for a manual copy */ }
  }

  // ------------------------------------------------------------------ what to say in the status line

  function statusSentence() {
    if (!game) { return "Loading…"; }
    var s = game.state;
    var waitingNote = "";
    if (queue.stopped) { waitingNote = "A waiting tap was refused: choose what to keep. "; }
    else if (offline) { waitingNote = "Offline: " + queue.items.length + " waiting. "; }
    if (s.status === "finished") {
      var parts = [];
      if (s.winners && s.winners.length) { parts.push("winner" + (s.winners.length > 1 ? "s " : " ") + names(s.winners)); }
      if (s.losers && s.losers.length) { parts.push("lost: " + names(s.losers)); }
      return waitingNote + "Game over" + (parts.length ? ": " + parts.join("; ") : "");
    }
    if (s.status === "abandoned") { return waitingNote + "Game abandoned"; }
    var to = s.to_act || [];
    if (guessing() && !queue.stopped) {
      var guess = guessNext();
      if (guess && entries("play").length) { return waitingNote + guess + " to play (guessed)"; }
    }
    var hand = kind === "fool" || kind === "stop_the_bus" ? "round" : "hand";
    if (s.phase === "deal") {
      var dealer = s.next_dealer || s.dealer;
      if (kind === "fuji_flush") { return waitingNote + "Deal — " + (s.first_player || "") + " plays first"; }
      return waitingNote + "Deal " + hand + " " + ((s.hand_number || 0) + 1) + " — dealer " + dealer;
    }
    if (kind === "toepen") {
      if (s.phase === "answering" && to.length) { return waitingNote + to[0] + ": stay or fold?"; }
      var playing = to.length ? to[0] + " to play" : "";
      if (s.last_knocker && (s.can_fold || []).length) {
        return waitingNote + s.last_knocker + " knocked: fold now or play on" + (playing ? " — " + playing : "");
      }
      return waitingNote + playing;
    }
    if (kind === "fool" && s.phase === "reveal") {
      return waitingNote + "Round over: reveal " + names(to) + "'s cards";
    }
    if (kind === "stop_the_bus") {
      if (s.phase === "showdown") { return waitingNote + "Showdown: " + names(to) + " to show"; }
      if (s.phase === "final_turns") { return waitingNote + s.stopped_by + " stopped the bus — " + names(to) + " to swap"; }
      var canStop = (s.can_stop || []).indexOf(to[0]) >= 0;
      return waitingNote + names(to) + " to swap" + (canStop ? " or stop" : "");
    }
    return waitingNote + (to.length ? names(to) + " to play" : s.phase);
  }

  // ------------------------------------------------------------------ the hand just ended

  var ended_ = {key: null, line: "", reason: ""};  // the result line of the hand just ended

  /* Between hands (a deal due after hand n): "Hand n: Dee won; Bob lost 1 life" from GET
   * hands/<n>'s `result`, else the timeline's last summary. The page computes no rules. */
  function renderResult(s) {
    var box = el("hand-result");
    var n = s.hand_number || s.round_number || 0;
    if (kind === "fuji_flush" || s.phase !== "deal" || !n || s.status !== "in_progress") { box.hidden = true; return; }
    var key = gameId + ":" + n + ":" + version;
    if (ended_.key !== key) {
      ended_ = {key: key, line: "", reason: ""};
      var word = kind === "toepen" ? "Hand " : "Round ";
      Promise.all([
        K.api("GET", base + "/hands/" + n, {token: token}).then(function (a) { return a.status === 200 ? a.body : null; }, function () { return null; }),
        K.api("GET", base + "/timeline", {token: token}).then(function (a) { return a.status === 200 ? a.body : null; }, function () { return null; })
      ]).then(function (both) {
        if (ended_.key !== key) { return; }
        var result = (both[0] && both[0].result) || null;
        var parts = result ? resultParts(result) : [];
        var steps = (both[1] && both[1].steps) || [];
        var last = "";
        for (var i = steps.length - 1; i >= 0 && !last; i--) {
          if (!steps[i].undone && ["note", "undo", "redo"].indexOf(steps[i].type) < 0) { last = steps[i].summary || ""; }
        }
        ended_.line = word + n + ": " + (parts.length ? parts.join("; ") : ended(last));
        ended_.reason = parts.length && result.reason ? ended(result.reason) : "";
        if (!parts.length && !last) { ended_.line = word + n + " is over."; }
        render();
      });
    }
    box.hidden = !ended_.line;
    box.innerHTML = "";
    box.appendChild(text("strong", null, ended_.line));
    if (ended_.reason) { box.appendChild(text("span", "hint", " " + ended_.reason)); }
  }

  /* The words of a hand's `result` (GET hands/<n>): who won, who lost what, who is out. */
  function resultParts(result) {
    var parts = [];
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
    if (result.abandoned) { parts.push("abandoned"); }
    return parts;
  }

  // ------------------------------------------------------------------ rendering

  function render() {
    if (!game) { return; }
    var s = game.state;
    root.setAttribute("data-version", String(version));
    root.setAttribute("data-pending", String(queue.items.length));
    root.setAttribute("data-offline", offline ? "true" : "false");
    root.setAttribute("data-fresh", fresh() ? "true" : "false");
    turnBox.textContent = statusSentence();
    renderResult(s);
    el("no-token").hidden = !!token;
    renderSeats(s);
    renderBoard(s);
    renderActions();
    renderCompose();
    renderDeck();
    renderUndo();
    renderQueue();
    renderMenu();
  }

  function scoreLine(p) {
    if (kind === "fuji_flush") { return [p.hand_size + (p.hand_size === 1 ? " card" : " cards"), p.pushed_through + " pushed through"]; }
    if (kind === "toepen") { return ["Lives lost " + p.lives_lost + "/" + game.options.limit]; }
    if (kind === "fool") { return ["Score " + p.score].concat(p.tens ? [p.tens + (p.tens === 1 ? " round" : " rounds") + " of +10"] : []); }
    if (kind === "stop_the_bus") { return ["Chips " + p.chips]; }
    return [p.pushed_through + " pushed through"];
  }

  function renderSeats(s) {
    seatsBox.innerHTML = "";
    var to = s.to_act || [];
    var list = s.players;
    var guess = guessing() ? guessNext() : null;
    for (var i = 0; i < list.length; i++) {
      var p = list[i];
      var acting = guess ? p.name === guess : to.indexOf(p.name) >= 0;
      var seat = text("div", "seat" + (acting ? " to-act" : "") + (stillIn(p) ? "" : " sitting-out"));
      seat.setAttribute("data-player", p.name);
      var head = text("div", "seat-head");
      head.appendChild(text("span", "seat-name", p.name));
      if (acting) { head.appendChild(text("span", "badge act", guess ? "next?" : "to act")); }
      var dealer = s.phase === "deal" ? (s.next_dealer || s.dealer) : s.dealer;
      if (kind !== "fuji_flush" && dealer === p.name) { head.appendChild(text("span", "badge", "dealer")); }
      if (p.in_hand === false) { head.appendChild(text("span", "badge", "folded")); }
      if (p.eliminated) { head.appendChild(text("span", "badge", "out")); }
      if (p.out) { head.appendChild(text("span", "badge", "out")); }
      if (p.is_fool) { head.appendChild(text("span", "badge fool", "Fool")); }
      if (p.won) { head.appendChild(text("span", "badge", "won")); }
      if (kind === "toepen" && s.last_knocker === p.name) { head.appendChild(text("span", "badge", "knocked")); }
      if (kind === "stop_the_bus" && s.stopped_by === p.name) { head.appendChild(text("span", "badge", "stopped")); }
      seat.appendChild(head);
      var info = scoreLine(p);
      if (kind !== "fuji_flush" && (s.phase !== "deal" || kind === "fool")) { info.push(p.hand_size + (p.hand_size === 1 ? " card" : " cards")); }
      var infoBox = text("div", "seat-info");
      for (var f = 0; f < info.length; f++) {  // each fact kept on one line (count and word together)
        if (f) { infoBox.appendChild(document.createTextNode(" · ")); }
        infoBox.appendChild(text("span", "fact", info[f]));
      }
      seat.appendChild(infoBox);
      if (kind === "fuji_flush" && p.table_card !== null && p.table_card !== undefined) {
        var lying = text("div", "seat-table", "In front: ");
        lying.appendChild(chip(p.table_card));
        seat.appendChild(lying);
      }
      var known = p.hand_known || p.cards_known || [];
      if (known.length) { seat.appendChild(handGroup(p.name, known, s.phase === "deal")); }
      seatsBox.appendChild(seat);
    }
  }

  /* A player's known cards as a group "Hand: <name>", each card a button (play it, or pick it). */
  function handGroup(name, known, over) {
    var group = text("div", "hand");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Hand: " + name);
    for (var i = 0; i < known.length; i++) {
      var usable = !over && !!token && (compose || (!waiting() && fresh() && canPlay(known[i], name)) ||
                               (guessing() && entries("play").length > 0));
      if (!usable) { group.appendChild(chip(known[i])); continue; }
      var b = text("button", "card small " + cardClass(known[i]), cardName(known[i]));
      b.type = "button";
      b.setAttribute("data-card", String(known[i]));
      b.setAttribute("data-owner", name);
      group.appendChild(b);
    }
    return group;
  }

  function listed(list, code) {
    for (var i = 0; i < list.length; i++) { if (String(list[i]) === String(code)) { return true; } }
    return false;
  }

  function canPlay(code, owner) {
    var play = owner ? entries("play", owner) : entries("play");
    if (!play.length) { return false; }
    var e = play[0];
    var list = e.cards || e.possible;
    if (!list) { return true; }
    for (var i = 0; i < list.length; i++) { if (String(list[i]) === String(code)) { return true; } }
    return false;
  }

  function trickLine(trick, current) {
    var box = text("div", "trick" + (current ? " current" : " previous"));
    box.appendChild(text("span", "trick-label", "Trick " + trick.number + (trick.complete && trick.winner ? " → " + trick.winner : "") + ":"));
    var plays = trick.plays || [];
    for (var i = 0; i < plays.length; i++) {
      var one = text("span", "play");
      one.appendChild(text("span", "play-name", plays[i].player + " "));
      one.appendChild(chip(plays[i].card));
      box.appendChild(one);
    }
    if (current) {
      var pending = pendingPlays();
      for (var j = 0; j < pending.length; j++) {
        var w = text("span", "play waiting");
        w.appendChild(text("span", "play-name", pending[j].body.player + " "));
        w.appendChild(chip(pending[j].body.card, "waiting"));
        box.appendChild(w);
      }
    }
    if (kind === "fool" && trick.fools && trick.fools.length && trick.complete) {
      box.appendChild(text("span", "trick-fools", "Fool: " + names(trick.fools)));
    }
    return box;
  }

  function pendingPlays() {
    var out = [];
    for (var i = 0; i < queue.items.length; i++) {
      if (queue.items[i].body.type === "play") { out.push(queue.items[i]); }
    }
    return out;
  }

  function renderBoard(s) {
    boardBox.innerHTML = "";
    var facts = [];
    var handWord = kind === "fool" || kind === "stop_the_bus" ? "Round " : "Hand ";
    if (s.hand_number) { facts.push((kind === "fuji_flush" ? "" : handWord + s.hand_number + (s.phase === "deal" ? " (over)" : ""))); }
    if (kind === "toepen" && s.stake) { facts.push("stake " + s.stake); }
    if (kind === "toepen" && s.stock_size !== null && s.stock_size !== undefined) { facts.push("stock " + s.stock_size); }
    if (kind === "fool" && s.lead_colour) { facts.push("lead colour " + ({G: "Green", R: "Red", Y: "Yellow", B: "Blue"}[s.lead_colour] || s.lead_colour)); }
    if (kind === "fool" && (s.sitting_out || []).length) { facts.push("sitting out: " + names(s.sitting_out)); }
    if (kind === "fuji_flush" && s.draw_pile_size !== null && s.draw_pile_size !== undefined) { facts.push("draw pile " + s.draw_pile_size); }
    if (kind === "fuji_flush" && s.discard_size) { facts.push("discards " + s.discard_size); }
    if (kind === "stop_the_bus" && s.stopped_by) { facts.push("stopped by " + s.stopped_by + (s.final_turns_left ? ", " + s.final_turns_left + " turn" + (s.final_turns_left > 1 ? "s" : "") + " left" : "")); }
    if (version !== null) { facts.push("event " + version); }
    var line = facts.filter(function (f) { return f; }).join(" · ");
    if (line) { boardBox.appendChild(text("p", "facts", line)); }

    if (kind === "toepen" || kind === "fool") {
      var tricks = s.tricks || [];
      if (tricks.length) {
        var last = tricks[tricks.length - 1];
        if (last.complete && s.phase !== "deal" && tricks.length < 99) {
          boardBox.appendChild(trickLine(last, false));
          if (pendingPlays().length) { boardBox.appendChild(trickLine({number: last.number + 1, plays: []}, true)); }
        } else {
          if (tricks.length > 1) { boardBox.appendChild(trickLine(tricks[tricks.length - 2], false)); }
          boardBox.appendChild(trickLine(last, true));
        }
      } else if (pendingPlays().length) {
        boardBox.appendChild(trickLine({number: 1, plays: []}, true));
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
        w.appendChild(text("span", "play-name", pend[q].body.player + " "));
        w.appendChild(chip(pend[q].body.card, "waiting"));
        box.appendChild(w);
      }
      if (groups.length || pend.length) { boardBox.appendChild(box); }
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
        b.disabled = compose ? !(compose.type === "swap") : !takeable;
        if (compose && compose.type === "swap" && compose.slots[0].cards.indexOf(s.centre[c]) >= 0) { b.classList.add("picked"); }
        centre.appendChild(b);
      }
      boardBox.appendChild(centre);
    }
  }

  var PRIMARY = ["deal", "stay", "fold", "swap", "swap_all", "stop", "show", "draw"];

  function renderActions() {
    actionsBox.innerHTML = "";
    moreBox.innerHTML = "";
    if (!token || !actions) { return; }
    var list = actions.actions || [];
    var rows = {};
    var to = (game.state.to_act || []);
    for (var i = 0; i < list.length; i++) {
      var e = list[i];
      if (["play", "undo", "redo", "note", "adjust", "abandon"].indexOf(e.type) >= 0) { continue; }
      if (e.type === "challenge" && rows.challenge && rows.challenge.some(function (x) { return x.entry.player === e.player; })) { continue; }
      (rows[e.type] = rows[e.type] || []).push({entry: e, variant: null});
      if (e.type === "swap" && e.take_all) { (rows.swap_all = rows.swap_all || []).push({entry: e, variant: "swap_all"}); }
    }
    var types = Object.keys(rows).sort(function (a, b) {
      var x = ORDER.indexOf(a), y = ORDER.indexOf(b);
      return (x < 0 ? 99 : x) - (y < 0 ? 99 : y);
    });
    for (var t = 0; t < types.length; t++) {
      var type = types[t];
      var row = text("div", "action-row");
      for (var j = 0; j < rows[type].length; j++) {
        var item = rows[type][j];
        var b;
        if (type === "deal") {
          b = text("button", "primary big", "Deal");
        } else {
          b = iso(text("button", "action action-" + type), (WORDS[type] || type) + ": ", item.entry.player);
          if (to.indexOf(item.entry.player) >= 0 && ["knock", "reveal", "laundry", "challenge", "fold"].indexOf(type) < 0) { b.className += " primary"; }
          if (kind === "fool" && type === "reveal" && game.state.phase === "reveal" && to.indexOf(item.entry.player) >= 0) { b.className += " primary"; }
        }
        b.type = "button";
        b.disabled = !fresh();  // until the actions of this version arrive
        b.setAttribute("data-action", type);
        b.setAttribute("data-player", item.entry.player || "");
        b.addEventListener("click", (function (x) { return function () { actionClicked(x.entry, x.variant); }; })(item));
        row.appendChild(b);
      }
      var primary = PRIMARY.indexOf(type) >= 0 || (type === "reveal" && kind === "fool" && game.state.phase === "reveal");
      (primary ? actionsBox : moreBox).appendChild(row);
    }
  }

  function renderCompose() {
    composeBox.hidden = !compose;
    actionsBox.hidden = !!compose;  // while choosing cards only Confirm and Cancel act
    moreBox.hidden = !!compose;
    root.classList.toggle("composing", !!compose);
    if (!compose) { return; }
    composeTitle.textContent = compose.title;
    composeBody.innerHTML = "";
    el("compose-note").textContent = compose.note || "";
    if (compose.targets && compose.targets.length > 1) {
      var trow = text("div", "action-row");
      trow.appendChild(text("span", "row-label", "Whose laundry"));
      for (var t = 0; t < compose.targets.length; t++) {
        var tb = text("button", compose.target === compose.targets[t] ? "primary" : "", "Target: " + compose.targets[t]);
        tb.type = "button";
        tb.setAttribute("aria-pressed", compose.target === compose.targets[t] ? "true" : "false");
        tb.addEventListener("click", (function (name) { return function () { compose.target = name; render(); }; })(compose.targets[t]));
        trow.appendChild(tb);
      }
      composeBody.appendChild(trow);
    }
    for (var i = 0; i < compose.slots.length; i++) {
      var s = compose.slots[i];
      var box = text("div", "slot" + (i === compose.at ? " current" : ""));
      var heading = s.label + " (" + s.cards.length + (s.exact ? "/" + s.exact : "") + ")";
      var pick;
      if (compose.slots.length > 1) {  // a heading that also chooses where the next taps go
        pick = text("button", "slot-name", heading);
        pick.type = "button";
        pick.setAttribute("aria-pressed", i === compose.at ? "true" : "false");
        pick.addEventListener("click", (function (n) { return function () { compose.at = n; compose.note = ""; render(); }; })(i));
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
  }

  function renderDeck() {
    var buttons = deckBox.querySelectorAll("button[data-card]");
    var deckUsed = kind !== "stop_the_bus" || compose;
    deckBox.hidden = kind === "stop_the_bus" && !compose;
    for (var i = 0; i < buttons.length; i++) {
      var b = buttons[i];
      var code = b.getAttribute("data-card");
      var used = compose ? copiesUsed(code) : 0;
      var count = b.querySelector(".count");
      if (count) { count.textContent = used > 1 || (used === 1 && Number(b.getAttribute("data-copies")) > 1) ? "×" + used : ""; }
      b.classList.toggle("picked", used > 0);
      if (!token || !deckUsed) { b.disabled = true; continue; }
      if (compose) {
        var copies = Number(b.getAttribute("data-copies") || "1");
        var here = compose.slots[compose.at];
        var usedHere = here ? here.cards.filter(function (x) { return x === code; }).length : 0;
        b.disabled = (copies > 1 && used >= copies) || (copies === 1 && used === 1 && usedHere === 0) ||
          (!!compose.possible && used === 0 && !listed(compose.possible, code));
        continue;
      }
      if (waiting() || !fresh()) { b.disabled = !(entries("play").length || pendingPlays().length || (game.state.to_act || []).length); continue; }
      b.disabled = !canPlay(code, null);
    }
  }

  /* node's text: before, then typed text (a name, a summary naming one) in a <bdi>, then after:
     a right-to-left name or a stored override never reorders the label around it (api.md) */
  function iso(node, before, typed, after) {
    node.textContent = before; node.appendChild(text("bdi", "", typed));
    if (after) { node.appendChild(document.createTextNode(after)); }
    return node;
  }

  function renderUndo() {
    var local = localUndoable();
    var undoEntry = entries("undo")[0];
    var redoEntry = entries("redo")[0];
    if (local && queue.items.length > 1) {
      iso(undoButton, "Undo: ", local.label, " (not sent)");
      undoButton.disabled = false;
    } else if (undoEntry && undoEntry.target) {
      iso(undoButton, "Undo: ", undoEntry.target.summary);
      undoButton.disabled = !token || (!fresh() && !waiting());
    } else {
      undoButton.textContent = "Undo";
      undoButton.disabled = !token || hasBookkeeping();
    }
    if (redoEntry && redoEntry.target) {
      redoButton.hidden = false;
      iso(redoButton, "Redo: ", redoEntry.target.summary);
      redoButton.disabled = !token || (!fresh() && !waiting());
    } else {
      redoButton.hidden = true;
    }
  }

  function renderQueue() {
    var box = el("queue");
    box.hidden = !queue.items.length;
    el("queue-refused").hidden = !queue.stopped;
    if (!queue.items.length) { return; }
    var note = queue.stopped ? "Refused: " + queue.stopped.detail + " Choose what to keep."
      : offline ? "The service cannot be reached. These taps wait on this device and are sent in order when it answers:"
        : "Sending…";
    el("queue-note").textContent = note;
    var list = el("queue-list");
    list.innerHTML = "";
    for (var i = 0; i < queue.items.length; i++) {
      var it = queue.items[i];
      var li = text("li", "queued" + (i === 0 && queue.stopped ? " refused" : ""));
      if (it.body.type === "play" && it.attempts === 0) {
        li.appendChild(chip(it.body.card));
        li.appendChild(document.createTextNode(" by "));
        var seats = players();
        for (var j = 0; j < seats.length; j++) {
          if (!stillIn(seats[j]) && seats[j].name !== it.body.player) { continue; }
          var who = text("button", "who" + (seats[j].name === it.body.player ? " primary" : ""), seats[j].name);
          who.type = "button";
          who.setAttribute("aria-label", cardName(it.body.card) + " by " + seats[j].name);
          who.setAttribute("aria-pressed", seats[j].name === it.body.player ? "true" : "false");
          who.addEventListener("click", (function (n, name) { return function () { setPlayer(n, name); }; })(i, seats[j].name));
          li.appendChild(who);
        }
        if (it.guessed) { li.appendChild(text("span", "hint", " (guessed)")); }
      } else if (it.body.type === "play") {
        li.appendChild(chip(it.body.card));
        li.appendChild(document.createTextNode(" by " + it.body.player));
      } else {
        li.appendChild(document.createTextNode(it.label));
      }
      li.appendChild(text("span", "hint", i === 0 && queue.stopped ? " — refused" : " — waiting"));
      list.appendChild(li);
    }
  }

  function renderMenu() {
    var known = hasBookkeeping();
    el("menu-note").hidden = known && !entries("note").length;
    el("menu-ruling").hidden = kind === "fuji_flush" || (known && !entries("adjust").length) || (!known && game.state.status !== "in_progress");
    // abandon: offered while the game is in progress (the service refuses it once the game is over)
    el("menu-abandon").hidden = !entries("abandon").length && game.state.status !== "in_progress";
    el("menu-button").disabled = !token;
  }

  // ------------------------------------------------------------------ the score sheet

  function parseCsv(textBody) {
    var rows = [], row = [], field = "", quoted = false;
    for (var i = 0; i < textBody.length; i++) {
      var ch = textBody.charAt(i);
      if (quoted) {
        if (ch === '"' && textBody.charAt(i + 1) === '"') { field += '"'; i += 1; }
        else if (ch === '"') { quoted = false; }
        else { field += ch; }
      } else if (ch === '"') { quoted = true; }
      else if (ch === ",") { row.push(field); field = ""; }
      else if (ch === "\n" || ch === "\r") {
        if (ch === "\r" && textBody.charAt(i + 1) === "\n") { i += 1; }
        row.push(field); rows.push(row); row = []; field = "";
      } else { field += ch; }
    }
    if (field || row.length) { row.push(field); rows.push(row); }
    return rows;
  }

  function refreshSheet(force) {
    if (!game) { return; }
    var s = game.state;
    var key = JSON.stringify([s.hand_number, s.phase, s.status, s.players.map(function (p) {
      return [p.lives_lost, p.score, p.chips, p.pushed_through, p.hand_size];
    })]);
    if (!force && key === sheetKey) { return; }
    sheetKey = key;
    fetch(base + "/export?format=csv", {headers: token ? {"Authorization": "Bearer " + token} : {}, cache: "no-store"})
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (body) { if (body !== null) { renderSheet(parseCsv(body)); } }, function () { /* offline: keep the last sheet */ });
  }

  function renderSheet(rows) {
    var box = el("sheet-body");
    box.innerHTML = "";
    if (rows.length < 2) { box.appendChild(text("p", "hint", "No hand played yet.")); return; }
    var head = rows[0];
    var body = rows.slice(1);
    var names2 = playerNames();
    var table = text("table", "score-sheet");
    var thead = text("thead"), tr = text("tr");
    var lead = kind === "fuji_flush" ? ["Turn", "Play"] : [kind === "toepen" ? "Hand" : "Round", "Dealer"];
    var skip = kind === "fuji_flush" ? 3 : 2;  // the CSV's leading columns (Fuji Flush: turn, player, card)
    for (var l = 0; l < lead.length; l++) { var th0 = text("th", null, lead[l]); th0.scope = "col"; tr.appendChild(th0); }
    for (var n = 0; n < names2.length; n++) { var th = text("th", "num", names2[n]); th.scope = "col"; tr.appendChild(th); }
    thead.appendChild(tr);
    table.appendChild(thead);
    var tbody = text("tbody");
    var shown = kind === "fuji_flush" ? body.slice(-8) : body;
    for (var r = 0; r < shown.length; r++) {
      var cells = shown[r];
      var row = text("tr");
      row.appendChild(text("th", null, cells[0] || ""));
      row.appendChild(text("td", null, kind === "fuji_flush" ? (cells[1] || "") + " " + cardName(cells[2] || "") : (cells[1] || "")));
      for (var p = 0; p < names2.length; p++) {
        var change = cells[skip + 2 * p], total = cells[skip + 2 * p + 1];
        var td = text("td", "num");
        td.appendChild(text("strong", null, total));
        if (change !== undefined && change !== "" && change !== "0") {
          td.appendChild(text("span", "change", " (" + (Number(change) > 0 ? "+" : "") + change + ")"));
        }
        row.appendChild(td);
      }
      tbody.appendChild(row);
    }
    table.appendChild(tbody);
    var caption = text("caption", "hint", head.length ? (kind === "toepen" ? "Lives lost: total (this hand)" : kind === "fool" ? "Points: total (this round)"
      : kind === "stop_the_bus" ? "Chips: total (this round)" : "Cards left: total (this turn), last turns") : "");
    table.insertBefore(caption, table.firstChild);
    var scroller = text("div", "sheet-scroll");
    scroller.appendChild(table);
    box.appendChild(scroller);
  }

  // ------------------------------------------------------------------ events

  deckBox.addEventListener("click", function (event) {
    var b = event.target.closest("button[data-card]");
    if (b && !b.disabled) { tapCard(b.getAttribute("data-card"), null); }
  });
  seatsBox.addEventListener("click", function (event) {
    var b = event.target.closest("button[data-card]");
    if (b && !b.disabled) { tapCard(b.getAttribute("data-card"), b.getAttribute("data-owner")); }
  });
  boardBox.addEventListener("click", function (event) {
    var b = event.target.closest("button[data-place=centre]");
    if (!b || b.disabled) { return; }
    if (compose) { composeTap(b.getAttribute("data-card"), null, "centre"); return; }
    var swap = entries("swap")[0];
    if (swap) { startSwap(swap, b.getAttribute("data-card")); }
  });
  confirmButton.addEventListener("click", confirmCompose);
  el("compose-cancel").addEventListener("click", endCompose);
  undoButton.addEventListener("click", undo);
  redoButton.addEventListener("click", redo);
  el("menu-button").addEventListener("click", function () {
    var menu = el("menu");
    menu.hidden = !menu.hidden;
    el("menu-button").setAttribute("aria-expanded", menu.hidden ? "false" : "true");
  });
  el("menu-note").addEventListener("click", function () { fillPlayerSelect(el("note-player"), true); showPanel("form-note"); });
  el("menu-ruling").addEventListener("click", function () {
    fillPlayerSelect(el("ruling-player"), false);
    el("ruling-unit").textContent = UNITS[kind] || "";
    showPanel("form-ruling");
  });
  el("menu-abandon").addEventListener("click", function () { showPanel("form-abandon"); });
  el("menu-share").addEventListener("click", share);
  el("share-copy").addEventListener("click", copyLink);
  var closers = document.querySelectorAll("[data-close]");
  for (var c = 0; c < closers.length; c++) { closers[c].addEventListener("click", function () { showPanel(null); }); }
  el("form-note").addEventListener("submit", function (event) {
    event.preventDefault();
    var body = {type: "note", text: el("note-text").value};
    if (el("note-player").value) { body.player = el("note-player").value; }
    write("events", body, "the note").then(function (outcome) { if (outcome !== "refused") { el("note-text").value = ""; showPanel(null); } });
  });
  el("form-ruling").addEventListener("submit", function (event) {
    event.preventDefault();
    var amount = Number(el("ruling-amount").value);
    var body = {type: "adjust", player: el("ruling-player").value, amount: Number.isInteger(amount) ? amount : el("ruling-amount").value,
                reason: el("ruling-reason").value};
    write("events", body, "the ruling for " + body.player).then(function (outcome) {
      if (outcome !== "refused") { el("ruling-reason").value = ""; el("ruling-amount").value = ""; showPanel(null); }
    });
  });
  el("form-abandon").addEventListener("submit", function (event) {
    event.preventDefault();
    write("events", {type: "abandon", reason: el("abandon-reason").value}, "abandoning the game").then(function (outcome) {
      if (outcome !== "refused") { showPanel(null); }
    });
  });
  el("queue-drop").addEventListener("click", function () { dropStopped(false); });
  el("queue-drop-all").addEventListener("click", function () { dropStopped(true); });
  // A share link opened in a tab already showing this table: take the new token from the fragment.
  window.addEventListener("hashchange", function () {
    var adopted = K.tokens.adoptFromFragment(gameId);
    if (!adopted) { return; }
    token = adopted;
    say("");
    if (queue.stopped && queue.stopped.code === "token_invalid") { queue.stopped = null; saveQueue(); }
    refresh().then(function () { if (queue.items.length) { drain(); } }, function () { render(); });
  });
  window.addEventListener("online", function () { if (queue.items.length) { drain(); } });

  // Another device may record too: look for a newer version now and then.
  window.setInterval(function () {
    if (document.hidden || waiting() || compose || sending || !game) { return; }
    fetchActions().then(function (body) {
      if (body.version === version || waiting()) { return; }
      var since = version;
      refresh().then(function () { return changesSince(since); }).then(function (changes) {
        if (changes.length) { el("changes").textContent = "Recorded on another device: " + joinSummaries(changes); }
      });
    }, function () { /* unreachable: the next tap will queue */ });
  }, 5000);

  // Keep the screen awake where the browser allows it (secure contexts only).
  var wakeLock = null;
  function keepAwake() {
    if (!("wakeLock" in navigator) || document.hidden) { return; }
    navigator.wakeLock.request("screen").then(function (lock) { wakeLock = lock; }, function () { wakeLock = null; });
  }
  document.addEventListener("visibilitychange", function () { if (!document.hidden && !wakeLock) { keepAwake(); } });
  keepAwake();

  // ------------------------------------------------------------------ start

  if (queue.stopped === undefined) { queue.stopped = null; }
  for (var qi = 0; qi < queue.items.length; qi++) { queue.items[qi].waited = true; }
  refresh().then(function () {
    if (queue.items.length) { drain(); }
  }, function (failure) {
    if (failure && failure.answer) {
      var b = failure.answer.body || {};
      turnBox.textContent = b.detail || "This game cannot be loaded.";
      if (failure.answer.status === 403) { K.tokens.remove(gameId); }
      return;
    }
    if (loadBoard()) {
      offline = true;
      render();
      if (queue.items.length) { drain(); }
      else { turnBox.textContent = "Offline: the board as this device last saw it. " + statusSentence(); }
    } else {
      turnBox.textContent = "The service cannot be reached. Check the Wi-Fi; this page tries again when you reload.";
    }
  });
})();
