/* New game: seats, dealer (first player), visibility and options; Start game posts to
 * POST /games, keeps the token on this device and opens the table page. */
(function () {
  "use strict";
  var K = window.Kibitz;
  var catalogue = JSON.parse(document.getElementById("catalogue").textContent);
  var form = document.getElementById("new-game");
  var gameSelect = document.getElementById("game");
  var seatList = document.getElementById("seat-list");
  var addSeat = document.getElementById("add-seat");
  var starter = document.getElementById("starter");
  var starterLabel = document.getElementById("starter-label");
  var optionList = document.getElementById("option-list");
  var alertBox = document.getElementById("form-alert");
  var clubKeyField = document.getElementById("club-key-field");
  var clubKey = document.getElementById("club-key");

  function game() { return catalogue[gameSelect.value]; }

  function seatInputs() { return seatList.querySelectorAll("input"); }

  function names() {
    var out = [];
    var inputs = seatInputs();
    for (var i = 0; i < inputs.length; i++) {
      var v = inputs[i].value.trim();
      if (v) { out.push(v); }
    }
    return out;
  }

  /* A name as the service compares two seats' names: NFC, case folded, joiners left out. */
  function nameKey(name) { return name.trim().normalize("NFC").toLowerCase().replace(/[\u200c\u200d]/g, ""); }

  /* What stops the game from starting, in words, each with its field: every seat named
   * ("Seat 2 needs a name."), no two seats with one name ("Ann and ann are one name: Seat 3 needs
   * another name."). The service checks the same again (422) and has the last word. */
  function problems() {
    var out = [];
    var inputs = seatInputs();
    var seen = {};
    for (var i = 0; i < inputs.length; i++) {
      var v = inputs[i].value.trim();
      if (!v) { out.push({field: inputs[i], text: "Seat " + (i + 1) + " needs a name."}); continue; }
      var key = nameKey(v);
      if (Object.prototype.hasOwnProperty.call(seen, key)) {
        var first = seen[key];
        out.push({field: inputs[i], text: (first.name === v ? v + " is at Seat " + first.seat + " already"
          : first.name + " and " + v + " are one name") + ": Seat " + (i + 1) + " needs another name."});
        continue;
      }
      seen[key] = {name: v, seat: i + 1};
    }
    return out;
  }

  /* The seat, option or other field a 422's `errors` key names ("players.1" is the second named
   * seat, "options.limit" the option's control), and the words to put before its message. */
  function fieldOf(key) {
    var named = [];
    var inputs = seatInputs();
    for (var i = 0; i < inputs.length; i++) { if (inputs[i].value.trim()) { named.push({input: inputs[i], seat: i + 1}); } }
    var m = /^players\.(\d+)/.exec(key);
    if (m && named[Number(m[1])]) { var at = named[Number(m[1])]; return {field: at.input, words: "Seat " + at.seat + ": "}; }
    if (key === "players") { return {field: inputs[0] || null, words: ""}; }
    var opt = /^options\.([a-z_]+)/.exec(key) || (document.getElementById("opt-" + key) ? [key, key] : null);
    if (opt && document.getElementById("opt-" + opt[1])) {
      var control = document.getElementById("opt-" + opt[1]);
      var label = optionList.querySelector("label[for='opt-" + opt[1] + "']");
      return {field: control, words: (label ? label.textContent : "") + ": "};
    }
    if (key === "dealer" || key === "first_player") { return {field: starter, words: starterLabel.textContent + ": "}; }
    if (key === "title") { return {field: document.getElementById("title"), words: "Title: "}; }
    if (key === "visibility") { return {field: form.querySelector("input[name=visibility]"), words: "Visibility: "}; }
    return {field: null, words: ""};
  }

  var summary = document.getElementById("error-summary");
  var errorList = document.getElementById("error-list");

  function clearErrors() {
    summary.hidden = true;
    errorList.innerHTML = "";
    var old = form.querySelectorAll(".error-message");
    for (var i = 0; i < old.length; i++) { old[i].remove(); }
    var marked = form.querySelectorAll("[aria-invalid]");
    for (var j = 0; j < marked.length; j++) {
      marked[j].removeAttribute("aria-invalid");
      var described = (marked[j].getAttribute("data-described") || "").trim();
      if (described) { marked[j].setAttribute("aria-describedby", described); } else { marked[j].removeAttribute("aria-describedby"); }
      marked[j].removeAttribute("data-described");
      var wrap = marked[j].closest(".field, li");
      if (wrap) { wrap.classList.remove("has-error"); }
    }
  }

  /* The error summary at the top (each message a link to its field) and each field's own
   * message above it, read with it (aria-describedby); the summary takes the focus. */
  function showErrors(list) {
    clearErrors();
    if (!list.length) { return; }
    for (var i = 0; i < list.length; i++) {
      var item = list[i];
      var li = document.createElement("li");
      if (item.field) {
        var link = document.createElement("a");
        if (!item.field.id) { item.field.id = "field-" + i; }
        link.href = "#" + item.field.id;
        link.textContent = item.text;
        link.addEventListener("click", (function (field) {
          return function (event) { event.preventDefault(); field.focus(); field.scrollIntoView({block: "center"}); };
        })(item.field));
        li.appendChild(link);
        var message = document.createElement("p");
        message.className = "error-message";
        message.id = item.field.id + "-error";
        message.textContent = item.text;
        if (!item.field.hasAttribute("aria-invalid")) {
          item.field.setAttribute("data-described", item.field.getAttribute("aria-describedby") || "");
        }
        item.field.setAttribute("aria-invalid", "true");
        item.field.setAttribute("aria-describedby", (message.id + " " + (item.field.getAttribute("data-described") || "")).trim());
        var before = item.field.closest(".seat-controls") || item.field;  // a seat's input stands in a row with its buttons
        before.parentNode.insertBefore(message, before);
        var wrap = item.field.closest(".field, li");
        if (wrap) { wrap.classList.add("has-error"); }
      } else {
        li.textContent = item.text;
      }
      errorList.appendChild(li);
    }
    summary.hidden = false;
    summary.focus();
  }

  function seatButton(kind, words, glyph) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "seat-move";
    b.setAttribute("data-seat-action", kind);
    b.setAttribute("aria-label", words);
    b.title = words;
    b.textContent = glyph;
    return b;
  }

  /* One seat: its label and input (type-ahead from the club's players: the datalist), then
   * Move up, Move down and Remove, each named for its seat ("Remove Seat 3"). */
  function addSeatInput(value) {
    var n = seatInputs().length + 1;
    var li = document.createElement("li");
    li.className = "seat-row";
    var id = "seat-" + n;
    var label = document.createElement("label");
    label.setAttribute("for", id);
    label.textContent = "Seat " + n;
    var input = document.createElement("input");
    input.id = id;
    input.name = id;
    input.maxLength = 40;
    input.autocomplete = "off";
    input.setAttribute("list", "known-players");
    input.value = value || "";
    input.addEventListener("input", refreshStarter);
    var row = document.createElement("div");
    row.className = "seat-controls";
    row.appendChild(input);
    row.appendChild(seatButton("up", "Move Seat " + n + " up", "\u2191"));
    row.appendChild(seatButton("down", "Move Seat " + n + " down", "\u2193"));
    row.appendChild(seatButton("remove", "Remove Seat " + n, "\u2715"));
    li.appendChild(label);
    li.appendChild(row);
    seatList.appendChild(li);
  }

  function seatValues() {
    var out = [];
    var inputs = seatInputs();
    for (var i = 0; i < inputs.length; i++) { out.push(inputs[i].value); }
    return out;
  }

  /* The seats again from their names in order (after a move or a removal: Seat n stays the n-th). */
  function setSeats(values) {
    seatList.innerHTML = "";
    for (var i = 0; i < values.length; i++) { addSeatInput(values[i]); }
    refreshSeats();
  }

  function refreshSeats() {
    var g = game();
    while (seatInputs().length < g.min_players) { addSeatInput(""); }
    while (seatInputs().length > g.max_players) { seatList.removeChild(seatList.lastElementChild); }
    addSeat.disabled = seatInputs().length >= g.max_players;
    var rows = seatList.querySelectorAll("li");
    for (var i = 0; i < rows.length; i++) {
      rows[i].querySelector("[data-seat-action=up]").disabled = i === 0;
      rows[i].querySelector("[data-seat-action=down]").disabled = i === rows.length - 1;
      rows[i].querySelector("[data-seat-action=remove]").disabled = rows.length <= g.min_players;
    }
    refreshStarter();
  }

  seatList.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-seat-action]") : null;
    if (!button || button.disabled) { return; }
    var rows = Array.prototype.slice.call(seatList.querySelectorAll("li"));
    var at = rows.indexOf(button.closest("li"));
    var values = seatValues();
    var kind = button.getAttribute("data-seat-action");
    var focus = at;
    if (kind === "up" && at > 0) { values.splice(at - 1, 0, values.splice(at, 1)[0]); focus = at - 1; }
    else if (kind === "down" && at < values.length - 1) { values.splice(at + 1, 0, values.splice(at, 1)[0]); focus = at + 1; }
    else if (kind === "remove") { values.splice(at, 1); focus = Math.min(at, values.length - 1); }
    setSeats(values);
    var again = seatList.querySelectorAll("li")[focus];
    var target = again && again.querySelector("[data-seat-action=" + kind + "]");
    if (target && !target.disabled) { target.focus(); } else if (again) { again.querySelector("input").focus(); }
  });

  function refreshStarter() {
    var keep = starter.value;
    starterLabel.textContent = game().starter_label;
    starter.innerHTML = "";
    var list = names();
    for (var i = 0; i < list.length; i++) {
      var opt = document.createElement("option");
      opt.value = list[i];
      opt.textContent = list[i];
      starter.appendChild(opt);
    }
    if (list.indexOf(keep) >= 0) { starter.value = keep; }
  }

  /* An option's value in words: a choice as its choice_words say, yes/no, an empty number as its `empty` words. */
  function shown(o, value) {
    if (value === null || value === undefined || value === "") { return o.empty || "by seat count"; }
    if (value === true) { return "yes"; }
    if (value === false) { return "no"; }
    var at = o.choices ? o.choices.indexOf(String(value)) : -1;
    if (at >= 0 && o.choice_words && o.choice_words[at]) { return o.choice_words[at]; }
    return String(value);
  }

  function refreshOptions() {
    optionList.innerHTML = "";
    var options = game().options;
    for (var i = 0; i < options.length; i++) {
      var o = options[i];
      var div = document.createElement("div");
      div.className = "field option";
      var id = "opt-" + o.name;
      var label = document.createElement("label");
      label.setAttribute("for", id);
      label.textContent = o.label;
      var hint = document.createElement("span");
      hint.className = "hint";
      hint.id = id + "-hint";
      var fallback = o.default === null ? (o.kind === "int" && o.empty ? " Leave empty for " + o.empty + "." : "")
        : " Default: " + shown(o, o.default) + ".";
      hint.textContent = o.words + fallback;
      var control;
      if (o.kind === "choice") {
        control = document.createElement("select");
        if (o.default === null) {
          var empty = document.createElement("option");
          empty.value = "";
          empty.textContent = "By seat count (" + (o.empty || "the rules' default") + ")";
          control.appendChild(empty);
        }
        for (var c = 0; c < o.choices.length; c++) {
          var opt = document.createElement("option");
          opt.value = o.choices[c];
          opt.textContent = shown(o, o.choices[c]);
          control.appendChild(opt);
        }
        control.value = o.default === null ? "" : String(o.default);
      } else if (o.kind === "bool") {
        control = document.createElement("input");
        control.type = "checkbox";
        control.checked = !!o.default;
        div.className += " check";
      } else {
        control = document.createElement("input");
        control.type = "number";
        control.inputMode = "numeric";
        if (o.minimum !== null) { control.min = o.minimum; }
        if (o.maximum !== null) { control.max = o.maximum; }
        control.value = o.default === null ? "" : String(o.default);
        if (o.default === null && o.empty) { control.placeholder = o.empty; }
      }
      control.id = id;
      control.name = o.name;  /* the rules file's name for the option (ui.md) */
      control.setAttribute("data-option", o.name);
      control.setAttribute("data-kind", o.kind);
      control.setAttribute("aria-describedby", hint.id);
      if (o.kind === "bool") {
        div.appendChild(control);
        div.appendChild(label);
      } else {
        div.appendChild(label);
        div.appendChild(control);
      }
      div.appendChild(hint);
      optionList.appendChild(div);
    }
  }

  function collectOptions() {
    var out = {};
    var controls = optionList.querySelectorAll("[data-option]");
    for (var i = 0; i < controls.length; i++) {
      var c = controls[i];
      var name = c.getAttribute("data-option");
      var kind = c.getAttribute("data-kind");
      if (kind === "bool") { out[name] = c.checked; continue; }
      if (c.value === "") { continue; }
      if (kind === "int" || name === "fools_per_trick") {
        var n = Number(c.value);
        out[name] = Number.isInteger(n) ? n : c.value;
      } else {
        out[name] = c.value;
      }
    }
    return out;
  }

  function say(text) { alertBox.textContent = text; }

  gameSelect.addEventListener("change", function () { refreshSeats(); refreshOptions(); });
  addSeat.addEventListener("click", function () {
    if (seatInputs().length < game().max_players) { addSeatInput(""); }
    refreshSeats();
    var inputs = seatInputs();
    inputs[inputs.length - 1].focus();
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    say("");
    var found = problems();
    showErrors(found);
    if (found.length) { return; }
    var g = game();
    var body = {game: g.id, players: names(), visibility: form.querySelector("input[name=visibility]:checked").value,
                options: collectOptions()};
    if (starter.value) { body[g.starter_field] = starter.value; }
    var title = document.getElementById("title").value.trim();
    if (title) { body.title = title; }
    var typed = clubKey.value.trim();
    K.startGame(body, typed, function () {
      clubKey.value = "";
      clubKeyField.hidden = false;
      clubKey.focus();
    }).then(function (answer) {
      if (!answer) { return; }  /* started: the table page opens */
      var b = answer.body || {};
      if (b.errors && answer.status === 422) {  /* each field's message at its field, never "players.1" */
        var listed = [];
        for (var key in b.errors) {
          if (!Object.prototype.hasOwnProperty.call(b.errors, key)) { continue; }
          var where = fieldOf(key);
          var said = [].concat(b.errors[key]).map(function (m) { return String(m).trim().replace(/([^.!?])$/, "$1."); }).join(" ");
          listed.push({field: where.field, text: where.words + said});
        }
        if (listed.length) { showErrors(listed); return; }
      }
      say(b.detail || ("The service answered " + answer.status + "."));
    }, function () {
      say("The service cannot be reached. Check the Wi-Fi and press Start game again.");
    });
  });

  /* Where the server has a club key, ask for it once: it is kept on this device afterwards. */
  if (form.getAttribute("data-club-key-required") === "true" && !K.clubKey.get()) { clubKeyField.hidden = false; }

  refreshSeats();
  refreshOptions();
})();
